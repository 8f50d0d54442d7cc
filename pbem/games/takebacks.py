"""Whether a move can be taken back without a leak, computed from the rules contract rather than
marked by hand in each game: in a game with hidden information, taking a move back is safe only
when its mover has seen nothing new since the position it would return to.

"Nothing new" is tested, not declared: the mover's view after the move must be the same in
every re-deal of the position before it that the mover could not tell from the real one
(`HidesInformation.shuffle_hidden`). A move that ends a round (the stacks are shown, the next
hand is dealt) gives a different view in almost every re-deal; playing a card from one's own
hand gives the same view in all of them. A game without hidden information always passes.

This is the pure half of takebacks; the request, the answer and the door's change are not
built yet (docs/players/fair-play.md says so).
"""

from __future__ import annotations

from typing import Any

from pbem.games.base import GameRules, HidesInformation, RulesError, Seat

# Re-deals compared: a view that differs in some re-deal differs in most of them (a new hand,
# a revealed stack), so a few dozen find it; the property test compares with the game's own
# account of what each move revealed.
REDEALS = 24


def sees_nothing_new(rules: GameRules, before: Any, seat: Seat, move: Any,
                     redeals: int = REDEALS) -> bool:
    """True when `seat`'s view after playing `move` in `before` is the same in every sampled
    re-deal of `before` consistent with what `seat` saw there."""
    if not rules.hidden_information or not isinstance(rules, HidesInformation):
        return True
    seen = rules.view(rules.apply_move(before, seat, move).state, seat)
    notation = rules.format_move(before, move)
    for number in range(redeals):
        other = rules.shuffle_hidden(before, seat, number)
        try:
            # The mover chose from what it could see, so its move is legal in every re-deal.
            parsed = rules.parse_move(other, seat, notation)
        except RulesError:
            return False
        if rules.view(rules.apply_move(other, seat, parsed).state, seat) != seen:
            return False
    return True
