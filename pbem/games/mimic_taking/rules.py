"""The Mimic Taking rules class: moves, notation, transitions, outcome and views."""

from __future__ import annotations

import random
import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from pbem.games.base import (
    AmbiguousMoveError,
    Event,
    IllegalMoveError,
    InvalidMoveError,
    Option,
    Outcome,
    RulesBase,
    RulesError,
    Seat,
    Transition,
    in_english,
)
from pbem.games.dealing import DealStream, default_salt
from pbem.games.mimic_taking.cards import (
    COLOURS,
    HAND_SIZE,
    MIMIC,
    TrickResult,
    card_key,
    colour_name,
    colour_of,
    deck,
    is_card,
    number_of,
    reference_card,
    score_stack,
    sort_cards,
    stack_points,
    trick_winner,
)
from pbem.games.mimic_taking.salts import SALT, is_salt_text, parse_salt, salt_view, with_salt
from pbem.games.mimic_taking.state import (
    Cards,
    MimicTakingState,
    dump_state,
    evolve,
    load_state,
    parse_position,
    position_text,
)
from pbem.games.mimic_taking.text import describe, render, result_words
from pbem.games.notation import is_number, normalize
from pbem.i18n import N_, _, ngettext

PLAY, TAKE, ADD, DISCARD = "play", "take", "add", "discard"


@dataclass(frozen=True)
class Move:
    """`play` one card, `take` some cards of a trump-won trick (in trick order), or, for the
    last card at round end, `add` or `discard`."""

    kind: str
    cards: tuple[str, ...] = ()


# Built once, for the computer's playouts: every card's play, and each seat's turn alone.
PLAYS = {card: Move(PLAY, (card,)) for card in {*deck(3), *deck(4)}}
SEAT_ALONE = tuple(frozenset({seat}) for seat in range(4))
NOBODY: frozenset[Seat] = frozenset()

