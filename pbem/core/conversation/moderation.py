"""Reports: a reader reports a message they can read, and the admin console reads the open
ones with the messages around each. What an admin does about one (hide the message, bar its
writer, dismiss the report) is `admin/chat.py`'s, audited there."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from pbem.core.accounts.models import Player
from pbem.core.conversation.models import ChatMessage, ChatReport, Room
from pbem.core.db.connection import write_transaction
from pbem.core.db.retry import retrying
from pbem.core.matches.models import Seat
from pbem.errors import NotFoundError
from pbem.i18n import _

MAX_REASON = 300
CONTEXT = 5  # messages shown before and after the reported one


@dataclass(frozen=True)
class ReportView:
    report: ChatReport
    message: ChatMessage
    context: list[ChatMessage]  # the room around the message, oldest first, hidden ones too


def report(message_id: int, reporter: Player, reason: str, now: datetime,
           seat: Seat | None = None) -> ChatReport:
    """`reporter` reports a message they can read: through their `seat` for the players'
    room, as a signed-in watcher for the spectators' room. Reporting twice is one report."""
    message = ChatMessage.get_or_none(ChatMessage.id == message_id)
    if message is None:
        raise NotFoundError(_("That message is gone."))
    if message.room == Room.PLAYERS and (seat is None or seat.match_id != message.match_id):
        raise NotFoundError(_("That message is gone."))  # not one this reader can see
    reason = " ".join((reason or "").split())[:MAX_REASON] or "(no reason given)"
    def insert() -> None:
        with write_transaction():
            ChatReport.insert(message=message.id, reporter=reporter.id, reason=reason,
                              created_at=now).on_conflict_ignore().execute()

    retrying(insert)
    return ChatReport.get(ChatReport.message == message.id, ChatReport.reporter == reporter.id)


def open_reports(limit: int = 100) -> list[ChatReport]:
    return list(ChatReport.select(ChatReport, ChatMessage).join(ChatMessage)
                .where(ChatReport.resolved_at.is_null())
                .order_by(ChatReport.id).limit(limit))


def open_report_count() -> int:
    return ChatReport.select().where(ChatReport.resolved_at.is_null()).count()


def report_view(report_id: int) -> ReportView:
    found = ChatReport.get_or_none(ChatReport.id == report_id)
    if found is None:
        raise NotFoundError(_("There is no report %(id)s.", id=report_id))
    message = ChatMessage.get_by_id(found.message_id)
    room = (ChatMessage.select(ChatMessage, Player).join(Player)
            .where(ChatMessage.match == message.match_id, ChatMessage.room == message.room))
    before = list(room.where(ChatMessage.id < message.id)
                  .order_by(ChatMessage.id.desc()).limit(CONTEXT))
    after = list(room.where(ChatMessage.id > message.id)
                 .order_by(ChatMessage.id).limit(CONTEXT))
    return ReportView(found, message, [*reversed(before), message, *after])
