"""Creating matches and submitting moves: one transaction, no double moves, clear refusals."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest

from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match, state_after
from pbem.core.matches.models import Match, MatchStatus, Move, Seat
from pbem.core.matches.play import submit_move
from pbem.core.matches.seat_links import seat_for_token
from pbem.errors import ConflictError, InvalidRequestError, MatchNotLiveError, NotYourTurnError
from pbem.games.base import IllegalMoveError, InvalidMoveError, OptionError, RulesError
from tests.conftest import START
from tests.support.render import rendered

SECRET = "test-secret-key"
ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"


def nim(db_url: str, pile: int = 9):
    return create_match("nim", [ALICE, BOB], {"pile": str(pile)}, SECRET, START, seed=1)


def test_creating_a_match_seats_the_players_and_queues_their_emails(db_url: str) -> None:
    created = nim(db_url)
    match = created.match
    assert match.status == MatchStatus.ACTIVE and match.ply == 0 and match.options == {"pile": 9}
    assert [seat.player.email for seat in match.seat_rows()] == [ALICE, BOB]
    kinds = [(m.to_address, m.template) for m in OutboxMessage.select().order_by(OutboxMessage.id)]
    assert kinds == [(ALICE, "welcome"), (BOB, "welcome"), (ALICE, "your_turn")]
    assert seat_for_token(created.tokens[1]).seat == 1


@pytest.mark.parametrize(("game", "emails", "options", "message"), [
    ("chess", [ALICE, BOB], {}, "no game called 'chess'"),
    ("nim", [ALICE], {}, "played by 2 players, not 1"),
    ("nim", [ALICE, "not-an-address"], {}, "'not-an-address' is not an email address"),
    ("nim", [ALICE, BOB], {"pile": "lots"}, "must be a whole number"),
    ("nim", [ALICE, BOB], {"pile": "99"}, "at most 30"),
    ("nim", [ALICE, BOB], {"colour": "red"}, "no option colour"),
])
def test_bad_match_requests_are_refused_clearly_and_create_nothing(
        db_url: str, game: str, emails: list[str], options: dict, message: str) -> None:
    with pytest.raises((RulesError, InvalidRequestError, OptionError), match=message):
        create_match(game, emails, options, SECRET, START)
    assert Match.select().count() == 0 and OutboxMessage.select().count() == 0


def test_a_move_is_applied_recorded_and_the_opponent_told(db_url: str) -> None:
    match = nim(db_url).match
    result = submit_move(match.id, 0, "Take 2", 0, START + timedelta(minutes=5))
    assert result.text == "take 2" and result.events == ("First took 2, 7 left",)
    match = Match.get_by_id(match.id)
    assert match.ply == 1 and match.to_move == [1] and match.state["pile"] == 7
    move = Move.get(Move.match == match)
    assert (move.ply, move.seat, move.text) == (1, 0, "take 2")
    last = OutboxMessage.select().order_by(OutboxMessage.id.desc()).first()
    assert (last.to_address, last.template) == (BOB, "your_turn")
    assert rendered(last)["events"] == ["First took 2, 7 left"]


def test_illegal_and_malformed_moves_change_nothing(db_url: str) -> None:
    match = nim(db_url).match
    before = OutboxMessage.select().count()
    with pytest.raises(IllegalMoveError, match="take 1 to 3"):
        submit_move(match.id, 0, "take 4", 0, START)
    with pytest.raises(InvalidMoveError, match="'grab all'"):
        submit_move(match.id, 0, "grab all", 0, START)
    with pytest.raises(NotYourTurnError):
        submit_move(match.id, 1, "take 1", 0, START)
    assert Match.get_by_id(match.id).ply == 0 and Move.select().count() == 0
    assert OutboxMessage.select().count() == before


def test_a_stale_or_repeated_submission_is_refused_not_applied_twice(db_url: str) -> None:
    match = nim(db_url).match
    submit_move(match.id, 0, "take 1", 0, START)
    with pytest.raises(ConflictError, match="already moved"):
        submit_move(match.id, 0, "take 1", 0, START)
    submit_move(match.id, 1, "take 1", 1, START)
    with pytest.raises(ConflictError, match="position changed"):
        # Seat 0 looked at ply 1 while waiting; seat 1's move then changed the position.
        submit_move(match.id, 0, "take 1", 1, START)
    with pytest.raises(ConflictError, match="at move 2, not 7"):
        submit_move(match.id, 0, "take 1", 7, START)
    assert Match.get_by_id(match.id).ply == 2


def test_the_last_move_finishes_the_match_and_everyone_gets_the_result(db_url: str) -> None:
    match = nim(db_url, pile=2).match
    submit_move(match.id, 0, "take 2", 0, START)
    match = Match.get_by_id(match.id)
    assert match.status == MatchStatus.FINISHED and match.finished_at == START
    assert match.result == {"winners": [0], "scores": [1.0, 0.0],
                            "reason": "First took the last counter"}
    results = OutboxMessage.select().where(OutboxMessage.template == "result")
    assert sorted(m.to_address for m in results) == [ALICE, BOB]
    with pytest.raises(MatchNotLiveError):
        submit_move(match.id, 1, "take 1", 1, START)


def test_simultaneous_choices_by_different_seats_are_not_stale(db_url: str) -> None:
    match = create_match("bids", [ALICE, BOB, CAROL], {}, SECRET, START, seed=3).match
    hands = match.state["hands"]
    # All three loaded the page at ply 0; the others' hidden choices change nothing they see.
    submit_move(match.id, 0, f"play {hands[0][0]}", 0, START)
    submit_move(match.id, 2, f"play {hands[2][0]}", 0, START)
    turn_emails_before = OutboxMessage.select().where(OutboxMessage.template == "your_turn").count()
    submit_move(match.id, 1, f"play {hands[1][0]}", 0, START)
    match = Match.get_by_id(match.id)
    assert match.ply == 3 and match.turn == 1 and match.to_move == [0, 1, 2]
    # The decision is complete: all three are asked for the next one, once each.
    after = OutboxMessage.select().where(OutboxMessage.template == "your_turn").count()
    assert after - turn_emails_before == 3
    with pytest.raises(ConflictError, match="already moved"):
        submit_move(match.id, 0, f"play {match.state['hands'][0][0]}", 0, START)


def test_a_hidden_choice_is_stored_with_its_readers(db_url: str) -> None:
    match = create_match("bids", [ALICE, BOB, CAROL], {}, SECRET, START, seed=3).match
    submit_move(match.id, 1, f"play {match.state['hands'][1][0]}", 0, START)
    assert Move.get(Move.match == match).visible_to == [1]


def test_history_replays_any_earlier_position_from_the_seed(db_url: str) -> None:
    match = nim(db_url).match
    for ply, text in enumerate(["take 3", "take 1", "take 2"]):
        submit_move(match.id, ply % 2, text, ply, START)
    match = Match.get_by_id(match.id)
    assert [state_after(match, ply).pile for ply in range(4)] == [9, 6, 5, 3]


def test_racing_submissions_of_the_same_ply_are_applied_exactly_once(db_url: str) -> None:
    from pbem.core.db.connection import database

    match = nim(db_url).match
    texts = ["take 1", "take 2", "take 3", "take 1", "take 2", "take 3"]
    outcomes: list[str] = []
    barrier = threading.Barrier(len(texts))

    def submit(text: str) -> None:
        barrier.wait()
        try:
            with database.connection_context():
                submit_move(match.id, 0, text, 0, START)
            outcomes.append("ok")
        except ConflictError:
            outcomes.append("conflict")

    threads = [threading.Thread(target=submit, args=(text,)) for text in texts]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(outcomes) == ["conflict"] * 5 + ["ok"]
    assert Move.select().where(Move.match == match).count() == 1
    assert Match.get_by_id(match.id).ply == 1
    bob_turns = OutboxMessage.select().where(OutboxMessage.to_address == BOB,
                                             OutboxMessage.template == "your_turn")
    assert bob_turns.count() == 1


def test_a_token_opens_only_its_own_seat(db_url: str) -> None:
    first = nim(db_url)
    second = nim(db_url)
    seat = seat_for_token(first.tokens[0])
    assert (seat.match_id, seat.seat) == (first.match.id, 0)
    assert seat_for_token(second.tokens[0]).match_id == second.match.id
    assert Seat.select().count() == 4
