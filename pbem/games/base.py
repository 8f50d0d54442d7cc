"""The rules contract every game implements (see DESIGN.md, "The rules contract").

A rules object is stateless: every method takes the game state and returns new values, so the
server can replay a whole match from its seed and move list, and tests can build any position
by hand. Nothing here reads the clock, the database or the network; randomness comes only from
the seed given to `new_game`.

Seats are 0-based integers in the order the players were listed when the match was created.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from contextlib import nullcontext
from contextvars import ContextVar
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from pbem.i18n import _, language

Seat = int
State = Any
Move = Any


class RulesError(ValueError):
    """A refused move or option. The message is safe to show or mail back to a player."""


class InvalidMoveError(RulesError):
    """The text is not well-formed notation for this game; the message quotes the input."""


class IllegalMoveError(RulesError):
    """Well-formed, but not legal in this position; the message says which rule refuses it."""


class AmbiguousMoveError(RulesError):
    """The text matches several legal moves; the message lists them."""


class OptionError(RulesError):
    """A match option is unknown or has a bad value; the message says what is allowed."""


_TRUE_WORDS = frozenset({"1", "true", "yes", "on", "y"})
_FALSE_WORDS = frozenset({"0", "false", "no", "off", "n"})


@dataclass(frozen=True)
class Option:
    """A game option a match creator may set. Its type is the type of `default`.

    `choices` limits the value to a fixed set; `minimum`/`maximum` bound an integer option.
    `help_text` is English, marked with `N_` where the game declares it; `help` reads it in
    the language in force (the option's name and values stay English: they are typed).
    """

    name: str
    default: bool | int | str
    help_text: str
    choices: tuple[Any, ...] | None = None
    minimum: int | None = None
    maximum: int | None = None
    # What a form calls the option, English and marked with `N_` (default: the name's words).
    label_text: str = ""
    # The value a match stored without this option plays by, when it differs from `default`:
    # the match was made before the option existed, or while its default was another. None:
    # `default`. Read by `resolve_options(..., stored=True)` (a record's options on import);
    # the database's matches get it written into their options by a migration instead.
    stored_default: bool | int | str | None = None

    @property
    def label(self) -> str:
        """The option's words on a form, in the reader's language ("Waldgröße")."""
        return _(self.label_text) if self.label_text else self.name.replace("_", " ")

    @property
    def help(self) -> str:
        """What the option does, in the reader's language."""
        return _(self.help_text)

    def coerce(self, raw: Any) -> bool | int | str:
        """Turn a value from the command line (text) or JSON into this option's type."""
        kind = type(self.default)
        if kind is bool:
            value: Any = self._to_bool(raw)
        elif kind is int:
            value = self._to_int(raw)
        else:
            value = str(raw).strip()
        if self.choices is not None and value not in self.choices:
            allowed = ", ".join(str(choice) for choice in self.choices)
            raise OptionError(_("option %(name)s must be one of %(allowed)s, not %(raw)r",
                                name=self.name, allowed=allowed, raw=raw))
        if self.minimum is not None and value < self.minimum:
            raise OptionError(_("option %(name)s must be at least %(minimum)s, not %(raw)r",
                                name=self.name, minimum=self.minimum, raw=raw))
        if self.maximum is not None and value > self.maximum:
            raise OptionError(_("option %(name)s must be at most %(maximum)s, not %(raw)r",
                                name=self.name, maximum=self.maximum, raw=raw))
        return value

    def describe(self) -> str:
        """The allowed values in words, for help texts and rules pages."""
        if type(self.default) is bool:
            return _("%(first)s or %(last)s", first="on", last="off")
        if self.choices is not None:
            names = [str(choice) for choice in self.choices]
            if len(names) == 1:
                return names[0]
            return _("%(first)s or %(last)s", first=", ".join(names[:-1]), last=names[-1])
        if self.minimum is not None and self.maximum is not None:
            return _("%(minimum)s to %(maximum)s", minimum=self.minimum, maximum=self.maximum)
        return type(self.default).__name__

    def default_text(self) -> str:
        if type(self.default) is bool:
            return "on" if self.default else "off"
        return str(self.default)

    def _to_bool(self, raw: Any) -> bool:
        if isinstance(raw, bool):
            return raw
        word = str(raw).strip().lower()
        if word in _TRUE_WORDS:
            return True
        if word in _FALSE_WORDS:
            return False
        raise OptionError(_("option %(name)s must be on or off, not %(raw)r",
                            name=self.name, raw=raw))

    def _to_int(self, raw: Any) -> int:
        if isinstance(raw, bool):
            raise OptionError(_("option %(name)s must be a whole number, not %(raw)r",
                                name=self.name, raw=raw))
        if isinstance(raw, int):
            return raw
        try:
            return int(str(raw).strip())
        except ValueError:
            raise OptionError(_("option %(name)s must be a whole number, not %(raw)r",
                                name=self.name, raw=raw)) from None


@dataclass(frozen=True)
class Outcome:
    """How a game ended. A shared win or a draw lists every seat sharing it in `winners`."""

    winners: frozenset[Seat]
    scores: tuple[float, ...]
    reason: str


@dataclass(frozen=True)
class Event:
    """Something a move caused that pages and emails describe (a mimic, a capture, a score).

    `visible_to` is the set of seats that may see it; None means everyone, spectators included.
    `data` must be JSON-safe.
    """

    kind: str
    data: dict[str, Any] = field(default_factory=dict)
    visible_to: frozenset[Seat] | None = None

    def is_visible_to(self, seat: Seat | None) -> bool:
        return self.visible_to is None or (seat is not None and seat in self.visible_to)


@dataclass(frozen=True)
class Transition:
    """The result of applying a move: the new state and the events it caused."""

    state: State
    events: tuple[Event, ...] = ()


@runtime_checkable
class GameRules(Protocol):
    """What the server needs from a game. All methods are pure.

    The describing attributes are read-only here so that a game may declare them as plain class
    attributes of narrower types (`options = (Option(...),)` is a `tuple[Option]`).
    """

    @property
    def slug(self) -> str: ...

    @property
    def title(self) -> str: ...

    @property
    def rules_version(self) -> int: ...

    @property
    def player_counts(self) -> frozenset[int]: ...

    @property
    def options(self) -> tuple[Option, ...]: ...

    @property
    def hidden_information(self) -> bool:
        """True when some seat may not know everything (hands, face-down cards, secret
        choices). Such a game must also implement `HidesInformation`."""
        ...

    @property
    def board_picture(self) -> bool:
        """True when the game's board.html draws an SVG board: pages may show it as an image."""
        ...

    def resolve_options(self, given: Mapping[str, Any],
                        stored: bool = False) -> dict[str, Any]:
        """Check a match creator's options and fill in defaults; raise OptionError if bad.
        `stored`: the options of a match made earlier (a record's), whose missing options
        take the value such a match played by (`Option.stored_default`)."""
        ...

    def check_player_count(self, players: int) -> None: ...

    def new_game(self, players: int, options: Mapping[str, Any], seed: int) -> State: ...

    def to_move(self, state: State) -> frozenset[Seat]:
        """Seats that owe a move; several means a simultaneous decision, empty means over."""
        ...

    def legal_moves(self, state: State, seat: Seat) -> Sequence[Move]: ...

    def parse_move(self, state: State, seat: Seat, text: str) -> Move:
        """Return the legal move the text names, or raise a RulesError saying why not."""
        ...

    def format_move(self, state: State, move: Move) -> str: ...

    def apply_move(self, state: State, seat: Seat, move: Move) -> Transition: ...

    def outcome(self, state: State) -> Outcome | None: ...

    def view(self, state: State, seat: Seat | None) -> dict[str, Any]:
        """What `seat` may know (None: a spectator), JSON-safe."""
        ...

    def render_text(self, view: Mapping[str, Any], over: bool = False) -> str:
        """A fixed-width drawing of a view, for email and screen readers.

        `over`: the match has ended though the game in the view has not (a resignation, an
        agreed draw, a timeout, a ruling). The drawing then says nobody is to move and ends
        with the line "Match over." (translated); a game the rules ended says so as ever."""
        ...

    def describe_event(self, event: Event) -> str:
        """One line of prose for an event, e.g. "Red e9-e8 mimicked"."""
        ...

    def seat_label(self, state: State, seat: Seat) -> str:
        """What the game calls this seat now, e.g. "Blue" or "Yuki"."""
        ...

    def default_move(self, state: State, seat: Seat) -> Move:
        """The documented move made for an absent seat when a match's policy autoplays."""
        ...

    def move_visibility(self, state: State, seat: Seat, move: Move) -> frozenset[Seat] | None:
        """Who may read this move's notation in the move list: None means everyone.

        A secret choice (a card kept face down, a simultaneous decision) names only the mover;
        the move list shows others that a move was made, and reveals it when the match ends.
        """
        ...

    def dump(self, state: State) -> dict[str, Any]: ...

    def load(self, data: Mapping[str, Any]) -> State: ...


# Optional capabilities. A game offers one by implementing its methods; the server asks with
# `isinstance(rules, HasPosition)` and so on, and the contract test checks each one offered.


@runtime_checkable
class HasPosition(Protocol):
    """A one-line text form of a position that round-trips exactly (like chess FEN), for
    tests, bug reports and admins. Every board game offers it."""

    def position(self, state: State) -> str: ...

    def from_position(self, text: str) -> State: ...


@runtime_checkable
class HidesInformation(Protocol):
    """Required of every game whose `hidden_information` is true."""

    def shuffle_hidden(self, state: State, seat: Seat | None, seed: int) -> State:
        """A state `seat` (None: a spectator) cannot tell from `state`: everything hidden from
        that seat is re-dealt from `seed`, everything it may know is kept. The contract test
        proves each view is the same for both, so no view can depend on a secret."""
        ...


@runtime_checkable
class CommitsDeals(Protocol):
    """A game whose hidden deals a new match draws from the committed stream of
    `games/dealing.py`: its seed is committed to when the match is created and revealed when
    it ends, so anyone can deal the cards again from the record."""

    def new_committed_game(self, players: int, options: Mapping[str, Any],
                           deal_seed: str) -> State: ...

    def deal_salts(self, state: State) -> tuple[str | None, ...]:
        """Every seat's salt, in seat order (public: salts are published as they are set);
        None for a seat whose salt the first deal still waits for."""
        ...


@runtime_checkable
class KeepsScore(Protocol):
    """A running score during play, one number per seat."""

    def current_scores(self, state: State) -> tuple[float, ...]:
        """The standing so far; settles a forfeit by one of three or four players (the others
        are ranked by it)."""
        ...


@runtime_checkable
class StepsQuickly(Protocol):
    """A cheap successor for the computer's search, which plays thousands of moves a second
    and reads only the new state."""

    def next_state(self, state: State, seat: Seat, move: Move) -> State:
        """`apply_move(state, seat, move).state` for a move taken from `legal_moves(state,
        seat)`, without building the events (nor checking the move again). The contract test
        proves it equal to `apply_move`'s state."""
        ...


# Set while `outcome_for_reader` asks a game for its outcome: the reason is then wanted in the
# reader's language, not in the English that is stored.
_FOR_READER: ContextVar[bool] = ContextVar("pbem_outcome_for_reader", default=False)


def in_english() -> Any:
    """A block whose words are English whoever reads: for text that is stored (an outcome's
    reason is kept in the match's result and shown to every player later). Inside
    `outcome_for_reader` it leaves the reader's language in force."""
    return nullcontext() if _FOR_READER.get() else language("en")


def outcome_for_reader(rules: GameRules, state: State) -> Outcome | None:
    """The game's outcome with its reason in the language in force (a game's `outcome`
    words its reason in English, for the match's stored result)."""
    token = _FOR_READER.set(True)
    try:
        return rules.outcome(state)
    finally:
        _FOR_READER.reset(token)


class RulesBase:
    """Shared behaviour for games: option checking and sensible defaults for the extras.

    Subclasses set the class attributes of `GameRules` and implement its methods; they may
    override the defaults below where the game has something better to say.
    """

    slug: str = ""
    title: str = ""
    # A game states these only where it differs: its first rules, for two players, no options.
    rules_version: int = 1
    player_counts: frozenset[int] = frozenset({2})
    options: tuple[Option, ...] = ()
    hidden_information: bool = False
    # Each seat's name in English, marked with N_: `seat_label` reads it in the reader's language.
    seat_names: tuple[str, ...] = ()
    # Kinds of public event that reveal every hidden move made before them (a round's summary
    # that shows every stack): from then on those moves' notation is no secret to anyone.
    reveal_events: frozenset[str] = frozenset()
    # True when the game's board.html draws an SVG board (pbem/games/boards/grid.py): the player
    # page shows it as a thumbnail and link previews as their image. A table of cards has none.
    board_picture: bool = False

    def move_label(self, state: Any, seat: Seat, events: Sequence[Event]) -> str:
        """How a move list names the seat that made a move (with that move's events); games
        whose seats change roles between games name the role the seat had then."""
        return self.seat_label(state, seat)

    def resolve_options(self, given: Mapping[str, Any],
                        stored: bool = False) -> dict[str, Any]:
        """Check a match creator's options and fill in defaults; raise OptionError if bad.
        `stored`: the options of a match made earlier (see `Option.stored_default`)."""
        known = {option.name: option for option in self.options}
        unknown = sorted(set(given) - set(known))
        if unknown:
            offered = ", ".join(sorted(known)) or _("none")
            raise OptionError(_("%(game)s has no option %(unknown)s (options: %(offered)s)",
                                game=self.title, unknown=", ".join(unknown), offered=offered))
        return {
            name: option.coerce(given[name]) if name in given else
            option.stored_default if stored and option.stored_default is not None else
            option.default
            for name, option in known.items()
        }

    def check_player_count(self, players: int) -> None:
        if players not in self.player_counts:
            allowed = _(" or ").join(str(count) for count in sorted(self.player_counts))
            raise RulesError(_("%(game)s is played by %(allowed)s players, not %(players)s",
                               game=self.title, allowed=allowed, players=players))

    def describe_event(self, event: Event) -> str:
        return event.kind.replace("_", " ")

    def seat_label(self, state: State, seat: Seat) -> str:
        if seat < len(self.seat_names):
            return _(self.seat_names[seat])
        return _("Player %(number)s", number=seat + 1)

    def move_visibility(self, state: State, seat: Seat, move: Move) -> frozenset[Seat] | None:
        return None

    def default_move(self, state: State, seat: Seat) -> Move:
        # The first legal move in the game's own order; card games override with a documented
        # choice (see each module's rules page).
        moves = self.legal_moves(state, seat)  # type: ignore[attr-defined]
        if not moves:
            raise IllegalMoveError(_("there is no legal move to make"))
        return moves[0]
