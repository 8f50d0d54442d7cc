"""Outbox rows for mails about a player's account rather than a move: sign-in links,
invitations and their answers, re-issued seat links. Like `notify`, nothing here renders or
holds a usable token: the mail layer derives links from the row ids in `params` at send
time (`pbem.mail.links`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.models import Match


def queue(to_address: str, template: str, context: dict[str, Any], now: datetime,
          match: Match | int | None = None, seat: int | None = None) -> OutboxMessage:
    return OutboxMessage.create(
        match=match, seat=seat, to_address=to_address, template=template, params=context,
        status=MessageStatus.PENDING,
        next_attempt_at=now, created_at=now,
    )
