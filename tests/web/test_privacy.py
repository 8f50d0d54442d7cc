"""Addresses stay private: every page and API answer a seat or a spectator can reach names
other players by display name only. A seat sees its own address, never another's."""

from __future__ import annotations

import re

import pytest

from pbem.core.matches.creation import create_match
from pbem.games import GAMES
from tests.conftest import START

EMAILS = ["ann@example.org", "ben@example.org", "cat@example.org", "dan@example.org"]
ADDRESS = re.compile(r"[\w.+-]+@example\.org")


@pytest.mark.parametrize("game", GAMES, ids=lambda g: g.slug)
def test_no_seat_or_spectator_sees_another_players_address(settings, client, game) -> None:
    players = EMAILS[:min(game.player_counts)]
    created = create_match(game.slug, players, {}, settings.secret_key, START)
    match_id = created.match.id
    spectator = [f"/matches/{match_id}", f"/api/matches/{match_id}",
                 f"/matches/{match_id}/record.json", f"/matches/{match_id}/record.txt",
                 f"/matches/{match_id}/board.svg", "/matches", "/api/matches",
                 f"/matches/{match_id}/ply"] + [f"/players/{p.split('@')[0]}" for p in players]
    for path in spectator:
        seen = set(ADDRESS.findall(client.get(path).get_data(as_text=True)))
        assert seen == set(), (path, seen)
    for number, token in enumerate(created.tokens):
        for path in (f"/play/{token}", f"/api/play/{token}"):
            seen = set(ADDRESS.findall(client.get(path).get_data(as_text=True)))
            assert seen <= {players[number]}, (path, seen)
