"""Tournaments run by the server, on every database: start, rounds paired when the last is
over, withdrawals as forfeits, the organiser's actions, and exactly-once pairing."""

from __future__ import annotations

import random
from collections import Counter
from datetime import timedelta
from functools import partial

import pytest

from pbem.core.accounts.models import Player
from pbem.core.admin.models import AuditEntry
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches import history, lifecycle
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.core.tournaments import running, service
from pbem.core.tournaments.models import Pairing, Tournament, TournamentRound
from pbem.core.tournaments.service import Organising
from pbem.core.tournaments.table import bracket, crosstable, describe
from pbem.errors import ConflictError, InvalidRequestError
from tests.conftest import START
from tests.support.threads import race

KEY = "k" * 43


def _players(count: int) -> list[Player]:
    return [Player.for_email(f"p{n}@example.org", START) for n in range(count)]


def _tournament(organiser: Player, fmt: str, **spec: object) -> Tournament:
    body = {"name": f"Test {fmt}", "game": "nim", "format": fmt, "clock": "3d",
            "min_players": 2, "max_players": 16, **spec}
    return service.create_tournament(organiser, body, START)


def _finish_live(tournament: Tournament, rng: random.Random, draws: bool = True) -> int:
    """End every live match of the tournament: a resignation by a random seat, or an agreed
    draw (through the door, like players would)."""
    live = (Match.select(Match.id).join(Pairing, on=(Pairing.match == Match.id))
            .where(Pairing.tournament == tournament, Match.status == MatchStatus.ACTIVE))
    ended = 0
    for row in live:
        if draws and rng.random() < 0.25:
            service.adjudicate(tournament.id, row.id, [0, 1], Organising(admin="a@x.org"),
                               "agreed draw", START)
        else:
            lifecycle.resign(row.id, rng.choice((0, 1)), START)
        ended += 1
    return ended


def test_a_four_player_round_robin_starts_every_match_at_once_and_ends(settings) -> None:
    players = _players(4)
    tournament = _tournament(players[0], "round-robin")
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    assert Match.select().count() == 6  # every pair once
    assert TournamentRound.select().count() == 3
    # One mail per player for the round robin's matches, with their three seats; no welcome.
    rounds = OutboxMessage.select().where(OutboxMessage.template == "tournament_round")
    assert sorted(len(m.params["seats"]) for m in rounds) == [3, 3, 3, 3]
    assert not OutboxMessage.select().where(OutboxMessage.template == "welcome").exists()
    _finish_live(Tournament.get_by_id(tournament.id), random.Random(4))
    report = running.advance(KEY, START)
    assert report.finished == 1
    found = describe(Tournament.get_by_id(tournament.id))
    assert found["status"] == "finished"
    assert sum(s["points"] for s in found["standings"]) == 6
    assert set(found["standings"][0]["tiebreaks"]) == {"sonneborn_berger", "direct_encounter"}
    table = crosstable(Tournament.get_by_id(tournament.id))
    assert all(row[i] == "x" for i, row in enumerate(table["rows"]))
    assert OutboxMessage.select().where(OutboxMessage.template == "tournament_final").count() == 4


def test_a_swiss_pairs_each_round_after_the_last_and_gives_one_bye(settings) -> None:
    players = _players(7)
    tournament = _tournament(players[0], "swiss", rounds=4)
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    rng = random.Random(7)
    for number in range(1, 5):
        t = Tournament.get_by_id(tournament.id)
        assert t.current_round == number
        assert Match.select().where(Match.status == MatchStatus.ACTIVE).count() == 3
        running.advance(KEY, START)  # nothing to do while matches are live
        assert Tournament.get_by_id(tournament.id).current_round == number
        _finish_live(t, rng)
        running.advance(KEY, START)
    t = Tournament.get_by_id(tournament.id)
    assert t.status == "finished"
    byes = Pairing.select().where(Pairing.tournament == t, Pairing.match.is_null())
    assert len({tuple(b.players) for b in byes}) == 4  # four byes, four players
    met = Counter(frozenset(p.players) for p in Pairing.select()
                  .where(Pairing.tournament == t, Pairing.match.is_null(False)))
    assert all(n == 1 for n in met.values())  # no rematch
    found = describe(t)
    assert [r["number"] for r in found["rounds"]] == [1, 2, 3, 4]
    assert set(found["standings"][0]["tiebreaks"]) == {"buchholz", "median_buchholz"}
    assert sum(s["points"] for s in found["standings"]) == 4 * 3 + 4


