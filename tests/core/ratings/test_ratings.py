"""Ratings settled through the door, compared with openskill computed directly, and rebuilt
from the history to the same values."""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import ClassVar

import pytest
from openskill.models import PlackettLuce

from pbem.core.accounts.models import Player
from pbem.core.matches.changes import Change, Locked, apply_change
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import Abort, Resign
from pbem.core.matches.models import Match
from pbem.core.matches.rulings import Forfeit, finish
from pbem.core.ratings import model
from pbem.core.ratings.models import Rating, RatingEvent
from pbem.core.ratings.rebuild import rebuild
from tests.conftest import START

SECRET = "test-secret-key"
PEOPLE = [f"p{n}@example.org" for n in range(12)]


@dataclass(frozen=True, kw_only=True)
class EndWith(Change):
    """Test-only: end the match with a given result, through the door like any ending."""

    kind: ClassVar[str] = "end-with"
    winners: tuple[int, ...]
    scores: tuple[float, ...]

    def apply(self, door: Locked) -> None:
        finish(door, frozenset(self.winners), list(self.scores), "test result")


def _match(emails: list[str], now: datetime, rated: bool = True) -> Match:
    game = "nim" if len(emails) == 2 else "bids"
    return create_match(game, emails, {}, SECRET, now, rated=rated).match


def _random_result(rng: random.Random, seats: int) -> tuple[tuple[int, ...], tuple[float, ...]]:
    kind = rng.random()
    scores = tuple(float(rng.randint(0, 3)) for _ in range(seats))
    if kind < 0.1:
        return (), scores  # no winner: a draw for all
    if kind < 0.2:
        return tuple(range(seats)), scores  # everyone shares the win
    best = max(scores)
    return tuple(s for s in range(seats) if scores[s] == best), scores


def test_finishing_ranks() -> None:
    assert model.finishing_ranks({"winners": [], "scores": [1, 2]}, 2) == [1, 1]
    assert model.finishing_ranks({"winners": [0, 1], "scores": [1, 1]}, 2) == [1, 1]
    assert model.finishing_ranks({"winners": [1], "scores": [0, 1]}, 2) == [2, 1]
    assert model.finishing_ranks({"winners": [2], "scores": [3, 3, 9, 1]}, 4) == [2, 2, 1, 4]
    # Shared winners, then by score with ties sharing (competition ranking).
    assert model.finishing_ranks({"winners": [0, 3], "scores": [5, 2, 4, 5]}, 4) == [1, 4, 3, 1]


def test_days_away_grow_sigma_and_same_day_changes_nothing() -> None:
    assert model.sigma_after_days_away(3.0, 0) == 3.0
    assert model.sigma_after_days_away(3.0, 365) == pytest.approx((9 + 365 * 0.0025) ** 0.5)
    assert model.sigma_after_days_away(8.0, 100_000) == model.SIGMA
    assert model.display(25.0, 25 / 3) == 1000
    assert model.shown(1200, 9) == "1200?" and model.shown(1200, 10) == "1200"


def test_a_thousand_random_results_match_openskill_and_the_rebuild(db_url: str) -> None:
    # The arithmetic is the same on every database: a thousand results on SQLite. PostgreSQL
    # and MariaDB store and rebuild them (~60 ms a match there): 250 results, some thirty
    # ratings per player and game, still show any value kept less exactly than a double.
    results = 1000 if db_url.startswith("sqlite") else 250
    rng = random.Random(27)
    library = PlackettLuce()
    expected: dict[tuple[str, str], tuple[float, float]] = {}
    for number in range(results):
        seats = rng.choice((2, 3, 4))
        emails = rng.sample(PEOPLE, seats)
        # All on one day: the days-away growth is zero, so this is the library exactly.
        now = START + timedelta(seconds=number)
        match = _match(emails, now)
        winners, scores = _random_result(rng, seats)
        apply_change(match.id, EndWith(winners=winners, scores=scores), now)
        ranks = model.finishing_ranks({"winners": list(winners), "scores": list(scores)},
                                      seats)
        keys = [(email, match.game) for email in emails]
        teams = [[library.rating(*expected.get(key, (25.0, 25 / 3)))] for key in keys]
        for key, team in zip(keys, library.rate(teams, ranks=ranks), strict=True):
            expected[key] = (team[0].mu, team[0].sigma)
    stored = {(row.player.email, row.game): row
              for row in Rating.select(Rating, Player).join(Player)}
    assert set(stored) == set(expected)
    for key, (mu, sigma) in expected.items():
        assert stored[key].mu == pytest.approx(mu, abs=1e-9)
        assert stored[key].sigma == pytest.approx(sigma, abs=1e-9)
    assert sum(row.games for row in stored.values()) == RatingEvent.select().count()
    before = {(r.player_id, r.game): (r.mu, r.sigma, r.display, r.games, r.wins, r.draws,
                                       r.losses, r.last_played_at) for r in Rating.select()}
    events = [(e.mu_before, e.sigma_before, e.mu_after, e.sigma_after)
              for e in RatingEvent.select().order_by(RatingEvent.id)]
    report = rebuild()
    assert report.events == len(events) and report.changed == 0
    after = {(r.player_id, r.game): (r.mu, r.sigma, r.display, r.games, r.wins, r.draws,
                                      r.losses, r.last_played_at) for r in Rating.select()}
    assert after == before
    assert [(e.mu_before, e.sigma_before, e.mu_after, e.sigma_after)
            for e in RatingEvent.select().order_by(RatingEvent.id)] == events


