"""Salts: in a match whose first deal waits for them (option `salted`, on unless a match is
created with it off), every seat first adds its own text to the shuffle (`salt <text>`) or
takes the one it was offered (`salt`: also what a seat whose clock runs out and the computer
do, `core/matches/sweep.py` and `default_move`). The salts are public as they are set; the
round-1 deal follows the last one (`games/dealing.py`). A salt cannot be known to the server
when it committed to the seed, so once a seat has added its own, nobody (the server
included) could have chosen the cards it is dealt."""

from __future__ import annotations

from typing import Any

from pbem.games.base import Event, IllegalMoveError, InvalidMoveError, Seat
from pbem.games.dealing import SALT_LIMIT, salt_problem
from pbem.games.mimic_taking.state import MimicTakingState, evolve
from pbem.i18n import _

SALT = "salt"


def is_salt_text(text: str) -> bool:
    word = text.strip().split(maxsplit=1)
    return bool(word) and word[0].lower() == SALT


def parse_salt(state: MimicTakingState, seat: Seat, text: str) -> tuple[str, ...]:
    """The salt move's cards: () to take the offered salt, else the seat's own text."""
    if not state.salting:
        raise IllegalMoveError(_("the cards are dealt: a salt can only be added before the "
                                 "first deal"))
    if not is_salt_text(text):
        raise IllegalMoveError(_("nothing is dealt yet: first add your salt to the shuffle "
                                 "('salt' and any text), or 'salt' alone to take the one "
                                 "you were given"))
    if state.salts is not None and state.salts[seat] is not None:
        raise IllegalMoveError(_("you have added your salt already; waiting for the others"))
    own = text.strip()[len(SALT):].strip()
    if not own:
        return ()
    problem = salt_problem(own)
    if problem == "long":
        raise InvalidMoveError(_("a salt is at most %(limit)s characters", limit=SALT_LIMIT))
    if problem is not None:
        raise InvalidMoveError(_("a salt is one line of text"))
    return (own,)


def with_salt(state: MimicTakingState, seat: Seat,
              given: tuple[str, ...]) -> tuple[MimicTakingState, Event]:
    """The state with the seat's salt set (its own, or the one offered to it)."""
    if state.salts is None or state.offered is None:
        raise IllegalMoveError("this position is inconsistent (no salts to set)")
    salt = given[0] if given else state.offered[seat]
    salts = tuple(salt if s == seat else old for s, old in enumerate(state.salts))
    return (evolve(state, salts=salts),
            Event("salt_added", {"seat": seat, "salt": salt, "own": bool(given)}))


def salt_view(state: MimicTakingState, seat: Seat | None) -> dict[str, Any]:
    """Every salt set so far (public) and, while they are awaited, the one this seat takes
    by adding none (only its own)."""
    if state.salts is None:
        return {"salts": None, "my_offered_salt": None}
    offered = (state.offered[seat] if state.salting and state.offered is not None
               and seat is not None and state.salts[seat] is None else None)
    return {"salts": list(state.salts), "my_offered_salt": offered}