def test_several_workers_pair_a_round_exactly_once(settings) -> None:
    players = _players(6)
    for _attempt in range(4):
        tournament = _tournament(players[0], "swiss", rounds=3)
        for player in players:
            service.join(tournament.id, player, START)
        running.start(tournament.id, Organising(players[0]), KEY, START)
        _finish_live(Tournament.get_by_id(tournament.id), random.Random(1))
        race(*[partial(running.advance, KEY, START) for _ in range(3)])
        assert TournamentRound.select().where(
            TournamentRound.tournament == tournament).count() == 2
        assert Pairing.select().where(Pairing.tournament == tournament).count() == 6


def test_a_knockout_gives_byes_to_the_top_seeds_and_replays_draws(settings) -> None:
    players = _players(5)
    tournament = _tournament(players[0], "knockout", max_replays=1)
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    first = describe(Tournament.get_by_id(tournament.id))["rounds"][0]["pairings"]
    assert sum(1 for p in first if p["bye"]) == 3  # 8 slots, 5 players: seeds 1-3 wait
    assert [p["players"] for p in first if not p["bye"]] == [["p3", "p4"]]
    match_id = next(p["match"] for p in first if not p["bye"])
    admin = Organising(admin="a@x.org")
    service.adjudicate(tournament.id, match_id, [0, 1], admin, "draw", START)
    told = [row for row in history.public_changes(match_id)
            if row["kind"] == "tournament-adjudication"]
    assert told and told[0]["reason"] == "draw" and told[0]["winners"] == [0, 1]
    assert running.advance(KEY, START).replays == 1
    replay = Pairing.select().where(Pairing.tournament == tournament, Pairing.game == 2).get()
    assert replay.players == [Pairing.get(Pairing.match == match_id).players[1],
                              Pairing.get(Pairing.match == match_id).players[0]]
    # Drawn again, past the one replay allowed: the higher seed (p3) goes through.
    service.adjudicate(tournament.id, replay.match_id, [0, 1], admin, "draw", START)
    running.advance(KEY, START)
    assert bracket(Tournament.get_by_id(tournament.id))[0][1]["winner"] == "p3"
    rng = random.Random(3)
    while Tournament.get_by_id(tournament.id).status == "running":
        _finish_live(Tournament.get_by_id(tournament.id), rng, draws=False)
        running.advance(KEY, START)
    ties = bracket(Tournament.get_by_id(tournament.id))
    assert [len(r) for r in ties] == [4, 2, 1]
    assert describe(Tournament.get_by_id(tournament.id))["standings"][0]["points"] == 3


def test_tables_seat_players_by_score_and_score_by_place(settings) -> None:
    players = _players(7)
    tournament = service.create_tournament(players[0], {
        "name": "Bids night", "game": "bids", "format": "tables", "rounds": 2,
        "min_players": 6, "max_players": 8}, START)
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    seats = sorted(len(p.players) for p in Pairing.select())
    assert seats == [3, 4]
    admin = Organising(admin="a@x.org")
    for row in Pairing.select():
        service.adjudicate(tournament.id, row.match_id, [0], admin, "table won", START)
    running.advance(KEY, START)
    # Round 2: by score, except where a swap between neighbouring tables spares a meeting
    # again; in any case everyone is seated once.
    second = list(Pairing.select().where(Pairing.finished == False))  # noqa: E712
    assert sorted(p for row in second for p in row.players) == sorted(
        p for row in Pairing.select().where(Pairing.finished == True)  # noqa: E712
        for p in row.players)
    for row in second:
        service.adjudicate(tournament.id, row.match_id, [0], admin, "table won", START)
    running.advance(KEY, START)
    found = describe(Tournament.get_by_id(tournament.id))
    assert found["status"] == "finished"
    # By place: 1, 2/3, 1/3, 0 at four (2 in all) and 1, 1/2, 0 at three (1.5), twice.
    assert sum(s["points"] for s in found["standings"]) == pytest.approx(7.0)
    assert set(found["standings"][0]["tiebreaks"]) == {"tables_won"}


