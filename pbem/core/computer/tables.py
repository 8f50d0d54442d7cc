"""Mixed tables: a challenge or a seek (Mimic Taking's three or four seats) may fill some seats
with the computer. The levels are listed on the challenge or seek (`computers`: [2, 3]); when
the match starts, the computer seats are placed with the people (at random, or after them
when the seats are as listed) and `create_match` makes them the computer's."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

from pbem.bots import LEVELS
from pbem.errors import InvalidRequestError
from pbem.i18n import _

MAX_COMPUTERS = 3  # the most seats a game has (4) less the one person who asks


def check_computers(given: Any) -> list[int]:
    """The computer seats' levels as a list of whole numbers 1 to 5 (none if not given)."""
    if given is None or given == "" or given == []:
        return []
    if isinstance(given, str):
        given = [part for part in given.replace(",", " ").split() if part]
    if not isinstance(given, list | tuple) or len(given) > MAX_COMPUTERS:
        raise InvalidRequestError(_('"computers" is a list of at most %(most)s levels (1 to '
                                    '%(top)s), one per computer seat, like [2, 3].',
                                    most=MAX_COMPUTERS, top=len(LEVELS)))
    levels = []
    for level in given:
        if isinstance(level, float) and level.is_integer():
            level = int(level)  # JSON's 3.0 is the whole number 3
        number = whole(level)
        if number is None or number not in LEVELS:
            raise InvalidRequestError(_("A computer seat's level is a whole number from 1 "
                                        "to %(top)s, not %(given)s.", top=len(LEVELS),
                                        given=repr(level)))
        levels.append(number)
    return levels


def seat_people_and_computers(emails: Sequence[str], computers: Sequence[int],
                              shuffle: bool) -> tuple[list[str], dict[int, int]]:
    """The people's addresses in seat order and the computer seats {seat: level}: all drawn
    at random with `shuffle`, else the people first in their order, then the computers."""
    places: list[tuple[str, Any]] = ([("person", email) for email in emails]
                                     + [("computer", level) for level in computers])
    if shuffle:
        secrets.SystemRandom().shuffle(places)
    people = [value for kind, value in places if kind == "person"]
    seats = {number: value for number, (kind, value) in enumerate(places)
             if kind == "computer"}
    return people, seats


def whole(value: Any) -> int | None:
    """`value` (a form's text or a JSON number) as a non-negative whole number, or None.
    `int()` decides, in a `try`: `str.isdigit` also accepts "²", which `int` refuses."""
    if isinstance(value, bool | float):
        return None
    try:
        number = int(str(value).strip())
    except ValueError:
        return None
    return number if number >= 0 else None