class MimicTakingRules(RulesBase):
    slug = "mimic-taking"
    title = "Mimic Taking"
    rules_version = 1
    player_counts = frozenset({3, 4})
    options = (
        Option("face_up", False,
               N_("variant: won cards lie face up in rows by colour, so everyone (their owner "
                  "included) sees every stack; off, stacks stay face down until the round is "
                  "scored"),
               label_text=N_("face up")),
        Option("salted", True,
               N_("the first deal waits until every seat has added its own salt to the "
                  "shuffle (or taken the one it was given), so nobody, the server included, "
                  "can have chosen the cards"),
               label_text=N_("salted deal"),
               # Once off by default: a match or record made then names no `salted`.
               stored_default=False),
    )
    hidden_information = True  # hands, and choices made in secret (see shuffle_hidden)

    # -- setting up -------------------------------------------------------------------------

    def new_game(self, players: int, options: Mapping[str, Any], seed: int) -> MimicTakingState:
        self.check_player_count(players)
        resolved = self.resolve_options(options)
        hands, first_leader = _deal(players, seed, 1)
        return MimicTakingState(
            players=players, face_up=resolved["face_up"], seed=seed, round=1, hands=hands,
            stacks=((),) * players, aside=(), leader=first_leader, trick=(), keeper=None,
            previous=None, choices=None, scores=(), scored=None,
        )

    def new_committed_game(self, players: int, options: Mapping[str, Any],
                           deal_seed: str) -> MimicTakingState:
        """A game dealt by the committed scheme (`games/dealing.py`) from `deal_seed` and each
        seat's default salt (see `docs/players/fair-play.md`)."""
        self.check_player_count(players)
        offered = tuple(default_salt(deal_seed, seat) for seat in range(players))
        state = evolve(self.new_game(players, options, 0), deal_seed=deal_seed, salts=offered)
        if self.resolve_options(options)["salted"]:
            return evolve(state, hands=((),) * players, leader=0, salts=(None,) * players,
                          offered=offered)
        hands, first_leader = _deal_committed(state, 1)
        return evolve(state, hands=hands, leader=first_leader)

    def deal_salts(self, state: MimicTakingState) -> tuple[str | None, ...]:
        return state.salts or ()

    # -- whose turn, which moves ------------------------------------------------------------

    def to_move(self, state: MimicTakingState) -> frozenset[Seat]:
        if state.finished:
            return NOBODY
        if state.salting and state.salts is not None:
            return frozenset(s for s, salt in enumerate(state.salts) if salt is None)
        if state.choices is not None:
            return frozenset(s for s, choice in enumerate(state.choices) if choice is None)
        if state.keeper is not None:
            return SEAT_ALONE[state.keeper]
        return SEAT_ALONE[_player_on_turn(state)]

    def legal_moves(self, state: MimicTakingState, seat: Seat) -> Sequence[Move]:
        if (state.choices is None and state.keeper is None and state.salts is None
                and not state.finished):
            # Playing to a trick, nearly every move of a playout: `to_move` is this seat alone.
            if seat != _player_on_turn(state):
                return []
            return [PLAYS[card] for card in _playable(state.hands[seat], state.trick)]
        if seat not in self.to_move(state):
            return []
        if state.salting:
            return [Move(SALT)]
        if state.choices is not None:
            return [Move(ADD), Move(DISCARD)]
        if state.keeper is not None:
            return [Move(TAKE, cards) for cards in _keep_choices(state.trick)]
        return [PLAYS[card] for card in _playable(state.hands[seat], state.trick)]

    def default_move(self, state: MimicTakingState, seat: Seat) -> Move:
        """Autoplay for an absent seat: the lowest legal number (orange first on equal numbers,
        a mimic only when nothing else is legal); a trump winner keeps none; the last card is
        discarded. An absent player never adds cards to their stack by choice."""
        moves = self.legal_moves(state, seat)
        if not moves:
            raise IllegalMoveError(_("there is no move to make for this seat now"))
        if moves[0].kind == SALT:
            return Move(SALT)
        if moves[0].kind == PLAY:
            return min(moves, key=lambda m: (number_of(m.cards[0]) or 99, card_key(m.cards[0])))
        if moves[0].kind == TAKE:
            return Move(TAKE, ())
        return Move(DISCARD)

    # -- notation ---------------------------------------------------------------------------

    def format_move(self, state: MimicTakingState, move: Move) -> str:
        if move.kind == PLAY:
            return move.cards[0]
        if move.kind == TAKE:
            return "take " + (" ".join(move.cards) if move.cards else "none")
        if move.kind == SALT:
            return " ".join((SALT, *move.cards))
        return move.kind

    def parse_move(self, state: MimicTakingState, seat: Seat, text: str) -> Move:
        if state.salting or is_salt_text(text):
            if state.finished:
                self._check_turn(state, seat, SALT)
            return Move(SALT, parse_salt(state, seat, text))
        kind, cards, number = _read(text)
        self._check_turn(state, seat, kind)
        if state.choices is not None:
            return Move(kind)
        if state.keeper is not None:
            return _parse_take(state.trick, cards, text)
        return _parse_play(state, seat, cards, number, text)

    def _check_turn(self, state: MimicTakingState, seat: Seat, kind: str) -> None:
        if state.finished:
            raise IllegalMoveError(_("the game is over: no more moves can be made"))
        if seat not in self.to_move(state):
            if state.choices is not None:
                raise IllegalMoveError(_("you have already chosen what to do with your last "
                                         "card this round; waiting for the others"))
            raise IllegalMoveError(_("it is not your turn: %(waiting)s",
                                     waiting=self._waiting_for(state)))
        if state.choices is not None and kind not in (ADD, DISCARD):
            raise IllegalMoveError(_("the round is over: choose whether to add your last card "
                                     "%(card)s to your stack (add) or set it aside (discard)",
                                     card=state.hands[seat][0]))
        if state.keeper is not None and kind not in (TAKE, "cards"):
            raise IllegalMoveError(_("you won the trick with a trump: first choose which of "
                                     "its cards (%(cards)s) to keep, e.g. 'take none' or 'take "
                                     "all'", cards=" ".join(state.trick)))
        if state.choices is None and state.keeper is None and kind not in (PLAY, "cards"):
            hand = " ".join(state.hands[seat])
            if kind == TAKE:
                raise IllegalMoveError(_("you cannot take cards now: it is your turn to play a "
                                         "card to the trick (you hold %(hand)s)", hand=hand))
            raise IllegalMoveError(_("you cannot %(kind)s a last card now: it is your turn to "
                                     "play a card to the trick (you hold %(hand)s)", kind=kind,
                                     hand=hand))

    def _waiting_for(self, state: MimicTakingState) -> str:
        if state.keeper is not None:
            return _("%(player)s is choosing which cards of the trick to keep",
                     player=self.seat_label(state, state.keeper))
        return _("%(player)s is to play", player=self.seat_label(state, _player_on_turn(state)))

    # -- applying a move ----------------------------------------------------------------------

    def next_state(self, state: MimicTakingState, seat: Seat, move: Move) -> MimicTakingState:
        # Playing a card and the last-card choice are nearly every move of a playout.
        if move.kind == PLAY:
            return _after_play(state, seat, move.cards[0])[0]
        if move.kind in (ADD, DISCARD):
            chosen = _after_choice(state, seat, move.kind)
            if any(c is None for c in chosen.choices or ()):
                return chosen
            return _round_scored(chosen)[0]
        return self.apply_move(state, seat, move).state

    def apply_move(self, state: MimicTakingState, seat: Seat, move: Move) -> Transition:
        if move.kind == SALT:
            return _salt(state, seat, move.cards)
        if move.kind == PLAY:
            return _play(state, seat, move.cards[0])
        if move.kind == TAKE:
            return _take(state, seat, move.cards)
        return _choose_last(state, seat, move.kind)

    # The round's summary shows every stack and every last-card choice.
    reveal_events = frozenset({"round_scored"})

    def move_visibility(self, state: MimicTakingState, seat: Seat,
                        move: Move) -> frozenset[Seat] | None:
        # Kept cards go into a face-down stack, and the last-card choice stays secret until
        # everyone has chosen: only the mover may read those moves' notation. The round's
        # public summary then shows every stack.
        if move.kind in (PLAY, SALT) or (move.kind == TAKE and state.face_up):
            return None  # salts are published as they are set
        return frozenset({seat})

    def current_scores(self, state: MimicTakingState) -> tuple[float, ...]:
        """Each seat's total so far, for settling a forfeit in the middle of a match."""
        return tuple(float(total) for total in state.totals)

    def outcome(self, state: MimicTakingState) -> Outcome | None:
        if not state.finished:
            return None
        totals = state.totals
        best = max(totals)
        winners = frozenset(s for s, total in enumerate(totals) if total == best)
        with in_english():  # stored in the match's result
            reason = result_words(sorted(winners), best, state.rounds)
        return Outcome(winners, tuple(float(t) for t in totals), reason)

    # -- what a seat sees -------------------------------------------------------------------

    def view(self, state: MimicTakingState, seat: Seat | None) -> dict[str, Any]:
        players = range(state.players)
        previous: dict[str, Any] | None = None
        if state.previous is not None:
            leader, cards = state.previous
            result = trick_winner(cards)
            previous = {"leader": leader, "cards": _seated(leader, cards, state.players),
                        "winner": (leader + result.index) % state.players, "how": result.how}
        last_played: dict[str, Any] | None
        if state.trick:
            last_played = _seated(state.leader, state.trick, state.players)[-1]
        else:
            last_played = previous["cards"][-1] if previous else None
        choices = state.choices
        summary = _summary(state.scored, state.scores[-1]) if state.scored is not None else None
        outcome = self.outcome(state)
        return {
            "game": self.slug,
            "players": state.players,
            "seat": seat,
            "labels": [self.seat_label(state, s) for s in players],
            "round": state.round,
            "rounds": state.rounds,
            "face_up": state.face_up,
            "phase": _phase(state),
            "to_move": sorted(self.to_move(state)),
            "leader": state.leader,
            "trick": _seated(state.leader, state.trick, state.players),
            "reference": reference_card(state.trick),
            "keeper": state.keeper,
            "previous_trick": previous,
            "last_played": last_played,
            "hand_sizes": [len(hand) for hand in state.hands],
            "stack_sizes": [len(stack) for stack in state.stacks],
            "stacks": [list(stack) for stack in state.stacks] if state.face_up else None,
            "chosen": [c is not None for c in choices] if choices is not None else None,
            "my_choice": choices[seat] if choices is not None and seat is not None else None,
            "hand": list(state.hands[seat]) if seat is not None else None,
            **salt_view(state, seat),
            "round_scores": [list(row) for row in state.scores],
            "totals": list(state.totals),
            "last_round": summary,
            "winners": sorted(outcome.winners) if outcome else None,
            "result": (result_words(sorted(outcome.winners), max(state.totals), state.rounds)
                       if outcome else None),
        }

    def render_text(self, view: Mapping[str, Any], over: bool = False) -> str:
        return render(view, over)

    def describe_event(self, event: Event) -> str:
        return describe(event)

    # -- storage and hand-made positions ----------------------------------------------------

    def dump(self, state: MimicTakingState) -> dict[str, Any]:
        return dump_state(state)

    def load(self, data: Mapping[str, Any]) -> MimicTakingState:
        return load_state(data)

    def position(self, state: MimicTakingState) -> str:
        return position_text(state)

    def from_position(self, text: str) -> MimicTakingState:
        return parse_position(text)

    def shuffle_hidden(self, state: MimicTakingState, seat: Seat | None,
                       seed: int) -> MimicTakingState:
        """A state `seat` cannot tell from this one: other hands, face-down stacks (its own
        included: nobody looks at won cards), set-aside cards, other seats' pending last-card
        choices and the seed (future deals) are all redealt."""
        rng = random.Random(seed)
        others = [s for s in range(state.players) if s != seat]
        hidden_stacks = [] if state.face_up else list(range(state.players))
        # Sorted before the shuffle, so the re-deal depends on which cards are hidden and
        # never on where they were: two states the seat cannot tell apart re-deal alike.
        pool = list(sort_cards([*(c for s in others for c in state.hands[s]),
                                *(c for s in hidden_stacks for c in state.stacks[s]),
                                *state.aside]))
        rng.shuffle(pool)
        hands, stacks = list(state.hands), list(state.stacks)
        for s in others:
            hands[s] = sort_cards(pool.pop() for _ in state.hands[s])
        for s in hidden_stacks:
            stacks[s] = tuple(pool.pop() for _ in state.stacks[s])
        choices = state.choices
        if choices is not None:
            choices = tuple(c if s == seat or c is None else rng.choice((ADD, DISCARD))
                            for s, c in enumerate(choices))
        # The future deals are unknown to every seat: a committed match's seed is redrawn too.
        deal_seed = (None if state.deal_seed is None
                     else f"{rng.getrandbits(256):064x}")
        return evolve(state, seed=rng.randrange(2**31), hands=tuple(hands),
                       stacks=tuple(stacks), aside=tuple(pool), choices=choices,
                       deal_seed=deal_seed)


