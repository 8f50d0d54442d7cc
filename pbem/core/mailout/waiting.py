"""Turn mails that wait while their player looks at the match (lichess does the same), and
turn mails that wait for a push to be opened.

A player on the play page (its live updates polling) or polling the API sees the move arrive;
a "your turn" mail would only fill their inbox (43 mails in one game against the computer).
So `notify._queue` hands a mail here first (`route`): a seat seen within
`notify_away_seconds` (`core/presence`) gets a `waiting_turn` row instead (reason `present`),
due when it will have been away that long. A newer turn replaces it (one mail however many
moves came in between). The worker's `release_due` then looks again: seen since, the row
waits longer; the seat no longer to move (it moved, the match ended), the row goes with no
mail; else the turn is told by the player's channel (`core/push/channels.py`), in the
transaction that deletes the row under its version, so two workers tell it once.

A player who chose push *and* mail gets the push at once and the mail held (reason `pushed`):
if they open the match within `notify_away_seconds`, the push did its work and the mail is
dropped; if not, it goes.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared
from pbem.core.mailout.models import MessageStatus, OutboxMessage, WaitingTurn
from pbem.core.matches.models import Match, Seat
from pbem.core.presence import seen
from pbem.core.presence.models import Presence
from pbem.core.push.channels import BOTH, MAIL, PUSH, channel_for
from pbem.core.push.models import PushSubscription
from pbem.core.push.queue import queue_push

BATCH = 100
PRESENT, PUSHED = "present", "pushed"


def route(match: Match, seat: Seat, template: str, params: dict[str, Any] | None,
          now: datetime) -> bool:
    """Tell `template` by push, hold it, or both; True when no mail row is to be added now."""
    looked, subscribed = _looked_and_subscribed(match.id, seat.seat, seat.player_id)
    if template == "your_turn":
        until = seen.away_at(looked, now)
        if until is not None:
            _hold(match.id, seat.seat, match.ply, params, until, PRESENT, now)
            return True
    channel = channel_for(seat.player_id, template, subscribed)
    if channel == MAIL:
        return False
    queue_push(seat.player_id, template, match.id, seat.seat, match.ply, now)
    if channel == PUSH:
        return True
    if channel == BOTH and template == "your_turn":
        _hold(match.id, seat.seat, match.ply, params, now + seen.away(), PUSHED, now)
        return True
    return False


def release_due(now: datetime) -> int:
    """Tell the waiting turns that are due (see the module's text); how many were told."""
    told = 0
    due = list(WaitingTurn.select().where(WaitingTurn.due_at <= now)
               .order_by(WaitingTurn.due_at).limit(BATCH))
    for row in due:
        if row.reason == PRESENT:
            until = seen.present_until(row.match_id, row.seat, now)
            if until is not None:
                # Looked again since: wait until they have been away that long from then.
                (WaitingTurn.update(due_at=until, version=WaitingTurn.version + 1)
                 .where(WaitingTurn.id == row.id, WaitingTurn.version == row.version)
                 .execute())
                continue
        with write_transaction():
            claimed = (WaitingTurn.delete()
                       .where(WaitingTurn.id == row.id, WaitingTurn.version == row.version)
                       .execute())
            if claimed == 1 and _tell(row, now):
                told += 1
    return told


def _looked_and_subscribed(match_id: int, seat: int, player_id: int
                           ) -> tuple[datetime | None, bool]:
    """When the seat last looked at the match, and whether its player has a browser that
    takes pushes: asked of every turn, reminder and result mail, inside the door's
    transaction, so both in one statement (one wait on a database server, not two)."""
    row = _FACTS.first(match_id, seat, player_id)
    looked, subscription = row if row else (None, None)
    return Presence.seen_at.python_value(looked), subscription is not None


_FACTS = Prepared(lambda match_id, seat, player_id: Match.select(
    Presence.select(Presence.seen_at)
    .where(Presence.match == match_id, Presence.seat == seat).alias("looked"),
    PushSubscription.select(PushSubscription.id)
    .where(PushSubscription.player == player_id).limit(1).alias("subscribed"))
    .where(Match.id == match_id).tuples())


def _hold(match_id: int, seat: int, ply: int, params: dict[str, Any] | None,
          due: datetime, reason: str, now: datetime) -> None:
    replaced = (WaitingTurn.update(ply=ply, params=params, due_at=due, reason=reason,
                                   held_at=now, version=WaitingTurn.version + 1)
                .where(WaitingTurn.match == match_id, WaitingTurn.seat == seat).execute())
    if not replaced:
        # No other door transaction writes this seat's row now (the door holds the match);
        # a worker's release deleting it waits for the door or was before it.
        WaitingTurn.insert(match=match_id, seat=seat, ply=ply, params=params, due_at=due,
                           reason=reason, held_at=now).execute()


def _tell(row: WaitingTurn, now: datetime) -> bool:
    """The waiting turn, told now if its seat is still to move."""
    match = Match.get_or_none(Match.id == row.match_id)
    if match is None or not match.is_live or row.seat not in (match.to_move or []):
        return False  # moved meanwhile, or the match ended: its mail has nothing to say
    seat = (Seat.select(Seat, Match).join(Match)
            .where(Seat.match == row.match_id, Seat.seat == row.seat).first())
    if seat is None:
        return False
    if row.reason == PUSHED:
        looked = seen.last_seen(row.match_id, row.seat)
        if looked is not None and looked >= row.held_at:
            return False  # the push was opened: the mail has nothing more to say
    else:
        channel = channel_for(seat.player_id, "your_turn")
        if channel != MAIL:
            queue_push(seat.player_id, "your_turn", row.match_id, row.seat, row.ply, now)
        if channel == PUSH:
            return True
        if channel == BOTH:
            _hold(row.match_id, row.seat, row.ply, row.params, now + seen.away(), PUSHED, now)
            return True
    params = dict(row.params or {})
    if seat.deadline is not None:
        # The deadline as it is now (a clock may have moved while the mail waited).
        params["d"] = int(seat.deadline.replace(tzinfo=UTC).timestamp())
    OutboxMessage.create(match=row.match_id, seat=row.seat, ply=row.ply,
                         to_address=seat.player.email, template="your_turn",
                         params=params or None, status=MessageStatus.PENDING,
                         next_attempt_at=now, created_at=now)
    return True
