"""Committed deals on the web: the salt form on a seat's page, `PUT /api/play/<token>/salt`,
the commitment on the pages, and the seed found in no page, API answer, mail or log line of a
played match until it ends (every response crawled after every move)."""

from __future__ import annotations

import logging
import random
from datetime import timedelta

import pytest

from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.games import get_rules
from pbem.games.dealing import commitment, default_salt
from tests.conftest import ON_SQLITE, START
from tests.mail.inbound_support import as_sent

EMAILS = ["ann@example.org", "ben@example.org", "cy@example.org"]
RULES = get_rules("mimic-taking")


def _salted(settings, seats: int = 3):  # type: ignore[no-untyped-def]
    """A new match as anyone creates it: the salted deal is the default."""
    created = create_match("mimic-taking", EMAILS[:seats], {}, settings.secret_key, START)
    return created.match.id, created.tokens


def test_the_salt_form_and_the_api_add_salts_and_the_last_one_deals(settings, client) -> None:
    match_id, (ann, ben, cy) = _salted(settings)
    seed = Match.get_by_id(match_id).deal_seed
    page = client.get(f"/play/{ann}").get_data(as_text=True)
    assert "Fair deal" in page and commitment(seed, match_id) in page
    assert f'action="/play/{ann}/salt"' in page and default_salt(seed, 0) in page
    assert default_salt(seed, 1) not in page, "another seat's offer stays its own"
    assert "Nothing is dealt yet." in page and 'href="#deal"' in page, "the board says why"
    assert "A salt is any text you like" in page and "Take the given salt" in page
    posted = client.post(f"/play/{ann}/salt", data={"salt": "Ann's lucky day", "ply": "0"})
    assert posted.status_code == 303
    shown = client.get(f"/matches/{match_id}").get_data(as_text=True)
    assert "Ann&#39;s lucky day" in shown and "not added yet" in shown
    too_long = client.put(f"/api/play/{ben}/salt", json={"salt": "x" * 65})
    assert too_long.status_code == 422
    assert too_long.headers["Content-Type"] == "application/problem+json"
    assert client.put(f"/api/play/{ben}/salt", data="salt").status_code == 400
    assert client.put(f"/api/play/{ben}/salt", json={"salt": 5}).status_code == 400
    answer = client.put(f"/api/play/{ben}/salt", json={"salt": "", "ply": 1})
    assert answer.status_code == 200, answer.get_json()
    assert answer.get_json()["deal"]["deal_salts"] == ["Ann's lucky day",
                                                       default_salt(seed, 1), None]
    # Not this seat's turn any more: the door refuses it before the rules see it.
    assert client.put(f"/api/play/{ben}/salt", json={"salt": "again"}).status_code == 409
    last = client.put(f"/api/play/{cy}/salt", json={"salt": "cy"}).get_json()
    assert len(last["view"]["hand"]) == 12 and last["view"]["phase"] == "play"
    leader = (ann, ben, cy)[last["view"]["leader"]]
    late = client.post(f"/play/{leader}/salt", data={"salt": "late", "ply": str(last["ply"])})
    assert late.status_code == 422
    assert "only be added before the first deal" in late.get_data(as_text=True)
    assert 'action="/play/' + ann + '/salt"' not in client.get(f"/play/{ann}").get_data(
        as_text=True)


def test_the_given_salt_is_taken_with_one_button(settings, client) -> None:
    match_id, (ann, _ben, _cy) = _salted(settings)
    seed = Match.get_by_id(match_id).deal_seed
    # The page's second form sends no salt: the seat takes the one it was given.
    taken = client.post(f"/play/{ann}/salt", data={"ply": "0"})
    assert taken.status_code == 303
    page = client.get(f"/play/{ann}").get_data(as_text=True)
    assert "Take the given salt" not in page and default_salt(seed, 0) in page
    assert RULES.load(Match.get_by_id(match_id).state).salts == (default_salt(seed, 0), None,
                                                                  None)


