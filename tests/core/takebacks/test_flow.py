"""Takebacks through the door: asked, accepted, declined, refused (rated, not the last move,
a standing request, a wait after a decline, a move that showed its mover something new), the
match returned exactly to the position before the move, and a takeback racing a move."""

from __future__ import annotations

from datetime import timedelta

import pytest

from pbem.core.matches.creation import create_match, rules_for, state_after
from pbem.core.matches.history import public_changes
from pbem.core.matches.models import ChangeLog, ComputerJob, Match, Move, Position, Seat
from pbem.core.matches.play import submit_move
from pbem.core.takebacks import changes as takebacks
from pbem.core.takebacks import rules as takeback_rules
from pbem.errors import ConflictError
from pbem.games import get_rules
from pbem.games.takebacks import sees_nothing_new
from tests.conftest import START
from tests.core.matches.test_races import race

SECRET = "test-secret-key"
ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"
LATER = START + timedelta(hours=2)


def nim(rated: bool = False) -> Match:
    return create_match("nim", [ANN, BEN], {"pile": "9"}, SECRET, START, rated=rated).match


def fresh(match: Match) -> Match:
    return Match.get_by_id(match.id)


def seat(match: Match, number: int) -> Seat:
    return Seat.get(Seat.match == match.id, Seat.seat == number)


def test_an_accepted_takeback_returns_to_the_position_before_the_move(db_url: str) -> None:
    match = nim()
    submit_move(match.id, 0, "take 2", None, START)
    before = fresh(match)
    submit_move(match.id, 1, "take 3", None, START)
    assert seat(match, 0).owes_since is not None
    takebacks.request(match.id, 1, LATER)
    assert takeback_rules.can(fresh(match), 0)["answer"]
    takebacks.accept(match.id, 0, LATER)
    after = fresh(match)
    assert (after.ply, after.turn, after.state, after.to_move) == (
        before.ply, before.turn, before.state, before.to_move)
    assert not Move.select().where(Move.match == match.id, Move.ply == 2).exists()
    assert not Position.select().where(Position.match == match.id, Position.ply == 2).exists()
    assert seat(match, 1).owes_since == LATER and seat(match, 0).owes_since is None
    # What was taken back is logged (the admin's view), not silently lost.
    row = ChangeLog.select().where(ChangeLog.match == match.id,
                                   ChangeLog.kind == "takeback-accept").get()
    assert row.payload["took_back"]["move"] == "take 3"
    public = [change for change in public_changes(match) if change["kind"].startswith("take")]
    assert [c["kind"] for c in public] == ["takeback-request", "takeback-accept"]
    assert "took_back" not in str(public)
    # The seat moves again at the same ply; the old request does not stand again.
    submit_move(match.id, 1, "take 1", 1, LATER)
    assert fresh(match).ply == 2 and takeback_rules.standing(fresh(match)) is None
    assert state_after(fresh(match), 2) == rules_for(match).load(fresh(match).state)


def test_refusals_say_why(db_url: str) -> None:
    rated = nim(rated=True)
    submit_move(rated.id, 0, "take 1", None, START)
    with pytest.raises(ConflictError, match="rated"):
        takebacks.request(rated.id, 0, LATER)
    match = nim()
    with pytest.raises(ConflictError, match="own last move"):
        takebacks.request(match.id, 0, LATER)  # no move yet
    submit_move(match.id, 0, "take 1", None, START)
    with pytest.raises(ConflictError, match="own last move"):
        takebacks.request(match.id, 1, LATER)  # not ben's move
    takebacks.request(match.id, 0, LATER)
    with pytest.raises(ConflictError, match="already stands"):
        takebacks.request(match.id, 0, LATER)
    with pytest.raises(ConflictError, match="your own request"):
        takebacks.accept(match.id, 0, LATER)
    takebacks.decline(match.id, 1, LATER)
    with pytest.raises(ConflictError, match="no takeback request"):
        takebacks.decline(match.id, 1, LATER)
    assert fresh(match).ply == 1


def test_each_decline_makes_the_next_wait_longer(db_url: str) -> None:
    match = nim()
    submit_move(match.id, 0, "take 1", None, START)
    takebacks.request(match.id, 0, LATER)
    takebacks.decline(match.id, 1, LATER)
    with pytest.raises(ConflictError, match="after 1 more move"):
        takebacks.request(match.id, 0, LATER)
    submit_move(match.id, 1, "take 1", None, LATER)
    submit_move(match.id, 0, "take 1", None, LATER)
    takebacks.request(match.id, 0, LATER)
    takebacks.decline(match.id, 1, LATER)
    with pytest.raises(ConflictError, match="after 2 more moves"):
        takebacks.request(match.id, 0, LATER)
    submit_move(match.id, 1, "take 1", None, LATER)
    submit_move(match.id, 0, "take 1", None, LATER)
    with pytest.raises(ConflictError, match="after 1 more move"):
        takebacks.request(match.id, 0, LATER)