# -- transitions ------------------------------------------------------------------------------

def _salt(state: MimicTakingState, seat: Seat, given: tuple[str, ...]) -> Transition:
    """A seat's salt; the last one deals round 1 (`salts.py`)."""
    state, added = with_salt(state, seat, given)
    if state.salting:
        return Transition(state, (added,))
    hands, leader = _deal_committed(state, 1)
    return Transition(evolve(state, hands=hands, leader=leader),
                      (added, Event("round_started", {"round": 1, "leader": leader})))


def _play(state: MimicTakingState, seat: Seat, card: str) -> Transition:
    events = [Event("played", {"seat": seat, "card": card})]
    new, result = _after_play(state, seat, card)
    if result is None:
        return Transition(new, tuple(events))
    trick = (*state.trick, card)
    winner = (state.leader + result.index) % state.players
    trump = result.how == "trump"
    events.append(Event("trick_won", {
        "seat": winner, "leader": state.leader, "cards": list(trick), "how": result.how,
        "card": trick[result.index], "chooses": trump,
    }))
    if new.choices is not None:
        events.append(Event("round_ending", {"round": state.round}))
    return Transition(new, tuple(events))


def _after_play(state: MimicTakingState, seat: Seat,
                card: str) -> tuple[MimicTakingState, TrickResult | None]:
    """The state after `seat` plays `card` (a legal play), and the trick's result when the
    card completes it."""
    hand = list(state.hands[seat])
    hand.remove(card)
    hands = _with(state.hands, seat, tuple(hand))
    trick = (*state.trick, card)
    if len(trick) < state.players:
        return evolve(state, hands=hands, trick=trick), None
    result = trick_winner(trick)
    winner = (state.leader + result.index) % state.players
    if result.how == "trump":
        # A trump winner picks any subset of the trick to keep (rule book, "Point").
        return evolve(state, hands=hands, trick=trick, keeper=winner), result
    stacks = _with(state.stacks, winner, state.stacks[winner] + trick)
    return _trick_ended(evolve(state, hands=hands, trick=trick, stacks=stacks), winner), result


