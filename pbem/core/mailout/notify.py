"""Turn what happened in a match into outbox rows: one per recipient.

A row names what to render (template, recipient, match, seat, the ply it happened at, and a
few kind-specific `params`), never a rendered copy: the mail layer renders it at send time from
that seat's own view of the position at that ply (see `mailviews.py`), so an email can never
carry another seat's hidden cards, and no seat link is ever stored.

New kinds of mail (resign, draw offers, claims) add a `queue_*` function here, a template
folder under `templates/email/`, a context builder in `mailviews.py` if they need more than
the common one, and a category in `preferences.CATEGORIES` (which decides who gets them now).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from peewee import fn

from pbem import i18n
from pbem.core.db.prepared import add_row
from pbem.core.mailout.models import RETAINED, MessageStatus, OutboxMessage
from pbem.core.mailout.waiting import route
from pbem.core.matches.models import Match, Seat
from pbem.core.push.channels import KIND_OF
from pbem.games.base import Event, GameRules, Outcome, outcome_for_reader
from pbem.i18n import N_, _


def queue_match_started(match: Match, rules: GameRules, state: Any, now: datetime) -> None:
    """Welcome every player; tell the seats to move that it is their turn."""
    seats = match.seat_rows()
    for seat in seats:
        _queue(match, seat, "welcome", now)
    queue_turn_notices(match, rules, state, rules.to_move(state), (), now)


def queue_turn_notices(
    match: Match,
    rules: GameRules,
    state: Any,
    seats_to_tell: Iterable[int],
    events: Sequence[Event],
    now: datetime,
    seats: Sequence[Seat] | None = None,
    notes: Mapping[int, list[str]] | None = None,
) -> None:
    """`events` are those of the move at `match.ply` (the mail describes what each seat may
    see of them); an empty sequence means nothing to describe. `seats`: the match's seat rows
    with their clocks settled, if the caller holds them (the door does). `notes`: sentences
    for a seat's mail (a conditional move played or cleared)."""
    telling = set(seats_to_tell)
    for seat in match.seat_rows() if seats is None else seats:
        if seat.seat in telling:
            _queue(match, seat, "your_turn", now,
                   _deadline(seat) | _events(events) | _notes(notes, seat.seat))


def queue_result(
    match: Match,
    rules: GameRules,
    state: Any,
    outcome: Outcome,
    events: Sequence[Event],
    now: datetime,
    notes: Mapping[int, list[str]] | None = None,
) -> None:
    """The result itself is read from `match.result` when the mail is rendered."""
    for seat in match.seat_rows():
        _queue(match, seat, "result", now, _events(events) | _notes(notes, seat.seat))


def queue_reminder(match: Match, rules: GameRules, state: Any, seat_number: int,
                   now: datetime) -> None:
    seat = match.seat_rows()[seat_number]
    _queue(match, seat, "reminder", now, _deadline(seat))


def queue_adjudication_opened(match: Match, rules: GameRules, state: Any, late: int,
                              cause: str, now: datetime) -> None:
    """Tell every player that an admin will rule on the late seat."""
    for seat in match.seat_rows():
        _queue(match, seat, "adjudication", now, {"late": late, "cause": cause})


def queue_ruling(match: Match, rules: GameRules, state: Any, late: int, ruling: str,
                 ruling_text: str, reason: str, now: datetime,
                 new_deadline: datetime | None = None) -> None:
    """`new_deadline`: after an extension, every player learns the late seat's new one."""
    extended = {"new_deadline": new_deadline.isoformat()} if new_deadline else {}
    for seat in match.seat_rows():
        _queue(match, seat, "ruling", now, _deadline(seat) | extended | {
            "late": late, "ruling": ruling, "ruling_text": ruling_text, "reason": reason})


def queue_vacation(match: Match, rules: GameRules, state: Any, away_seat: int, away_name: str,
                   starts: datetime, ends: datetime, now: datetime,
                   cancelled: str | None = None) -> None:
    """Tell the other players of a match that a player will be away (their clock stops), or,
    with `cancelled` ("withdrawn" before it began, "ended" early), that they will not be."""
    params: dict[str, Any] = {"away": away_seat, "away_name": away_name,
                              "starts": starts.isoformat(), "ends": ends.isoformat()}
    if cancelled:
        params["cancelled"] = cancelled
    for seat in match.seat_rows():
        if seat.seat != away_seat:
            _queue(match, seat, "vacation", now, params)


