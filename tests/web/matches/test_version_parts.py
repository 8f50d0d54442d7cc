"""The play page keeps its version-bound parts (the move form, the replay buttons and board as
text, the move list) per match version, seat, address and language: whatever a read kept, the
next page shows what a fresh render would."""

from __future__ import annotations

import re

import pytest

from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import draw_yes
from pbem.core.matches.play import submit_move
from pbem.web.matches import seat as seat_view
from tests.conftest import START

PAIR = ["ann@example.org", "ben@example.org"]


@pytest.fixture
def nim(settings):
    return create_match("nim", PAIR, {"pile": "30"}, settings.secret_key, START)


def _form(html: bytes) -> bytes | None:
    found = re.search(rb'<form class="move-form" id="move-form".*?</form>', html, re.S)
    return found.group(0) if found else None


def _fresh(client, path: str, **kwargs) -> bytes:
    """The page as rendered with nothing kept."""
    seat_view._PARTS.clear()
    return client.get(path, **kwargs).data


def test_a_page_read_again_is_the_page_rendered_afresh(client, nim) -> None:
    token = nim.tokens[0]
    first = client.get(f"/play/{token}").data
    assert client.get(f"/play/{token}").data == first == _fresh(client, f"/play/{token}")
    assert b'name="ply" value="0"' in _form(first)


def test_a_move_brings_the_next_versions_parts(client, nim) -> None:
    mover, waiter = nim.tokens
    assert _form(client.get(f"/play/{mover}").data) is not None
    assert _form(client.get(f"/play/{waiter}").data) is None  # the other seat's parts
    submit_move(nim.match.id, 0, "take 2", 0, START)
    after = client.get(f"/play/{mover}").data
    assert _form(after) is None
    assert b'<li value="1"' in after and b"after move 1 of 1" in after
    assert b'name="ply" value="1"' in _form(client.get(f"/play/{waiter}").data)
    # A draw offer is a change of version too: the form's offer box goes with it.
    assert b'name="offer_draw"' in _form(client.get(f"/play/{waiter}").data)
    draw_yes(nim.match.id, 1, START)
    offered = client.get(f"/play/{waiter}").data
    assert _form(offered) is not None and b'name="offer_draw"' not in _form(offered)
    assert offered == _fresh(client, f"/play/{waiter}")


def test_each_language_gets_its_own_parts(client, nim) -> None:
    token = nim.tokens[0]
    english = client.get(f"/play/{token}").data
    german = client.get(f"/play/{token}", headers={"Accept-Language": "de"}).data
    assert b"Make move" in _form(english) and b"Make move" not in _form(german)
    assert german == _fresh(client, f"/play/{token}", headers={"Accept-Language": "de"})


def test_a_refused_move_keeps_its_text_only_on_its_own_answer(client, nim) -> None:
    token = nim.tokens[0]
    client.get(f"/play/{token}")  # the plain page's parts are kept
    refused = client.post(f"/play/{token}", data={"move_text": "take 99", "ply": "0"})
    assert refused.status_code == 422 and b'value="take 99"' in _form(refused.data)
    assert b'value="take 99"' not in _form(client.get(f"/play/{token}").data)


def test_a_look_back_or_another_page_of_moves_is_rendered_for_itself(client, nim) -> None:
    token = nim.tokens[0]
    for ply in range(4):
        submit_move(nim.match.id, ply % 2, "take 1", ply, START)
    client.get(f"/play/{token}")
    back = client.get(f"/play/{token}?ply=2").data
    assert b"after move 2 of 4" in back and _form(back) is None
    assert b"after move 4 of 4" in client.get(f"/play/{token}").data


def test_a_refused_forms_page_keeps_nothing_and_pages_the_moves_from_the_seat(client, nim
                                                                             ) -> None:
    token = nim.tokens[0]
    for ply in range(12):  # more than a seat's page lists: the move list has pages
        submit_move(nim.match.id, ply % 2, "take 1", ply, START)
    refused = client.post(f"/play/{token}/vacation", data={"first_day": "x", "last_day": "y"})
    assert refused.status_code == 400
    assert f'href="/play/{token}?moves=2"'.encode() in refused.data
    after = client.get(f"/play/{token}").data
    assert after == _fresh(client, f"/play/{token}")
    assert f'href="/play/{token}?moves=2"'.encode() in after