def _take(state: MimicTakingState, seat: Seat, kept: tuple[str, ...]) -> Transition:
    rest = list(state.trick)
    for card in kept:
        rest.remove(card)
    stacks = _with(state.stacks, seat, state.stacks[seat] + kept)
    events = [
        Event("took", {"seat": seat, "count": len(kept), "of": len(state.trick),
                       "cards": list(kept) if state.face_up else None}),
        Event("took_cards", {"seat": seat, "kept": list(kept), "set_aside": rest},
              frozenset({seat})),
    ]
    new = _trick_ended(evolve(state, stacks=stacks, aside=state.aside + tuple(rest),
                              keeper=None), seat)
    if new.choices is not None:
        events.append(Event("round_ending", {"round": state.round}))
    return Transition(new, tuple(events))


def _trick_ended(state: MimicTakingState, winner: Seat) -> MimicTakingState:
    """The trick cleared away; with one card left in every hand, the round's last-card
    choices begin."""
    # The player after the winner leads the next trick.
    if all(len(hand) == 1 for hand in state.hands):
        return evolve(state, previous=(state.leader, state.trick), trick=(),
                      leader=(winner + 1) % state.players, choices=(None,) * state.players)
    return evolve(state, previous=(state.leader, state.trick), trick=(),
                  leader=(winner + 1) % state.players)


