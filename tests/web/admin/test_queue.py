"""Admin pages through the Flask client: login, CSRF, the queue, and a ruling end to end."""

from __future__ import annotations

import re
from datetime import timedelta

from pbem.core.accounts.admins import create_admin
from pbem.core.accounts.models import Player
from pbem.core.admin.audit import AuditFilter, search
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Adjudication, Match
from tests.conftest import START, SUPPORT_TEMPLATES, make_settings

PASSWORD = "correct horse battery"


def csrf_from(html: bytes) -> str:
    return re.search(rb'name="csrf_token" value="([^"]+)"', html).group(1).decode()


def log_in(client) -> None:
    create_admin("ref@club.org", PASSWORD, START)
    token = csrf_from(client.get("/admin/login").data)
    reply = client.post("/admin/login", data={"email": "ref@club.org", "password": PASSWORD,
                                               "csrf_token": token})
    assert reply.status_code == 303


def test_the_queue_needs_a_login_and_a_wrong_password_is_refused(client) -> None:
    assert client.get("/admin").headers["Location"].startswith("/admin/login")
    create_admin("ref@club.org", PASSWORD, START)
    token = csrf_from(client.get("/admin/login").data)
    wrong = client.post("/admin/login", data={"email": "ref@club.org", "password": "nope",
                                               "csrf_token": token})
    assert wrong.status_code == 401 and b"Wrong email or password" in wrong.data
    unknown = client.post("/admin/login", data={"email": "who@x.org", "password": PASSWORD,
                                                 "csrf_token": token})
    assert unknown.status_code == 401
    assert client.get("/admin").status_code == 302


def test_forms_without_the_csrf_token_are_refused(client) -> None:
    create_admin("ref@club.org", PASSWORD, START)
    reply = client.post("/admin/login", data={"email": "ref@club.org", "password": PASSWORD})
    assert reply.status_code == 400 and b"did not come from this site" in reply.data
    log_in(client)
    assert client.post("/admin/adjudications/1", data={"ruling": "award"}).status_code == 400


def test_the_session_cookie_is_httponly_samesite_and_secure(client) -> None:
    log_in(client)
    cookie = client.get_cookie("pbem_admin")
    assert cookie.http_only and cookie.same_site == "Lax" and cookie.secure


def test_a_45_second_match_times_out_into_the_queue_and_is_ruled_from_admin(
        settings, client, worker, clock, smtp) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                         settings.secret_key, clock.now, time_control="45s").match
    worker.run_once()
    turn = smtp.to("ann@example.org")[-1].get_body(("plain",)).get_content()
    assert "Deadline:" in turn and "45 seconds left" in turn
    clock.advance(seconds=50)  # Ann never moves
    worker.run_once()
    entry = Adjudication.get()
    assert entry.cause == "timeout"
    assert any("An admin will rule" in m.get_body(("plain",)).get_content()
               for m in smtp.to("ben@example.org"))

    log_in(client)
    queue = client.get("/admin")
    assert f"/admin/adjudications/{entry.id}".encode() in queue.data
    page = client.get(f"/admin/adjudications/{entry.id}")
    assert b"clock ran out" in page.data and b"your turn" in page.data and b"sent" in page.data
    token = csrf_from(page.data)
    no_reason = client.post(f"/admin/adjudications/{entry.id}",
                            data={"ruling": "award", "reason": "", "csrf_token": token})
    assert no_reason.status_code == 303 and Match.get_by_id(match.id).status == "active"
    ruled = client.post(f"/admin/adjudications/{entry.id}", data={
        "ruling": "award", "reason": "Ann did not move in time", "csrf_token": token})
    assert ruled.status_code == 303
    assert Match.get_by_id(match.id).result["winners"] == [1]
    assert [r.actor for r in search(AuditFilter(action="ruling"))] == ["ref@club.org"]
    public = client.get(f"/matches/{match.id}").data
    assert b"Rulings" in public and b"Ann did not move in time" in public
    worker.run_once()
    result = smtp.to("ann@example.org")[-1].get_body(("plain",)).get_content()
    assert "Awarded by the adjudicator: Ann did not move in time" in result
    assert OutboxMessage.select().where(OutboxMessage.status != "sent").count() == 0


def test_outside_testing_the_cookie_is_not_secure_in_development(db_url, tmp_path) -> None:
    from pbem.web import create_app

    dev = create_app(make_settings(db_url, tmp_path, development=True),
                     extra_template_dirs=(SUPPORT_TEMPLATES,))
    assert dev.config["SESSION_COOKIE_SECURE"] is False


def test_the_play_page_shows_the_deadline_and_takes_a_vacation(settings, client, clock) -> None:
    token = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                         settings.secret_key, clock.now, time_control="3d").tokens[0]
    page = client.get(f"/play/{token}").data
    assert b"Deadline:" in page and b"3 days left" in page and b"14 left" in page
    api = client.get(f"/api/play/{token}").get_json()
    assert api["deadline"]["left"] == "3 days left" and api["deadline"]["at"].endswith("Z")
    first = (clock.now + timedelta(days=1)).date().isoformat()
    reply = client.post(f"/play/{token}/vacation", data={"first_day": first, "last_day": first})
    assert reply.status_code == 303
    assert b"13 left" in client.get(f"/play/{token}").data
    bad = client.post(f"/play/{token}/vacation", data={"first_day": "soon", "last_day": first})
    assert bad.status_code == 400 and b"must be a date" in bad.data
    # The time zone is set on the settings page now; the play page shows it and links there.
    page = client.get(f"/play/{token}").data
    assert b"Deadlines are shown in UTC" in page and b'href="/me/settings"' in page
    Player.update(timezone="Europe/Paris").where(Player.email == "ann@example.org").execute()
    page = client.get(f"/play/{token}").data
    assert b"(Europe/Paris)" in page and b"shown in Europe/Paris and UTC" in page
    assert client.post(f"/play/{token}/timezone", data={"timezone": "UTC"}).status_code == 404


def test_an_admin_hands_the_late_seat_to_the_computer_and_everyone_is_told(
        settings, client, worker, clock, smtp) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                         settings.secret_key, clock.now, time_control="45s").match
    worker.run_once()
    clock.advance(seconds=50)  # Ann never moves
    worker.run_once()
    entry = Adjudication.get()
    log_in(client)
    page = client.get(f"/admin/adjudications/{entry.id}")
    assert b"hand the late seat to the computer for the rest of the match" in page.data
    ruled = client.post(f"/admin/adjudications/{entry.id}", data={
        "ruling": "computer", "reason": "Ann has gone quiet for good",
        "csrf_token": csrf_from(page.data)})
    assert ruled.status_code == 303
    worker.run_once()  # the computer's job moves for Ann; the ruling's mail goes out
    moves = client.get(f"/api/matches/{match.id}").get_json()["moves"]
    assert moves[0]["autoplayed"] == "played by the computer for ann"
    assert b"played by the computer for ann" in client.get(f"/matches/{match.id}").data
    for address in ("ann@example.org", "ben@example.org"):
        told = [m.get_body(("plain",)).get_content() for m in smtp.to(address)]
        assert any("hand the late seat to the computer" in text for text in told), address
    assert Match.get_by_id(match.id).has_computer
