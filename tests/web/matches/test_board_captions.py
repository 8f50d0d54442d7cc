"""The caption under a board, and the move list beside it, as a player reads them."""

from __future__ import annotations

import re

import pytest

from pbem.core.matches import lifecycle
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.games import describe
from pbem.templating import move_rows
from tests.conftest import ON_SQLITE, START
from tests.support.playing import play_randomly

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"
GAMES = (("mimic", 2), ("eximo", 2), ("frozen-forest", 2), ("move-in-synch", 2),
         ("mimic-taking", 3))


def board_part(page: str) -> str:
    return re.search(r'<div class="board-wrap"[^>]*>(.*?)<details class="text-board"', page,
                     re.S).group(1)


def says_someone_moves(board: str) -> bool:
    # "Black to move.", a table row marked "· to move", Move In Synch's "is to place",
    # "You direct move 3" and the like: any wording that somebody still owes a move.
    return bool(re.search(r"to move|to-move|is to place|choosing|You (direct|decide)|"
                          r"directs and|waiting for|in progress", board))


@ON_SQLITE
@pytest.mark.parametrize(("game", "seats"), GAMES)
def test_a_match_resigned_off_the_board_says_nobody_is_to_move(
        settings, client, game: str, seats: int) -> None:
    created = create_match(game, [ANN, BEN, CY][:seats], {}, settings.secret_key, START, seed=3)
    match = play_randomly(created.match.id, 3, START, max_plies=4)
    assert match.is_live and match.ply >= 1
    before = board_part(client.get(f"/matches/{match.id}").data.decode())
    assert says_someone_moves(before), "the check must see the live wording"

    lifecycle.resign(match.id, 0, START)
    assert Match.get_by_id(match.id).status == "finished"
    for page in (f"/matches/{match.id}", f"/play/{created.tokens[1]}",
                 f"/matches/{match.id}?ply={match.ply}", f"/play/{created.tokens[1]}?ply="
                 f"{match.ply}"):
        board = board_part(client.get(page).data.decode())
        assert not says_someone_moves(board), (page, board)
        assert "Match over." in board, (page, board)
    if describe(game).board_picture:
        picture = client.get(f"/matches/{match.id}/board.svg").data.decode()
        assert not says_someone_moves(picture), picture[:300]
    # A replay of an earlier position may say who was to move then.
    replay = board_part(client.get(f"/matches/{match.id}?ply={match.ply - 1}").data.decode())
    assert says_someone_moves(replay)


@ON_SQLITE
def test_an_aborted_match_says_nobody_is_to_move(settings, client) -> None:
    created = create_match("eximo", [ANN, BEN], {}, settings.secret_key, START, seed=3)
    lifecycle.abort(created.match.id, 0, START)
    assert Match.get_by_id(created.match.id).status == "aborted"
    board = board_part(client.get(f"/matches/{created.match.id}").data.decode())
    assert not says_someone_moves(board) and "Match over." in board


def row(by: str, text: str | None, *events: str) -> dict:
    return {"ply": 1, "seat": 0, "by": by, "text": text, "events": list(events),
            "at": "2026-11-22T20:01:00Z", "autoplayed": None}


@pytest.mark.parametrize(("move", "shown"), [
    (row("Black", "c2-c4", "Black c2-c4"), "Black c2-c4"),
    (row("White", "c6xe4xg4", "White c6xe4xg4, capturing d5 and f4"),
     "White c6xe4xg4 capturing d5 and f4"),
    (row("White", "c7-c8 drop b1", "White c7-c8; the checker reached c8 and left the board"),
     "White c7-c8 drop b1 the checker reached c8 and left the board"),
    (row("Blue", "e2-e3", "Blue e2-e3", "Red e9-e8 mimicked"), "Blue e2-e3 Red e9-e8 mimicked"),
    (row("Yuki", "e1-e2", "Yuki e1-e2, eating a tree (3 eaten)"),
     "Yuki e1-e2 eating a tree (3 eaten)"),
    (row("Player 1", "O7", "Player 1 played O7"), "Player 1 O7"),
    (row("Blue", "north", "Blue announces north"), "Blue north Blue announces north"),
    (row("Player 2", None, "Player 2 played a card"),
     "Player 2 (hidden until revealed) Player 2 played a card"),
])
def test_a_listed_move_reads_once(move: dict, shown: str) -> None:
    html = str(move_rows([move], "/matches/1", None))
    words = re.sub(r"<time.*?</time>", "", html)
    assert " ".join(re.sub(r"<[^>]+>", " ", words).split()) == shown


@ON_SQLITE
def test_a_move_link_underlines_no_space_at_its_ends(settings, client) -> None:
    created = create_match("eximo", [ANN, BEN], {}, settings.secret_key, START, seed=3)
    play_randomly(created.match.id, 3, START, max_plies=2)
    page = client.get(f"/matches/{created.match.id}").data.decode()
    links = re.findall(r'<a href="/matches/\d+\?ply=\d+">(.*?)</a>', page, re.S)
    assert links and all(re.fullmatch(r'<span class="by">\w+</span> <code>[^<]+</code>', link)
                         for link in links), links
    assert '<span class="events">Black ' not in page, "the move is not said twice"