def _choose_last(state: MimicTakingState, seat: Seat, choice: str) -> Transition:
    chosen = _after_choice(state, seat, choice)
    card = state.hands[seat][0]
    events = [
        Event("last_card_chosen", {"seat": seat}),
        Event("last_card_choice", {"seat": seat, "choice": choice, "card": card},
              frozenset({seat})),
    ]
    if any(c is None for c in chosen.choices or ()):
        return Transition(chosen, tuple(events))
    return _score_round(chosen, events)


def _after_choice(state: MimicTakingState, seat: Seat, choice: str) -> MimicTakingState:
    if state.choices is None:  # the state says otherwise: a damaged dump
        raise RulesError("this position is inconsistent (state.choices is missing)")
    return evolve(state, choices=_with(state.choices, seat, choice))


def _score_round(state: MimicTakingState, events: list[Event]) -> Transition:
    new, stacks, row = _round_scored(state)
    events.append(Event("last_cards_revealed",
                        {"choices": list(state.choices or ()),
                         "cards": [hand[0] for hand in state.hands]}))
    totals = list(new.totals)
    with in_english():  # stored with the move; pages re-derive the arithmetic in their words
        summary = _summary(stacks, row)
    events.append(Event("round_scored", {"round": state.round, "seats": summary,
                                         "totals": totals}))
    if new.finished:
        best = max(totals)
        events.append(Event("game_over", {
            "winners": [s for s, t in enumerate(totals) if t == best], "totals": totals}))
    else:
        events.append(Event("round_started", {"round": new.round, "leader": new.leader}))
    return Transition(new, tuple(events))