def test_days_away_are_applied_live_and_on_rebuild(db_url: str) -> None:
    first = _match(PEOPLE[:2], START)
    apply_change(first.id, EndWith(winners=(0,), scores=(1.0, 0.0)), START)
    later = START + timedelta(days=40, hours=5)
    second = _match(PEOPLE[:2], later)
    apply_change(second.id, EndWith(winners=(1,), scores=(0.0, 1.0)), later)
    event = RatingEvent.get(RatingEvent.match == second.id, RatingEvent.seat == 0)
    assert event.days_away == 40
    grown = model.sigma_after_days_away(event.sigma_before, 40)
    library = PlackettLuce()
    a = RatingEvent.get(RatingEvent.match == first.id, RatingEvent.seat == 0)
    b = RatingEvent.get(RatingEvent.match == first.id, RatingEvent.seat == 1)
    rated = library.rate([[library.rating(a.mu_after, grown)],
                          [library.rating(b.mu_after,
                                          model.sigma_after_days_away(b.sigma_after, 40))]],
                         ranks=[2, 1])
    assert event.mu_after == pytest.approx(rated[0][0].mu, abs=1e-12)
    assert event.sigma_after == pytest.approx(rated[0][0].sigma, abs=1e-12)
    stored = [(r.mu, r.sigma) for r in Rating.select().order_by(Rating.id)]
    assert rebuild().changed == 0
    assert [(r.mu, r.sigma) for r in Rating.select().order_by(Rating.id)] == stored
    # Damaged values are recomputed from the history's ranks and times.
    events = [(e.mu_before, e.sigma_before, e.days_away, e.mu_after, e.sigma_after,
               e.display_after) for e in RatingEvent.select().order_by(RatingEvent.id)]
    RatingEvent.update(mu_after=0, sigma_after=0, days_away=9, display_after=0).execute()
    Rating.update(mu=0, sigma=1).execute()
    assert rebuild().changed == len(events)
    assert [(e.mu_before, e.sigma_before, e.days_away, e.mu_after, e.sigma_after,
             e.display_after) for e in RatingEvent.select().order_by(RatingEvent.id)] == events
    assert sorted((r.mu, r.sigma) for r in Rating.select()) == sorted(stored)


def test_casual_aborted_and_resigned_matches(db_url: str) -> None:
    casual = _match(PEOPLE[:2], START, rated=False)
    apply_change(casual.id, Resign(seat=0), START)
    aborted = _match(PEOPLE[:2], START)
    apply_change(aborted.id, Abort(seat=0), START)
    assert Rating.select().count() == 0
    resigned = _match(PEOPLE[:2], START)
    apply_change(resigned.id, Resign(seat=0), START)
    winner = Rating.get(Rating.player == Player.get(Player.email == PEOPLE[1]).id)
    assert winner.games == 1 and winner.wins == 1 and winner.mu > 25


def test_a_vanished_player_loses_rating_for_the_first_timeout_only(db_url: str) -> None:
    vanished = PEOPLE[0]
    matches = [_match([vanished, PEOPLE[n]], START) for n in (1, 2, 3)]
    for index, match in enumerate(matches):
        apply_change(match.id, Forfeit(seat=0), START + timedelta(days=index))
    player = Player.get(Player.email == vanished)
    row = Rating.get(Rating.player == player.id)
    assert row.games == 1  # the first timeout counted; the next two, within a week, did not
    assert [e.match_id for e in RatingEvent.select().where(RatingEvent.player == player.id)] \
        == [matches[0].id]
    # Past the week, a timeout counts again.
    late = _match([vanished, PEOPLE[4]], START + timedelta(days=9))
    apply_change(late.id, Forfeit(seat=0), START + timedelta(days=9))
    assert Rating.get(Rating.player == player.id).games == 2


def test_a_match_the_computer_plays_in_never_counts(db_url: str) -> None:
    """Against the computer from the start (created rated or not), or a seat handed to it by
    an admin part-way: the result changes no rating."""
    from pbem.core.matches.changes import apply_change as door
    from pbem.core.matches.rulings import hand_to_computer

    against = create_match("mimic", PEOPLE[:1], {}, "k" * 43, START, rated=True,
                           computers={1: 2}).match
    assert not against.rated and against.has_computer
    apply_change(against.id, Resign(seat=0), START)
    handed = _match(PEOPLE[1:3], START)
    assert handed.rated

    class HandOver(Change):
        kind: ClassVar[str] = "ruling"

        def apply(self, locked: Locked) -> None:
            hand_to_computer(locked, 1, 2)

    door(handed.id, HandOver(seat=1), START)
    apply_change(handed.id, Resign(seat=0), START)
    assert Match.get_by_id(handed.id).status == "finished"
    assert Rating.select().count() == 0 and RatingEvent.select().count() == 0
    # The records say so, as the ratings do: no record calls either match rated.
    from pbem.core.records.exports import match_record
    for match_id in (against.id, handed.id):
        record = match_record(Match.get_by_id(match_id))
        assert record["rated"] is False and record["ratings"] is None, match_id
