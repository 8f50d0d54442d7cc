"""The lobby's pages speak German and Japanese: the challenge form, the open seeks, playing the
computer and a running tournament's page show none of their own English labels, buttons or
sentences, and a refused challenge is told in the reader's language."""

from __future__ import annotations

import html
import re
from functools import cache
from pathlib import Path

import pytest
from babel.messages.extract import extract_from_file

from pbem.core.accounts.models import Player
from pbem.core.tournaments import service
from pbem.core.tournaments.models import Tournament
from tests.conftest import ON_SQLITE, START
from tests.support.players import post_form, sign_in

TOP = Path(__file__).resolve().parents[2]
ANN, BEN = "ann@example.org", "ben@example.org"


@cache
def english(*templates: str) -> tuple[str, ...]:
    """The sentences the templates mark that have no placeholder: each must be translated."""
    found = set()
    for name in templates:
        for _line, message, _comments, _context in extract_from_file(
                "jinja2", str(TOP / "templates" / name),
                keywords={"_": None, "ngettext": (1, 2)}, options={"trimmed": "true"}):
            first = message[0] if isinstance(message, tuple) else message
            if first and "%(" not in first and first.strip():
                found.add(first.strip())
    return tuple(sorted(found))


def leftovers(page: str, *templates: str) -> list[str]:
    """The templates' English sentences still shown as a whole text or attribute on `page`."""
    text = html.unescape(page)
    return [sentence for sentence in english(*templates)
            if re.search(rf">\s*{re.escape(sentence)}\s*<", text)
            or re.search(rf'(placeholder|title|aria-label)="{re.escape(sentence)}"', text)]


def speaking(client, code: str) -> None:
    client.set_cookie("pbem_lang", code)


@ON_SQLITE
@pytest.mark.parametrize("code", ["ja", "de"])
def test_the_challenge_form_speaks(client, worker, smtp, code) -> None:
    sign_in(client, ANN, worker, smtp)
    speaking(client, code)
    page = client.get("/challenges/new").get_data(as_text=True)
    assert f'lang="{code}"' in page
    assert leftovers(page, "challenges/new.html") == []
    assert {"ja": "挑戦を送る", "de": "Herausforderung senden"}[code] in page


@ON_SQLITE
@pytest.mark.parametrize("code", ["ja", "de"])
def test_the_seeks_page_speaks(client, worker, smtp, code) -> None:
    sign_in(client, ANN, worker, smtp)
    speaking(client, code)
    posted = post_form(client, "/seeks", game="nim", players="2", clock="3d", rated="on")
    assert posted.status_code == 303
    page = client.get("/seeks").get_data(as_text=True)
    assert leftovers(page, "seeks/index.html") == []
    assert {"ja": "対局募集を出しました", "de": "Gesuch veröffentlicht"}[code] in page  # flash
    assert {"ja": "1 席が埋まっています", "de": "1 von 2 Plätzen besetzt"}[code] in page


@ON_SQLITE
@pytest.mark.parametrize("code", ["ja", "de"])
def test_the_play_the_computer_page_speaks(client, worker, smtp, code) -> None:
    sign_in(client, ANN, worker, smtp)
    speaking(client, code)
    page = client.get("/computer").get_data(as_text=True)
    assert leftovers(page, "computer/new.html", "computer/_form.html") == []
    assert {"ja": "コンピューターと対局", "de": "Gegen den Computer spielen"}[code] in page
    assert {"ja": "1: 初心者", "de": "1: Anfänger"}[code] in page


@ON_SQLITE
@pytest.mark.parametrize("code", ["ja", "de"])
def test_a_running_tournaments_page_speaks(client, worker, smtp, code) -> None:
    sign_in(client, ANN, worker, smtp)
    speaking(client, code)
    made = post_form(client, "/tournaments", "/tournaments/new", name="Spring cup", game="nim",
                     format="round-robin", min_players="2", max_players="4", clock="2d")
    assert made.status_code == 303
    tournament = Tournament.get()
    page_path = f"/tournaments/{tournament.id}"
    assert post_form(client, f"{page_path}/join", page_path).status_code == 303
    service.join(tournament.id, Player.for_email(BEN, START), START)
    assert post_form(client, f"{page_path}/start", page_path).status_code == 303
    page = client.get(page_path).get_data(as_text=True)
    assert leftovers(page, "tournaments/show.html", "tournaments/_words.html") == []
    assert {"ja": "対戦表", "de": "Kreuztabelle"}[code] in page
    assert {"ja": "ラウンド 1", "de": "Runde 1"}[code] in page
    listing = client.get("/tournaments").get_data(as_text=True)
    assert leftovers(listing, "tournaments/index.html", "tournaments/_words.html") == []
    assert {"ja": "総当たり", "de": "Rundenturnier"}[code] in listing


@ON_SQLITE
def test_a_refused_challenge_is_told_in_german(client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    speaking(client, "de")
    refused = post_form(client, "/challenges", "/challenges/new", game="nim", opponents=ANN)
    assert refused.status_code == 400
    page = refused.get_data(as_text=True)
    assert "Du kannst dich nicht selbst herausfordern." in page
    assert "You cannot challenge yourself." not in page
    assert leftovers(page, "challenges/new.html") == []
