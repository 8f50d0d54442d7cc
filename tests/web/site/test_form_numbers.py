"""Every number read from a form, a JSON body or a mail header is parsed by `int()` in a `try`
(or refused as not ASCII digits first): `str.isdigit` accepts "²" and "³", which `int` then
refuses, and that ValueError was a 500. Each place answers a clear 400 and makes nothing."""

from __future__ import annotations

import pytest

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import Player
from pbem.core.computer.tables import check_computers, whole
from pbem.core.lobby.models import Seek
from pbem.core.mailout.notify import outbox_id
from pbem.core.matches.models import Match
from pbem.core.tournaments import running, service
from pbem.core.tournaments.models import TournamentEntry
from pbem.core.tournaments.service import Organising
from pbem.errors import InvalidRequestError
from tests.conftest import START
from tests.support.players import csrf_from, post_form, sign_in

ANN = "ann@example.org"
SUPERSCRIPTS = ["²", "1²", "³"]


@pytest.mark.parametrize("field", ["players", "rating_min", "rating_max"])
@pytest.mark.parametrize("number", SUPERSCRIPTS)
def test_a_seek_with_a_superscript_number_is_refused(client, worker, smtp, field,
                                                     number) -> None:
    sign_in(client, ANN, worker, smtp)
    form = {"game": "nim", "players": "2", "clock": "1d", field: number}
    refused = post_form(client, "/seeks", page="/seeks", **form)
    assert refused.status_code == 400, refused.data[:300]
    assert b"whole number" in refused.data
    assert Seek.select().count() == 0


@pytest.mark.parametrize("field", ["level", "seat", "players"])
@pytest.mark.parametrize("number", SUPERSCRIPTS)
def test_the_computer_form_with_a_superscript_number_is_refused(client, worker, smtp, field,
                                                                number) -> None:
    sign_in(client, ANN, worker, smtp)
    page = client.get("/computer?game=mimic")
    form = {"csrf_token": csrf_from(page.data), "game": "mimic", "level": "2", "seat": "0",
            field: number}
    refused = client.post("/computer", data=form)
    assert refused.status_code in (400, 422), refused.data[:300]
    assert Match.select().count() == 0


@pytest.mark.parametrize("body", [{"level": "²"}, {"level": 2, "seat": "²"},
                                  {"level": 2, "players": "²"}])
def test_the_computer_api_with_a_superscript_number_is_refused(client, settings, body) -> None:
    _, token = api_tokens.create(settings.secret_key, Player.for_email(ANN, START), "tests",
                                 START, scopes=("read", "play"))
    reply = client.post("/api/challenges/computer", json={"game": "mimic", **body},
                        headers={"Authorization": f"Bearer {token}"})
    assert reply.status_code in (400, 422)
    assert reply.mimetype == "application/problem+json"
    assert Match.select().count() == 0


@pytest.mark.parametrize("given", ["²", ["²"], [2, "³"]])
def test_computer_seats_with_a_superscript_level_are_refused(given) -> None:
    with pytest.raises(InvalidRequestError, match="whole number"):
        check_computers(given)


def test_whole_reads_what_int_reads_and_nothing_else() -> None:
    assert [whole(v) for v in ("3", " 4 ", 5, "²", "-1", "", "x", True, 2.0)] == [
        3, 4, 5, None, None, None, None, None, None]


@pytest.mark.parametrize("action", ["remove", "adjudicate"])
def test_an_organisers_tool_with_a_superscript_number_says_so(client, worker, smtp, settings,
                                                              action) -> None:
    sign_in(client, ANN, worker, smtp)
    ann = Player.get(Player.email == ANN)
    others = [Player.for_email(f"p{n}@example.org", START) for n in range(3)]
    tournament = service.create_tournament(ann, {"name": "Club", "game": "nim",
                                                 "format": "swiss", "rounds": 2}, START)
    for player in [*others, ann]:
        service.join(tournament.id, player, START)
    running.start(tournament.id, Organising(ann), settings.secret_key, START)
    page = f"/tournaments/{tournament.id}"
    form = ({"player": "²"} if action == "remove" else {"match": "²", "winner": "draw"})
    answer = post_form(client, f"{page}/manage/{action}", page, reason="typo", **form)
    assert answer.status_code == 303
    assert "Choose from the list" in client.get(page).get_data(as_text=True)
    assert TournamentEntry.select().where(TournamentEntry.status == "removed").count() == 0
    assert all(match.outcome is None for match in Match.select())


@pytest.mark.parametrize("key", ["pbem.k.m1.s0.o²@example.org", "pbem.k.m1.s0.d³@x",
                                 "pbem.k.m1.s0.o" + "9" * 40 + "@x"])
def test_a_reply_naming_a_superscript_outbox_row_names_none(key) -> None:
    assert outbox_id(key) is None
    assert outbox_id("pbem.k.m1.s0.o12@example.org") == 12