def _round_scored(state: MimicTakingState) -> tuple[MimicTakingState, tuple[Cards, ...],
                                                    tuple[int, ...]]:
    """Every seat has chosen what to do with its last card: the round scored, and the next
    one dealt (unless the game is over); also the final stacks and the round's scores."""
    if state.choices is None or state.previous is None:  # a damaged dump
        raise RulesError("this position is inconsistent (state.choices or state.previous "
                         "is missing)")
    choices = state.choices
    stacks = tuple(stack + ((state.hands[s][0],) if choices[s] == ADD else ())
                   for s, stack in enumerate(state.stacks))
    row = tuple(stack_points(stack) for stack in stacks)
    last_leader, last_trick = state.previous
    # The winner of the round's last trick leads the next round.
    next_leader = (last_leader + trick_winner(last_trick).index) % state.players
    scored = evolve(state, scores=(*state.scores, row), scored=stacks, choices=None, aside=(),
                    stacks=((),) * state.players, hands=((),) * state.players, previous=None)
    if scored.finished:
        return scored, stacks, row
    hands, _leader = (_deal(state.players, state.seed, state.round + 1)
                      if state.deal_seed is None else _deal_committed(state, state.round + 1))
    return evolve(scored, round=state.round + 1, hands=hands, leader=next_leader), stacks, row


# -- helpers ----------------------------------------------------------------------------------

_CARD = re.compile(r"[obpg][1-9]|m")
_WORDS = {"orange": "o", "brown": "b", "purple": "p", "grey": "g", "gray": "g", "mimic": "m"}
_FORM = N_("write a card like O7 or M, 'take O4 G4' / 'take none' / 'take all', 'add' or "
           "'discard'")


def _read(text: str) -> tuple[str, list[str] | None, int | None]:
    """Split move text into (kind, cards, bare number); kind "cards" is a bare card list."""
    words = normalize(text).replace(",", " ").replace("-", " ").split()
    words = [_WORDS.get(word, word) for word in words]
    if not words:
        raise InvalidMoveError(_("%(text)r is not a move: %(form)s", text=text, form=_(_FORM)))
    first, rest = words[0], "".join(words[1:])
    if first in (ADD, DISCARD) and not rest:
        return first, None, None
    if first.startswith(TAKE):
        rest = first[len(TAKE):] + rest
        if rest in ("none", "nothing", "all"):
            return TAKE, [rest], None
        return TAKE, _read_cards(rest, text), None
    if first.startswith(PLAY):
        rest = first[len(PLAY):] + rest
        kind = PLAY
    else:
        rest, kind = "".join(words), "cards"
    if (is_number(rest) and len(rest) == 1) or rest in ("o", "b", "p", "g"):
        return kind, [rest], int(rest) if is_number(rest) else None
    return kind, _read_cards(rest, text), None


def _read_cards(compact: str, text: str) -> list[str]:
    if not compact or _CARD.sub("", compact):
        raise InvalidMoveError(_("%(text)r is not a move: %(form)s", text=text, form=_(_FORM)))
    return [card.upper() for card in _CARD.findall(compact)]


