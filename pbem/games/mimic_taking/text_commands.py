"""Mimic Taking's text mode commands (see pbem/games/text_commands.py): the reader's hand, the
trick on the table, the scores, and the cards played this round. A table of cards, not a
grid: the board commands do not apply."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from pbem.games.mimic_taking.text import label
from pbem.games.text_commands import Command, Reading
from pbem.i18n import N_, _, ngettext

GRID = False
_CARD = re.compile(r"^(?:[OBPG][0-9]{1,2}|M)$")


def _hand(reading: Reading, _argument: str) -> str:
    hand = reading.view.get("hand")
    if not hand:
        return _("Your hand is empty.")
    return ngettext("Your hand, %(num)s card: %(cards)s.", "Your hand, %(num)s cards: %(cards)s.",
                    len(hand), cards=" ".join(hand))


def _trick(reading: Reading, _argument: str) -> str:
    trick = list(reading.view.get("trick") or [])
    if not trick:
        return _("No card is on the table yet in this trick.")
    return _("Current trick: %(cards)s.", cards=_cards(trick))


def _scores(reading: Reading, _argument: str) -> str:
    view = reading.view
    totals: list[Any] = list(view.get("totals") or [])
    stacks: list[Any] = list(view.get("stack_sizes") or [])
    return _("Round %(round)s of %(rounds)s.", round=view.get("round"),
             rounds=view.get("rounds")) + " " + "; ".join(
        _("%(player)s: %(total)s points, %(taken)s cards taken this round",
          player=label(seat), total=total, taken=stacks[seat] if seat < len(stacks) else 0)
        for seat, total in enumerate(totals)) + "."


def _played(reading: Reading, _argument: str) -> str:
    view = reading.view
    count = sum(view.get("stack_sizes") or []) + len(view.get("trick") or [])
    cards = [(player, move) for player, move in reading.moves if _CARD.match(move or "")]
    shown = cards[-count:] if count else []
    if not shown:
        return _("No card has been played yet this round.")
    return ngettext("%(num)s card played this round: %(cards)s.",
                    "%(num)s cards played this round: %(cards)s.", len(shown),
                    cards=", ".join(f"{player} {card}" for player, card in shown))


def _cards(entries: list[Mapping[str, Any]]) -> str:
    return ", ".join(f"{label(entry['seat'])} {entry['card']}" for entry in entries)


COMMANDS: dict[str, Command] = {"hand": _hand, "trick": _trick, "scores": _scores,
                                "played": _played}
HELP = {
    "hand": N_("the cards in your hand"),
    "trick": N_("the cards on the table in this trick, in the order played"),
    "scores": N_("each player's total and the cards each took this round"),
    "played": N_("every card played this round, in order"),
}
