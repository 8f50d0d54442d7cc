"""Recognise a delivery report or a complaint among inbound mail, before it is read as a reply,
and find the mail it is about.

A mail is a report when it came to a bounce address (`bounces+<tag>@…`, the envelope sender
every mail of ours carries: `core/mailout/verp.py`), when it is an RFC 3464 delivery status
notification or an RFC 5965 feedback report (`multipart/report`), or when it comes from a
mail server's robot and GNU Mailman's bounce detectors (`flufl.bounce`) find failed addresses
in it: most servers write their own formats, not only RFC 3464.

The mail it is about is found by the tag of the address it came to, else by a tag or one of
our Message-IDs quoted in it (the returned mail's headers); else only the addresses the
detectors read are known. Whether a failure is permanent or transient is the detectors'
reading (`all_failures`), never a parser of our own.
"""

from __future__ import annotations

import email
import hashlib
import logging
import re
from email.message import Message
from email.utils import getaddresses, parseaddr

from flufl.bounce import all_failures

from pbem.config import Settings
from pbem.core.mailin.bounces import Kind, Report
from pbem.core.mailout import verp
from pbem.core.mailout.models import OutboxMessage

log = logging.getLogger(__name__)

_ROBOT = re.compile(r"^(mailer-daemon|postmaster|mail-daemon|mdaemon)([.+@-]|$)", re.IGNORECASE)
_MESSAGE_ID_LINE = r"^[ \t>]*message-id:[ \t]*<(pbem\.[^<>@\s]{{1,200}})@{domain}>"
# Headers that say where a mail went (the envelope recipient, when the transport names it).
_TO_HEADERS = ("Delivered-To", "X-Original-To", "Envelope-To", "X-Envelope-To", "To")
_TEXT_LIMIT = 256 * 1024


def read_report(raw: bytes, message: Message, settings: Settings, via: str,
                recipient: str | None = None) -> Report | None:
    """The report `message` is, or None when it is no report (a reply, say)."""
    local, _, domain = settings.bounce_base.lower().rpartition("@")
    tagged = _tagged_to(message, recipient, local, domain)
    report_type = message.get_param("report-type", "", header="content-type")
    kinds = {part.get_content_type() for part in message.walk()}
    complaint = (str(report_type).lower() == "feedback-report"
                 or "message/feedback-report" in kinds)
    delivery = (str(report_type).lower() == "delivery-status"
                or "message/delivery-status" in kinds)
    temporary, permanent = _failures(message)
    robot = bool(_ROBOT.match(parseaddr(message.get("From", ""))[1]))
    if not (tagged is not None or complaint or delivery or (robot and temporary | permanent)):
        return None
    mail, found_by = _mail(tagged, message, settings, local, domain)
    kind = (Kind.COMPLAINT if complaint else Kind.PERMANENT if permanent
            else Kind.TRANSIENT if temporary else Kind.UNKNOWN)
    named = sorted(permanent or temporary) or _complainers(message)
    ids = re.findall(r"<([^<>\s]{1,250})>", message.get("Message-ID", ""))
    return Report(
        message_key=hashlib.sha256(ids[0].encode() if ids else raw).hexdigest(), via=via,
        kind=kind, message_id=f"<{ids[0]}>" if ids else None,
        sender=parseaddr(message.get("From", ""))[1].lower() or None,
        outbox_id=mail.id if mail is not None else None, found_by=found_by,
        addresses=tuple(named), status=_status(message, kind))


def _tagged_to(message: Message, recipient: str | None, local: str,
               domain: str) -> str | None:
    """The tag of the bounce address the mail came to ("" for the bare address), or None."""
    values = [recipient or "", *(value for name in _TO_HEADERS
                                 for value in message.get_all(name) or [])]
    for _name, address in getaddresses([str(value) for value in values if value]):
        their_local, _, their_domain = address.strip().lower().rpartition("@")
        if their_domain != domain:
            continue
        if their_local == local:
            return ""
        if their_local.startswith(f"{local}+"):
            return their_local[len(local) + 1:]
    return None


def _mail(tag: str | None, message: Message, settings: Settings, local: str,
          domain: str) -> tuple[OutboxMessage | None, str | None]:
    """The mail the report is about, and how it was found."""
    secret = settings.secret_key
    if tag and (mail := verp.message_for_tag(secret, tag)) is not None:
        return mail, "verp"
    text = _text(message)
    quoted = rf"{re.escape(local)}\+({verp.TAG.pattern})@{re.escape(domain)}"
    for found in re.finditer(quoted, text, re.IGNORECASE):
        if (mail := verp.message_for_tag(secret, found.group(1))) is not None:
            return mail, "verp"
    own = _MESSAGE_ID_LINE.format(domain=re.escape(settings.mail_domain.lower()))
    for found in re.finditer(own, text, re.IGNORECASE | re.MULTILINE):
        if (mail := verp.message_for_key(found.group(1))) is not None:
            return mail, "message-id"
    return None, None


def _failures(message: Message) -> tuple[set[str], set[str]]:
    """The addresses that failed for now and for good, as the detectors read them."""
    try:
        temporary, permanent = all_failures(message)
    except Exception as error:  # a detector tripping on strange mail: no addresses read
        log.warning("bounce detectors could not read a report: %r", error)
        return set(), set()
    return _addresses(temporary), _addresses(permanent)


def _addresses(found: object) -> set[str]:
    decoded = (item.decode("utf-8", "replace") if isinstance(item, bytes) else str(item)
               for item in found)  # type: ignore[attr-defined]
    return {address.strip().strip("<>").lower() for address in decoded if "@" in address}


def _feedback(message: Message) -> Message | None:
    """The machine-readable part of a complaint (RFC 5965's `message/feedback-report`)."""
    for part in message.walk():
        if part.get_content_type() == "message/feedback-report":
            payload = part.get_payload()
            if isinstance(payload, list) and payload and isinstance(payload[0], Message):
                return payload[0]
            if isinstance(payload, str):
                return email.message_from_string(payload.lstrip())
    return None


def _complainers(message: Message) -> list[str]:
    feedback = _feedback(message)
    if feedback is None:
        return []
    named = [address.lower() for _name, address in
             getaddresses([str(v) for v in feedback.get_all("Original-Rcpt-To") or []])]
    return [address for address in named if "@" in address]


def _status(message: Message, kind: str) -> str:
    """A few words for the record: the feedback type of a complaint, the DSN's status."""
    if kind == Kind.COMPLAINT:
        feedback = _feedback(message)
        said = feedback.get("Feedback-Type", "abuse") if feedback is not None else "abuse"
        return f"{str(said).strip().lower()} report"  # "abuse report", as RFC 5965 types it
    found = re.search(r"^status:[ \t]*([245]\.[0-9]{1,3}\.[0-9]{1,3})", _text(message),
                      re.IGNORECASE | re.MULTILINE)
    return f"{kind} ({found.group(1)})" if found else kind


def _text(message: Message) -> str:
    """Every text the report carries (its parts and the returned mail's headers), for the
    tags and Message-IDs quoted in it."""
    pieces: list[str] = []
    for part in message.walk():
        if part.is_multipart():
            continue
        payload = part.get_payload(decode=True)
        if isinstance(payload, bytes):
            pieces.append(payload.decode("utf-8", "replace"))
        elif isinstance(part.get_payload(), str):
            pieces.append(str(part.get_payload()))
        pieces.extend(f"{name}: {value}" for name, value in part.items())
    return "\n".join(pieces)[:_TEXT_LIMIT]
