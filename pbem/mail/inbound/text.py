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
    lines = own_lines(body)
    return lines[0] if lines else None


def conditional_lines(body: str) -> str | None:
    """The player's conditional moves: every line of their own text, after the first, that
    reads `if <their move> then <my answer> …` (`pbem.games.lines`' grammar), joined with
    commas; None if there is none. The first line counts too when it is itself conditional (a
    waiting player replies with conditional moves only). Nothing else below the first line is
    read (a signature, a greeting), so no other text is ever taken for a move."""
    found = [line for line in own_lines(body) if is_conditional_text(line)]
    return ", ".join(found)[:MAX_CONDITIONAL] if found else None


MAX_CONDITIONAL = 4000


def own_lines(body: str) -> list[str]:
    """The non-empty lines the player wrote, quotes and quote headers left out."""
    body = _INVISIBLE.sub("", body[:MAX_TEXT]).replace("\xa0", " ").replace("\r\n", "\n")
    body = _WRAPPED_ATTRIBUTION.sub(lambda m: m.group(0).replace("\n", " "), body)
    # Attribution lines go first: what follows them is `>`-quoted, and skipped line by line
    # below, so a bottom-posted move after the quote is still found.
    body = _ATTRIBUTION.sub("", body).strip()
    replies = _PARSER.read(body).replies
    # What remains for the parser are quote headers such as Outlook's "From: … Sent: …" block
    # or "-----Original Message-----", below which the quoted mail is not marked with `>`:
    # only the text above the first one is the player's. Its signature patterns are not used:
    # they would eat moves (Danish "Tak" matches "take 2"; a quoted "--" swallows what
    # follows), and only the first line is read, so a signature below it never matters.
    own = replies[0].full_body if replies and not replies[0].headers else ""
    kept = []
    for line in own.splitlines():
        line = line.strip()
        if not line or line.startswith(">"):
            continue
        line = line.strip("`*_ ").strip()
        if line:
            kept.append(line)
    return kept


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
