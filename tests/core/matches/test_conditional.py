"""Conditional moves through the one door, per game on hand-built positions: a branch played
at once in the opponent's transaction, a move no branch expected clearing the tree (and its
owner told), an answer that wins ending the match, an illegal line refused with the reason;
and what nobody but the owner may see."""

from __future__ import annotations

from dataclasses import dataclass

import pytest

from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches import conditional
from pbem.core.matches.creation import create_match
from pbem.core.matches.deadlines import start_clock, stop_all_clocks
from pbem.core.matches.models import ChangeLog, ConditionalTree, Match, MatchStatus, Move, Seat
from pbem.core.matches.play import submit_move
from pbem.errors import ConflictError
from pbem.games import get_rules
from pbem.games.lines import LineError
from tests.conftest import START

SECRET = "test-secret-key"
ANN, BEN = "ann@example.org", "ben@example.org"


def start_at(game: str, position: str, options: dict | None = None) -> Match:
    """A match of `game` whose position is the hand-built `position`, its clocks running for
    the seat to move."""
    rules = get_rules(game)
    match = create_match(game, [ANN, BEN], options or {}, SECRET, START).match
    state = rules.from_position(position)
    Match.update(state=rules.dump(state), to_move=sorted(rules.to_move(state))).where(
        Match.id == match.id).execute()
    match = Match.get_by_id(match.id)
    stop_all_clocks(match)
    for number in rules.to_move(state):
        start_clock(match, Seat.get((Seat.match == match) & (Seat.seat == number)), START)
    OutboxMessage.delete().execute()
    return Match.get_by_id(match.id)


@dataclass(frozen=True)
class Case:
    """A hand-built position with the seat to move (`mover`), its move the owner expects
    (`theirs`) and the owner's answer to it that wins (`winning`)."""

    game: str
    position: str
    mover: int
    theirs: str
    winning: str
    options: dict | None = None


# Found by playing each game out: after `theirs`, the waiting seat wins at once by `winning`.
CASES = [
    Case("mimic", "10/10/10/10/10/1b8/10/10/3r6/10 b - goal:any -", 0, "b5-b6", "d2-d1"),
    Case("eximo", "2w3w1/1w5w/2ww4/w7/4bb1w/8/8/8 b", 0, "e4-d5", "c6xe4xg4"),
    Case("frozen-forest", "........../.TMTTTTTT./.TTYTTTTT./....TT.TT./.T...T.TT./"
         ".T..TT..T./.T.T.T.T../.TTTT...T./.TTTTT..../.......... mina 2 8 any mina:4", 0,
         "d10", "d9", {"forest_size": 8}),
    Case("move-in-synch", "ooo../xoo.o/xxxoo/xxxoo/xxxoo c3 e3 40 decider-first -", 0,
         "synch", "NW", {"size": 5}),
]


def quiet_answer(case: Case, after: list[str]) -> str:
    """The owner's first legal move after `after` that does not end the game."""
    rules = get_rules(case.game)
    state = rules.from_position(case.position)
    for text in after:
        (seat,) = rules.to_move(state)
        state = rules.apply_move(state, seat, rules.parse_move(state, seat, text)).state
    (seat,) = rules.to_move(state)
    for move in rules.legal_moves(state, seat):
        if rules.outcome(rules.apply_move(state, seat, move).state) is None:
            return rules.format_move(state, move)
    raise AssertionError("no quiet move in this position")


def other_move(case: Case) -> str:
    rules = get_rules(case.game)
    state = rules.from_position(case.position)
    texts = [rules.format_move(state, m) for m in rules.legal_moves(state, case.mover)]
    return next(text for text in texts if text != case.theirs)


def mails() -> dict[tuple[int, str], dict]:
    return {(m.seat, m.template): m.params or {} for m in OutboxMessage.select()}


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.game)
def test_a_stored_branch_is_played_in_the_opponents_own_transaction(db_url, case) -> None:
    match = start_at(case.game, case.position, case.options)
    owner = 1 - case.mover
    answer = quiet_answer(case, [case.theirs])
    line = [case.theirs, answer]
    stored = conditional.store(match.id, owner, [line], START, expected_ply=0)
    assert stored.lines == [line] and stored.version == 1
    result = submit_move(match.id, case.mover, case.theirs, 0, START)
    assert result.answered_with == answer and result.match.ply == 2
    after = Match.get_by_id(match.id)
    assert after.ply == 2, "the answer was played in the same request"
    moves = list(Move.select().where(Move.match == match).order_by(Move.ply))
    assert [(m.text, m.note) for m in moves] == [(case.theirs, None), (answer, "conditional")]
    kinds = [row.kind for row in ChangeLog.select().where(ChangeLog.match == match)
             .order_by(ChangeLog.version)]
    assert kinds[-2:] == ["move", "conditional-answer"]
    sent = mails()
    # Each player hears it once: in its "your turn" mail if it is to move now (in Move In
    # Synch the owner may move again at once), else in a mail of its own.
    for seat in (0, 1):
        told = [kind for number, kind in sent if number == seat]
        assert told == (["your_turn"] if seat in after.to_move else ["conditional_played"])
        assert "conditional move" in " ".join(sent[(seat, told[0])]["cond"])
    assert conditional.stored(after, owner).lines == [], "the whole line was used"
    assert not ConditionalTree.select().exists()


