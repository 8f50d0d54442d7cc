"""Tie-breaks against worked examples from the FIDE handbook, computed by hand here."""

from __future__ import annotations

from pbem.core.tournaments.standings import (
    Game,
    buchholz,
    direct_encounter,
    median_buchholz,
    opponent_scores,
    sonneborn_berger,
    standings,
)

W, D, L = (1.0, 0.0), (0.5, 0.5), (0.0, 1.0)


def _rr(results: dict[tuple[int, int], tuple[float, float]]) -> list[Game]:
    return [Game(i + 1, pair, points) for i, (pair, points) in enumerate(results.items())]


# A four-player round robin (the handbook's definition of Sonneborn-Berger, C.07 art. 7.1 in
# 2023: "the sum of the scores of the opponents a player has defeated and half the scores of
# the players with whom they have drawn"):
#
#        1    2    3    4   points
#   1    -    ½    1    0    1½
#   2    ½    -    ½    1    2
#   3    0    ½    -    1    1½
#   4    1    0    0    -    1
CROSSTABLE = _rr({(1, 2): D, (1, 3): W, (1, 4): L, (2, 3): D, (2, 4): W, (3, 4): W})


def test_sonneborn_berger_by_hand() -> None:
    sb = sonneborn_berger([1, 2, 3, 4], CROSSTABLE)
    # 1: drew 2 (2 points → 1), beat 3 (1½), lost to 4      → 1 + 1.5       = 2.5
    # 2: drew 1 (1½ → ¾), drew 3 (1½ → ¾), beat 4 (1)       → 0.75+0.75+1   = 2.5
    # 3: drew 2 (2 → 1), beat 4 (1)                          → 1 + 1         = 2.0
    # 4: beat 1 (1½)                                         → 1.5
    assert sb == {1: 2.5, 2: 2.5, 3: 2.0, 4: 1.5}


def test_direct_encounter_separates_the_players_tied_on_points() -> None:
    de = direct_encounter([1, 2, 3, 4], CROSSTABLE)
    # 1 and 3 are tied on 1½ and 1 beat 3: 1 has 1 point from that game, 3 has none; 2 and 4
    # are alone on their points.
    assert de == {1: 1.0, 2: 0.0, 3: 0.0, 4: 0.0}
    table = standings("round-robin", [1, 2, 3, 4], CROSSTABLE, 3)
    assert [(s.rank, s.player) for s in table] == [(1, 2), (2, 1), (3, 3), (4, 4)]
    assert table[1].tiebreaks == {"sonneborn_berger": 2.5, "direct_encounter": 1.0}


def test_direct_encounter_needs_every_tied_player_to_have_met() -> None:
    """FIDE's rule: the sum of the games among the tied players only when all of them met;
    a Swiss where three players tie and two of them never met gets no direct encounter."""
    # After three Swiss rounds: 1, 2 and 3 on 2 points; 1 beat 2, 2 and 3 never met.
    games = [Game(1, (1, 2), W), Game(1, (3, 4), W), Game(2, (2, 5), W), Game(2, (1, 3), L),
             Game(3, (2, 6), W), Game(3, (3, 7), L), Game(3, (1, 5), W)]
    tied = direct_encounter([1, 2, 3, 4, 5, 6, 7], games)
    assert {p: tied[p] for p in (1, 2, 3)} == {1: 0.0, 2: 0.0, 3: 0.0}
    # Had 2 and 3 met (2 winning), all three met: 1 beat 2, 3 beat 1, 2 beat 3: 1 each.
    circle = [*games[:-1], Game(3, (2, 3), W), Game(3, (1, 5), W)]
    circle = [g for g in circle if g.players not in ((2, 6), (3, 7))]
    met = direct_encounter([1, 2, 3, 4, 5, 6, 7], circle)
    assert {p: met[p] for p in (1, 2, 3)} == {1: 1.0, 2: 1.0, 3: 1.0}


def test_the_handbooks_virtual_opponent_for_a_player_absent_in_round_3() -> None:
    # Handbook example 1: "in round 3 of a nine-round tournament player P did not show up;
    # P's score after 2 rounds is 1.5": Svon = 1.5 + (1 - 0) + 0.5 * (9 - 3) = 5.5.
    games = [Game(1, (1, 11), W), Game(2, (1, 12), D), Game(3, (1,), (0.0,), played=False)]
    games += [Game(r, (1, 10 + r), D) for r in range(4, 10)]
    assert opponent_scores([1], games, 9)[1][2] == 5.5


