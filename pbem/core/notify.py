"""Turn what happened in a match into outbox rows: one per recipient, from that seat's view.

Nothing here renders or sends: each row names an email template and holds the context it needs
(the recipient's view, its text drawing, the events that seat may see). The mail layer renders
and sends it later, adding the seat's private link. Because the context is built from the
recipient's own view, an email can never carry another seat's hidden cards.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from pbem.core.clocks import TimeControl, deadline_info
from pbem.core.models import Match, MessageStatus, OutboxMessage, Seat
from pbem.games.base import Event, GameRules, Outcome

MAX_LISTED_MOVES = 30


def queue_match_started(match: Match, rules: GameRules, state: Any, now: datetime) -> None:
    """Welcome every player; tell the seats to move that it is their turn."""
    seats = match.seat_rows()
    for seat in seats:
        _queue(match, seat, "welcome", _seat_context(match, rules, state, seat, seats, now), now)
    queue_turn_notices(match, rules, state, rules.to_move(state), (), now)


def queue_after_move(
    match: Match,
    rules: GameRules,
    state: Any,
    newly_to_move: Iterable[int],
    events: Sequence[Event],
    now: datetime,
) -> None:
    outcome = rules.outcome(state)
    if outcome is not None:
        queue_result(match, rules, state, outcome, events, now)
    else:
        queue_turn_notices(match, rules, state, newly_to_move, events, now)


def queue_turn_notices(
    match: Match,
    rules: GameRules,
    state: Any,
    seats_to_tell: Iterable[int],
    events: Sequence[Event],
    now: datetime,
) -> None:
    seats = match.seat_rows()
    for seat in seats:
        if seat.seat not in seats_to_tell:
            continue
        context = _seat_context(match, rules, state, seat, seats, now)
        context["events"] = _visible(rules, events, seat.seat)
        moves = [rules.format_move(state, move) for move in rules.legal_moves(state, seat.seat)]
        context["legal_moves"] = moves[:MAX_LISTED_MOVES]
        context["more_moves"] = max(0, len(moves) - MAX_LISTED_MOVES)
        _queue(match, seat, "your_turn", context, now)


def queue_result(
    match: Match,
    rules: GameRules,
    state: Any,
    outcome: Outcome,
    events: Sequence[Event],
    now: datetime,
) -> None:
    seats = match.seat_rows()
    for seat in seats:
        context = _seat_context(match, rules, state, seat, seats, now)
        context["events"] = _visible(rules, events, seat.seat)
        context["result"] = describe_outcome(rules, state, outcome, seats)
        context["you_won"] = seat.seat in outcome.winners
        _queue(match, seat, "result", context, now)


def queue_reminder(match: Match, rules: GameRules, state: Any, seat_number: int,
                   now: datetime) -> None:
    seats = match.seat_rows()
    seat = seats[seat_number]
    context = _seat_context(match, rules, state, seat, seats, now)
    moves = [rules.format_move(state, move) for move in rules.legal_moves(state, seat.seat)]
    context["legal_moves"] = moves[:MAX_LISTED_MOVES]
    context["more_moves"] = max(0, len(moves) - MAX_LISTED_MOVES)
    _queue(match, seat, "reminder", context, now)


def queue_adjudication_opened(match: Match, rules: GameRules, state: Any, late: int,
                              cause: str, now: datetime) -> None:
    """Tell every player that an admin will rule on the late seat."""
    seats = match.seat_rows()
    for seat in seats:
        context = _seat_context(match, rules, state, seat, seats, now)
        context.update(late_label=rules.seat_label(state, late), late_is_you=seat.seat == late,
                       cause=cause)
        _queue(match, seat, "adjudication", context, now)


def queue_ruling(match: Match, rules: GameRules, state: Any, late: int, ruling: str,
                 ruling_text: str, reason: str, now: datetime,
                 new_deadline: datetime | None = None) -> None:
    seats = match.seat_rows()
    for seat in seats:
        context = _seat_context(match, rules, state, seat, seats, now)
        # An extension: every player learns the late seat's new deadline, in their own zone.
        context.update(late_label=rules.seat_label(state, late), ruling=ruling,
                       ruling_text=ruling_text, reason=reason,
                       new_deadline=deadline_info(new_deadline, match.time_control,
                                                  seat.player.timezone, now))
        _queue(match, seat, "ruling", context, now)


def queue_vacation(match: Match, rules: GameRules, state: Any, away_seat: int, away_name: str,
                   starts: datetime, ends: datetime, now: datetime) -> None:
    """Tell the other players of a match that a player will be away (their clock stops)."""
    seats = match.seat_rows()
    for seat in seats:
        if seat.seat == away_seat:
            continue
        context = _seat_context(match, rules, state, seat, seats, now)
        context.update(away_label=rules.seat_label(state, away_seat),
                       away_name=away_name,
                       starts=starts.strftime("%a %d %b %Y, %H:%M UTC"),
                       ends=ends.strftime("%a %d %b %Y, %H:%M UTC"))
        _queue(match, seat, "vacation", context, now)


def describe_outcome(rules: GameRules, state: Any, outcome: Outcome,
                     seats: Sequence[Seat]) -> dict[str, Any]:
    names = [_seat_name(rules, state, seat) for seat in seats]
    winners = sorted(outcome.winners)
    if not winners:
        headline = "The match ended without a winner"
    elif len(winners) == len(seats):
        headline = "The match is drawn" if len(seats) == 2 else "Everyone shares the win"
    else:
        headline = " and ".join(names[i] for i in winners) + (
            " wins" if len(winners) == 1 else " share the win")
    return {
        "headline": headline,
        "reason": outcome.reason[:1].upper() + outcome.reason[1:],
        "winners": winners,
        "scores": [{"seat": i, "name": names[i], "score": _number(outcome.scores[i])}
                   for i in range(len(seats))],
    }


def _number(score: float) -> float | int:
    return int(score) if float(score).is_integer() else round(score, 2)


def _seat_context(match: Match, rules: GameRules, state: Any, seat: Seat,
                  seats: Sequence[Seat], now: datetime) -> dict[str, Any]:
    view = rules.view(state, seat.seat)
    return {
        "deadline": deadline_info(seat.deadline, match.time_control, seat.player.timezone, now),
        "time_control": TimeControl.of_match(match.time_control).describe(),
        "match": match.id,
        "game": match.game,
        "title": rules.title,
        "seat": seat.seat,
        "seat_label": rules.seat_label(state, seat.seat),
        "ply": match.ply,
        # Other players are named by display name, never by address.
        "players": [{"seat": other.seat, "email": other.player.email,
                     "name": other.player.public_name,
                     "label": rules.seat_label(state, other.seat)} for other in seats],
        "view": view,
        "board_text": rules.render_text(view),
        "to_move": sorted(rules.to_move(state)),
        "events": [],
    }


def _visible(rules: GameRules, events: Sequence[Event], seat: int) -> list[str]:
    return [rules.describe_event(event) for event in events if event.is_visible_to(seat)]


def _seat_name(rules: GameRules, state: Any, seat: Seat) -> str:
    return f"{rules.seat_label(state, seat.seat)} ({seat.player.public_name})"


def _queue(match: Match, seat: Seat, template: str, context: dict[str, Any],
           now: datetime) -> OutboxMessage:
    # The Message-ID's local part is fixed now; the mail layer adds the domain. The welcome
    # email is each player's thread root, so its id is derived from the match's thread key.
    is_root = template == "welcome"
    key = thread_root_key(match, seat.seat) if is_root else f"pbem.{secrets.token_hex(12)}"
    return OutboxMessage.create(
        match=match, seat=seat.seat, to_address=seat.player.email, template=template,
        context=context, message_id=key,
        in_reply_to=None if is_root else thread_root_key(match, seat.seat),
        status=MessageStatus.PENDING, next_attempt_at=now, created_at=now, ply=match.ply,
    )


def thread_root_key(match: Match, seat: int) -> str:
    return f"pbem.{match.thread_key}.m{match.id}.s{seat}"
