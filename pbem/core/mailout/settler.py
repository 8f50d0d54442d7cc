"""The mail settler: what a change told (`changes.Told`) becomes outbox rows, in the door's
transaction, after the clocks are settled (a turn mail carries the new deadline).

One function per kind of news a change can tell, each calling the queueing functions of
notify.py and lifecycle.py; a kind this table does not know raises (the change rolls back), so
a change cannot silently send nothing. A finished match's turn mails are also slimmed here
(`notify.forget_finished_turns`), before its result mail is queued.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from pbem.core.mailout import lifecycle, notify
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.changes import Settled


def settle_mail(settled: Settled) -> None:
    """The settler (see `core/settlers.py`)."""
    if settled.ended:
        notify.forget_finished_turns(settled.match)
    for told in settled.told:
        tell = NEWS_KINDS.get(told.what)
        if tell is None:
            raise ValueError(f"no mail knows how to tell {told.what!r}")
        tell(settled, told.params)


def turn_mail_failed(match_id: int, seat: int) -> bool:
    """The seat's latest turn email failed, or is being retried after failing. (One merely
    queued is not: if the worker itself is down, the outage rule protects the seat.)"""
    latest = (OutboxMessage.select(OutboxMessage.status, OutboxMessage.attempts)
              .where(OutboxMessage.match == match_id, OutboxMessage.seat == seat,
                     OutboxMessage.template == "your_turn")
              .order_by(OutboxMessage.id.desc()).first())
    if latest is None or latest.status == MessageStatus.SENT:
        return False
    return latest.status == MessageStatus.FAILED or latest.attempts > 0


Params = Mapping[str, Any]


def _match_started(s: Settled, p: Params) -> None:
    notify.queue_match_started(s.match, s.rules, p["state"], s.now)


def _turn_notices(s: Settled, p: Params) -> None:
    state = p["state"]
    notify.queue_turn_notices(s.match, s.rules, state, s.rules.to_move(state), (), s.now)


def _after_move(s: Settled, p: Params) -> None:
    state = p["state"]
    outcome = s.rules.outcome(state)
    if outcome is not None:
        # Told from seat rows read afresh: the end rewrote every seat.
        notify.queue_result(s.match, s.rules, state, outcome, p["events"], s.now, s.notes)
        return
    # A seat whose conditional answer followed at once is not told it is its turn.
    notify.queue_turn_notices(s.match, s.rules, state, p["newly_to_move"] - s.quiet,
                              p["events"], s.now, s.seats, s.notes)


def _conditional_played(s: Settled, p: Params) -> None:
    for row in s.seats:
        if row.seat not in s.quiet and row.seat not in s.match.to_move and s.notes.get(row.seat):
            notify.queue_for(s.match, row, "conditional_played", s.now,
                             {"cond": s.notes[row.seat]})


def _result(s: Settled, p: Params) -> None:
    notify.queue_result(s.match, s.rules, p["state"], p["outcome"], (), s.now)


def _ruling(s: Settled, p: Params) -> None:
    extended = p["extended"]
    notify.queue_ruling(s.match, s.rules, p["state"], p["late"], p["ruling"], p["ruling_text"],
                        p["reason"], s.now,
                        new_deadline=s.seat(extended).deadline if extended is not None else None)


def _reminder(s: Settled, p: Params) -> None:
    notify.queue_reminder(s.match, s.rules, p["state"], p["seat"], s.now)


def _adjudication_opened(s: Settled, p: Params) -> None:
    notify.queue_adjudication_opened(s.match, s.rules, p["state"], p["late"], p["cause"], s.now)


def _vacation(s: Settled, p: Params) -> None:
    notify.queue_vacation(s.match, s.rules, p["state"], p["away_seat"], p["away_name"],
                          p["starts"], p["ends"], s.now, cancelled=p["cancelled"])


def _draw_offer(s: Settled, p: Params) -> None:
    lifecycle.queue_draw_offer(s.match, s.rules, p["state"], _numbers(s), p["offerer"], s.now)


def _draw_declined(s: Settled, p: Params) -> None:
    lifecycle.queue_draw_declined(s.match, s.rules, p["state"], _numbers(s), p["offerer"],
                                  p["by"], p["how"], s.now)


def _aborted(s: Settled, p: Params) -> None:
    by = p["by"]
    label = None if by is None else s.rules.seat_label(p["state"], by)
    lifecycle.queue_aborted(s.match, label, _numbers(s), s.now)


def _claim_available(s: Settled, p: Params) -> None:
    lifecycle.queue_claim_available(s.match, s.rules, p["state"], _numbers(s), p["late"], s.now)


def _takeback_asked(s: Settled, p: Params) -> None:
    lifecycle.queue_takeback_asked(s.match, s.rules, p["state"], p["to"], p["requester"], s.now)


def _takeback_answered(s: Settled, p: Params) -> None:
    lifecycle.queue_takeback_answered(s.match, s.rules, p["state"], _numbers(s), p["requester"],
                                      p["by"], p["accepted"], s.now)


def _numbers(s: Settled) -> list[int]:
    return [row.seat for row in s.seats]


NEWS_KINDS: dict[str, Callable[[Settled, Params], None]] = {
    "match-started": _match_started,
    "turn-notices": _turn_notices,
    "after-move": _after_move,
    "conditional-played": _conditional_played,
    "result": _result,
    "ruling": _ruling,
    "reminder": _reminder,
    "adjudication-opened": _adjudication_opened,
    "vacation": _vacation,
    "draw-offer": _draw_offer,
    "draw-declined": _draw_declined,
    "aborted": _aborted,
    "claim-available": _claim_available,
    "takeback-asked": _takeback_asked,
    "takeback-answered": _takeback_answered,
}