def forget_finished_turns(match: Match) -> None:
    """A finished match's turn mails are hardly ever shown again: each keeps its record
    (recipient, kind, times), and only the latest turn mail of each seat keeps what
    renders it again (its params), as every sent mail's params go once the retention period
    ends (`outbox.prune_sent`). One turn mail a move is most of what a match stores."""
    newest = (OutboxMessage.select(fn.MAX(OutboxMessage.id))
              .where(OutboxMessage.match == match.id, OutboxMessage.template == "your_turn")
              .group_by(OutboxMessage.seat))
    latest: list[int] = [row[0] for row in newest.tuples().execute()]
    (OutboxMessage.update(params=None)
     .where(OutboxMessage.match == match.id, OutboxMessage.template == "your_turn",
            OutboxMessage.status == MessageStatus.SENT, RETAINED,
            OutboxMessage.id.not_in(latest or [0]))
     .execute())


def queue_digest(address: str, params: dict[str, Any], now: datetime) -> OutboxMessage:
    """A player's daily digest (see digest.py); it belongs to no match."""
    return OutboxMessage.create(
        to_address=address, template="digest", params=params, status=MessageStatus.PENDING,
        next_attempt_at=now, created_at=now)


def describe_outcome(rules: GameRules, state: Any, outcome: Outcome,
                     seats: Sequence[Seat]) -> dict[str, Any]:
    """The result in words, in the language in force (a mail is rendered in its reader's)."""
    names = [_seat_name(rules, state, seat) for seat in seats]
    winners = sorted(outcome.winners)
    if not winners:
        headline = _("The match ended without a winner")
    elif len(winners) == len(seats):
        headline = (_("The match is drawn") if len(seats) == 2
                    else _("Everyone shares the win"))
    elif len(winners) == 1:
        headline = _("%(name)s wins", name=names[winners[0]])
    else:
        headline = _("%(names)s share the win", names=_and_list([names[i] for i in winners]))
    reason = reason_words(rules, state, outcome.reason or "", len(seats))
    return {
        "headline": headline,
        "reason": reason[:1].upper() + reason[1:],
        "winners": winners,
        "scores": [{"seat": i, "name": names[i], "score": _number(outcome.scores[i])}
                   for i in range(len(seats))],
    }


# How the server words the endings it makes (lifecycle.py, rulings.py, tournaments), stored in
# English with the seats' English names: read back here to say them in the reader's language.
_SERVER_ENDINGS: tuple[tuple[re.Pattern[str], str], ...] = (
    (re.compile(r"(?P<seat>.+) resigned"), N_("%(seat)s resigned")),
    (re.compile(r"(?P<late>.+) ran out of time; (?P<claimer>.+) claimed the win"),
     N_("%(late)s ran out of time; %(claimer)s claimed the win")),
    (re.compile(r"(?P<seat>.+) ran out of time and forfeits"),
     N_("%(seat)s ran out of time and forfeits")),
    (re.compile(r"awarded by the adjudicator: (?P<why>.*)", re.S),
     N_("awarded by the adjudicator: %(why)s")),
    (re.compile(r"drawn by the adjudicator: (?P<why>.*)", re.S),
     N_("drawn by the adjudicator: %(why)s")),
    (re.compile(r"adjudicated by the tournament's organiser: (?P<why>.*)", re.S),
     N_("adjudicated by the tournament's organiser: %(why)s")),
    (re.compile(r"tournament: (?P<why>.*)", re.S), N_("tournament: %(why)s")),
)


def reason_words(rules: GameRules, state: Any, stored: str, seat_count: int) -> str:
    """A result's stored reason (English, as every reader's language must be able to read it
    later) in the language in force. An ending on the board is worded again by the rules;
    an ending the server made (a resignation, a claim, a forfeit, a ruling) is read back from
    its English form, its seats' names said the reader's way; anything else (an imported
    record's words) is translated if the catalogs know it, else shown as stored."""
    if not stored:
        return ""
    english = rules.outcome(state)
    if english is not None and english.reason == stored:
        ended = outcome_for_reader(rules, state)
        return ended.reason if ended is not None else stored
    with i18n.language("en"):
        english_names = {rules.seat_label(state, seat): seat for seat in range(seat_count)}

    def local(names: str) -> str:
        seats = [english_names.get(name) for name in names.split(" and ")]
        if None in seats:
            return names
        return _and_list([rules.seat_label(state, seat) for seat in seats if seat is not None])

    for pattern, sentence in _SERVER_ENDINGS:
        found = pattern.fullmatch(stored)
        if found is None:
            continue
        values = found.groupdict()
        return _(sentence, **{name: value if name == "why" else local(value)
                              for name, value in values.items()})
    return _(stored)


