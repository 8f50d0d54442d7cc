"""Draw offers, inside a match the door (changes.py) has locked.

A seat offers a draw with or without a move. The offer stands until every other seat has
accepted it (the match is then drawn), one of them says no, or one of them moves without
accepting (moving declines it). After an offer of yours was declined you may offer again only
once you have made two more moves of your own, so an offer cannot be used to spam.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from pbem.core.db.memo import VersionMemo
from pbem.core.db.prepared import Prepared
from pbem.core.matches.changes import Locked
from pbem.core.matches.models import DrawOffer, DrawOfferStatus, Match, Move
from pbem.errors import ConflictError
from pbem.i18n import _, ngettext

MOVES_BETWEEN_OFFERS = 2


@dataclass(frozen=True)
class Known:
    """A match's draw offers as read at once, newest first: a page needs the standing offer
    and the asking seat's last one, and offers are few (one per two moves of a seat at most)."""

    rows: tuple[DrawOffer, ...]

    @property
    def standing(self) -> DrawOffer | None:
        return next((row for row in self.rows if row.status == DrawOfferStatus.OPEN), None)

    def last_by(self, seat: int) -> DrawOffer | None:
        return next((row for row in self.rows if row.seat == seat), None)


def known(match: Match) -> Known:
    """The match's offers as of its version: every offer, answer and lapse is made through
    the door, which bumps the version, so one read serves every page until the next change."""
    return _KNOWN.remember(match, lambda: Known(tuple(_ALL_OFFERS.rows(match.id))))


_KNOWN: VersionMemo[Known] = VersionMemo(64)


def standing(match: Match) -> DrawOffer | None:
    return _STANDING.first(match.id)


_LAST_OFFER = Prepared(lambda match_id, seat: DrawOffer.select()
                       .where(DrawOffer.match == match_id, DrawOffer.seat == seat)
                       .order_by(DrawOffer.id.desc()).limit(1))
_ALL_OFFERS = Prepared(lambda match_id: DrawOffer.select()
                       .where(DrawOffer.match == match_id).order_by(DrawOffer.id.desc()))
_STANDING = Prepared(lambda match_id: DrawOffer.select()
                     .where(DrawOffer.match == match_id, DrawOffer.status == DrawOfferStatus.OPEN)
                     .order_by(DrawOffer.id.desc()).limit(1))


def check_can_offer(match: Match, seat: int, read: Known | None = None) -> None:
    """Raise ConflictError saying why `seat` may not offer a draw now. `read` is the match's
    offers if the caller has read them already."""
    if not match.is_live:
        raise ConflictError(_("Match %(id)s is over: there is nothing to offer a draw in.",
                              id=match.id))
    offer = standing(match) if read is None else read.standing
    if offer is not None and offer.seat == seat:
        raise ConflictError(_("Your draw offer still stands; the others have not all answered."))
    if offer is not None:
        raise ConflictError(_("A draw offer already stands: accept or decline it instead."))
    last = _LAST_OFFER.first(match.id, seat) if read is None else read.last_by(seat)
    if last is None or last.status != DrawOfferStatus.DECLINED:
        return
    since = Move.select().where(Move.match == match, Move.seat == seat,
                                Move.ply > last.ply).count()
    if since < MOVES_BETWEEN_OFFERS:
        to_go = MOVES_BETWEEN_OFFERS - since
        raise ConflictError(
            ngettext("Your last draw offer was declined. You may offer again after %(num)s "
                     "more move of your own.", "Your last draw offer was declined. You may "
                     "offer again after %(num)s more moves of your own.", to_go))


def offer(door: Locked, seat: int) -> DrawOffer:
    check_can_offer(door.match, seat)
    made = DrawOffer.create(match=door.match, seat=seat, ply=door.match.ply,
                            offered_at=door.now, accepted_by=[])
    door.pending.draw_offer = True
    door.touch()
    door.tell("draw-offer", offerer=seat, state=door.state)
    return made


def accept(door: Locked, seat: int) -> bool:
    """Accept the standing offer; return True when every other seat has now accepted."""
    found = _answerable(door.match, seat)
    accepted = sorted({*found.accepted_by, seat})
    others = {row.seat for row in door.seats} - {found.seat}
    done = others <= set(accepted)
    (DrawOffer.update(accepted_by=accepted,
                      status=DrawOfferStatus.ACCEPTED if done else DrawOfferStatus.OPEN,
                      answered_at=door.now if done else None, how="accepted" if done else None)
     .where(DrawOffer.id == found.id).execute())
    door.touch()
    return done


def decline(door: Locked, seat: int, how: str = "said no") -> DrawOffer:
    found = _answerable(door.match, seat)
    _close(found, seat, how, door)
    return found


def on_move(door: Locked, seat: int) -> None:
    """A seat that moves without having accepted the standing offer declines it."""
    if not door.pending.draw_offer:
        return  # the door read that none stands (the usual case): no query
    found = standing(door.match)
    if found is not None and found.seat != seat and seat not in found.accepted_by:
        _close(found, seat, "moved instead", door)


def history(match: Match) -> list[dict[str, Any]]:
    rows = DrawOffer.select().where(DrawOffer.match == match).order_by(DrawOffer.id)
    return [{"seat": row.seat, "ply": row.ply, "status": row.status,
             "accepted_by": list(row.accepted_by), "answered_by": row.answered_by,
             "how": row.how, "offered_at": row.offered_at.isoformat() + "Z",
             "answered_at": row.answered_at.isoformat() + "Z" if row.answered_at else None}
            for row in rows]


def _answerable(match: Match, seat: int) -> DrawOffer:
    if not match.is_live:
        raise ConflictError(_("Match %(id)s is over: there is no draw offer to answer.",
                              id=match.id))
    found = standing(match)
    if found is None:
        raise ConflictError(_("There is no draw offer to answer."))
    if found.seat == seat:
        raise ConflictError(_("That is your own offer: the others answer it."))
    if seat in found.accepted_by:
        raise ConflictError(_("You have already accepted this draw offer; the others have "
                              "not all answered yet."))
    return found


def _close(found: DrawOffer, seat: int, how: str, door: Locked) -> None:
    (DrawOffer.update(status=DrawOfferStatus.DECLINED, answered_by=seat, how=how,
                      answered_at=door.now).where(DrawOffer.id == found.id).execute())
    door.touch()
    door.tell("draw-declined", offerer=found.seat, by=seat, how=how, state=door.state)