def test_a_move_instead_of_an_answer_lets_the_request_lapse(db_url: str) -> None:
    match = nim()
    submit_move(match.id, 0, "take 1", None, START)
    takebacks.request(match.id, 0, LATER)
    submit_move(match.id, 1, "take 1", None, LATER)
    assert takeback_rules.standing(fresh(match)) is None
    with pytest.raises(ConflictError, match="no takeback request"):
        takebacks.accept(match.id, 1, LATER)


def test_against_the_computer_the_move_is_taken_back_at_once(db_url: str) -> None:
    match = create_match("nim", [ANN], {"pile": "9"}, SECRET, START, computers={1: 1}).match
    submit_move(match.id, 0, "take 2", None, START)
    assert ComputerJob.select().where(ComputerJob.match == match.id).exists()
    takebacks.request(match.id, 0, LATER)
    assert fresh(match).ply == 0 and fresh(match).to_move == [0]
    assert not ComputerJob.select().where(ComputerJob.match == match.id).exists()


def test_hidden_cards_allow_a_takeback_only_when_nothing_new_was_seen(db_url: str) -> None:
    """Mimic Taking at three seats: every move the rules call safe is taken back once both
    others accept, and a move that showed something new (a round's end) is refused."""
    emails = [ANN, BEN, CY]
    match = create_match("mimic-taking", emails, {}, SECRET, START, seed=7).match
    rules = get_rules("mimic-taking")
    taken = refused = 0
    while fresh(match).is_live and fresh(match).ply < 40:
        now = fresh(match)
        state = rules.load(now.state)
        mover = min(rules.to_move(state))
        move = next(iter(rules.legal_moves(state, mover)))
        submit_move(match.id, mover, rules.format_move(state, move), None, LATER)
        if not fresh(match).is_live:
            break
        if sees_nothing_new(rules, state, mover, move) and taken < 3:
            takebacks.request(match.id, mover, LATER)
            for other in sorted({0, 1, 2} - {mover}):
                takebacks.accept(match.id, other, LATER)
            assert fresh(match).state == now.state and fresh(match).ply == now.ply
            taken += 1
            submit_move(match.id, mover, rules.format_move(state, move), None, LATER)
        elif not sees_nothing_new(rules, state, mover, move):
            with pytest.raises(ConflictError, match="something new"):
                takebacks.request(match.id, mover, LATER)
            refused += 1
    assert taken == 3 and refused >= 1


@pytest.mark.parametrize("attempt", range(6))
def test_an_accept_racing_a_move_lets_exactly_one_win(db_url: str, attempt: int) -> None:
    match = nim()
    submit_move(match.id, 0, "take 1", None, START)
    takebacks.request(match.id, 0, LATER)
    accepted, moved = race(lambda: takebacks.accept(match.id, 1, LATER),
                           lambda: submit_move(match.id, 1, "take 2", 1, LATER))
    wins = [not isinstance(result, Exception) for result in (accepted, moved)]
    assert wins.count(True) == 1, (accepted, moved)
    after = fresh(match)
    assert after.ply == (0 if wins[0] else 2)
    assert Move.select().where(Move.match == match.id).count() == after.ply


def test_a_player_who_chose_never_refuses_takebacks_in_their_matches(db_url: str) -> None:
    from pbem.core.accounts.models import Player
    from pbem.core.accounts.players import set_takebacks
    match = nim()
    submit_move(match.id, 0, "take 1", None, START)
    ben = Player.get(Player.email == BEN)
    set_takebacks(ben, "never")
    with pytest.raises(ConflictError, match="chosen never"):
        takebacks.request(match.id, 0, LATER)
    set_takebacks(ben, "always")
    takebacks.request(match.id, 0, LATER)
    with pytest.raises(Exception, match="not a takeback choice"):
        set_takebacks(ben, "sometimes")


@pytest.mark.parametrize(("competition", "words"), [("league", "league game"),
                                                    ("ladder", "ladder game")])
def test_league_and_ladder_games_refuse(db_url: str, competition: str, words: str) -> None:
    match = nim()
    submit_move(match.id, 0, "take 1", None, START)
    # The mark core/leagues gives its games (set here directly: the rule reads only it).
    Match.update(competition=competition).where(Match.id == match.id).execute()
    with pytest.raises(ConflictError, match=words):
        takebacks.request(match.id, 0, LATER)
