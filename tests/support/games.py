"""Two small test-only games that prove the platform before the real games arrive.

- `nim`: sequential, two players, no secrets. A pile of counters; each turn a player takes 1 to
  3; whoever takes the last counter wins. Notation: `take 2`, forgiving `2` or `Take 2`.
- `bids`: three or four players, hidden hands dealt from the seed, and a simultaneous secret
  decision every round. Each seat holds `hand` cards from 1 to hand x seats; every round all seats
  play a card at once (`play 7`); choices stay hidden until everyone has chosen, then the highest
  card scores a point. Most points after the last round wins; ties share the win.
"""

from __future__ import annotations

import random
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, replace
from typing import Any

from pbem.games.base import (
    Event,
    IllegalMoveError,
    InvalidMoveError,
    Option,
    Outcome,
    RulesBase,
    Seat,
    Transition,
)
from pbem.games.notation import normalize


@dataclass(frozen=True)
class NimState:
    pile: int
    turn: Seat
    last_take: int | None = None
    winner: Seat | None = None


class NimRules(RulesBase):
    slug = "nim"
    board_picture = True
    title = "Nim (test game)"
    rules_version = 1
    player_counts = frozenset({2})
    options = (Option("pile", 9, "counters on the pile at the start", minimum=1, maximum=30),)
    seat_names = ("First", "Second")

    def new_game(self, players: int, options: Mapping[str, Any], seed: int) -> NimState:
        self.check_player_count(players)
        resolved = self.resolve_options(options)
        return NimState(pile=resolved["pile"], turn=0)

    def to_move(self, state: NimState) -> frozenset[Seat]:
        return frozenset() if state.winner is not None else frozenset({state.turn})

    def legal_moves(self, state: NimState, seat: Seat) -> Sequence[int]:
        if seat not in self.to_move(state):
            return []
        return list(range(1, min(3, state.pile) + 1))

    def parse_move(self, state: NimState, seat: Seat, text: str) -> int:
        found = re.fullmatch(r"(?:take\s*)?([0-9]{1,9})", normalize(text))
        if found is None:
            raise InvalidMoveError(f"{text!r} is not a move: write it like 'take 2'")
        count = int(found.group(1))
        if count not in self.legal_moves(state, seat):
            raise IllegalMoveError(
                f"you cannot take {count}: take 1 to {min(3, state.pile)} "
                f"(the pile has {state.pile})"
            )
        return count

    def format_move(self, state: NimState, move: int) -> str:
        return f"take {move}"

    def apply_move(self, state: NimState, seat: Seat, move: int) -> Transition:
        pile = state.pile - move
        winner = seat if pile == 0 else None
        new = NimState(pile=pile, turn=1 - seat, last_take=move, winner=winner)
        return Transition(new, (Event("took", {"seat": seat, "count": move, "left": pile}),))

    def outcome(self, state: NimState) -> Outcome | None:
        if state.winner is None:
            return None
        scores = tuple(1.0 if seat == state.winner else 0.0 for seat in (0, 1))
        name = self.seat_names[state.winner]
        return Outcome(frozenset({state.winner}), scores, f"{name} took the last counter")

    def view(self, state: NimState, seat: Seat | None) -> dict[str, Any]:
        return {"pile": state.pile, "turn": state.turn, "last_take": state.last_take}

    def render_text(self, view: Mapping[str, Any], over: bool = False) -> str:
        text = f"Pile: {view['pile']} {'o' * view['pile']}".rstrip()
        return f"{text}\nMatch over." if over and view["pile"] else text

    def describe_event(self, event: Event) -> str:
        data = event.data
        return f"{self.seat_names[data['seat']]} took {data['count']}, {data['left']} left"

    def dump(self, state: NimState) -> dict[str, Any]:
        return {"pile": state.pile, "turn": state.turn, "last_take": state.last_take,
                "winner": state.winner}

    def load(self, data: Mapping[str, Any]) -> NimState:
        return NimState(data["pile"], data["turn"], data["last_take"], data["winner"])

    def position(self, state: NimState) -> str:
        return f"{state.pile} {state.turn}"

    def from_position(self, text: str) -> NimState:
        pile, turn = text.split()
        return NimState(pile=int(pile), turn=int(turn))


@dataclass(frozen=True)
class BidsState:
    seed: int
    hands: tuple[tuple[int, ...], ...]
    pending: tuple[int | None, ...]
    points: tuple[int, ...]
    last_round: tuple[int, ...] | None = None


