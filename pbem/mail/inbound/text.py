"""From a decoded body to the player's own first line: HTML to text, quotes and signatures out.

Mail clients quote the mail they answer in many ways: `>` lines, "On … wrote:" or "Le … a
écrit :" lines, Outlook's "From: … Sent: …" block, HTML blockquotes and Gmail's quote divs, and
add "Sent from my iPhone". `mail-parser-reply` knows the text forms in many languages; the HTML
forms are dropped while converting to text, since their markup says what is quoted.
"""

from __future__ import annotations

import re
from html.parser import HTMLParser

from mailparser_reply import EmailReplyParser
from mailparser_reply.constants import MAIL_LANGUAGES

from pbem.games.lines import is_conditional_text

# Enough for any reply a player writes above or below the quoted mail; the rest is never read
# (and the parser's expressions should not meet megabytes).
MAX_TEXT = 30_000
LANGUAGES = [code for code in MAIL_LANGUAGES if len(code) == 2]
_PARSER = EmailReplyParser(languages=LANGUAGES)
# Zero-width characters clients sprinkle in, and control characters (a NUL cannot even be
# stored in PostgreSQL).
_INVISIBLE = re.compile(r"[\u200b\u200c\u200d\u2060\ufeff\u00ad\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
# The line that introduces a quote: "On … wrote:", "Am … schrieb …:", "Le … a écrit :" and the
# like, possibly itself quoted (Apple Mail) or wrapped over two lines (Gmail).
_ATTRIBUTION = re.compile(
    r"^[> \t]*(On|Am|Le|El|Il|Op|Den|Dne|W dniu|Em|Em \w+,)\s[^\n]{0,300}?"
    r"(wrote|schrieb|a écrit|escribió|ha scritto|schreef|skrev|napsal|napisał|escreveu)"
    r"[^\n]{0,120}:[ \t]*$", re.MULTILINE | re.IGNORECASE)
_WRAPPED_ATTRIBUTION = re.compile(
    r"^[> \t]*(On|Am|Le|El|Il|Op)\s[^\n]{0,300}\n[^\n]{0,300}(wrote|schrieb|écrit|escribió|"
    r"scritto|geschreven)[^\n]{0,120}:[ \t]*$", re.MULTILINE | re.IGNORECASE)


def first_line(body: str) -> str | None:
    """The first non-empty line the player wrote, or None if they wrote nothing of their own."""
    for line in _own(body).splitlines():
        line = line.strip()
        if not line or line.startswith(">") or line == _QUOTE_MARK:
            continue
        return line.strip("`*_ ").strip() or None
    return None



def conditional_lines(body: str) -> str | None:
    """The player's conditional moves: every line of their own text that reads
    `if <their move> then <my answer> …` (`pbem.games.lines`' grammar), joined with commas;
    None if there is none. The first line counts too when it is itself conditional (a waiting
    player replies with conditional moves only). Nothing else is read as a move (a signature,
    a greeting), and these lines are never chat text (see `own_text`)."""
    found = [line for line in own_lines(body) if is_conditional_text(line)]
    return ", ".join(found)[:MAX_CONDITIONAL] if found else None


MAX_CONDITIONAL = 4000


def own_lines(body: str) -> list[str]:
    """The non-empty lines the player wrote, quotes and quote headers left out."""
    kept = []
    for line in _own(body).splitlines():
        line = line.strip()
        if not line or line.startswith(">") or line == _QUOTE_MARK:
            continue
        line = line.strip("`*_ ").strip()
        if line:
            kept.append(line)
    return kept

# Where a signature starts: the "-- " separator (often sent as "--") and the lines clients add
# under what the player wrote. Only used for the chat text, never for the first line (a move).
_SIGNATURE = re.compile(
    r"^(--\s*|__+|-{3,}[^-]{0,60}-{3,}|sent from my .*|sent from (mail|outlook|yahoo mail|gmail)"
    r".*|get outlook for .*|envoyé de mon .*|envoyé depuis .*|von meinem .* gesendet.*|"
    r"gesendet von .*|enviado desde .*|inviato da .*)$", re.IGNORECASE)
# A sign-off line ("Regards,", "Cheers, Ben", "Mit freundlichen Grüßen"): it and what follows
# are the signature, not a message. At most two words may follow it (a name), so "Thanks for
# the game!" stays a message.
_CLOSING = re.compile(
    r"^((kind|best|warm|many|with)\s+)?(regards|wishes|thanks|cheers|best|ciao|bye|"
    r"cordialement|bien à (toi|vous)|bonne (journée|soirée)|amitiés|à bientôt|(liebe |viele )?"
    r"grüße|gruß|mit freundlichen grüßen|lg|vg|mfg|saludos|un saludo|un saluto|saluti|"
    r"groeten|hälsningar|mvh|cumprimentos|abraços)[,.!]*(\s+[\w'-]+){0,2}[,.!]?$", re.IGNORECASE)
# Put where an attribution line was ("On … wrote:"): in a top-posted reply all below it is the
# quoted mail, even when the client did not mark it with `>` (Yahoo indents it).
_QUOTE_MARK = "\x00quote\x00"
MAX_OWN_TEXT = 4000


def own_text(body: str, names: tuple[str, ...] = ()) -> str | None:
    """Everything the player wrote themselves, without the quoted mail (as for the first line)
    and without their signature: from a "-- " line, a client's "Sent from my …", a sign-off
    ("Regards,") or a last line that is only the writer's name (`names`, from the From
    header). None if they wrote nothing. The first line is included: the caller decides
    whether it was a move."""
    kept: list[str] = []
    for line in _own(body, marked=True).splitlines():
        bare = line.strip()
        if bare == _QUOTE_MARK:
            if any(kept):
                break  # top-posted: the rest is the mail answered
            continue
        if bare.startswith(">"):
            continue
        if kept and (_SIGNATURE.match(bare) or _CLOSING.match(bare)):
            break
        if is_conditional_text(bare.strip("`*_ ")):
            continue  # conditional moves: for the writer alone, never posted to the chat
        if bare or kept:
            kept.append(line.rstrip())
    while kept and (not kept[-1].strip() or _is_name(kept[-1], names)) and len(kept) > 1:
        kept.pop()
    text = "\n".join(kept).strip()
    return text[:MAX_OWN_TEXT] or None


def _is_name(line: str, names: tuple[str, ...]) -> bool:
    bare = line.strip(" ,.-").casefold()
    return bool(bare) and any(bare == name.casefold() or bare == name.casefold().split()[0]
                              for name in names if name.strip())


def _own(body: str, marked: bool = False) -> str:
    """The player's own part of a body: quote headers, attributions and what follows them out
    (the `>` lines are left for the callers to skip). `marked`: an attribution leaves a mark
    line instead of nothing."""
    body = _INVISIBLE.sub("", body[:MAX_TEXT]).replace("\xa0", " ").replace("\r\n", "\n")
    body = _WRAPPED_ATTRIBUTION.sub(lambda m: m.group(0).replace("\n", " "), body)
    # Attribution lines go first: what follows them is `>`-quoted, and skipped line by line
    # below, so a bottom-posted move after the quote is still found.
    body = _ATTRIBUTION.sub(_QUOTE_MARK if marked else "", body).strip()
    replies = _PARSER.read(body).replies
    # What remains for the parser are quote headers such as Outlook's "From: … Sent: …" block
    # or "-----Original Message-----", below which the quoted mail is not marked with `>`:
    # only the text above the first one is the player's. Its signature patterns are not used:
    # they would eat moves (Danish "Tak" matches "take 2"; a quoted "--" swallows what
    # follows), and only the first line is read, so a signature below it never matters.
    return replies[0].full_body if replies and not replies[0].headers else ""


def html_to_text(html: str) -> str:
    """Visible text of an HTML body, one line per block, without the quoted parts."""
    reader = _TextReader()
    reader.feed(html[: MAX_TEXT * 4])
    reader.close()
    return reader.text()


# Containers whose whole content is the quoted mail (Gmail, Yahoo, Thunderbird, Apple Mail).
_QUOTE_CLASSES = frozenset({"gmail_quote", "yahoo_quoted", "moz-cite-prefix", "gmail_attr"})
# Markers after which everything is the quoted mail (Outlook desktop and web).
_CUT_IDS = frozenset({"appendonsend", "divrplyfwdmsg", "stopspelling",
                      "mail-editor-reference-message-container"})
_BLOCKS = frozenset({"p", "div", "br", "li", "tr", "h1", "h2", "h3", "h4", "h5", "h6", "pre",
                     "table", "ul", "ol", "hr", "blockquote", "section", "article"})
_HIDDEN = frozenset({"script", "style", "head", "title", "template"})
_VOID = frozenset({"br", "hr", "img", "meta", "link", "input", "col", "area", "base", "wbr"})


class _TextReader(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.stack: list[tuple[str, bool]] = []  # (tag, starts a skipped region)
        self.skipping = 0
        self.cut = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self.cut:
            return
        values = {name.lower(): (value or "") for name, value in attrs}
        classes = set(values.get("class", "").lower().split())
        if values.get("id", "").lower() in _CUT_IDS:
            self.cut = True
            return
        if tag in _BLOCKS:
            self.parts.append("\n")
        if tag in _VOID:
            return
        skip = (tag in _HIDDEN or tag == "blockquote" or bool(classes & _QUOTE_CLASSES))
        self.stack.append((tag, skip))
        self.skipping += skip

    def handle_endtag(self, tag: str) -> None:
        if self.cut or tag in _VOID:
            return
        # Close up to the matching open tag; unclosed inner tags (sloppy HTML) close with it.
        for depth in range(len(self.stack) - 1, -1, -1):
            if self.stack[depth][0] == tag:
                for _, skip in self.stack[depth:]:
                    self.skipping -= skip
                del self.stack[depth:]
                break
        if tag in _BLOCKS:
            self.parts.append("\n")

    def handle_data(self, data: str) -> None:
        if not self.cut and not self.skipping:
            self.parts.append(re.sub(r"\s+", " ", data))

    def text(self) -> str:
        lines = (line.strip() for line in "".join(self.parts).split("\n"))
        return "\n".join(lines)