def test_withdrawal_forfeits_every_live_match_and_marks_it(settings) -> None:
    players = _players(4)
    tournament = _tournament(players[0], "round-robin")
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    assert service.withdraw(tournament.id, players[2], START) == 3
    running.advance(KEY, START)
    found = describe(Tournament.get_by_id(tournament.id))
    forfeits = [p for r in found["rounds"] for p in r["pairings"] if p["forfeit"]]
    assert len(forfeits) == 3 and all("p2" in p["players"] for p in forfeits)
    assert all(p["result"][p["players"].index("p2")] == 0.0 for p in forfeits)
    with pytest.raises(ConflictError, match="already left"):
        service.withdraw(tournament.id, players[2], START)


def test_the_organiser_pauses_removes_and_it_is_audited(settings) -> None:
    players = _players(4)
    tournament = _tournament(players[0], "swiss", rounds=2)
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    with pytest.raises(service.NotOrganiserError):
        service.pause(tournament.id, Organising(players[1]), "no", START)
    service.pause(tournament.id, Organising(players[0]), "holiday week", START)
    assert all(m.paused_at is not None for m in Match.select())
    service.resume(tournament.id, Organising(players[0]), "back", START)
    assert all(m.paused_at is None for m in Match.select())
    service.remove_player(tournament.id, players[3].id, Organising(admin="a@x.org"),
                          "never moved", START)
    actions = [e.action for e in AuditEntry.select().order_by(AuditEntry.id)]
    assert "tournament:pause" in actions and "tournament:resume" in actions
    assert "tournament:remove-player" in actions


def test_a_round_deadline_brings_late_seats_to_their_timeout(settings) -> None:
    players = _players(2)
    tournament = _tournament(players[0], "swiss", rounds=1, round_days=2)
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    later = START + timedelta(days=2, minutes=1)
    assert running.advance(KEY, later).deadlines == 1
    owing = Seat.select().where(Seat.owes_since.is_null(False)).get()
    assert owing.deadline == later  # the sweep's timeout policy settles it from here
    assert running.advance(KEY, later).deadlines == 0  # once


def test_a_match_paused_at_the_round_deadline_gets_it_when_it_resumes(settings) -> None:
    """Before, a match an admin had paused when the round's deadline came was skipped for
    good: the round was marked done, and the match ran on its own clock."""
    from pbem.core.admin.actions import pause, resume

    players = _players(4)
    tournament = _tournament(players[0], "swiss", rounds=1, round_days=2)
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    paused, other = [row.match_id for row in Pairing.select().order_by(Pairing.match)]
    pause(paused, "ref@club.org", "a dispute", START)
    later = START + timedelta(days=2, minutes=1)
    assert running.advance(KEY, later).deadlines == 1  # the other match only
    assert running.advance(KEY, later).deadlines == 0  # it is not applied twice
    resume(paused, "ref@club.org", "settled", later)
    after = later + timedelta(minutes=5)
    assert running.advance(KEY, after).deadlines == 1  # now the paused one
    owing = Seat.select().where(Seat.match == paused, Seat.owes_since.is_null(False)).get()
    assert owing.deadline == after
    assert running.advance(KEY, after).deadlines == 0
    assert other


def test_join_and_leave_before_the_start_and_bad_input(settings) -> None:
    players = _players(3)
    tournament = _tournament(players[0], "swiss", max_players=2, invitation_only=False)
    service.join(tournament.id, players[0], START)
    with pytest.raises(ConflictError, match="already"):
        service.join(tournament.id, players[0], START)
    service.join(tournament.id, players[1], START)
    with pytest.raises(ConflictError, match="full"):
        service.join(tournament.id, players[2], START)
    service.leave(tournament.id, players[1], START)
    with pytest.raises(ConflictError, match="not in this tournament"):
        service.leave(tournament.id, players[1], START)
    with pytest.raises(InvalidRequestError, match="format"):
        _tournament(players[0], "ladder")
    with pytest.raises(InvalidRequestError, match="rounds"):
        _tournament(players[0], "round-robin", rounds=3)
    with pytest.raises(InvalidRequestError, match="two-player"):
        service.create_tournament(players[0], {"name": "x", "game": "bids",
                                               "format": "swiss"}, START)
    closed = _tournament(players[0], "swiss", invitation_only=True,
                         invited=["p1@example.org"])
    for _ in range(service.MAX_OPEN_PER_ORGANISER - 2):
        _tournament(players[0], "swiss")
    with pytest.raises(ConflictError, match="most allowed"):
        _tournament(players[0], "swiss")
    service.join(closed.id, players[1], START)
    with pytest.raises(service.NotOrganiserError, match="invitation"):
        service.join(closed.id, players[2], START)


