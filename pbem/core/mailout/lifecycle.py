"""Mail about a match's life outside its moves: draw offers and answers, an abort, a win that
may be claimed. Rows are queued like every other notification (notify.py): one per
recipient, naming the seats' labels in `params`; the rest is rendered from that recipient's
own view (mailviews.py). The mail settler (settler.py) calls these from what a change told."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from pbem.core.mailout import notify
from pbem.core.matches.models import Match
from pbem.games.base import GameRules


def queue_draw_offer(match: Match, rules: GameRules, state: Any, seats: Iterable[int],
                     offerer: int, now: datetime) -> None:
    numbers = list(seats)
    _tell(match, now, (s for s in numbers if s != offerer), "draw_offer",
          offerer_label=rules.seat_label(state, offerer),
          everyone_must_accept=len(numbers) - 1 > 1, offerer=offerer)


def queue_draw_declined(match: Match, rules: GameRules, state: Any, seats: Iterable[int],
                        offerer: int, by: int, how: str, now: datetime) -> None:
    _tell(match, now, (s for s in seats if s != by), "draw_declined",
          offerer_label=rules.seat_label(state, offerer), by_label=rules.seat_label(state, by),
          moved_instead=how == "moved instead", offerer=offerer)


def queue_aborted(match: Match, label: str | None, seats: Iterable[int], now: datetime) -> None:
    """`label`: the seat that aborted, as the game names it (None: an admin did)."""
    _tell(match, now, seats, "aborted", by_label=label)


def queue_claim_available(match: Match, rules: GameRules, state: Any, seats: Iterable[int],
                          late: int, now: datetime) -> None:
    _tell(match, now, (s for s in seats if s != late), "claim_available",
          late_label=rules.seat_label(state, late))


def queue_takeback_asked(match: Match, rules: GameRules, state: Any, asked: Iterable[int],
                         requester: int, now: datetime) -> None:
    """`asked`: the seats whose answer the takeback needs (people; the computer never minds)."""
    numbers = list(asked)
    _tell(match, now, numbers, "takeback_asked", asker_label=rules.seat_label(state, requester),
          everyone_must_accept=len(numbers) > 1)


def queue_takeback_answered(match: Match, rules: GameRules, state: Any, seats: Iterable[int],
                            requester: int, by: int, accepted: bool, now: datetime) -> None:
    """Told to every seat but the one that answered: the asker above all; in a match of more
    seats the others learn that the request is over (accepted by all, or declined)."""
    _tell(match, now, (s for s in seats if s != by), "takeback_answered",
          asker_label=rules.seat_label(state, requester), by_label=rules.seat_label(state, by),
          accepted=accepted, requester=requester)


def _tell(match: Match, now: datetime, recipients: Iterable[int], template: str,
          **extra: Any) -> None:
    wanted = set(recipients)
    for seat in match.seat_rows():
        if seat.seat not in wanted:
            continue
        params = dict(extra)
        if "offerer" in extra:
            params["offer_was_yours"] = extra["offerer"] == seat.seat
        notify.queue_for(match, seat, template, now, params)
