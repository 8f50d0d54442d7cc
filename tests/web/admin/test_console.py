"""The admin console's pages and actions through the Flask client: roles, CSRF, one audit
entry per action even when a form is posted twice, the queue's evidence, previews, matches,
players, mail, the audit log, metrics and the health check."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from pbem.core.accounts.admins import create_admin
from pbem.core.admin.audit import AuditFilter, search
from pbem.core.admin.models import AuditEntry
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Adjudication, Match, Seat
from pbem.core.matches.sweep import sweep
from tests.conftest import START
from tests.web.admin.test_queue import PASSWORD, csrf_from

ADMIN_PAGES = ["/admin/players", "/admin/mail", "/admin/inbound", "/admin/audit",
               "/admin/audit.csv", "/admin/metrics"]
STAFF_PAGES = ["/admin", "/admin/matches"]


def sign_in(client, email: str = "ref@club.org", role: str = "admin") -> str:
    create_admin(email, PASSWORD, START, role=role)
    token = csrf_from(client.get("/admin/login").data)
    reply = client.post("/admin/login", data={"email": email, "password": PASSWORD,
                                               "csrf_token": token})
    assert reply.status_code == 303
    return token


def form(client, path: str, **data: str) -> dict[str, str]:
    """The fields of the first form on `path` posting to an action with these fields."""
    html = client.get(path).data.decode()
    return {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', html).group(1),
            "action_key": re.search(r'name="action_key" value="([^"]+)"', html).group(1),
            **data}


def timed_out(settings, clock) -> tuple[Match, Adjudication]:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                         settings.secret_key, clock.now, time_control="45s").match
    sweep(clock.now + timedelta(minutes=1), timedelta(minutes=10))
    return match, Adjudication.get(Adjudication.match == match)


@pytest.mark.parametrize("path", ADMIN_PAGES + STAFF_PAGES + ["/admin/matches/1",
                                                              "/admin/players/1",
                                                              "/admin/mail/1"])
def test_a_signed_out_request_gets_the_login_page(client, path: str) -> None:
    reply = client.get(path)
    assert reply.status_code == 302 and reply.headers["Location"].startswith("/admin/login")


def test_a_moderator_opens_the_queue_and_matches_but_not_players_or_mail(client) -> None:
    sign_in(client, "mod@club.org", role="moderator")
    for path in STAFF_PAGES:
        assert client.get(path).status_code == 200, path
    for path in ADMIN_PAGES:
        reply = client.get(path)
        assert reply.status_code == 403 and b"Admins only" in reply.data, path
        # It points the moderator at every page they may use, the reports included.
        assert b'href="/admin/reports">reports</a>' in reply.data, path
    nav = client.get("/admin").data
    assert b"/admin/players" not in nav and b"/admin/matches" in nav


def test_an_admin_opens_every_page(client) -> None:
    sign_in(client)
    for path in ADMIN_PAGES + STAFF_PAGES:
        assert client.get(path).status_code == 200, path


def test_every_action_form_needs_the_csrf_token(settings, client, clock) -> None:
    match, entry = timed_out(settings, clock)
    sign_in(client)
    for path in (f"/admin/adjudications/{entry.id}", f"/admin/matches/{match.id}/pause",
                 f"/admin/matches/{match.id}/abort", f"/admin/matches/{match.id}/extend",
                 "/admin/mail/1/retry", "/admin/logout"):
        reply = client.post(path, data={"reason": "x", "ruling": "draw"})
        assert reply.status_code == 400, path
    assert Match.get_by_id(match.id).status == "active"
    assert not AuditEntry.select().where(AuditEntry.actor == "ref@club.org").exists()


def test_the_queue_shows_the_late_player_by_name_with_the_evidence(settings, client,
                                                                   clock) -> None:
    created = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                           settings.secret_key, clock.now, time_control="45s")
    client.get(f"/play/{created.tokens[0]}")
    assert Seat.get(Seat.match == created.match, Seat.seat == 0).last_seen_at == clock.now
    sweep(clock.now + timedelta(minutes=1), timedelta(minutes=10))
    clock.advance(hours=3, minutes=1)
    sign_in(client)
    page = client.get("/admin").data.decode()
    assert "ann" in page and "late 3 hours" in page and "adjudicate" in page
    assert "your turn: <span class=\"status pending\">pending" in page
    assert f"{clock.now - timedelta(hours=3, minutes=1):%Y-%m-%d %H:%M} UTC" in page


def test_a_preview_changes_nothing_and_lists_the_mails(settings, client, clock) -> None:
    match, entry = timed_out(settings, clock)
    sign_in(client)
    before = OutboxMessage.select().count()
    # Typed as a sentence, with its full stop.
    data = form(client, f"/admin/adjudications/{entry.id}", ruling="award",
                reason="no reply.", do="preview")
    page = client.post(f"/admin/adjudications/{entry.id}", data=data)
    assert page.status_code == 200
    text = page.data.decode()
    assert "Preview (nothing has been done yet)" in text and "finished" in text
    # The ruling's reason ends its own sentence: the preview never shows "..".
    preview = text[text.index("Preview (nothing"):text.index("</section>", text.index("Preview"))]
    assert ".." not in preview and "no reply." in preview
    assert "result to ann" in text and "result to ben" in text
    assert Match.get_by_id(match.id).status == "active"
    assert OutboxMessage.select().count() == before
    assert Adjudication.get_by_id(entry.id).status == "open"
    assert not AuditEntry.select().where(AuditEntry.actor == "ref@club.org").exists()
    extend = form(client, f"/admin/adjudications/{entry.id}", ruling="extend",
                  extension="2d", reason="flu", do="preview")
    text = client.post(f"/admin/adjudications/{entry.id}", data=extend).data.decode()
    assert "new deadline" in text and "ruling to ann" in text


def test_a_ruling_posted_twice_acts_and_is_logged_once(settings, client, clock) -> None:
    _match, entry = timed_out(settings, clock)
    sign_in(client)
    data = form(client, f"/admin/adjudications/{entry.id}", ruling="extend",
                extension="1d", reason="flu", do="rule")
    first = client.post(f"/admin/adjudications/{entry.id}", data=data)
    second = client.post(f"/admin/adjudications/{entry.id}", data=data)
    assert first.status_code == second.status_code == 303
    assert "already done" in client.get("/admin").data.decode()
    assert len(search(AuditFilter(actor="ref@club.org"))) == 1
    assert OutboxMessage.select().where(OutboxMessage.template == "ruling").count() == 2
    # The change log names the ruled seat as the pages do ("First"), not by its index.
    page = client.get(f"/admin/matches/{_match.id}").data.decode()
    assert "late: First</td>" in page and "late: 0" not in page


@pytest.mark.parametrize("action", ["pause", "extend", "abort"])
def test_match_actions_posted_twice_act_once(settings, client, clock, action: str) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                         settings.secret_key, clock.now, time_control="1d").match
    sign_in(client)
    data = form(client, f"/admin/matches/{match.id}", reason="checking", seat="0",
                extension="1d")
    for _ in range(2):
        reply = client.post(f"/admin/matches/{match.id}/{action}", data=data)
        assert reply.status_code == 303
    rows = search(AuditFilter(actor="ref@club.org"))
    assert [r.action for r in rows] == [{"extend": "extend-seat"}.get(action, action)]
    deadline = Seat.get(Seat.match == match, Seat.seat == 0).deadline
    if action == "extend":
        assert deadline == clock.now + timedelta(days=2)
    elif action == "pause":
        assert deadline is None and Match.get_by_id(match.id).paused_at == clock.now
    else:
        assert Match.get_by_id(match.id).status == "aborted"


def test_the_match_page_shows_hidden_information_marked(settings, client, clock) -> None:
    match = create_match("bids", ["ann@example.org", "ben@example.org", "cy@example.org",
                                  "di@example.org"], {}, settings.secret_key, clock.now,
                         seed=5).match
    hands = match.state["hands"]
    from pbem.core.matches.play import submit_move
    submit_move(match.id, 0, f"play {hands[0][0]}", 0, clock.now)
    sign_in(client, "mod@club.org", role="moderator")
    page = client.get(f"/admin/matches/{match.id}").data.decode()
    assert "admin only" in page and "hidden from" in page
    assert f"play {hands[0][0]}" in page  # the secret choice, shown to the admin
    public = client.get(f"/matches/{match.id}").data.decode()
    assert f"play {hands[0][0]}" not in public


def test_match_search_by_player_game_and_status(settings, client, clock) -> None:
    one = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                       settings.secret_key, clock.now).match
    two = create_match("nim", ["cy@example.org", "di@example.org"], {},
                       settings.secret_key, clock.now).match
    sign_in(client, "mod@club.org", role="moderator")
    found = client.get("/admin/matches?player=cy").data.decode()
    assert f"#{two.id}<" in found and f"#{one.id}<" not in found
    # Games are named by their titles, as everywhere else; the filter still sends the slug.
    assert ">Nim (test game)</td>" in found and '<option value="nim">Nim (test game)' in found
    by_game = client.get("/admin/matches?game=nim").data.decode()
    assert f"#{one.id}<" in by_game and '<option value="nim" selected>' in by_game
    assert f"<h1>Match #{one.id} · Nim (test game)</h1>" in client.get(
        f"/admin/matches/{one.id}").data.decode()
    assert f"#{one.id}<" in client.get(f"/admin/matches?id={one.id}").data.decode()
    assert client.get("/admin/matches?status=aborted").data.count(b"/admin/matches/") == 0
    bad = client.get("/admin/matches?id=abc")
    assert bad.status_code == 422 and b"not a match number" in bad.data


def test_audit_log_filters_and_csv(settings, client, clock) -> None:
    match, _entry = timed_out(settings, clock)
    sign_in(client)
    page = client.get("/admin/audit?actor=pbem").data.decode()
    assert '<td data-label="What">queued</td>' in page and f"#{match.id}" in page
    theirs = client.get("/admin/audit?actor=ref@club.org").data.decode()
    assert '<td data-label="What">queued</td>' not in theirs
    csv = client.get(f"/admin/audit.csv?match={match.id}")
    assert csv.mimetype == "text/csv"
    lines = csv.data.decode().splitlines()
    assert lines[0].startswith("id,at_utc,actor,action") and ",pbem,queued," in lines[1]
    assert client.get("/admin/audit?since=yesterday").status_code == 422


def test_mail_filters_show_a_message_and_retry_it_once(settings, client, clock,
                                                       worker) -> None:
    match = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                         settings.secret_key, clock.now).match
    message = OutboxMessage.select().where(OutboxMessage.match == match).first()
    OutboxMessage.update(status="failed", attempts=8, last_error="550 no such user").where(
        OutboxMessage.id == message.id).execute()
    sign_in(client)
    failed = client.get("/admin/mail?show=failed").data.decode()
    assert "550 no such user" in failed and "ann@example.org" in failed
    shown = client.get(f"/admin/mail/{message.id}").data.decode()
    assert "Message-ID" in shown and "Rendered again" in shown
    assert created_token_absent(shown, settings, match)
    data = form(client, f"/admin/mail/{message.id}")
    assert client.post(f"/admin/mail/{message.id}/retry", data=data).status_code == 303
    assert client.post(f"/admin/mail/{message.id}/retry", data=data).status_code == 303
    assert AuditEntry.select().where(AuditEntry.action == "mail-retry").count() == 1
    assert OutboxMessage.get_by_id(message.id).status == "pending"
    worker.send_outbox()
    assert OutboxMessage.get_by_id(message.id).status == "sent"
    assert " · 1 attempt · sent " in client.get(f"/admin/mail/{message.id}").data.decode()


def created_token_absent(page: str, settings, match: Match) -> bool:
    from pbem.core.matches.seat_links import token_for
    return all(token_for(settings.secret_key, seat) not in page for seat in match.seat_rows())


def test_metrics_for_an_admin_or_the_metrics_token(settings, client, clock, worker) -> None:
    timed_out(settings, clock)
    clock.advance(minutes=2)
    worker.run_once()
    assert client.get("/admin/metrics").status_code == 302
    assert client.get("/admin/metrics", headers={"Authorization": "Bearer x"}
                      ).status_code == 401
    sign_in(client)
    text = client.get("/admin/metrics").data.decode()
    assert 'pbem_matches{status="active"} 1.0' in text
    assert "pbem_queue_entries 1.0" in text and "pbem_queue_oldest_age_seconds" in text
    assert 'pbem_job_duration_seconds{job="deadlines"}' in text
    assert "pbem_outbox_backlog 0.0" in text and "pbem_outbox_failed 0.0" in text, text


def test_the_metrics_token_opens_metrics_without_a_login(db_url, tmp_path) -> None:
    from pbem.web import create_app
    from tests.conftest import SUPPORT_TEMPLATES, make_settings

    app = create_app(make_settings(db_url, tmp_path, metrics_token="s3cret-token-for-scrapes"),
                     extra_template_dirs=(SUPPORT_TEMPLATES,))
    client = app.test_client()
    good = client.get("/admin/metrics",
                      headers={"Authorization": "Bearer s3cret-token-for-scrapes"})
    assert good.status_code == 200 and b"pbem_matches" in good.data
    assert client.get("/admin/metrics", headers={"Authorization": "Bearer nope"}
                      ).status_code == 401


def test_healthz_reports_the_worker_heartbeat(client, clock, worker) -> None:
    never = client.get("/healthz")
    assert never.status_code == 503 and "never run" in never.get_json()["problems"][0]
    worker.run_once()
    ok = client.get("/healthz")
    assert ok.status_code == 200 and ok.get_json()["status"] == "ok"
    clock.advance(hours=1)
    stale = client.get("/healthz")
    assert stale.status_code == 503 and stale.get_json()["database"] is True
    assert stale.get_json()["worker_heartbeat_age_seconds"] == 3600


def test_player_actions_resend_links_revoke_sessions_and_block_once(
        settings, client, clock, worker, smtp, app) -> None:
    from pbem.core.accounts import sessions
    from pbem.core.accounts.models import Player, Session, SessionKind
    from pbem.core.admin.players import BlockedError
    from pbem.core.lobby.challenges import ChallengeRequest, create_challenge

    created = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                           settings.secret_key, clock.now)
    ann = Player.get(Player.email == "ann@example.org")
    sessions.start(settings.secret_key, SessionKind.PLAYER, clock.now,
                   sessions.SessionPolicy.from_days(30, 90), player=ann)
    sign_in(client)
    page = client.get(f"/admin/players/{ann.id}").data.decode()
    assert "every browser (1 session)." in page and "Not on the suppression list" in page
    for action in ("links", "sessions", "block"):
        data = form(client, f"/admin/players/{ann.id}", reason="spam")
        for _ in range(2):
            assert client.post(f"/admin/players/{ann.id}/{action}", data=data
                               ).status_code == 303
    logged = [a.action for a in AuditEntry.select().where(AuditEntry.actor == "ref@club.org")
              .order_by(AuditEntry.id)]
    assert logged == ["player-resend-links", "player-revoke-sessions", "player-block"]
    assert not Session.select().where(Session.player == ann).exists()
    assert client.get(f"/play/{created.tokens[0]}").status_code == 404  # the old link
    clock.advance(minutes=1)
    worker.send_outbox()
    assert "/play/" in smtp.to("ann@example.org")[-1].get_body(("plain",)).get_content()
    with pytest.raises(BlockedError):
        create_challenge(settings, Player.get_by_id(ann.id), ChallengeRequest(
            game="nim", opponents=["cy@example.org"]), clock.now)


def test_a_moderator_reissues_a_seat_link_from_the_match_page(settings, client,
                                                              clock) -> None:
    created = create_match("nim", ["ann@example.org", "ben@example.org"], {},
                           settings.secret_key, clock.now)
    sign_in(client, "mod@club.org", role="moderator")
    data = form(client, f"/admin/matches/{created.match.id}", seat="1", reason="lost it")
    assert client.post(f"/admin/matches/{created.match.id}/reissue", data=data
                       ).status_code == 303
    assert client.get(f"/play/{created.tokens[1]}").status_code == 404
    assert Seat.get(Seat.match == created.match, Seat.seat == 1).token_generation == 2
    assert OutboxMessage.select().where(OutboxMessage.template == "seat_link").count() == 1


def test_a_reply_address_is_shown_without_its_key() -> None:
    from pbem.web.admin.mail import _masked_header

    shown = _masked_header("Reply-To", "play.1-0-xwq3lw4qz3rhrnvomps2irm4q4@games.example")
    assert shown == "play.[reply key hidden]@games.example"
    assert _masked_header("To", "ann@example.org") == "ann@example.org"


def test_an_admin_clears_an_undeliverable_mark_once(settings, client, clock) -> None:
    from pbem.core.accounts.models import Player

    create_match("nim", ["ann@example.org", "ben@example.org"], {}, settings.secret_key,
                 clock.now)
    Player.update(undeliverable_at=clock.now, undeliverable_reason="550 no such user").where(
        Player.email == "ann@example.org").execute()
    ann = Player.get(Player.email == "ann@example.org")
    sign_in(client)
    assert "550 no such user" in client.get(f"/admin/players/{ann.id}").data.decode()
    data = form(client, f"/admin/players/{ann.id}")
    for _ in range(2):
        client.post(f"/admin/players/{ann.id}/deliverable", data=data)
    assert Player.get_by_id(ann.id).undeliverable_at is None
    assert AuditEntry.select().where(
        AuditEntry.action == "player-clear-undeliverable").count() == 1


def test_the_console_names_seats_as_the_game_does_and_every_time_its_zone(settings, client,
                                                                          clock) -> None:
    """No bare "seat 0" for a person to decode, and no time without its zone."""
    match, entry = timed_out(settings, clock)
    sign_in(client)
    for path in ("/admin", f"/admin/adjudications/{entry.id}", f"/admin/matches/{match.id}",
                 "/admin/matches", "/admin/audit", "/admin/players/1"):
        text = client.get(path).get_data(as_text=True)
        assert not re.search(r"\bseat [0-9]", text, re.I), path
        for moment in re.findall(r"\b20\d\d-\d\d-\d\d \d\d:\d\d(?::\d\d)?.{0,4}", text):
            assert moment.endswith(" UTC"), (path, moment)


def test_signed_in_staff_find_the_console_from_any_page(client) -> None:
    # Staff sign in apart from players: the site's own links lead them back to the console.
    assert 'href="/admin"' not in client.get("/games").data.decode()
    sign_in(client, "mod@club.org", role="moderator")
    for path in ("/games", "/matches"):
        assert '<a href="/admin">Admin</a>' in client.get(path).data.decode()


def test_a_preview_is_not_broken_by_a_write_elsewhere(settings, clock, monkeypatch) -> None:
    """A preview reads (the outbox's last mail) before it makes the ruling. On SQLite a
    transaction that has read cannot write once another connection has committed since
    (SQLITE_BUSY_SNAPSHOT, which no busy timeout waits out), so a preview begun as a plain
    transaction failed whenever a move landed meanwhile. It takes the write lock at its
    start: a write from elsewhere waits the moment out. Repeated, as the race is timing."""
    for attempt in range(3):
        _preview_beside_a_write(settings, clock, monkeypatch, attempt)


def _preview_beside_a_write(settings, clock, monkeypatch, attempt: int) -> None:
    import threading

    from pbem.core.accounts.models import Player
    from pbem.core.admin import console
    from pbem.core.db.connection import database, is_sqlite, write_transaction

    players = [f"ann{attempt}@example.org", f"ben{attempt}@example.org"]
    match = create_match("nim", players, {}, settings.secret_key, clock.now,
                         time_control="45s").match
    sweep(clock.now + timedelta(minutes=1), timedelta(minutes=10))
    entry = Adjudication.get(Adjudication.match == match)
    real = console.make_ruling
    writers: list[threading.Thread] = []
    failed: list[BaseException] = []
    landed = threading.Event()
    during: list[bool] = []

    def write_elsewhere() -> None:
        try:
            with database.connection_context(), write_transaction():
                Player.update(name=f"elsewhere {attempt}").where(
                    Player.email == players[0]).execute()
            landed.set()
        except BaseException as error:  # shown by the assertion below, not lost in the thread
            failed.append(error)

    def ruling_after_a_write_elsewhere(*args, **kwargs):
        writer = threading.Thread(target=write_elsewhere)
        writer.start()
        writers.append(writer)
        # Before the fix the write landed at once; on SQLite it now waits for the preview.
        during.append(landed.wait(0.5))
        return real(*args, **kwargs)

    monkeypatch.setattr(console, "make_ruling", ruling_after_a_write_elsewhere)
    preview = console.preview_ruling(entry, "award", "no reply.", "ref@club.org", clock.now,
                                     None, timedelta(days=30))
    monkeypatch.setattr(console, "make_ruling", real)
    writers[0].join(30)
    assert not failed, failed
    assert preview.status == "finished"
    assert landed.is_set(), "the write elsewhere landed, after the preview or beside it"
    if is_sqlite():
        assert during == [False], "on SQLite the preview holds the write lock from its start"
    assert Match.get_by_id(match.id).status == "active"
    assert Player.get(Player.email == players[0]).name == f"elsewhere {attempt}"


def test_a_preview_that_waited_too_long_for_the_lock_is_tried_again(
        settings, clock, monkeypatch) -> None:
    """A write lock held elsewhere past the busy timeout ("database is locked" on SQLite):
    the preview starts again, as the door does, and shows what the ruling would do."""
    import peewee

    from pbem.core.admin import console

    match, entry = timed_out(settings, clock)
    real = console.write_transaction
    tries: list[int] = []

    def locked_once():
        tries.append(1)
        if len(tries) == 1:
            raise peewee.OperationalError("database is locked")
        return real()

    monkeypatch.setattr(console, "write_transaction", locked_once)
    preview = console.preview_ruling(entry, "award", "no reply.", "ref@club.org", clock.now,
                                     None, timedelta(days=30))
    assert preview.status == "finished" and len(tries) == 2
    assert Match.get_by_id(match.id).status == "active"
