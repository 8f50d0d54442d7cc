"""The Mimic Taking state, its JSON form and its one-line position text.

Position text: space-separated `key=value` fields, always written in this order:

    round=2 leader=1 hands=O1,O4,M/B2,G8/P3,P5 stacks=-/O6,O7,B6/- aside=G5 trick=B3
    keeper=- prev=0:P2,P7,P8 choices=- scores=-3,10,0 scored=O1,O2/-/M faceup=0 seed=7

- `hands`, `stacks`, `scored`: one card list per seat, seats separated by `/`; a list is
  comma-separated cards (`O7`, `M`) or `-` when empty. Hands are in hand order.
- `round`: the round being played (1-based). `leader`: the seat that led the current trick.
- `trick`: the cards of the current trick in play order, starting with the leader's, or `-`.
- `keeper`: the trump winner now choosing which cards of the (complete) trick to keep, or `-`.
- `aside`: cards set aside by trump winners this round, or `-`.
- `prev`: the previous trick of this round as `leader:cards`, or `-`.
- `choices`: during the end-of-round decision, `add`, `discard` or `?` (not chosen yet) per
  seat, comma-separated; `-` at any other time.
- `scores`: every finished round's scores, rounds separated by `/`, seats by `,`; or `-`.
- `scored`: the final stacks of the last scored round (the public round summary), or `-`.
- `faceup`: 1 for the face-up variant. `seed`: the match seed, which decides future deals.
- `dealseed`, `salts`, `offered`: only in a match dealt by the committed scheme
  (`games/dealing.py`), which then decides the deals instead of `seed`: its 64-digit seed,
  each seat's salt in hexadecimal UTF-8 (`?`: not added yet), seats split by `/`, and in a
  match whose deal waits for salts the salt each seat takes by adding none (else `-`).

`from_position` accepts any subset of fields after `hands` (missing ones take the start-of-round
defaults above: round 1, leader 0, nothing won, face-down, seed 0), so tests stay short.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, fields
from typing import Any

from pbem.games.base import RulesError
from pbem.games.mimic_taking.cards import MIMIC, ROUNDS, is_card, sort_cards

Cards = tuple[str, ...]


@dataclass(frozen=True)
class MimicTakingState:
    players: int
    face_up: bool
    seed: int
    round: int
    hands: tuple[Cards, ...]
    stacks: tuple[Cards, ...]
    aside: Cards
    leader: int
    trick: Cards
    keeper: int | None
    previous: tuple[int, Cards] | None
    choices: tuple[str | None, ...] | None
    scores: tuple[tuple[int, ...], ...]
    scored: tuple[Cards, ...] | None
    # A match dealt by the committed scheme (`games/dealing.py`): its seed (64 hexadecimal
    # digits) and every seat's salt. None: the scheme before it, deals from `seed`.
    deal_seed: str | None = None
    # A seat's salt is None until it adds one, in a match whose first deal waits for them
    # (option `salted`); `offered` then holds the salt each seat takes by adding none.
    salts: tuple[str | None, ...] | None = None
    offered: tuple[str, ...] | None = None

    @property
    def salting(self) -> bool:
        """Waiting for salts: nothing is dealt yet."""
        return self.salts is not None and None in self.salts

    @property
    def rounds(self) -> int:
        return ROUNDS[self.players]

    @property
    def finished(self) -> bool:
        return len(self.scores) >= self.rounds

    @property
    def totals(self) -> tuple[int, ...]:
        return tuple(sum(row[seat] for row in self.scores) for seat in range(self.players))


_FIELD_NAMES = frozenset(field.name for field in fields(MimicTakingState))


def evolve(state: MimicTakingState, **changes: Any) -> MimicTakingState:
    """The state with some fields changed: `dataclasses.replace`, made by copying the fields
    rather than through replace's walk over every field and `__init__` (a computer's
    playouts make hundreds of thousands of states; replace was a fifth of their time)."""
    if not changes.keys() <= _FIELD_NAMES:
        raise TypeError(f"MimicTakingState has no field {sorted(changes.keys() - _FIELD_NAMES)}")
    new = object.__new__(MimicTakingState)
    # Frozen: its own __setattr__ refuses; the instance's dict is written once, here.
    vars(new).update(vars(state), **changes)
    return new


FIELDS = ("round", "leader", "hands", "stacks", "aside", "trick", "keeper", "prev", "choices",
          "scores", "scored", "faceup", "seed", "dealseed", "salts", "offered")
# Written only for a match dealt by the committed scheme.
_COMMITTED_FIELDS = ("dealseed", "salts", "offered")


def dump_state(state: MimicTakingState) -> dict[str, Any]:
    return {
        "players": state.players,
        "face_up": state.face_up,
        "seed": state.seed,
        "round": state.round,
        "hands": [list(hand) for hand in state.hands],
        "stacks": [list(stack) for stack in state.stacks],
        "aside": list(state.aside),
        "leader": state.leader,
        "trick": list(state.trick),
        "keeper": state.keeper,
        "previous": ([state.previous[0], list(state.previous[1])]
                     if state.previous is not None else None),
        "choices": list(state.choices) if state.choices is not None else None,
        "scores": [list(row) for row in state.scores],
        "scored": [list(stack) for stack in state.scored] if state.scored is not None else None,
        **({"deal_seed": state.deal_seed, "salts": list(state.salts or ()),
            "offered": list(state.offered) if state.offered is not None else None}
           if state.deal_seed is not None else {}),
    }


def load_state(data: Mapping[str, Any]) -> MimicTakingState:
    previous = data["previous"]
    return MimicTakingState(
        players=data["players"],
        face_up=data["face_up"],
        seed=data["seed"],
        round=data["round"],
        hands=tuple(tuple(hand) for hand in data["hands"]),
        stacks=tuple(tuple(stack) for stack in data["stacks"]),
        aside=tuple(data["aside"]),
        leader=data["leader"],
        trick=tuple(data["trick"]),
        keeper=data["keeper"],
        previous=(previous[0], tuple(previous[1])) if previous is not None else None,
        choices=tuple(data["choices"]) if data["choices"] is not None else None,
        scores=tuple(tuple(row) for row in data["scores"]),
        scored=tuple(tuple(s) for s in data["scored"]) if data["scored"] is not None else None,
        deal_seed=data.get("deal_seed"),
        salts=tuple(data["salts"]) if data.get("deal_seed") is not None else None,
        offered=tuple(data["offered"]) if data.get("offered") is not None else None,
    )


def position_text(state: MimicTakingState) -> str:
    previous = (f"{state.previous[0]}:{_cards(state.previous[1])}"
                if state.previous is not None else "-")
    choices = (",".join(choice or "?" for choice in state.choices)
               if state.choices is not None else "-")
    scores = "/".join(",".join(str(s) for s in row) for row in state.scores) or "-"
    fields = {
        "round": str(state.round),
        "leader": str(state.leader),
        "hands": _seat_cards(state.hands),
        "stacks": _seat_cards(state.stacks),
        "aside": _cards(state.aside),
        "trick": _cards(state.trick),
        "keeper": "-" if state.keeper is None else str(state.keeper),
        "prev": previous,
        "choices": choices,
        "scores": scores,
        "scored": _seat_cards(state.scored) if state.scored is not None else "-",
        "faceup": "1" if state.face_up else "0",
        "seed": str(state.seed),
        "dealseed": state.deal_seed or "",
        # Hexadecimal UTF-8, as a salt may hold spaces and slashes.
        "salts": "/".join("?" if salt is None else salt.encode().hex()
                          for salt in state.salts or ()),
        "offered": "/".join(salt.encode().hex() for salt in state.offered or ()) or "-",
    }
    return " ".join(f"{key}={fields[key]}" for key in FIELDS
                    if state.deal_seed is not None or key not in _COMMITTED_FIELDS)


def parse_position(text: str) -> MimicTakingState:
    fields: dict[str, str] = {}
    for token in text.split():
        key, sep, value = token.partition("=")
        if not sep or key not in FIELDS or key in fields:
            raise RulesError(f"bad position field {token!r} (fields: {', '.join(FIELDS)})")
        fields[key] = value
    if "hands" not in fields:
        raise RulesError("a position needs hands=… (one card list per seat, split by /)")
    players = len(fields["hands"].split("/"))
    if players not in ROUNDS:
        raise RulesError(f"a position has 3 or 4 hands, not {players}")
    hands = tuple(sort_cards(hand) for hand in _parse_seats(fields["hands"], players))
    stacks = _parse_seats(fields.get("stacks", "/".join("-" * players)), players)
    scored_text = fields.get("scored", "-")
    state = MimicTakingState(
        players=players,
        face_up=_parse_int(fields.get("faceup", "0"), "faceup") == 1,
        seed=_parse_int(fields.get("seed", "0"), "seed"),
        round=_parse_int(fields.get("round", "1"), "round"),
        hands=hands,
        stacks=stacks,
        aside=_parse_cards(fields.get("aside", "-"), players),
        leader=_parse_seat(fields.get("leader", "0"), players),
        trick=_parse_cards(fields.get("trick", "-"), players),
        keeper=_parse_optional_seat(fields.get("keeper", "-"), players),
        previous=_parse_previous(fields.get("prev", "-"), players),
        choices=_parse_choices(fields.get("choices", "-"), players),
        scores=_parse_scores(fields.get("scores", "-"), players),
        scored=None if scored_text == "-" else _parse_seats(scored_text, players),
        **_parse_committed(fields, players),
    )
    _check_consistent(state)
    return state


def _parse_committed(fields: Mapping[str, str], players: int) -> dict[str, Any]:
    if "dealseed" not in fields:
        return {}
    seed = fields["dealseed"]
    if len(seed) != 64 or any(ch not in "0123456789abcdef" for ch in seed):
        raise RulesError("dealseed must be 64 lowercase hexadecimal digits")
    try:
        salts = tuple(None if part == "?" else bytes.fromhex(part).decode()
                      for part in fields.get("salts", "").split("/"))
        offered_text = fields.get("offered", "-")
        offered = (None if offered_text == "-" else
                   tuple(bytes.fromhex(part).decode() for part in offered_text.split("/")))
    except ValueError as error:
        raise RulesError("salts and offered must be hexadecimal UTF-8, split by /") from error
    if len(salts) != players or (offered is not None and len(offered) != players):
        raise RulesError(f"salts and offered need one salt per seat ({players})")
    return {"deal_seed": seed, "salts": salts, "offered": offered}


def _check_consistent(state: MimicTakingState) -> None:
    in_play = [*(c for hand in state.hands for c in hand), *(c for s in state.stacks for c in s),
               *state.aside, *state.trick]
    counts = Counter(in_play)
    doubled = sorted(card for card, n in counts.items() if card != MIMIC and n > 1)
    if doubled:
        raise RulesError(f"a position holds {', '.join(doubled)} more than once")
    if counts[MIMIC] > 4:
        raise RulesError("a position holds more than 4 mimics")
    if not 1 <= state.round <= state.rounds:
        raise RulesError(f"round must be 1 to {state.rounds}")
    if len(state.trick) >= state.players and state.keeper is None:
        raise RulesError("a complete trick stays on the table only while keeper= chooses")


def _cards(cards: Sequence[str]) -> str:
    return ",".join(cards) or "-"


def _seat_cards(seats: Sequence[Sequence[str]]) -> str:
    return "/".join(_cards(cards) for cards in seats)


def _parse_cards(text: str, players: int) -> Cards:
    if text == "-":
        return ()
    cards = tuple(card.upper() for card in text.split(","))
    for card in cards:
        if not is_card(card, players):
            raise RulesError(f"{card!r} is not a card in a {players}-player game")
    return cards


def _parse_seats(text: str, players: int) -> tuple[Cards, ...]:
    parts = text.split("/")
    if len(parts) != players:
        raise RulesError(f"{text!r} must list {players} seats separated by /")
    return tuple(_parse_cards(part, players) for part in parts)


def _parse_int(text: str, name: str) -> int:
    try:
        return int(text)
    except ValueError:
        raise RulesError(f"{name} must be a whole number, not {text!r}") from None


def _parse_seat(text: str, players: int) -> int:
    seat = _parse_int(text, "seat")
    if not 0 <= seat < players:
        raise RulesError(f"seat {seat} does not exist (0 to {players - 1})")
    return seat


def _parse_optional_seat(text: str, players: int) -> int | None:
    return None if text == "-" else _parse_seat(text, players)


def _parse_previous(text: str, players: int) -> tuple[int, Cards] | None:
    if text == "-":
        return None
    leader, sep, cards = text.partition(":")
    if not sep:
        raise RulesError(f"prev= is written leader:cards, not {text!r}")
    return _parse_seat(leader, players), _parse_cards(cards, players)


def _parse_choices(text: str, players: int) -> tuple[str | None, ...] | None:
    if text == "-":
        return None
    choices = text.split(",")
    if len(choices) != players or any(c not in ("add", "discard", "?") for c in choices):
        raise RulesError(f"choices= lists add, discard or ? for each seat, not {text!r}")
    return tuple(None if choice == "?" else choice for choice in choices)


def _parse_scores(text: str, players: int) -> tuple[tuple[int, ...], ...]:
    if text == "-":
        return ()
    rows = tuple(tuple(_parse_int(s, "score") for s in row.split(",")) for row in text.split("/"))
    if any(len(row) != players for row in rows):
        raise RulesError(f"scores= needs {players} scores per round, not {text!r}")
    return rows
