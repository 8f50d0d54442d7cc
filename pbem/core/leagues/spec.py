"""Checking a league's or a ladder's settings (the API's body): a bad field is an
InvalidRequestError or UnprocessableError naming it, and nothing is written."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from pbem.core.db.text import check_text
from pbem.core.matches.clocks import TimeControl
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.errors import InvalidRequestError, UnprocessableError
from pbem.games import get_rules
from pbem.i18n import _


@dataclass(frozen=True)
class Common:
    """What leagues and ladders both have: a name, a game and its options, a clock."""

    name: str
    game: str
    options: dict[str, Any]
    time_control: str
    on_timeout: str
    rated: bool
    table_size: int | None  # the game's seats when it is not a two-player game


def common(spec: Mapping[str, Any]) -> Common:
    for key in ("name", "game", "clock", "on_timeout"):
        # Present means a string: null is no more an `on_timeout` than 7 is.
        if key in spec and not isinstance(spec[key], str):
            raise InvalidRequestError(_('"%(field)s" is a string.', field=key))
    name = check_text(str(spec.get("name") or "").strip(), "name")
    if not name or len(name) > 80:
        raise InvalidRequestError(_('"name" is required, at most 80 characters.'))
    rules = get_rules(str(spec.get("game") or ""))
    options = spec.get("options", {})
    if not isinstance(options, Mapping):
        raise InvalidRequestError(_('"options" is an object of the game\'s options.'))
    control = TimeControl.parse(str(spec.get("clock", "3d")))
    on_timeout = spec.get("on_timeout") or TimeoutPolicy.FORFEIT
    if on_timeout not in TimeoutPolicy.ALL:
        raise InvalidRequestError(_('"on_timeout" is one of: %(known)s.',
                                    known=", ".join(TimeoutPolicy.ALL)))
    if not isinstance(spec.get("rated", False), bool):
        raise InvalidRequestError(_('"rated" is true or false.'))
    table_size = None
    if 2 not in rules.player_counts:
        table_size = whole(spec.get("table_size", 4), "table_size", 3, 4)
        if table_size not in rules.player_counts:
            raise UnprocessableError(_('"%(field)s" is from %(low)s to %(high)s, not '
                                       '%(given)s.', field="table_size", low=3, high=4,
                                       given=table_size))
    return Common(name, rules.slug, rules.resolve_options(options), str(control),
                  str(on_timeout), bool(spec.get("rated", False)), table_size)


def whole(value: Any, name: str, low: int, high: int) -> int:
    if isinstance(value, float) and value.is_integer():
        value = int(value)  # JSON's 8.0 is the whole number 8
    if isinstance(value, bool) or not isinstance(value, int):
        try:
            value = int(str(value).strip())
        except ValueError:
            raise InvalidRequestError(_('"%(field)s" is a whole number.', field=name)) from None
    if not low <= value <= high:
        raise UnprocessableError(_('"%(field)s" is from %(low)s to %(high)s, not %(given)s.',
                                   field=name, low=low, high=high, given=value))
    return int(value)