def _parse_play(state: MimicTakingState, seat: Seat, cards: list[str] | None,
                number: int | None, text: str) -> Move:
    if cards is None:  # the state says otherwise: a damaged dump
        raise RulesError("this position is inconsistent (cards is missing)")
    hand = state.hands[seat]
    playable = _playable(hand, state.trick)
    if len(cards) != 1:
        raise IllegalMoveError(_("play one card at a time, not %(text)r", text=text.strip()))
    wanted = cards[0]
    if is_number(wanted) or wanted in ("o", "b", "p", "g"):
        # A bare number or colour names a card only when exactly one legal card fits.
        fits = [c for c in playable
                if (number_of(c) == number if number else c[0] == wanted.upper())]
        if len(fits) == 1:
            return Move(PLAY, (fits[0],))
        if fits:
            raise AmbiguousMoveError(_("%(text)r could be %(cards)s: write the whole card",
                                       text=text.strip(), cards=_(" or ").join(fits)))
        raise IllegalMoveError(_("%(text)r matches none of the cards you may play (%(cards)s)",
                                 text=text.strip(), cards=" ".join(playable)))
    if not is_card(wanted, state.players):
        raise IllegalMoveError(_("there is no %(card)s: the four 9s are left out of a 3-player "
                                 "game", card=wanted))
    if wanted not in hand:
        if wanted == MIMIC:
            raise IllegalMoveError(_("you do not hold a mimic (your hand: %(hand)s)",
                                     hand=" ".join(hand)))
        raise IllegalMoveError(_("you do not hold %(card)s (your hand: %(hand)s)", card=wanted,
                                 hand=" ".join(hand)))
    if wanted not in playable:
        reference = reference_card(state.trick)
        if reference is None:  # the state says otherwise: a damaged dump
            raise RulesError("this position is inconsistent (reference is missing)")
        colour = colour_name(reference[0])
        raise IllegalMoveError(
            _("you must follow %(colour)s: the trick's first numbered card is %(reference)s and "
              "you hold %(colour)s, so play %(cards)s (a mimic may always be played)",
              colour=colour, reference=reference, cards=_(" or ").join(playable)))
    return Move(PLAY, (wanted,))


def _parse_take(trick: tuple[str, ...], cards: list[str] | None, text: str) -> Move:
    if cards is None:  # the state says otherwise: a damaged dump
        raise RulesError("this position is inconsistent (cards is missing)")
    if cards == ["none"] or cards == ["nothing"]:
        return Move(TAKE, ())
    if cards == ["all"]:
        return Move(TAKE, trick)
    if any(is_number(c) or c in ("o", "b", "p", "g") for c in cards):
        raise InvalidMoveError(_("%(text)r: name each card to keep in full, like 'take O4 G4'",
                                 text=text))
    wanted = Counter(cards)
    on_table = Counter(trick)
    for card, count in wanted.items():
        if count > on_table[card]:
            raise IllegalMoveError(_too_many(card, on_table[card], count, " ".join(trick)))
    kept = []
    for card in trick:
        if wanted[card]:
            wanted[card] -= 1
            kept.append(card)
    return Move(TAKE, tuple(kept))


def _too_many(card: str, held: int, count: int, trick: str) -> str:
    """Why `count` copies of `card` cannot be kept when the trick holds `held` of them."""
    if card == MIMIC:
        if not held:
            return _("the trick holds no mimics, so you cannot keep %(count)s (the trick: "
                     "%(trick)s)", count=count, trick=trick)
        return ngettext("the trick holds only %(num)s mimic, so you cannot keep %(count)s (the "
                        "trick: %(trick)s)", "the trick holds only %(num)s mimics, so you cannot "
                        "keep %(count)s (the trick: %(trick)s)", held, count=count, trick=trick)
    if not held:
        return _("the trick holds no %(card)ss, so you cannot keep %(count)s (the trick: "
                 "%(trick)s)", card=card, count=count, trick=trick)
    return ngettext("the trick holds only %(num)s %(card)s, so you cannot keep %(count)s (the "
                    "trick: %(trick)s)", "the trick holds only %(num)s %(card)ss, so you cannot "
                    "keep %(count)s (the trick: %(trick)s)", held, card=card, count=count,
                    trick=trick)


