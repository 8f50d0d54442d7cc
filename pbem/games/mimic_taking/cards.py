"""Cards, the trick-winner rule and round scoring for Mimic Taking (pure helpers).

A card is a short string: a colour letter and a number (`O7`, `G1`), or `M` for a mimic. The
four mimics are identical, so a hand may hold `M` more than once.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from itertools import combinations_with_replacement

from pbem.games.notation import is_number
from pbem.i18n import N_, _

MIMIC = "M"
COLOURS = "OBPG"
# English, marked for the catalog: shown through `colour_name` in the reader's language.
COLOUR_NAMES = {"O": N_("orange"), "B": N_("brown"), "P": N_("purple"), "G": N_("grey")}
ROUNDS = {3: 5, 4: 4}
HAND_SIZE = {3: 12, 4: 10}
# Perfect mimicry bonus by the number of colours held (rule book table; 1 colour has none).
PERFECT_BONUS = {2: 5, 3: 10, 4: 15}


def top_number(players: int) -> int:
    """3 players leave the four 9s out of the game (rule book, "Before the games")."""
    return 8 if players == 3 else 9


def deck(players: int) -> list[str]:
    numbers = range(1, top_number(players) + 1)
    return [f"{colour}{number}" for colour in COLOURS for number in numbers] + [MIMIC] * 4


def card_key(card: str) -> tuple[int, int]:
    """Hand order: orange, brown, purple, grey, each 1 to 9, mimics last."""
    if card == MIMIC:
        return (len(COLOURS), 0)
    return (COLOURS.index(card[0]), int(card[1:]))


def sort_cards(cards: Iterable[str]) -> tuple[str, ...]:
    listed = list(cards)
    try:  # the deck's cards' keys, looked up: deals and re-deals sort thousands of hands
        return tuple(sorted(listed, key=_CARD_KEYS.__getitem__))
    except KeyError:  # not a card of the deck (text being checked): the key works it out
        return tuple(sorted(listed, key=card_key))


def colour_of(card: str) -> str | None:
    return None if card == MIMIC else card[0]


def number_of(card: str) -> int | None:
    return None if card == MIMIC else int(card[1:])


def is_card(text: str, players: int) -> bool:
    if text == MIMIC:
        return True
    return (len(text) == 2 and text[0] in COLOURS and is_number(text[1])
            and 1 <= int(text[1]) <= top_number(players))


def reference_card(trick: Sequence[str]) -> str | None:
    """The first non-mimic card of a trick: it sets the colour, target and trump number."""
    for card in trick:
        if card != MIMIC:
            return card
    return None


@dataclass(frozen=True)
class TrickResult:
    """Which card (index in play order) wins a complete trick, and why."""

    index: int
    how: str  # "trump", "closest", "reference" or "mimics"


def trick_winner(trick: Sequence[str]) -> TrickResult:
    reference = reference_card(trick)
    if reference is None:
        # Rule book: "If all players play mimics, the player who plays the last card wins."
        return TrickResult(len(trick) - 1, "mimics")
    start = trick.index(reference)
    colour, number = reference[0], int(reference[1:])
    trumps = [i for i, card in enumerate(trick)
              if card != MIMIC and card[0] != colour and int(card[1:]) == number]
    if trumps:
        return TrickResult(trumps[-1], "trump")
    followers = [i for i in range(start + 1, len(trick)) if trick[i][0] == colour]
    if followers:
        # Closest number to the reference wins; on an equal gap the later card wins.
        best = min(followers, key=lambda i: (abs(int(trick[i][1:]) - number), -i))
        return TrickResult(best, "closest")
    return TrickResult(start, "reference")


@dataclass(frozen=True)
class StackScore:
    """A stack's round score, with the mimic assignment that gives it and the arithmetic."""

    score: int
    counts: dict[str, int]        # colour letter -> cards after mimics joined, held colours only
    assignment: dict[str, int]    # colour letter -> mimics joined to it
    arithmetic: str


def score_stack(stack: Iterable[str]) -> StackScore:
    """Score a stack, placing each mimic on the held colour that gives the best score."""
    cards = list(stack)
    best = _best_placing(cards)
    if best is None:
        return StackScore(0, {}, {}, arithmetic({}, bool(cards)))
    score, counts, assignment = best
    return StackScore(score, counts, assignment, arithmetic(counts, True))


def stack_points(stack: Iterable[str]) -> int:
    """A stack's score alone: what the round's scoring and the computer's evaluation need.
    `score_stack` also says how, in words, which the computer's playouts would otherwise
    translate for every placing they try."""
    # The score depends only on how many cards of each colour and mimics the stack holds.
    return _points("".join(sorted(card[0] for card in stack)))


@lru_cache(maxsize=1 << 16)  # few distinct stacks occur; playouts score thousands
def _points(letters: str) -> int:
    best = _best_placing(list(letters))
    return 0 if best is None else best[0]


def _best_placing(cards: list[str]) -> tuple[int, dict[str, int], dict[str, int]] | None:
    """The best score of a stack, with its colour counts after the mimics joined and the
    mimics joined to each colour; None when it holds no colour (only mimics, or nothing)."""
    mimics = cards.count(MIMIC)
    base = Counter(card[0] for card in cards if card != MIMIC)
    held = [colour for colour in COLOURS if base[colour]]
    if not held:
        return None
    best: tuple[int, dict[str, int], dict[str, int]] | None = None
    # Mimics join only colours the stack already holds ("add it to one of the colors you have").
    for placing in combinations_with_replacement(held, mimics):
        assignment = {colour: placing.count(colour) for colour in held if placing.count(colour)}
        counts = {colour: base[colour] + assignment.get(colour, 0) for colour in held}
        score = _score_of(counts)
        if best is None or score > best[0]:
            best = (score, counts, assignment)
    return best


def colour_name(letter: str) -> str:
    """A colour's name in the reader's language."""
    return _(COLOUR_NAMES[letter])


def _score_of(counts: dict[str, int]) -> int:
    most = max(counts.values())
    if len(counts) == 1:
        # Only one colour held: the least held colour counts as zero (rule book example 2).
        return -most
    least = min(counts.values())
    if most == least:
        return PERFECT_BONUS[len(counts)]
    return least - most


def arithmetic(counts: Mapping[str, int], taken: bool) -> str:
    """A stack's score worked out in words, in the reader's language, from its colour counts
    after the mimics joined (`taken`: whether the stack holds any card). Pages re-derive it
    from a stored round summary, whose own `arithmetic` is English."""
    if not counts:
        return _("only mimics taken: 0") if taken else _("no cards taken: 0")
    most_colour = max(counts, key=lambda c: counts[c])
    most = counts[most_colour]
    if len(counts) == 1:
        return _("%(colour)s %(most)s - 0 = %(score)s", colour=colour_name(most_colour),
                 most=most, score=-most)
    least_colour = min(counts, key=lambda c: counts[c])
    least = counts[least_colour]
    if most == least:
        return _("%(colours)s colours of %(most)s each: +%(bonus)s", colours=len(counts),
                 most=most, bonus=PERFECT_BONUS[len(counts)])
    return _("%(most_colour)s %(most)s - %(least_colour)s %(least)s = %(score)s",
             most_colour=colour_name(most_colour), most=most,
             least_colour=colour_name(least_colour), least=least, score=least - most)


_CARD_KEYS = {card: card_key(card) for card in deck(4)}