def test_the_handbooks_virtual_opponent_for_a_player_whose_opponent_did_not_come() -> None:
    # Handbook example 2: in round 6 of nine P's opponent does not show up; P has 3.5 after
    # five rounds: Svon = 3.5 + (1 - 1) + 0.5 * (9 - 6) = 5.0.
    games = [Game(r, (1, 10 + r), W) for r in range(1, 4)]
    games += [Game(4, (1, 14), D), Game(5, (1, 15), L)]
    games += [Game(6, (1,), (1.0,), played=False)]
    games += [Game(r, (1, 10 + r), D) for r in range(7, 10)]
    assert opponent_scores([1], games, 9)[1][5] == 5.0


def test_the_2009_minutes_examples_for_a_default_win_and_an_absence() -> None:
    # FIDE Congress 2009, Swiss pairings committee, item 7 (the handbook's rule for unplayed
    # games). Player A: 6 points in nine rounds including a default win in round 3, 2 points
    # after round 2. Round 3 adds 2 + 0 + 6 * 0.5 = 5 to A's own Buchholz, and A adds
    # 6 - 1 + 0.5 = 5.5 to each opponent's (the default win counts as a draw).
    a_games = [Game(1, (1, 21), W), Game(2, (1, 22), W), Game(3, (1,), (1.0,), played=False)]
    a_games += [Game(r, (1, 20 + r), points) for r, points in
                zip(range(4, 10), (W, W, L, D, D, L), strict=True)]  # 3 more points: 6
    scores = opponent_scores([1, 24], a_games, 9)
    assert scores[1][2] == 5.0
    assert scores[24][3] == 5.5  # A's opponent in round 4 sees A as 5.5
    # Player B: absent in round 7, 6 points after nine rounds, 4 after six. Round 7 adds
    # 4 + 1 + 2 * 0.5 = 6 to B's Buchholz, and B adds 6 - 0 + 0.5 = 6.5 to each opponent's.
    b_games = [Game(r, (2, 30 + r), points) for r, points in
               zip(range(1, 7), (W, W, W, W, L, L), strict=True)]  # 4 points
    b_games += [Game(7, (2,), (0.0,), played=False), Game(8, (2, 38), W), Game(9, (2, 39), W)]
    scores = opponent_scores([2, 31], b_games, 9)
    assert scores[2][6] == 6.0
    assert scores[31][0] == 6.5


def test_buchholz_and_median_buchholz_of_a_small_swiss() -> None:
    # Three rounds, six players, every game played (so no virtual opponents).
    games = [Game(1, (1, 4), W), Game(1, (2, 5), W), Game(1, (3, 6), W),
             Game(2, (1, 2), W), Game(2, (3, 4), L), Game(2, (5, 6), W),
             Game(3, (1, 3), W), Game(3, (2, 4), W), Game(3, (6, 5), L)]
    players = [1, 2, 3, 4, 5, 6]
    # Points: 1 = 3; 2 = 2; 3 = 1 (beat 6, lost to 4 and 1); 4 = 1 (beat 3); 5 = 2; 6 = 0.
    # 1 met 4 (1), 2 (2), 3 (1)        → Buchholz 4, median (cut 1 and 2) → 1
    # 2 met 5 (2), 1 (3), 4 (1)        → 6, median → 2
    # 6 met 3 (1), 5 (2), 5 (2)        → 5, median → 2 (a rematch, to check it counts twice)
    bh = buchholz(players, games, 3)
    mb = median_buchholz(players, games, 3)
    assert (bh[1], bh[2], bh[6]) == (4.0, 6.0, 5.0)
    assert (mb[1], mb[2], mb[6]) == (1.0, 2.0, 2.0)
    table = standings("swiss", players, games, 3)
    assert [s.player for s in table[:3]] == [1, 2, 5]  # 2 and 5 on 2: Buchholz 6 v 5's
    assert table[1].tiebreaks["buchholz"] > table[2].tiebreaks["buchholz"]


def test_players_equal_on_everything_share_a_rank() -> None:
    games = [Game(1, (1, 2), D)]
    table = standings("round-robin", [1, 2], games, 1)
    assert [s.rank for s in table] == [1, 1]