def _playable(hand: Sequence[str], trick: Sequence[str]) -> list[str]:
    """Distinct legal cards in hand order: must follow the reference colour when able, and a
    mimic may always be played; before a reference card appears, anything goes."""
    distinct = list(dict.fromkeys(hand))
    reference = reference_card(trick)
    if reference is None:
        return distinct
    follow = [card for card in distinct if colour_of(card) == reference[0]]
    if not follow:
        return distinct
    return follow + ([MIMIC] if MIMIC in distinct else [])


def _keep_choices(trick: tuple[str, ...]) -> list[tuple[str, ...]]:
    """Every distinct subset of the trick (mimics are alike, so a kept mimic is the earliest
    one), smallest first, then by position in the trick."""
    mimic_places = [i for i, card in enumerate(trick) if card == MIMIC]
    found: set[tuple[int, ...]] = set()
    for mask in range(2 ** len(trick)):
        chosen = [i for i in range(len(trick)) if mask >> i & 1]
        mimics = sum(1 for i in chosen if trick[i] == MIMIC)
        places = [i for i in chosen if trick[i] != MIMIC] + mimic_places[:mimics]
        found.add(tuple(sorted(places)))
    return [tuple(trick[i] for i in places) for places in sorted(found, key=lambda p: (len(p), p))]


def _deal(players: int, seed: int, round_number: int) -> tuple[tuple[tuple[str, ...], ...], int]:
    """Deal a round afresh from all its cards; also draw a leader (used for round 1 only)."""
    rng = random.Random(f"mimic-taking/{seed}/round/{round_number}")
    cards = deck(players)
    rng.shuffle(cards)
    size = HAND_SIZE[players]
    hands = tuple(sort_cards(cards[i * size:(i + 1) * size]) for i in range(players))
    return hands, rng.randrange(players)


def _deal_committed(state: MimicTakingState,
                    round_number: int) -> tuple[tuple[tuple[str, ...], ...], int]:
    """`_deal` by the committed scheme: the deck in its listed order shuffled by the round's
    stream, then the first leader drawn from the same stream (`docs/players/fair-play.md`)."""
    salts = tuple(salt for salt in state.salts or () if salt is not None)
    if state.deal_seed is None or len(salts) != state.players:
        raise RulesError("this position is inconsistent (a committed deal without its seed)")
    stream = DealStream(state.deal_seed, salts, f"mimic-taking round {round_number}")
    cards = deck(state.players)
    stream.shuffle(cards)
    size = HAND_SIZE[state.players]
    hands = tuple(sort_cards(cards[i * size:(i + 1) * size]) for i in range(state.players))
    return hands, stream.below(state.players)


def _player_on_turn(state: MimicTakingState) -> Seat:
    return (state.leader + len(state.trick)) % state.players


def _phase(state: MimicTakingState) -> str:
    if state.finished:
        return "over"
    if state.salting:
        return "salt"
    if state.choices is not None:
        return "last_card"
    return "keep" if state.keeper is not None else "play"


def _seated(leader: Seat, cards: Sequence[str], players: int) -> list[dict[str, Any]]:
    return [{"seat": (leader + i) % players, "card": card} for i, card in enumerate(cards)]


def _summary(stacks: Sequence[Sequence[str]], row: Sequence[int]) -> list[dict[str, Any]]:
    """The public round summary: each stack by colour, the mimics' placing and the score."""
    seats = []
    for seat, stack in enumerate(stacks):
        scored = score_stack(stack)
        seats.append({
            "seat": seat,
            "by_colour": {c: [card for card in sort_cards(stack) if card[0] == c]
                          for c in COLOURS},
            "mimics": stack.count(MIMIC),
            "assignment": scored.assignment,
            "counts": scored.counts,
            "score": row[seat],
            "arithmetic": scored.arithmetic,
        })
    return seats


def _with(values: tuple[Any, ...], index: int, value: Any) -> tuple[Any, ...]:
    return (*values[:index], value, *values[index + 1:])
