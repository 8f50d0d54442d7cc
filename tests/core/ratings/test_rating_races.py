"""One player's rated matches ending at the same moment, in real threads: every settlement
is kept (no lost update). Each round ends four matches of one player at once; a lost update
would leave their rating different from the replay of the history, or their count short."""

from __future__ import annotations

import itertools

from pbem.core.accounts.models import Player
from pbem.core.matches.changes import apply_change
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import Resign
from pbem.core.ratings.models import Rating, RatingEvent
from pbem.core.ratings.rebuild import rebuild
from tests.conftest import START
from tests.support.threads import race

SECRET = "test-secret-key"
ANN = "ann@example.org"
OTHERS = [f"o{n}@example.org" for n in range(4)]
ROUNDS = 6


def test_one_players_matches_ending_together_each_apply(db_url: str) -> None:
    for round_number in range(ROUNDS):
        matches = [create_match("nim", [ANN, other], {}, SECRET, START, rated=True).match
                   for other in OTHERS]
        results = race(*[(lambda m=m: apply_change(m.id, Resign(seat=1), START))
                         for m in matches])
        assert [r for r in results if isinstance(r, Exception)] == []
        ann = Player.get(Player.email == ANN)
        row = Rating.get(Rating.player == ann.id, Rating.game == "nim")
        assert row.games == row.wins == len(OTHERS) * (round_number + 1)
    # Each event started from the one before it for that player: the chain is unbroken.
    chain = list(RatingEvent.select().where(RatingEvent.player == ann.id)
                 .order_by(RatingEvent.id))
    for earlier, later in itertools.pairwise(chain):
        assert (later.mu_before, later.sigma_before) == (earlier.mu_after, earlier.sigma_after)
    stored = (row.mu, row.sigma)
    assert rebuild().changed == 0
    again = Rating.get(Rating.player == ann.id, Rating.game == "nim")
    assert (again.mu, again.sigma) == stored