# What a page, an answer, a mail or a log line says does not depend on the database under it.
@ON_SQLITE
@pytest.mark.parametrize("salted", [False, True])  # True: the default
def test_the_seed_shows_nowhere_until_the_match_ends(settings, client, caplog,
                                                     salted: bool) -> None:
    caplog.set_level(logging.INFO)  # what pbem logs (`pbem` sets INFO; SQL is at DEBUG)
    created = create_match("mimic-taking", EMAILS, {"salted": salted}, settings.secret_key,
                           START)
    match_id, tokens = created.match.id, created.tokens
    seed = Match.get_by_id(match_id).deal_seed
    chooser = random.Random(3)
    addresses = [f"/play/{t}" for t in tokens] + [f"/api/play/{t}" for t in tokens] + [
        f"/matches/{match_id}", f"/api/matches/{match_id}", f"/matches/{match_id}/record.json",
        f"/matches/{match_id}/record.txt", "/matches", "/api/matches"]
    crawled = 0
    while (match := Match.get_by_id(match_id)).is_live:
        for address in addresses:
            response = client.get(address)
            assert response.status_code == 200, address
            assert seed not in response.get_data(as_text=True), address
            crawled += 1
        state = RULES.load(match.state)
        seat = min(RULES.to_move(state))
        move = RULES.format_move(state, chooser.choice(list(RULES.legal_moves(state, seat))))
        played = client.post(f"/api/play/{tokens[seat]}", json={"move": move, "ply": match.ply})
        assert played.status_code == 200, played.get_json()
        if played.get_json()["status"] == "active":  # the answer to the last move is after it
            assert seed not in played.get_data(as_text=True)
    assert crawled > 1000
    assert seed not in caplog.text
    mails = list(OutboxMessage.select().order_by(OutboxMessage.id))
    assert len(mails) > 50
    final = max(mail.ply or 0 for mail in mails)
    promise = commitment(seed, match_id)
    for mail in mails:
        sent = as_sent(settings, mail)
        text = sent.as_string() + "".join(part.get_content() for part in sent.walk()
                                          if part.get_content_maintype() == "text")
        if (mail.ply or 0) < final:
            assert seed not in text, (mail.template, mail.ply)
        if mail.template == "welcome" or (mail.template == "your_turn" and mail.ply == 0):
            assert promise in text, "every seat's first mails carry the commitment"
    assert seed in client.get(f"/matches/{match_id}/record.json").get_data(as_text=True)
    assert seed in client.get(f"/matches/{match_id}").get_data(as_text=True)


def test_a_salting_seat_is_offered_its_salt_once_and_an_admin_page_links_no_missing_section(
        settings, client) -> None:
    """While a seat owes its salt, the Fair deal section is where it adds it: the page shows
    no move form or click panel offering "salt" again. The admin's entry page draws the board
    but has no Fair deal section, so the board's link to it is left out there."""
    from pbem.core.matches.models import Adjudication
    from pbem.core.matches.sweep import sweep
    from tests.web.admin.test_queue import log_in

    created = create_match("mimic-taking", EMAILS[:3], {}, settings.secret_key, START,
                           time_control="45s")
    page = client.get(f"/play/{created.tokens[0]}").get_data(as_text=True)
    assert f'action="/play/{created.tokens[0]}/salt"' in page
    assert 'id="move-form"' not in page and 'id="pbem-clicks"' not in page
    assert 'href="#deal"' in page and 'id="deal"' in page
    # The seat's first mail bounced and its salt is late: held for an admin to look at.
    OutboxMessage.update(status="failed").where(OutboxMessage.match == created.match.id,
                                                 OutboxMessage.seat == 0).execute()
    sweep(START + timedelta(minutes=1), timedelta(hours=1))
    log_in(client)
    entry = client.get(f"/admin/adjudications/{Adjudication.get().id}").get_data(as_text=True)
    assert "Nothing is dealt yet." in entry
    assert 'href="#deal"' not in entry and 'id="deal"' not in entry
