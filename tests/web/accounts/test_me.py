"""The player's home and settings: every match with its link (their turn first), display
name and time zone, personal API tokens, and getting a lost link back from /me."""

from __future__ import annotations

import re

import pytest

from pbem.core.accounts import sessions
from pbem.core.accounts.models import ApiToken, Player, SessionKind
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Seat
from pbem.core.matches.play import submit_move
from tests.core.db.test_pipeline import POSTGRES_ONLY, waits
from tests.support.players import csrf_from, last_mail, link_in, post_form, sign_in
from tests.support.statements import statements

ANN, BEN, CY = "ann@example.org", "ben@example.org", "cy@example.org"


def test_home_lists_every_match_your_turn_first_with_links(client, worker, smtp, settings,
                                                           clock) -> None:
    waiting = create_match("nim", [BEN, ANN], {}, settings.secret_key, clock.now).match
    mine = create_match("nim", [ANN, CY], {}, settings.secret_key, clock.now,
                        time_control="2d").match
    over = create_match("nim", [ANN, BEN], {"pile": 1}, settings.secret_key, clock.now).match
    submit_move(over.id, 0, "take 1", 0, clock.now)
    sign_in(client, ANN, worker, smtp)  # signing in shows every link again
    html = client.get("/me").data.decode()
    order = [int(n) for n in re.findall(r"Nim \(test game\) #(\d+)", html)]
    assert order == [mine.id, waiting.id, over.id]
    assert "Your turn</strong>, 2 days left" in html and "waiting for ben" in html
    assert "You won: First took the last counter" in html
    links = re.findall(r'href="(/play/[\w-]+)"', html)
    assert len(links) == 3
    for link in links:
        assert client.get(link).status_code == 200
    assert BEN not in html and CY not in html  # opponents by name, never address


def test_home_reads_as_many_statements_for_many_matches_as_for_one(client, worker, smtp,
                                                                   settings, clock) -> None:
    """Each match's opponents come from one read of every table the player sits at, not a
    read per match (a player with fifty matches made fifty round trips)."""
    create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now)
    sign_in(client, ANN, worker, smtp)
    client.get("/me")  # the statements are compiled on the first visit

    def statements_of_a_visit() -> list[str]:
        with statements() as seen:
            assert client.get("/me").status_code == 200
        return seen

    one = statements_of_a_visit()
    for opponent in (BEN, CY, "dee@example.org"):
        create_match("nim", [opponent, ANN], {}, settings.secret_key, clock.now)
    four = statements_of_a_visit()
    assert len(four) == len(one)
    assert "dee" in client.get("/me").data.decode()


def test_settings_name_and_time_zone(app, client, worker, smtp, settings, clock) -> None:
    token = create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now).tokens[1]
    sign_in(client, ANN, worker, smtp)
    saved = post_form(client, "/me/settings", name="  Queen   Ann ", timezone="Europe/Paris")
    assert saved.status_code == 303
    ann = Player.get(Player.email == ANN)
    assert ann.name == "Queen Ann" and ann.timezone == "Europe/Paris"
    assert b"Queen Ann" in app.test_client().get(f"/play/{token}").data  # Ben sees the name
    assert b"(Europe/Paris)" in client.get("/me").data
    ben = app.test_client()
    sign_in(ben, BEN, worker, smtp)
    for name, zone, words, status in (("queen ann", "", b"is taken", 400),
                                      ("x", "", b"2 to 40", 400), ("b@d", "", b"no @", 400),
                                      # a zone name that names no zone: unprocessable
                                      ("Ben", "Mars/Olympus", b"time zone", 422)):
        refused = post_form(ben, "/me/settings", name=name, timezone=zone)
        assert refused.status_code == status and words in refused.data
    assert Player.get(Player.email == BEN).name is None


def app_client(client):
    """A second client of the same app, with no cookies."""
    return client.application.test_client()


