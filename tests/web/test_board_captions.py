"""The caption under a board, and the move list beside it, as a player reads them."""

from __future__ import annotations

import re

import pytest

from pbem.core import lifecycle
from pbem.core.matches import create_match
from pbem.core.models import Match
from tests.conftest import START
from tests.support.playing import play_randomly

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"
GAMES = (("mimic", 2), ("eximo", 2), ("frozen-forest", 2), ("move-in-synch", 2),
         ("mimic-taking", 3))


def board_part(page: str) -> str:
    return re.search(r'<div class="board-wrap">(.*?)<details class="text-board"', page,
                     re.S).group(1)


def says_someone_moves(board: str) -> bool:
    # "Black to move.", a table row marked "· to move", Move In Synch's "is to place",
    # "You direct move 3" and the like: any wording that somebody still owes a move.
    return bool(re.search(r"to move|to-move|is to place|choosing|You (direct|decide)|"
                          r"directs and|waiting for|in progress", board))


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
    if game != "mimic-taking":  # the only one without a board picture
        picture = client.get(f"/matches/{match.id}/board.svg").data.decode()
        assert not says_someone_moves(picture), picture[:300]
    # A replay of an earlier position may say who was to move then.
    replay = board_part(client.get(f"/matches/{match.id}?ply={match.ply - 1}").data.decode())
    assert says_someone_moves(replay)


def test_an_aborted_match_says_nobody_is_to_move(settings, client) -> None:
    created = create_match("eximo", [ANN, BEN], {}, settings.secret_key, START, seed=3)
    lifecycle.abort(created.match.id, 0, START)
    assert Match.get_by_id(created.match.id).status == "aborted"
    board = board_part(client.get(f"/matches/{created.match.id}").data.decode())
    assert not says_someone_moves(board) and "Match over." in board
