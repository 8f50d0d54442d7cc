"""Read one raw RFC 5322 message: headers, whether a machine sent it, and the player's text.

Mail from the wild is malformed in every way, so everything here is forgiving: the stdlib's
`compat32` parser (it never raises on bad headers), any charset and transfer encoding with
replacement characters for what cannot be decoded, and an HTML body turned into text when
there is no text part.
"""

from __future__ import annotations

import email
import hashlib
import re
from dataclasses import dataclass
from email.header import decode_header, make_header
from email.message import Message
from email.policy import compat32
from email.utils import parseaddr

from pbem.mail.inbound.text import conditional_lines, first_line, html_to_text, own_text

MAX_BYTES = 1024 * 1024
# A reply is a text part, perhaps with its HTML twin and a signature or an attachment or two.
# Parsing a multipart nested a thousand deep takes seconds and ends in a RecursionError, so the
# structure is counted in the raw bytes first, and a message past these is refused unread.
MAX_MULTIPARTS = 20
MAX_PARTS = 200
_MULTIPART = re.compile(rb"(?im)^content-type:[ \t]*multipart/")
_PART = re.compile(rb"(?im)^content-type:")


class MalformedMail(ValueError):
    """The message's structure is beyond what a reply could be."""
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_MESSAGE_ID = re.compile(r"<([^<>\s]{1,250})>")
# Headers that may carry the address the mail was sent to, most reliable first.
RECIPIENT_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To", "To", "Cc")
_AUTOMATIC_SENDERS = re.compile(r"^(mailer-daemon|postmaster|noreply|no-reply|do-not-reply)"
                                r"([.+@-]|$)", re.IGNORECASE)
_VACATION_SUBJECT = re.compile(
    r"^\s*(auto(matic)?[ -]?(reply|response|antwort)|auto:|out of (the )?office|"
    r"abwesenheit|réponse automatique|absence|respuesta automática|vacation|"
    r"away from)", re.IGNORECASE)


@dataclass(frozen=True)
class Reading:
    message_key: str
    message_id: str | None
    sender: str | None
    subject: str
    recipients: tuple[str, ...]
    references: tuple[str, ...]  # message ids without <>, the direct parent first
    automatic: str | None
    first_line: str | None
    conditional: str | None = None  # the player's `if … then …` lines (text.py)
    own_text: str | None = None  # all the player wrote (signature out): chat after the move


def oversized(raw: bytes) -> bool:
    return len(raw) > MAX_BYTES


def parse(raw: bytes) -> Message:
    """The message, parsed once its structure is known to be within what a reply (or a
    report about a mail) could be; MalformedMail if not."""
    if len(_MULTIPART.findall(raw)) > MAX_MULTIPARTS:
        raise MalformedMail(f"more than {MAX_MULTIPARTS} nested or sibling multiparts")
    if len(_PART.findall(raw)) > MAX_PARTS:
        raise MalformedMail(f"more than {MAX_PARTS} parts")
    return email.message_from_bytes(raw, policy=compat32)


def read(raw: bytes, message: Message | None = None) -> Reading:
    """What a reply says; `message`: the message already parsed (`parse`)."""
    if message is None:
        message = parse(raw)
    message_id = _ids(_header(message, "Message-ID"))
    key_source = message_id[0].encode() if message_id else raw
    return Reading(
        message_key=hashlib.sha256(key_source).hexdigest(),
        message_id=f"<{message_id[0]}>" if message_id else None,
        sender=_address(_header(message, "From")),
        subject=_header(message, "Subject"),
        recipients=tuple(value for name in RECIPIENT_HEADERS
                         for value in _all_headers(message, name)),
        references=_parents(message),
        automatic=_automatic(message),
        first_line=first_line(body := _body(message)),
        conditional=conditional_lines(body),
        own_text=own_text(body, _names(_header(message, "From"))),
    )


def _names(from_header: str) -> tuple[str, ...]:
    """How the writer may sign: their display name and their address's local part."""
    name, address = parseaddr(from_header)
    return tuple(part for part in (name.strip().strip('"'), address.split("@")[0]) if part)


def _parents(message: Message) -> tuple[str, ...]:
    direct = _ids(_header(message, "In-Reply-To"))
    chain = list(reversed(_ids(_header(message, "References"))))
    seen: dict[str, None] = dict.fromkeys(direct + chain)
    return tuple(seen)


def _automatic(message: Message) -> str | None:
    """Why the message looks sent by a machine (RFC 3834 and common practice), or None."""
    auto = _header(message, "Auto-Submitted").split(";", 1)[0].strip().lower()
    if auto and auto != "no":
        return f"Auto-Submitted: {auto}"
    precedence = _header(message, "Precedence").strip().lower()
    if precedence in ("bulk", "junk", "list", "auto_reply"):
        return f"Precedence: {precedence}"
    if "Return-Path" in message and _header(message, "Return-Path").strip() in ("", "<>"):
        return "empty Return-Path (a bounce)"
    sender = _address(_header(message, "From")) or ""
    if _AUTOMATIC_SENDERS.match(sender):
        return f"sent by {sender}"
    for name in ("X-Autoreply", "X-Autorespond", "X-Auto-Reply", "X-Vacation"):
        if name in message:
            return f"{name} header"
    if "List-Id" in message or "List-Unsubscribe" in message:
        return "mailing-list mail"
    if message.get_content_type() == "multipart/report":
        return "a delivery report"
    if _VACATION_SUBJECT.match(_header(message, "Subject")):
        return "a vacation or out-of-office reply"
    return None


def _body(message: Message) -> str:
    """The text part, else the HTML part as text; attachments are never read."""
    html: str | None = None
    for part in message.walk():
        if part.is_multipart() or part.get_content_disposition() == "attachment":
            continue
        kind = part.get_content_type()
        if kind == "text/plain":
            return _decoded(part)
        if kind == "text/html" and html is None:
            html = _decoded(part)
    return html_to_text(html) if html is not None else ""


def _decoded(part: Message) -> str:
    payload = part.get_payload(decode=True)
    if not isinstance(payload, bytes):
        return ""
    charset = part.get_content_charset() or "utf-8"
    try:
        return payload.decode(charset, errors="replace")
    except (LookupError, ValueError):
        # An unknown charset name: UTF-8 if it fits, else Latin-1 (which decodes anything).
        try:
            return payload.decode("utf-8")
        except UnicodeDecodeError:
            return payload.decode("latin-1")


def _header(message: Message, name: str) -> str:
    values = _all_headers(message, name)
    return values[0] if values else ""


def _all_headers(message: Message, name: str) -> list[str]:
    found = []
    for value in message.get_all(name) or []:
        try:
            text = str(make_header(decode_header(str(value))))
        except Exception:  # any malformed encoded-word: keep the raw text
            text = str(value)
        found.append(" ".join(_CONTROL.sub("", text).split()))
    return found


def _address(value: str) -> str | None:
    address = parseaddr(value)[1].strip().lower()
    return address if "@" in address else None


def _ids(value: str) -> list[str]:
    return _MESSAGE_ID.findall(value)