def _and_list(names: Sequence[str]) -> str:
    """"A and B and C", as the language in force joins names."""
    joined = names[0]
    for name in names[1:]:
        joined = _("%(first)s and %(second)s", first=joined, second=name)
    return joined


def _number(score: float) -> float | int:
    return int(score) if float(score).is_integer() else round(score, 2)


def _seat_name(rules: GameRules, state: Any, seat: Seat) -> str:
    return f"{rules.seat_label(state, seat.seat)} ({seat.player.public_name})"


def queue_for(match: Match, seat: Seat, template: str, now: datetime,
              params: dict[str, Any] | None = None) -> None:
    """One mail of kind `template` to one seat (other core modules' own kinds of mail), with
    the seat's deadline as every notification carries it."""
    _queue(match, seat, template, now, _deadline(seat) | (params or {}))


# Mails that may be pushed instead, or held while their player looks at the match.
ROUTED = frozenset(KIND_OF)


def _queue(match: Match, seat: Seat, template: str, now: datetime,
           params: dict[str, Any] | None = None) -> None:
    from pbem.core.mailout.preferences import sends_now

    if seat.player.computer_level is not None:
        return  # the computer reads no mail
    if seat.computer_level is not None and template in ("your_turn", "reminder"):
        return  # a seat handed to the computer: it moves, its person need not
    if not sends_now(seat.player, template, seat.deadline, now):
        return
    if template in ROUTED and route(match, seat, template, params or None, now):
        return  # pushed instead, or held while the player looks (mailout/waiting.py)
    # No id is read back: in the door's pipelined block the row travels with the others.
    add_row(
        OutboxMessage, match=match, seat=seat.seat, ply=match.ply, to_address=seat.player.email,
        template=template, params=params or None,
        status=MessageStatus.PENDING, next_attempt_at=now, created_at=now,
    )


def _deadline(seat: Seat) -> dict[str, Any]:
    # Seconds since the epoch (UTC): a third of the ISO text, and every sent mail keeps it
    # until the retention period ends.
    return {"d": int(seat.deadline.replace(tzinfo=UTC).timestamp())} if seat.deadline else {}


def _notes(notes: Mapping[int, list[str]] | None, seat: int) -> dict[str, Any]:
    # Only this seat's own sentences: another seat's conditional moves never reach it.
    said = (notes or {}).get(seat)
    return {"cond": list(said)} if said else {}


def _events(events: Sequence[Event]) -> dict[str, Any]:
    # The events themselves are the move row's: the mail reads them from `Move.events`.
    return {"ev": 1} if events else {}


def message_key(message: OutboxMessage, match: Match | None) -> str:
    """The Message-ID's local part (the mail layer adds the domain), derived from the row, so
    a retry keeps it and nothing is stored. The welcome email is each player's thread root;
    the match's random thread key keeps ids unique across databases that reuse row ids."""
    if match is None:
        return f"pbem.d{message.id}.{message.created_at:%Y%m%d%H%M%S}"
    if message.template == "welcome":
        return thread_root_key(match, message.seat or 0)
    return f"pbem.{match.thread_key}.m{match.id}.s{message.seat}.o{message.id}"


def outbox_id(key: str) -> int | None:
    """The outbox row a Message-ID's local part names (replies quote it), if any."""
    last = key.rsplit("@", 1)[0].rsplit(".", 1)[-1]
    number = last[1:]
    # ASCII digits only: `isdigit` also accepts "²", which `int` refuses.
    wellformed = last[:1] in "od" and number.isascii() and number.isdigit() and len(number) < 19
    return int(number) if wellformed else None


def thread_root_key(match: Match, seat: int) -> str:
    return f"pbem.{match.thread_key}.m{match.id}.s{seat}"