def deeper_line(case: Case) -> list[str]:
    """`theirs`, then quiet moves by whoever is to move, up to the owner's answer to the
    opponent's second move (in Move In Synch a seat may move twice running)."""
    rules = get_rules(case.game)
    owner = 1 - case.mover
    state = rules.from_position(case.position)
    line: list[str] = []
    theirs = 0
    while True:
        (seat,) = rules.to_move(state)
        text = case.theirs if not line else quiet_answer(case, line)
        line.append(text)
        state = rules.apply_move(state, seat, rules.parse_move(state, seat, text)).state
        theirs += seat != owner
        if theirs >= 2 and seat == owner and rules.to_move(state) != {owner}:
            return line


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.game)
def test_the_tree_moves_down_the_branch_played(db_url, case) -> None:
    match = start_at(case.game, case.position, case.options)
    owner = 1 - case.mover
    line = deeper_line(case)
    rules = get_rules(case.game)
    # Where the opponent's second move comes: every ply before it is played at once.
    state, second = rules.from_position(case.position), 0
    for index, text in enumerate(line):
        (seat,) = rules.to_move(state)
        if seat != owner and index:
            second = index
            break
        state = rules.apply_move(state, seat, rules.parse_move(state, seat, text)).state
    other = other_move(case)
    conditional.store(match.id, owner, [line, [other, quiet_answer(case, [other])]], START)
    submit_move(match.id, case.mover, case.theirs, 0, START)
    left = conditional.stored(Match.get_by_id(match.id), owner)
    assert (left.lines, left.ply) == ([line[second:]], second)
    played = " ".join(" ".join(params.get("cond", [])) for (seat, _), params in mails().items()
                      if seat == owner)
    assert "more of your stored moves wait" in played
    # The opponent plays on along the line (in Move In Synch, sometimes twice running); the
    # owner's stored answers come at once each time.
    ply = second
    while ply < len(line):
        submit_move(match.id, case.mover, line[ply], ply, START)
        ply = Match.get_by_id(match.id).ply
    assert ply == len(line)
    notes = [m.note for m in Move.select().where(Move.match == match).order_by(Move.ply)]
    assert notes == [None if rules_seat != owner else "conditional"
                     for rules_seat in seats_of(case, line)]
    assert not ConditionalTree.select().exists()


def seats_of(case: Case, line: list[str]) -> list[int]:
    rules = get_rules(case.game)
    state, seats = rules.from_position(case.position), []
    for text in line:
        (seat,) = rules.to_move(state)
        seats.append(seat)
        state = rules.apply_move(state, seat, rules.parse_move(state, seat, text)).state
    return seats


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.game)
def test_a_move_no_branch_expected_clears_the_tree_and_tells_its_owner(db_url, case) -> None:
    match = start_at(case.game, case.position, case.options)
    owner = 1 - case.mover
    conditional.store(match.id, owner, [[case.theirs, quiet_answer(case, [case.theirs])]],
                      START)
    other = other_move(case)
    result = submit_move(match.id, case.mover, other, 0, START)
    assert result.answered_with is None and Match.get_by_id(match.id).ply == 1
    assert not ConditionalTree.select().exists()
    told = " ".join(mails()[(owner, "your_turn")]["cond"])
    assert other in told and "cleared" in told
    assert "cond" not in mails().get((case.mover, "your_turn"), {}), "the mover learns nothing"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.game)
def test_a_conditional_answer_that_wins_ends_the_match(db_url, case) -> None:
    match = start_at(case.game, case.position, case.options)
    owner = 1 - case.mover
    conditional.store(match.id, owner, [[case.theirs, case.winning]], START)
    result = submit_move(match.id, case.mover, case.theirs, 0, START)
    assert result.answered_with == case.winning
    after = Match.get_by_id(match.id)
    assert after.status == MatchStatus.FINISHED and after.result["winners"] == [owner]
    sent = mails()
    for seat in (0, 1):
        assert "conditional move" in " ".join(sent[(seat, "result")]["cond"])
    assert (owner, "conditional_played") not in sent, "the result says it"


