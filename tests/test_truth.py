"""Pages and mails say the truth (issue 13): headlines that do not repeat themselves,
count-correct wording, no clocks shown for a finished match, hidden moves revealed once a
round's summary shows them, and rules pages that describe the match lifecycle that exists."""

from __future__ import annotations

from pbem.core.mailout.notify import describe_outcome
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import resign
from pbem.core.matches.models import Match, Move, event_parts
from pbem.core.matches.play import submit_move
from pbem.core.records.match_record import moves_for, public_record
from pbem.games import get_rules
from tests.conftest import START
from tests.games.eximo.test_rules import RULES as EXIMO
from tests.games.eximo.test_rules import ZONE_BLACK, board
from tests.games.move_in_synch.test_rules import BLUE, play, pos

ANN, BEN, CY, DI = "ann@example.org", "ben@example.org", "cy@example.org", "di@example.org"


def test_move_in_synch_says_who_won_once(db_url: str) -> None:
    rules = get_rules("move-in-synch")
    state = play(pos("xxxo/xxx./xo../x...", "a1", "d4", pending="opposition"), BLUE, "E")
    outcome = rules.outcome(state)
    match = create_match("move-in-synch", [ANN, BEN], {}, "k", START).match
    said = describe_outcome(rules, state, outcome, match.seat_rows())
    line = f"{said['headline']}: {said['reason']}"
    assert line.count("wins") == 1, line
    assert rules.view(state, 0)["status"].count("wins") == 1


def test_counts_are_written_in_the_singular_for_one() -> None:
    state = board(ZONE_BLACK.replace("c1 ", "") + " d7", "a5")  # one free drop square
    event = EXIMO.apply_move(state, 0, EXIMO.parse_move(state, 0, "d7-d8 drop c1")).events[0]
    assert EXIMO.describe_event(event).endswith("and a new checker was dropped on c1")
    synch = get_rules("move-in-synch")
    outcome = synch.outcome(pos("oooo/oooo/ooo./xxxo", "a1", "d4"))
    assert outcome is not None and outcome.reason == (
        "12 symbols are more than Blue's 3 plus the 1 empty square, so Blue can no longer "
        "catch up")


def test_a_finished_match_shows_no_running_clock(db_url: str, client) -> None:
    match = create_match("nim", [ANN, BEN], {}, "k", START).match
    assert "for the next move" in client.get(f"/matches/{match.id}").data.decode()
    resign(match.id, 0, START)
    page = client.get(f"/matches/{match.id}").data.decode()
    assert "no clock runs" in page and "for the next move" not in page


def test_a_hidden_choice_is_shown_once_the_round_summary_reveals_it(db_url: str) -> None:
    match = create_match("bids", [ANN, BEN, CY, DI], {}, "k", START, seed=5).match
    hands = match.state["hands"]
    for seat in range(3):
        submit_move(match.id, seat, f"play {hands[seat][0]}", None, START)
    match = Match.get_by_id(match.id)
    rules = get_rules("bids")
    listed = moves_for(match, rules, rules.load(match.state), 3, (1, match.ply))["moves"]
    assert [m["text"] for m in listed] == [None, None, None]
    submit_move(match.id, 3, f"play {hands[3][0]}", None, START)  # the round is revealed
    submit_move(match.id, 0, f"play {hands[0][1]}", None, START)  # the next one is not
    match = Match.get_by_id(match.id)
    spectator = public_record(match, START)["moves"]
    assert [m["text"] for m in spectator] == [f"play {hands[s][0]}" for s in range(4)] + [None]


def test_rules_pages_describe_the_match_lifecycle(db_url: str, client) -> None:
    for slug in ("mimic", "mimic-taking", "eximo", "frozen-forest", "move-in-synch"):
        page = " ".join(client.get(f"/games/{slug}").data.decode().split())
        for words in ("Resign.", "Offer a draw", "Abort", "<strong>claim</strong>",
                      "at most 30 days", "After 3 such moves in a row"):
            assert words in page, (slug, words)


def test_frozen_forest_replay_shows_game_one_ending_and_the_roles_of_the_game_shown(
        db_url: str, client) -> None:
    rules = get_rules("frozen-forest")
    match = create_match("frozen-forest", [ANN, BEN], {"forest_size": "8"}, "k", START).match
    ended_at = None
    while ended_at is None:
        match = Match.get_by_id(match.id)
        state = rules.load(match.state)
        (seat,) = rules.to_move(state)
        move = rules.format_move(state, rules.legal_moves(state, seat)[-1])
        submit_move(match.id, seat, move, match.ply, START)
        if Match.get_by_id(match.id).state["game"] == 2:
            ended_at = match.ply + 1
    page = client.get(f"/matches/{match.id}?ply={ended_at}").data.decode()
    assert "Game 1 ended in this position; game 2 starts in a fresh forest" in page
    assert page.count('aria-label="Frozen Forest,') == 2, "game 1's last board, then game 2's"
    assert "Mina: ann" in page and "Yuki: ben" in page, "game 2's roles"
    before = client.get(f"/matches/{match.id}?ply={ended_at - 1}").data.decode()
    assert "Yuki: ann" in before and "Mina: ben" in before, "game 1's roles"
    assert "ended in this position" not in before
    # The move list names the role each seat had when it moved: ann was Yuki in game 1.
    first_move = page.split("<ol", 1)[1].split("</li>", 1)[0]
    assert "Yuki" in first_move and "Mina" not in first_move.split("starts on")[0]
    assert "Game 1 ended in this position:" in rules.render_text(
        rules.view(rules.load(Match.get_by_id(match.id).state), None))


def test_a_finished_frozen_forest_match_names_players_not_roles() -> None:
    rules = get_rules("frozen-forest")
    state = rules.new_game(2, {"forest_size": 8}, 1)
    while rules.to_move(state):
        (seat,) = rules.to_move(state)
        state = rules.apply_move(state, seat, rules.legal_moves(state, seat)[-1]).state
    outcome = rules.outcome(state)
    assert outcome is not None
    winners = sorted(outcome.winners)
    assert [rules.seat_label(state, s) for s in (0, 1)] == ["Player 1", "Player 2"]
    assert all(f"Player {w + 1}" in outcome.reason for w in winners) or len(winners) == 2


def test_mimic_taking_shows_hidden_moves_once_the_round_summary_reveals_them(
        db_url: str) -> None:
    rules = get_rules("mimic-taking")
    match = create_match("mimic-taking", [ANN, BEN, CY], {}, "k", START, seed=7).match
    scored_at = None
    while scored_at is None:
        match = Match.get_by_id(match.id)
        state = rules.load(match.state)
        seat = min(rules.to_move(state))
        move = rules.format_move(state, rules.default_move(state, seat))
        submit_move(match.id, seat, move, None, START)
        last = Move.get(Move.match == match, Move.ply == match.ply + 1)
        if any(event_parts(event)[0] == "round_scored" for event in last.events):
            scored_at = last.ply
    hidden = [m.ply for m in Move.select().where(Move.match == match,
                                                 Move.visible_to.is_null(False))]
    assert hidden, "the round had secret moves"
    shown = public_record(Match.get_by_id(match.id), START)["moves"]
    assert all(m["text"] is not None for m in shown if m["ply"] <= scored_at)
