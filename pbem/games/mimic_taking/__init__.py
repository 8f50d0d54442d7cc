"""Mimic Taking (3 or 4 players, hidden hands): a must-follow trick-taking game scored on how
evenly your won cards spread over the colours.

Rules summary (rule book, with the rulings of RULINGS.md where it is silent):

- Deck: orange O, brown B, purple P, grey G, numbered 1-9, plus 4 mimics M. With 3 players the
  four 9s are left out (36 cards, 12 each, 5 rounds); with 4, 40 cards, 10 each, 4 rounds.
  Every round is dealt afresh from all its cards; the first leader of the match is drawn at
  random (both from the match seed). Play goes in seat order.
- The reference card of a trick is its first non-mimic card: it sets the colour to follow, the
  target number and the trump number. Before it appears any card may be played. After it, a
  player must play the reference colour if able; a mimic may always be played instead.
- Winner: the latest trump (another colour, the reference number); else the following card of
  the reference colour closest in number to the reference (ties: the later card; the reference
  itself is no candidate); else the reference card's player. All mimics: the last card wins.
- Without a trump the winner takes the whole trick; a trump winner keeps any subset (a real
  choice: `take …`), the rest is set aside face down. The player after the winner leads next.
- When every player holds one card the round ends: all seats choose at once and in secret
  whether to `add` the last card to their stack or `discard` it.
- Scoring: mimics join the held colour that gives the best score (computed, not asked). With
  the held colours: -(most - least), least = 0 if only one colour is held; all held colours
  equal: +5/+10/+15 for 2/3/4 colours; no coloured cards: 0. The winner of a round's last
  trick leads the next round. Highest total wins; equal totals share the win.
- Won cards are face down and secret, even from their owner, until the round is scored
  (option `face_up`: the rule book's variant, stacks public).

Notation: a card `O7` or `M` to play (forgiving: `o 7`, `play orange 7`, a bare `7` or `o`
when only one legal card fits); `take O4 G4` (cards in trick order), `take none`, `take all`;
`add` / `discard`. Position text: see `state.py`.
"""

from pbem.games.description import Fixtures, GameType
from pbem.games.mimic_taking.hints import MimicTakingHints
from pbem.games.mimic_taking.rules import MimicTakingRules, Move
from pbem.games.mimic_taking.state import MimicTakingState

GAME = GameType.from_folder(
    rules=MimicTakingRules(),
    notation="a card `O7` or `M`; `take O4 G4`, `take none`, `take all`; `add` or `discard`",
    fixtures=Fixtures(short_seed=18),
    bot_hints=MimicTakingHints(),
)

__all__ = ["GAME", "MimicTakingRules", "MimicTakingState", "Move"]
