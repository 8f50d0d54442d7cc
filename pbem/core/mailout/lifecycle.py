"""Mail about a match's life outside its moves: draw offers and answers, an abort, a win that
may be claimed. Rows are queued like every other notification (notify.py): one per
recipient, naming the seats' labels in `params`; the rest is rendered from that recipient's
own view (mailviews.py)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from pbem.core.mailout import notify
from pbem.core.matches.changes import Locked
from pbem.core.matches.models import DrawOffer


def queue_draw_offer(door: Locked, offer: DrawOffer) -> None:
    others = len(door.seats) - 1
    _tell(door, (s.seat for s in door.seats if s.seat != offer.seat), "draw_offer",
          offerer_label=_label(door, offer.seat), everyone_must_accept=others > 1,
          offerer=offer.seat)


def queue_draw_declined(door: Locked, offer: DrawOffer, by: int, how: str) -> None:
    _tell(door, (s.seat for s in door.seats if s.seat != by), "draw_declined",
          offerer_label=_label(door, offer.seat), by_label=_label(door, by),
          moved_instead=how == "moved instead", offerer=offer.seat)


def queue_aborted(door: Locked, by: int | None) -> None:
    _tell(door, (s.seat for s in door.seats), "aborted",
          by_label=None if by is None else _label(door, by))


def queue_claim_available(door: Locked, late: int) -> None:
    _tell(door, (s.seat for s in door.seats if s.seat != late), "claim_available",
          late_label=_label(door, late))


def _label(door: Locked, seat: int) -> str:
    return door.rules.seat_label(door.state, seat)


def _tell(door: Locked, recipients: Iterable[int], template: str, **extra: Any) -> None:
    wanted = set(recipients)
    for seat in door.match.seat_rows():
        if seat.seat not in wanted:
            continue
        params = dict(extra)
        if "offerer" in extra:
            params["offer_was_yours"] = extra["offerer"] == seat.seat
        notify.queue_for(door.match, seat, template, door.now, params)
