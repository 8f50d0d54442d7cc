"""What the computer opponent knows of Mimic Taking (read by `pbem/bots`, see its README).

The computer searches a re-dealt copy of the game (its own hand kept, everything else it
cannot see shuffled: `MimicTakingRules.shuffle_hidden`), so these hints only ever see such a
copy. Playouts stop after `playout_plies` and guess the result from each seat's total so far
plus what its stack would score now: the higher, the likelier a win.
"""

from __future__ import annotations

import math

from pbem.games.mimic_taking.cards import stack_points
from pbem.games.mimic_taking.state import MimicTakingState

# How many points of lead make a win about e times likelier.
POINTS_SCALE = 6.0


class MimicTakingHints:
    playout_plies = 60

    def evaluate(self, state: MimicTakingState) -> tuple[float, ...]:
        totals = state.totals
        guesses = [totals[seat] + stack_points(state.stacks[seat])
                   for seat in range(state.players)]
        best = max(guesses)
        weights = [math.exp((guess - best) / POINTS_SCALE) for guess in guesses]
        whole = sum(weights)
        return tuple(weight / whole for weight in weights)