class BidsRules(RulesBase):
    slug = "bids"
    title = "Bids (test game)"
    rules_version = 1
    player_counts = frozenset({3, 4})
    options = (Option("hand", 3, "cards dealt to each player", minimum=1, maximum=5),)
    hidden_information = True
    reveal_events = frozenset({"round"})

    def new_game(self, players: int, options: Mapping[str, Any], seed: int) -> BidsState:
        self.check_player_count(players)
        size = self.resolve_options(options)["hand"]
        deck = list(range(1, size * players + 1))
        random.Random(seed).shuffle(deck)
        hands = tuple(tuple(sorted(deck[i * size:(i + 1) * size])) for i in range(players))
        return BidsState(seed, hands, (None,) * players, (0,) * players)

    def to_move(self, state: BidsState) -> frozenset[Seat]:
        return frozenset(
            seat for seat, hand in enumerate(state.hands)
            if hand and state.pending[seat] is None
        )

    def legal_moves(self, state: BidsState, seat: Seat) -> Sequence[int]:
        return list(state.hands[seat]) if seat in self.to_move(state) else []

    def parse_move(self, state: BidsState, seat: Seat, text: str) -> int:
        found = re.fullmatch(r"(?:play\s*)?([0-9]{1,9})", normalize(text))
        if found is None:
            raise InvalidMoveError(f"{text!r} is not a move: write it like 'play 7'")
        card = int(found.group(1))
        if seat not in self.to_move(state):
            raise IllegalMoveError("you have already chosen this round")
        if card not in state.hands[seat]:
            raise IllegalMoveError(f"you do not hold a {card}")
        return card

    def format_move(self, state: BidsState, move: int) -> str:
        return f"play {move}"

    def apply_move(self, state: BidsState, seat: Seat, move: int) -> Transition:
        pending = list(state.pending)
        pending[seat] = move
        if any(choice is None for choice in pending):
            new = replace(state, pending=tuple(pending))
            # Only the chooser learns which card; the others learn that a choice was made.
            return Transition(new, (
                Event("chose_card", {"seat": seat, "card": move}, frozenset({seat})),
                Event("chose", {"seat": seat}),
            ))
        played = tuple(pending)  # type: ignore[arg-type]
        top = max(played)
        round_winner = played.index(top)
        hands = tuple(tuple(c for c in hand if c != played[i])
                      for i, hand in enumerate(state.hands))
        points = tuple(p + (1 if i == round_winner else 0) for i, p in enumerate(state.points))
        new = BidsState(state.seed, hands, (None,) * len(hands), points, played)
        return Transition(new, (
            Event("round", {"cards": list(played), "winner": round_winner}),
        ))

    def move_visibility(self, state: BidsState, seat: Seat, move: int) -> frozenset[Seat]:
        return frozenset({seat})

    def outcome(self, state: BidsState) -> Outcome | None:
        if any(state.hands):
            return None
        best = max(state.points)
        winners = frozenset(i for i, p in enumerate(state.points) if p == best)
        names = ", ".join(f"Player {i + 1}" for i in sorted(winners))
        return Outcome(winners, tuple(float(p) for p in state.points),
                       f"most rounds won ({best}): {names}")

    def current_scores(self, state: BidsState) -> tuple[float, ...]:
        return tuple(float(p) for p in state.points)

    def view(self, state: BidsState, seat: Seat | None) -> dict[str, Any]:
        return {
            "hand": list(state.hands[seat]) if seat is not None else None,
            "hand_sizes": [len(hand) for hand in state.hands],
            "chosen": [choice is not None for choice in state.pending],
            "my_choice": state.pending[seat] if seat is not None else None,
            "points": list(state.points),
            "last_round": list(state.last_round) if state.last_round else None,
        }

    def render_text(self, view: Mapping[str, Any], over: bool = False) -> str:
        lines = [f"Points: {' '.join(str(p) for p in view['points'])}"]
        if view["last_round"]:
            lines.append(f"Last round: {' '.join(str(c) for c in view['last_round'])}")
        if view["hand"] is not None:
            lines.append(f"Your hand: {' '.join(str(c) for c in view['hand'])}")
        if over and any(view["hand_sizes"]):
            lines.append("Match over.")
        return "\n".join(lines)

    def describe_event(self, event: Event) -> str:
        data = event.data
        if event.kind == "chose_card":
            return f"You chose {data['card']}"
        if event.kind == "chose":
            return f"Player {data['seat'] + 1} has chosen"
        cards = ", ".join(str(card) for card in data["cards"])
        return f"Cards revealed: {cards}; Player {data['winner'] + 1} wins the round"

    def dump(self, state: BidsState) -> dict[str, Any]:
        return {
            "seed": state.seed,
            "hands": [list(hand) for hand in state.hands],
            "pending": list(state.pending),
            "points": list(state.points),
            "last_round": list(state.last_round) if state.last_round else None,
        }

    def load(self, data: Mapping[str, Any]) -> BidsState:
        last = data["last_round"]
        return BidsState(
            data["seed"], tuple(tuple(hand) for hand in data["hands"]),
            tuple(data["pending"]), tuple(data["points"]), tuple(last) if last else None,
        )

    def shuffle_hidden(self, state: BidsState, seat: Seat | None, seed: int) -> BidsState:
        """A state `seat` cannot tell apart from this one: others' hands and choices redealt."""
        others = [i for i in range(len(state.hands)) if i != seat]
        pool = [card for i in others for card in state.hands[i]]
        random.Random(seed).shuffle(pool)
        hands = list(state.hands)
        pending = list(state.pending)
        for i in others:
            size = len(hands[i])
            hands[i] = tuple(sorted(pool[:size]))
            pool = pool[size:]
        for i in others:
            if pending[i] is not None:
                pending[i] = hands[i][0] if hands[i] else pending[i]
        return replace(state, seed=seed, hands=tuple(hands), pending=tuple(pending))


TEST_GAMES = {"nim": NimRules(), "bids": BidsRules()}
