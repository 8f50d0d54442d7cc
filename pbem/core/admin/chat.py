"""What an admin does about the chat: hide a reported message, bar its writer from every chat,
dismiss a report, bar or free a player from their page. Each writes its audit row in the same
transaction, and a form posted twice acts once (`action_key`). Reports themselves are
`conversation/moderation.py`'s."""

from __future__ import annotations

from datetime import datetime

from pbem.core.accounts.models import Player
from pbem.core.admin import audit
from pbem.core.admin.players import find_player
from pbem.core.conversation.models import ChatMessage, ChatReport
from pbem.errors import ConflictError, InvalidRequestError, NotFoundError
from pbem.i18n import _


def hide(report_id: int, actor: str, reason: str, now: datetime,
         action_key: str | None = None) -> ChatMessage:
    """Hide the reported message from everyone (pages, API, mails not yet sent); every open
    report of it is resolved with it."""
    with audit.fresh_action(action_key):
        found, message = _hide_reported(report_id, actor, now)
        _resolve(ChatReport.message == message.id, actor, "hidden", now)
        audit.record(actor, "chat-hide", now, _reason(reason), message.match_id,
                     {"message": message.id, "report": found.id,
                      "author": message.author_id}, action_key)
    return message


def bar(report_id: int, actor: str, reason: str, now: datetime,
        action_key: str | None = None) -> Player:
    """Bar the reported message's writer from every chat (they still play); the message is
    hidden too."""
    with audit.fresh_action(action_key):
        found, message = _hide_reported(report_id, actor, now)
        Player.update(chat_barred_at=now).where(Player.id == message.author_id,
                                                Player.chat_barred_at.is_null()).execute()
        _resolve(ChatReport.message == message.id, actor, "barred", now)
        audit.record(actor, "chat-bar", now, _reason(reason), message.match_id,
                     {"player": message.author_id, "message": message.id,
                      "report": found.id}, action_key)
    return Player.get_by_id(message.author_id)


def dismiss(report_id: int, actor: str, reason: str, now: datetime,
            action_key: str | None = None) -> None:
    with audit.fresh_action(action_key):
        found = _open(report_id)
        _resolve(ChatReport.id == found.id, actor, "dismissed", now)
        audit.record(actor, "chat-report-dismiss", now, _reason(reason), None,
                     {"report": found.id, "message": found.message_id}, action_key)


def set_barred(player_id: int, barred: bool, actor: str, reason: str, now: datetime,
               action_key: str | None = None) -> None:
    """Bar or lift the bar from the player's page in the console."""
    with audit.fresh_action(action_key):
        player = find_player(player_id)
        if (player.chat_barred_at is not None) == barred:
            raise ConflictError(_("The player is already barred from the chat.") if barred
                                else _("The player is already free to write in the chat."))
        Player.update(chat_barred_at=now if barred else None).where(
            Player.id == player.id).execute()
        audit.record(actor, "chat-bar" if barred else "chat-unbar", now, _reason(reason),
                     None, {"player": player.id}, action_key)


def _hide_reported(report_id: int, actor: str, now: datetime) -> tuple[ChatReport, ChatMessage]:
    """The open report and its message, hidden from everyone (if it was not already)."""
    found = _open(report_id)
    message = ChatMessage.get_by_id(found.message_id)
    if message.hidden_at is None:
        ChatMessage.update(hidden_at=now, hidden_by=actor).where(
            ChatMessage.id == message.id).execute()
    return found, message


def _open(report_id: int) -> ChatReport:
    found = ChatReport.get_or_none(ChatReport.id == report_id)
    if found is None:
        raise NotFoundError(_("There is no report %(id)s.", id=report_id))
    if found.resolved_at is not None:
        raise ConflictError(_("That report was already dealt with (%(how)s).",
                                      how=found.resolution))
    return found


def _resolve(which: object, actor: str, resolution: str, now: datetime) -> None:
    ChatReport.update(resolved_at=now, resolved_by=actor, resolution=resolution).where(
        which, ChatReport.resolved_at.is_null()).execute()


def _reason(reason: str) -> str:
    reason = " ".join((reason or "").split())
    if not reason:
        raise InvalidRequestError(_("Give a reason: it goes into the audit log."))
    return reason[:500]
