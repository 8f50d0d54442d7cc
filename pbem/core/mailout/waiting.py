"""Turn mails that wait while their player looks at the match (lichess does the same).

A player on the play page (its live updates polling) or polling the API sees the move arrive;
a "your turn" mail would only fill their inbox (43 mails in one game against the computer).
So `notify._queue` hands a turn mail here first: a seat seen within `notify_away_seconds`
(`core/presence`) gets a `waiting_turn` row instead, due when it will have been away that
long. A newer turn replaces it (one mail however many moves came in between). The worker's
`release_due` then looks again: seen since, the row waits longer; the seat no longer to move
(it moved, the match ended), the row goes with no mail; else one outbox row is written, in
the transaction that deletes the row under its version, so two workers send it once.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from pbem.core.db.connection import write_transaction
from pbem.core.mailout.models import MessageStatus, OutboxMessage, WaitingTurn
from pbem.core.matches.models import Match, Seat
from pbem.core.presence import seen

BATCH = 100


def hold_if_present(match: Match, seat: Seat, params: dict[str, Any] | None,
                    now: datetime) -> bool:
    """Keep the seat's turn mail waiting if its player is looking (True), else False."""
    until = seen.present_until(match.id, seat.seat, now)
    if until is None:
        return False
    replaced = (WaitingTurn.update(ply=match.ply, params=params, due_at=until,
                                   version=WaitingTurn.version + 1)
                .where(WaitingTurn.match == match.id, WaitingTurn.seat == seat.seat).execute())
    if not replaced:
        # No other door transaction writes this seat's row now (the door holds the match);
        # a worker's release deleting it waits for the door or was before it.
        WaitingTurn.insert(match=match.id, seat=seat.seat, ply=match.ply, params=params,
                           due_at=until).execute()
    return True


def release_due(now: datetime) -> int:
    """Send (as outbox rows) the waiting turn mails whose players are away now; return how
    many were queued."""
    queued = 0
    due = list(WaitingTurn.select().where(WaitingTurn.due_at <= now)
               .order_by(WaitingTurn.due_at).limit(BATCH))
    for row in due:
        until = seen.present_until(row.match_id, row.seat, now)
        if until is not None:
            # Looked again since: wait until they have been away that long from then.
            (WaitingTurn.update(due_at=until, version=WaitingTurn.version + 1)
             .where(WaitingTurn.id == row.id, WaitingTurn.version == row.version).execute())
            continue
        with write_transaction():
            claimed = (WaitingTurn.delete()
                       .where(WaitingTurn.id == row.id, WaitingTurn.version == row.version)
                       .execute())
            if claimed == 1 and _queue_now(row, now):
                queued += 1
    return queued


def _queue_now(row: WaitingTurn, now: datetime) -> bool:
    """The waiting mail as an outbox row, if its seat is still to move."""
    match = Match.get_or_none(Match.id == row.match_id)
    if match is None or not match.is_live or row.seat not in (match.to_move or []):
        return False  # moved meanwhile, or the match ended: its mail has nothing to say
    seat = (Seat.select(Seat, Match).join(Match)
            .where(Seat.match == row.match_id, Seat.seat == row.seat).first())
    if seat is None:
        return False
    params = dict(row.params or {})
    if seat.deadline is not None:
        # The deadline as it is now (a clock may have moved while the mail waited).
        params["d"] = int(seat.deadline.replace(tzinfo=UTC).timestamp())
    OutboxMessage.create(match=row.match_id, seat=row.seat, ply=row.ply,
                         to_address=seat.player.email, template="your_turn",
                         params=params or None, status=MessageStatus.PENDING,
                         next_attempt_at=now, created_at=now)
    return True