def test_api_tokens_are_made_shown_once_and_revoked(client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    page = post_form(client, "/me/tokens", page="/me/settings", name="my bot", scope="read")
    assert page.status_code == 201
    token = re.search(rb'<code class="token">(pbem_[\w-]+)</code>', page.data).group(1).decode()
    assert ApiToken.get().token_hash != token
    bearer = {"Authorization": f"Bearer {token}"}
    assert client.get("/api/me", headers=bearer).get_json()["email"] == ANN
    assert token.encode() not in client.get("/me/settings").data
    assert b"my bot" in client.get("/me/settings").data
    client.get("/api/me", headers=bearer)
    # Every time on the page says its zone (sessions signed in and seen, the token's use).
    times = re.findall(r"<td>(\d\d \w{3} \d{4} \d\d:\d\d[^<]*)</td>",
                       client.get("/me/settings").data.decode())
    assert len(times) == 3 and all(t.endswith(" UTC") for t in times), times
    assert post_form(client, "/me/tokens", page="/me/settings", name=" ").status_code == 400
    revoked = post_form(client, f"/me/tokens/{ApiToken.get().id}/revoke", page="/me/settings")
    assert revoked.status_code == 303
    refused = client.get("/api/me", headers=bearer)
    assert refused.status_code == 401
    # A token that was sent is said to be invalid, not missing; none sent asks for one.
    assert "not valid: it was revoked or mistyped" in refused.get_json()["detail"]
    assert "Send a personal API token" in app_client(client).get("/api/me").get_json()["detail"]


def test_a_player_replaces_a_lost_link_from_home(app, client, worker, smtp, settings,
                                                 clock) -> None:
    created = create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now)
    old = created.tokens[0]
    sign_in(client, ANN, worker, smtp)
    match_id = created.match.id
    # Not Ben's seat: refused, nothing changes.
    assert post_form(client, f"/me/seats/{match_id}/1/reissue", page="/me").status_code == 404
    assert Seat.get(Seat.seat == 1).token_generation == 1
    # The button asks first: the old link still works until the player says yes.
    asked = post_form(client, f"/me/seats/{match_id}/0/reissue", page="/me")
    assert asked.status_code == 200 and b"Replace your link?" in asked.data
    assert client.get(f"/play/{old}").status_code == 200
    done = post_form(client, f"/me/seats/{match_id}/0/reissue", page="/me", confirm="yes")
    assert done.status_code == 303
    assert client.get(f"/play/{old}").status_code == 404
    worker.run_once()
    new = link_in(last_mail(smtp, ANN, "your new link"), "/play/")
    assert app.test_client().get(new).status_code == 200
    assert new in client.get("/me").data.decode()
    page = app.test_client().get(new)
    assert page.status_code == 200 and csrf_from(client.get("/me").data)


def test_mail_preferences_and_the_calendar_are_reached_from_home(client, worker, smtp,
                                                                 settings) -> None:
    sign_in(client, ANN, worker, smtp)
    for page in ("/me", "/me/settings"):
        text = client.get(page).get_data(as_text=True)
        link = re.search(r'href="(/mail/preferences/[^"]+)"', text)
        assert link, page
        shown = client.get(link.group(1)).get_data(as_text=True)
        assert "calendar" in shown.lower() and "digest" in shown.lower()


def test_a_refused_time_zone_is_shown_again_as_typed(client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    refused = post_form(client, "/me/settings", name="Annie", timezone="Europe/Pariss")
    assert refused.status_code == 422
    text = refused.get_data(as_text=True)
    assert 'value="Europe/Pariss"' in text and 'value="Annie"' in text


@pytest.mark.parametrize("db_url", POSTGRES_ONLY, indirect=True)
def test_home_waits_for_postgresql_once_for_its_reads(client, settings, clock) -> None:
    """The player's session (with the player), then the page's nine reads that need only the
    player (seats with matches, tables, challenges received and sent, seeks, tournaments,
    the feed links' generation, the push choices and whether a browser takes pushes), sent
    ahead together: two round trips, where each read waited for its own."""
    create_match("nim", [ANN, BEN], {}, settings.secret_key, clock.now)
    ann = Player.get(Player.email == ANN)
    client.set_cookie("pbem_player", sessions.start(
        settings.secret_key, SessionKind.PLAYER, clock.now,
        sessions.SessionPolicy.from_days(14, 90), player=ann))
    assert client.get("/me").status_code == 200  # the first visit notes the session's use
    with waits() as seen:
        page = client.get("/me")
    assert seen == ["SELECT", "+".join(["SELECT"] * 9)], seen
    assert page.status_code == 200 and "Nim (test game)" in page.data.decode()