@pytest.mark.parametrize("case", CASES, ids=lambda c: c.game)
def test_a_line_that_cannot_arise_is_refused_with_the_reason(db_url, case) -> None:
    match = start_at(case.game, case.position, case.options)
    owner = 1 - case.mover
    with pytest.raises(LineError, match="line 1, move 2"):
        # The same move twice: its piece has gone, its square is taken, or it is no answer.
        conditional.store(match.id, owner, [[case.theirs, case.theirs]], START)
    with pytest.raises(LineError, match="add your answer"):
        conditional.store(match.id, owner, [[case.theirs]], START)
    with pytest.raises(LineError, match="your turn"):
        conditional.store(match.id, case.mover, [[case.theirs, case.winning]], START)
    answer = quiet_answer(case, [case.theirs])
    with pytest.raises(LineError, match="one answer per position"):
        conditional.store(match.id, owner, [[case.theirs, answer],
                                            [case.theirs, case.winning]], START)
    assert not ConditionalTree.select().exists()
    assert Match.get_by_id(match.id).version == match.version, "nothing changed the match"


def test_a_tree_made_on_an_older_position_is_refused(db_url) -> None:
    case = CASES[0]
    match = start_at(case.game, case.position)
    with pytest.raises(ConflictError, match="moved on"):
        conditional.store(match.id, 1, [[case.theirs, case.winning]], START,
                          expected_ply=match.ply - 1)
    with pytest.raises(ConflictError, match="written for move"):  # one it has not reached
        conditional.store(match.id, 1, [[case.theirs, case.winning]], START,
                          expected_ply=match.ply + 1)


def test_a_game_with_hidden_cards_offers_no_conditional_moves(db_url) -> None:
    match = create_match("mimic-taking", [ANN, BEN, "cy@example.org"], {}, SECRET,
                         START).match
    assert not conditional.offered("mimic-taking")
    with pytest.raises(LineError, match="does not offer"):
        conditional.store(match.id, 1, [["O1", "O2"]], START)


def test_clearing_and_replacing_are_whole(db_url) -> None:
    case = CASES[0]
    match = start_at(case.game, case.position)
    conditional.store(match.id, 1, [[case.theirs, case.winning]], START)
    other = other_move(case)
    replaced = conditional.store(match.id, 1, [[other, quiet_answer(case, [other])]], START)
    assert replaced.version == 2 and [line[0] for line in replaced.lines] == [other]
    assert conditional.store(match.id, 1, [], START).lines == []
    assert not ConditionalTree.select().exists()


def test_a_move_made_for_a_late_opponent_is_answered_too(db_url) -> None:
    from pbem.core.matches.computer_turns import StandIn
    from pbem.core.matches.rulings import autoplay

    case = CASES[0]
    rules = get_rules(case.game)
    state = rules.from_position(case.position)
    match = start_at(case.game, case.position)
    # The computer stands in for the late seat; its choice is seeded by the match and ply, so
    # the line can expect it.
    stand_in = rules.format_move(state, StandIn().choose(rules, state, case.mover, match.id,
                                                         match.ply))
    answer = quiet_answer(case, [stand_in])
    conditional.store(match.id, 1, [[stand_in, answer]], START)
    assert autoplay(match.id, case.mover, START, "the clock ran out") == stand_in
    moves = [(m.text, m.note) for m in Move.select().where(Move.match == match)
             .order_by(Move.ply)]
    name = Match.get_by_id(match.id).seat_rows()[case.mover].player.public_name
    assert moves == [(stand_in, f"played by the computer for {name} (the clock ran out)"),
                     (answer, "conditional")]


def test_a_move_an_adjudicator_has_made_for_the_late_seat_is_answered_too(db_url) -> None:
    """Before, an admin's autoplay ruling moved without looking at the other seat's stored
    lines: the tree was left behind, to be cleared unseen at the next move."""
    from pbem.core.matches.computer_turns import StandIn
    from pbem.core.matches.models import Adjudication, AdjudicationStatus
    from pbem.core.matches.rulings import make_ruling

    case = CASES[0]
    rules = get_rules(case.game)
    state = rules.from_position(case.position)
    match = start_at(case.game, case.position)
    stand_in = rules.format_move(state, StandIn().choose(rules, state, case.mover, match.id,
                                                         match.ply))
    answer = quiet_answer(case, [stand_in])
    conditional.store(match.id, 1, [[stand_in, answer]], START)
    Adjudication.create(match=match.id, seat=case.mover, cause="timeout",
                        status=AdjudicationStatus.OPEN, opened_at=START)
    make_ruling(match.id, "autoplay", "no reply for a week", "ref@club.org", START)
    moves = [(m.text, m.note) for m in Move.select().where(Move.match == match)
             .order_by(Move.ply)]
    assert [text for text, _ in moves] == [stand_in, answer]
    assert moves[1][1] == "conditional"
