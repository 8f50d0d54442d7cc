"""The envelope sender that brings a bounce back (VERP): `bounces+<tag>@domain`, where the tag
names one outbox row and carries a MAC, so a report arriving hours later is tied to the mail
it is about, and nobody can make pbem take a forged report for one of its mails.

The tag is `o<row id>-<MAC>`: lower case letters and digits only, since mail servers may
change the case of a local part. The MAC covers the row's id and the second it was written,
so a tag stays valid as long as the row is kept, and a database restored over another never
takes one database's tag for the other's mail.
"""

from __future__ import annotations

import base64
import hmac
import re

from pbem.core.mailout.models import OutboxMessage
from pbem.core.mailout.notify import message_key, outbox_id
from pbem.core.matches.models import Match
from pbem.keys import Purpose, purpose_key

MAC_CHARS = 20  # 100 bits of base32
TAG = re.compile(rf"o([0-9]{{1,15}})-([a-z2-7]{{{MAC_CHARS}}})")


def tag_for(secret_key: str, message: OutboxMessage) -> str:
    return f"o{message.id}-{_mac(secret_key, message)}"


def address_for(secret_key: str, base: str, message: OutboxMessage) -> str:
    """`base` (`bounces@domain`) with the mail's tag after a `+`."""
    local, _, domain = base.rpartition("@")
    return f"{local}+{tag_for(secret_key, message)}@{domain}"


def message_for_tag(secret_key: str, tag: str) -> OutboxMessage | None:
    """The outbox row a tag names, or None for a malformed or forged tag (or a row gone)."""
    found = TAG.fullmatch(tag.strip().lower())
    if found is None:
        return None
    message = OutboxMessage.get_or_none(OutboxMessage.id == int(found.group(1)))
    if message is None or not hmac.compare_digest(_mac(secret_key, message), found.group(2)):
        return None
    return message


def _mac(secret_key: str, message: OutboxMessage) -> str:
    signed = f"pbem-bounce:{message.id}:{message.created_at:%Y%m%d%H%M%S}".encode()
    digest = hmac.digest(purpose_key(secret_key, Purpose.BOUNCE), signed, "sha256")
    return base64.b32encode(digest).decode().lower()[:MAC_CHARS]


def message_for_key(key: str) -> OutboxMessage | None:
    """The outbox row a Message-ID's local part of ours names (as a report quotes the mail it
    is about), or None: checked against the row and its match, so only an id pbem wrote
    finds its mail. A thread's root names the seat's welcome mail."""
    key = key.strip().lower()
    row_id = outbox_id(key)
    if row_id is not None:
        message = OutboxMessage.get_or_none(OutboxMessage.id == row_id)
    else:
        found = _ROOT.fullmatch(key)
        message = None if found is None else (
            OutboxMessage.select().where(OutboxMessage.match == int(found.group(1)),
                                         OutboxMessage.seat == int(found.group(2)),
                                         OutboxMessage.template == "welcome").first())
    if message is None:
        return None
    match = Match.get_or_none(Match.id == message.match_id) if message.match_id else None
    return message if message_key(message, match).lower() == key else None


_ROOT = re.compile(r"pbem\.[0-9a-z_-]+\.m([0-9]{1,15})\.s([0-9]{1,2})")
