"""Render outbox rows into email messages: a template triple per kind, no request context.

`templates/email/<name>/subject.txt`, `body.txt` and `body.html`. The context comes from
`core.mailviews` (the recipient seat's view at the row's ply); this layer adds the links, which
are derived here and never stored. The HTML part draws the board as a table
(`games/<slug>/board_table.html`), since Gmail and Outlook do not show SVG. Every message of a
match to one player threads under that player's welcome email. The outbox sends `outgoing`,
the mail's bytes written by `wire`; `to_email` builds the same mail with the `email` package
for the pages that show one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, datetime
from email.charset import BASE64, Charset
from email.header import Header
from email.message import Message
from email.mime.multipart import MIMEMultipart
from email.mime.text import MIMEText
from email.utils import format_datetime, formataddr, parseaddr
from typing import Any

import jinja2

from pbem import i18n
from pbem.config import Settings
from pbem.core.leagues import replies as league_replies
from pbem.core.mailout import threads, verp
from pbem.core.mailout.contexts import RenderCache, context_for, recipient
from pbem.core.mailout.links import preferences_token, unsubscribe_token
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.mailout.notify import message_key, thread_root_key
from pbem.core.matches.seat_links import token_for
from pbem.games import get_rules
from pbem.i18n import N_
from pbem.mail.addresses import (
    address_for_key,
    reply_address,
    reply_address_for,
    with_reply_hint,
)
from pbem.mail.links import account_links
from pbem.mail.wire import HeaderValue, Outgoing, alternative
from pbem.paths import TEMPLATES
from pbem.templating import Environment, register

_UTF8 = Charset("utf-8")
_UTF8.body_encoding = BASE64
_BODY_TAG = re.compile(r"<body\b[^>]*>", re.IGNORECASE)

# What the inbox line (`_inbox_line.txt`) calls the kinds that have no line of their own: the
# kind's name, capitalized, translated there with `_()`. Listed here for the catalogs.
KIND_NAMES = (
    N_("Aborted"), N_("Draw offer"), N_("Draw declined"), N_("Claim available"),
    N_("Seat link"), N_("Sign in"), N_("Invitation"), N_("Challenge declined"),
    N_("Challenge expired"), N_("Tournament started"), N_("Tournament round"),
    N_("Tournament final"), N_("Tournament cancelled"), N_("Admin queue"),
    # An answer to a reply, by what it answers.
    N_("Moved"), N_("Posted"), N_("Refused"), N_("Help"), N_("Done"), N_("Foreign"),
    N_("Conditional"), N_("Board"), N_("Moves"))


def mail_environment(extra_template_dirs: tuple[str, ...] = ()) -> jinja2.Environment:
    return register(Environment(
        loader=jinja2.FileSystemLoader([str(TEMPLATES), *extra_template_dirs]),
        autoescape=jinja2.select_autoescape(["html"]),
        undefined=jinja2.StrictUndefined,
        keep_trailing_newline=True,
        # Templates do not change while a worker runs: skip the modification-time checks.
        auto_reload=False,
    ))


@dataclass(frozen=True)
class Rendered:
    subject: str
    text: str
    html: str
    unsubscribe_url: str | None
    # The subject is its match's thread subject (`email/_subject.txt`), as almost every mail
    # about a match has: the outbox then keeps no copy of it (see `Composer.thread_subject`).
    in_thread: bool = False


class Composer:
    def __init__(self, settings: Settings, extra_template_dirs: tuple[str, ...] = ()) -> None:
        self.settings = settings
        self.env = mail_environment(extra_template_dirs)
        # The same for every mail: the From header (the envelope's sender names each mail).
        name, self.envelope_from = parseaddr(settings.mail_from)
        # `formataddr` encodes a non-ASCII name (RFC 2047) but refuses a non-ASCII address,
        # which only SMTPUTF8 carries, written as it is (see `wire`).
        self.from_header = (formataddr((name, self.envelope_from), "utf-8")
                            if self.envelope_from.isascii() else settings.mail_from)
        self.mail_domain = settings.mail_domain  # parsed from mail_from on each call

    def render(self, message: OutboxMessage, cache: RenderCache | None = None,
               place: threads.Place | None = None) -> Rendered:
        """The message as it is (or was) sent: rendered afresh from the row each time, in the
        recipient's language and time zone (English and UTC for an address with no player)."""
        cache = cache or RenderCache()
        with _as_recipient_reads(message, cache):
            return self._render(message, cache, place)

    def place(self, message: OutboxMessage, cache: RenderCache, keep: bool = False
              ) -> threads.Place | None:
        """Where a mail about a match sits in its player's thread (`core/mailout/threads`);
        `keep` when it is being sent, so the thread it starts is stored."""
        if message.match_id is None:
            return None
        match = cache.match(message.match_id)
        with _as_recipient_reads(message, cache):
            return threads.place_of(
                message, match, lambda: self.thread_subject(get_rules(match.game).title,
                                                            match.id), keep)

    def _render(self, message: OutboxMessage, cache: RenderCache,
                place: threads.Place | None) -> Rendered:
        context = self.context_for(message, cache)
        if place is not None:
            # Every mail of the thread goes under the subject it started with.
            context["thread_subject"] = place.subject
        folder = f"email/{message.template}"
        # Rendered once as text, then placed (escaped where HTML) first in both parts.
        context["inbox_line"] = " ".join(
            self.env.get_template("email/_inbox_line.txt").render(context).split())
        subject = " ".join(self.env.get_template(f"{folder}/subject.txt")
                           .render(context).split())
        if (competition := league_replies.competition_of(message.params)) is not None:
            # A league's or ladder's mails share its name as their subject (one thread, in
            # any language); what each says goes first in it instead.
            context["inbox_line"], subject = subject, competition[2]
        text, html = with_reply_hint(
            self.env, context, self.reply_to(message, cache),
            self.env.get_template(f"{folder}/body.txt").render(context),
            self.env.get_template(f"{folder}/body.html").render(context))
        if place is not None and place.starts:
            text, html = _first_of_part(self.env, context, place, text, html)
        in_thread = message.match_id is not None and subject == (
            place.subject if place is not None
            else self.thread_subject(context["title"], message.match_id))
        return Rendered(subject, text, html, context.get("unsubscribe_url"), in_thread)

    def recorded_subject(self, message: OutboxMessage, cache: RenderCache | None = None
                         ) -> str | None:
        """The subject a mail went (or goes) under, from its record: as kept, or for a mail
        about a match that kept none, the match's thread subject in the recipient's language.
        None for a mail not yet sent that keeps none (it is written when sent)."""
        if message.subject or message.match_id is None or message.status != MessageStatus.SENT:
            return message.subject
        if (kept := threads.kept_subject(message)) is not None:
            return kept
        cache = cache or RenderCache()
        title = get_rules(cache.match(message.match_id).game).title
        with _as_recipient_reads(message, cache):
            return self.thread_subject(title, message.match_id)

    def thread_subject(self, title: str, match_id: int) -> str:
        """The subject a match's mails share (its players' mail clients thread them under it),
        in the language in force: what a sent mail's record stands for when it keeps none."""
        return " ".join(self.env.get_template("email/_subject.txt")
                        .render(title=title, match=match_id).split())

    def context_for(self, message: OutboxMessage, cache: RenderCache) -> dict[str, Any]:
        context = context_for(message, cache)
        # An answer to a reply says what kind of answer it is ("moved", "refused", …).
        context.setdefault("kind", message.template)
        base = self.settings.base_url
        secret = self.settings.secret_key
        context["base_url"] = base
        if message.match_id is not None:
            context["match_url"] = f"{base}/matches/{message.match_id}"
            context["rules_url"] = f"{base}/games/{context['game']}"
        context.update(account_links(self.settings, message))
        if message.match_id is not None and message.seat is not None:
            seat = cache.seat_rows(cache.match(message.match_id))[message.seat]
            context["play_url"] = f"{base}/play/{token_for(secret, seat)}"
        for item in [*context.get("acts", []), *context.get("chats", [])]:
            seat = cache.seat_rows(cache.match(item["match"]))[item["seat"]]
            item["play_url"] = f"{base}/play/{token_for(secret, seat)}"
        for item in context.get("results", []):
            item["match_url"] = f"{base}/matches/{item['match']}"
        player = recipient(message, cache)
        if player is not None:
            context["preferences_url"] = (
                f"{base}/mail/preferences/{preferences_token(secret, player.id)}")
            context["unsubscribe_url"] = (
                f"{base}/mail/unsubscribe/{unsubscribe_token(secret, player.id)}")
        else:
            context["preferences_url"] = context["unsubscribe_url"] = None
        return context

    def outgoing(self, message: OutboxMessage, now: datetime,
                 cache: RenderCache | None = None) -> Outgoing:
        """The mail as the outbox sends it: its envelope and its bytes (see `wire`)."""
        rendered, headers = self._prepare(message, now, cache or RenderCache(), keep=True)
        # An address that is not ASCII goes as UTF-8 (SMTPUTF8: see `wire`).
        # The envelope's sender names this mail, so a bounce coming back later finds it.
        sender = verp.address_for(self.settings.secret_key, self.settings.bounce_base, message)
        utf8 = not (sender + message.to_address).isascii()
        return Outgoing(sender, message.to_address,
                        alternative(headers, rendered.text, rendered.html, utf8))

    def to_email(self, message: OutboxMessage, now: datetime,
                 cache: RenderCache | None = None) -> Message:
        """The same mail as an `email.message.Message`, for the pages that show a sent mail
        and for tests: built with the `email.mime` classes and the compat32 policy, it
        flattens to the bytes `outgoing` writes, but for the random MIME boundary."""
        rendered, headers = self._prepare(message, now, cache or RenderCache())
        email = MIMEMultipart("alternative")
        for name, value in headers:
            email[name] = value  # type: ignore[assignment]  # compat32 takes a Header too
        # A Charset object (base64 bodies) works where typeshed says str.
        email.attach(MIMEText(rendered.text, "plain", _UTF8))  # type: ignore[arg-type]
        email.attach(MIMEText(rendered.html, "html", _UTF8))  # type: ignore[arg-type]
        return email

    def _prepare(self, message: OutboxMessage, now: datetime, cache: RenderCache,
                 keep: bool = False) -> tuple[Rendered, list[tuple[str, HeaderValue]]]:
        """The rendered bodies and the message's headers, in the order they are written."""
        place = self.place(message, cache, keep)
        rendered = self.render(message, cache, place)
        # The record keeps the subject only where it is not the match's thread subject: one
        # copy a mail (a mail a move) of a line the match gives again.
        message.subject = None if rendered.in_thread else rendered.subject
        headers: list[tuple[str, HeaderValue]] = [
            ("From", self.from_header), ("To", message.to_address),
            ("Subject", _header(rendered.subject)),
            ("Date", format_datetime(now.replace(tzinfo=UTC)))]
        match = cache.match(message.match_id) if message.match_id is not None else None
        headers.append(("Message-ID", self.message_id(message_key(message, match))))
        if match is not None and message.template != "welcome":
            headers += self._thread_headers(message, match, place)
        elif match is None:
            headers += self._competition_headers(message, cache)
        if reply_to := self.reply_to(message, cache):
            headers.append(("Reply-To", reply_to))
        headers += [("Auto-Submitted", "auto-generated"), ("X-Auto-Response-Suppress", "All")]
        if rendered.unsubscribe_url:
            # RFC 8058: a mail client may POST "List-Unsubscribe=One-Click" to this URL.
            headers += [("List-Unsubscribe", f"<{rendered.unsubscribe_url}>"),
                        ("List-Unsubscribe-Post", "List-Unsubscribe=One-Click")]
        # For players' mail filters: the kind ("your_turn", "reminder", "digest", …).
        headers.append(("X-Pbem-Kind", message.template))
        if message.match_id is not None:
            headers.append(("X-Pbem-Match", str(message.match_id)))
        return rendered, headers

    def _thread_headers(self, message: OutboxMessage, match: Any,
                        place: threads.Place | None) -> list[tuple[str, HeaderValue]]:
        """In-Reply-To and References: an answer to a player's reply threads under that
        reply, the rest under the latest mail before it; References names the thread's root
        and its latest mails (a bounded list), so the thread holds whichever a client has."""
        parent = (message.params or {}).get("parent")
        if place is None:
            key = self.message_id(parent or thread_root_key(match, message.seat or 0))
            return [("In-Reply-To", key), ("References", key)]
        chain = [self.message_id(key) for key in (place.root, *place.recent)]
        if parent and not place.starts:  # a new part starts apart from the part before
            chain.append(self.message_id(parent))
        return [("In-Reply-To", chain[-1]), ("References", " ".join(chain))]

    def _competition_headers(self, message: OutboxMessage, cache: RenderCache
                             ) -> list[tuple[str, HeaderValue]]:
        """A league's or ladder's mails to a player answer one root (theirs for it), and an
        answer to their reply also that reply; nothing for other mails to no match."""
        competition = league_replies.competition_of(message.params)
        player = recipient(message, cache) if competition is not None else None
        if competition is None or player is None:
            return []
        chain = [self.message_id(league_replies.thread_root(
            self.settings.secret_key, competition[0], competition[1], player.id))]
        if parent := (message.params or {}).get("parent"):
            chain.append(self.message_id(parent))
        return [("In-Reply-To", chain[-1]), ("References", " ".join(chain))]

    def message_id(self, key: str) -> str:
        # A key of ours gets our domain; a whole id (a player's mail we answer) is kept.
        return key if key.startswith("<") else f"<{key}@{self.mail_domain}>"

    def reply_to(self, message: OutboxMessage, cache: RenderCache | None = None) -> str | None:
        """The seat's reply address (reply by email), if configured and the mail is a seat's;
        a league's or ladder's mail gets the player's address for that competition."""
        if message.match_id is None:
            key = league_replies.key_of(message.params, recipient(message, cache or RenderCache()),
                                        self.settings.secret_key)
            return None if key is None else address_for_key(self.settings, key)
        if message.seat is None:
            return None
        if cache is None:
            return reply_address_for(self.settings, message.match_id, message.seat)
        return reply_address(self.settings,
                             cache.seat_rows(cache.match(message.match_id))[message.seat])


def _as_recipient_reads(message: OutboxMessage, cache: RenderCache) -> Any:
    """The recipient's language and time zone in force (English and UTC for an address with
    no player): what every rendering of their mail is written in."""
    player = recipient(message, cache)
    return i18n.language(player.language if player is not None else None,
                         player.timezone if player is not None else None)


def _first_of_part(env: jinja2.Environment, context: dict[str, Any], place: threads.Place,
                   text: str, html: str) -> tuple[str, str]:
    """The bodies of a new part's first mail, saying first why a new thread starts."""
    said = {**context, "part": place.part + 1, "before": place.before}
    text_note = env.get_template("email/_new_thread.txt").render(said)
    html_note = env.get_template("email/_new_thread.html").render(said)
    found = _BODY_TAG.search(html)
    html = (html[:found.end()] + html_note + html[found.end():]) if found else html_note + html
    return text_note + text, html


def _header(value: str, name: str = "Subject") -> HeaderValue:
    """compat32 writes header strings as given: encode any non-ASCII text (RFC 2047). The
    header's name counts toward its first line's 78 characters."""
    return value if value.isascii() else Header(value, "utf-8", header_name=name)