def test_a_full_tournament_without_a_start_time_starts_by_itself(settings) -> None:
    players = _players(3)
    tournament = _tournament(players[0], "round-robin", max_players=3)
    for player in players:
        service.join(tournament.id, player, START)
    assert running.advance(KEY, START).started == 1
    assert Match.select().count() == 3
    timed = _tournament(players[0], "swiss", starts_at="2026-01-06T12:00:00Z", min_players=4)
    service.join(timed.id, players[0], START)
    assert running.advance(KEY, START).cancelled == 0
    assert running.advance(KEY, START + timedelta(days=1)).cancelled == 1
    assert Tournament.get_by_id(timed.id).status == "cancelled"


def test_two_players_racing_for_the_last_place_get_one_place(settings) -> None:
    players = _players(3)
    for _attempt in range(6):
        tournament = _tournament(players[0], "swiss", max_players=2)
        service.join(tournament.id, players[0], START)
        results = race(partial(service.join, tournament.id, players[1], START),
                       partial(service.join, tournament.id, players[2], START))
        assert sum(isinstance(r, Tournament) for r in results) == 1, results
        assert sum(isinstance(r, ConflictError) and "full" in str(r) for r in results) == 1
        assert len(service.entries(tournament)) == 2


def test_tournament_mail_follows_each_players_preference(settings) -> None:
    from pbem.core.mailout.preferences import update_preferences

    players = _players(3)
    update_preferences(players[1].id, "digest", 18, "UTC", START)
    update_preferences(players[2].id, "off", None, None, START)
    tournament = _tournament(players[0], "round-robin")
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    rounds = {m.to_address: m for m in OutboxMessage.select()
              .where(OutboxMessage.template == "tournament_round")}
    assert rounds["p0@example.org"].next_attempt_at == START  # at once
    assert rounds["p1@example.org"].next_attempt_at == START.replace(hour=18)  # digest hour
    assert "p2@example.org" not in rounds  # off: nothing but reminders and rulings


def test_a_knockout_player_who_withdraws_gives_a_walkover(settings) -> None:
    players = _players(4)
    tournament = _tournament(players[0], "knockout")
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    # Round 1: seeds 1 v 4 and 2 v 3 (entries join, and so are seeded, in id order).
    first = {tuple(p.players): p for p in Pairing.select()}
    (top, bottom), (second, third) = sorted(first, key=min)
    player_of = {e.id: e.player for e in service.entries(Tournament.get_by_id(tournament.id))}
    lifecycle.resign(first[(top, bottom)].match_id, 1, START)  # seed 1 goes through
    # ... and withdraws while the other tie is still in play: nothing of theirs is live.
    assert service.withdraw(tournament.id, player_of[top], START) == 0
    lifecycle.resign(first[(second, third)].match_id, 1, START)  # seed 2 goes through
    running.advance(KEY, START)
    final = Pairing.select().where(Pairing.tournament == tournament).order_by(
        Pairing.id.desc()).first()
    assert final.players == [second] and final.match_id is None  # a walkover, no match
    found = describe(Tournament.get_by_id(tournament.id))
    assert found["status"] == "finished"
    assert found["standings"][0]["player"] == player_of[second].public_name
    assert bracket(Tournament.get_by_id(tournament.id))[1][0]["winner"] == \
        player_of[second].public_name


def test_a_rated_tournament_seeds_by_rating_and_its_matches_are_rated(settings) -> None:
    from pbem.core.ratings.models import Rating, RatingEvent
    from pbem.core.tournaments.models import TournamentEntry

    players = _players(4)
    # p2 is the strongest, then p0; p1 and p3 have never played nim rated.
    for player, display in ((players[2], 1400), (players[0], 1200)):
        Rating.create(player=player, game="nim", mu=25.0, sigma=3.0, display=display, games=12)
    tournament = _tournament(players[0], "knockout", rated=True)
    for player in players:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(players[0]), KEY, START)
    seeds = {e.player_id: e.seed for e in TournamentEntry.select()
             .where(TournamentEntry.tournament == tournament.id)}
    assert seeds[players[2].id] == 1 and seeds[players[0].id] == 2
    assert {seeds[players[1].id], seeds[players[3].id]} == {3, 4}  # the starting rating, tied
    matches = list(Match.select())
    assert matches and all(match.rated for match in matches)
    _finish_live(Tournament.get_by_id(tournament.id), random.Random(2), draws=False)
    assert RatingEvent.select().count() == 2 * len(matches)  # each ended match rated its seats
