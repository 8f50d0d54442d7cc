"""Mail preferences over real SMTP: what each preference delivers, the inbox line of each kind,
one-click unsubscribe, bounces and retention."""

from __future__ import annotations

import re
from datetime import timedelta

import pytest

from pbem.core.accounts.models import Player
from pbem.core.accounts.players import clear_undeliverable
from pbem.core.mailout.models import OutboxMessage
from pbem.core.mailout.preferences import sends_now, update_preferences
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match
from pbem.core.matches.play import submit_move
from pbem.core.matches.vacations import declare
from pbem.mail.compose import Composer
from tests.conftest import START

ALICE, BOB = "alice@example.org", "bob@example.org"


def player(email: str, preference: str) -> Player:
    created = Player.for_email(email, START)
    return update_preferences(created.id, preference, 8, None, START)


def play_to_the_end(settings, clock) -> int:
    """Nim from a pile of 9: Alice, Bob, Alice… until Bob takes the last counter."""
    match = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START, seed=1,
                         time_control="1d").match
    for ply, take in enumerate(("take 3", "take 3", "take 2", "take 1")):
        clock.advance(hours=1)
        submit_move(match.id, ply % 2, take, ply, clock.now)
    assert Match.get_by_id(match.id).status == "finished"
    return match.id


def kinds(smtp, address: str) -> list[str]:
    return [m["X-Pbem-Kind"] for m in smtp.to(address)]


@pytest.mark.parametrize(("preference", "expected"), [
    ("each", ["welcome", "your_turn", "your_turn", "vacation", "result"]),
    ("turns", ["welcome", "your_turn", "your_turn", "result"]),
    ("digest", []),
    ("off", []),
])
def test_each_preference_delivers_what_it_promises(settings, worker, smtp, clock, preference,
                                                   expected) -> None:
    player(ALICE, preference)
    match = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START, seed=1,
                         time_control="1d").match
    submit_move(match.id, 0, "take 3", 0, START)
    submit_move(match.id, 1, "take 3", 1, START)
    bob = Player.get(Player.email == BOB)
    declare(bob.id, (START + timedelta(days=3)).date(), (START + timedelta(days=4)).date(), 14,
            START)
    submit_move(match.id, 0, "take 2", 2, START)
    submit_move(match.id, 1, "take 1", 3, START)  # the last counter: Bob wins
    worker.send_outbox()
    assert kinds(smtp, ALICE) == expected
    assert kinds(smtp, BOB) == ["welcome", "your_turn", "your_turn", "result"], \
        "the default (turns) is unchanged for the other player"


@pytest.mark.parametrize("preference", ["each", "turns", "digest", "off"])
def test_reminders_and_rulings_reach_every_preference(settings, worker, smtp, clock,
                                                      preference) -> None:
    from dataclasses import replace

    from pbem.core.matches.rulings import make_ruling

    worker.settings = replace(settings, outage_grace_seconds=86_400)  # no outage rule here
    player(ALICE, preference)
    create_match("nim", [ALICE, BOB], {}, settings.secret_key, START, seed=1,
                 time_control="1d", on_timeout="adjudicate")
    clock.advance(hours=19, minutes=12)  # a fifth of a one-day clock left: the reminder
    worker.run_once()
    clock.advance(hours=5)
    worker.run_once()  # the deadline passed: the admin's queue, and everyone is told
    make_ruling(1, "extend", "the mail server was down", "ref@club.org", clock.now,
                extension=timedelta(days=1))
    worker.send_outbox()
    got = kinds(smtp, ALICE)
    assert "reminder" in got and "ruling" in got and "adjudication" in got


def test_a_digest_player_gets_a_reminder_only_when_it_is_urgent(db_url) -> None:
    alice = player(ALICE, "digest")
    assert sends_now(alice, "reminder", START + timedelta(hours=23), START)
    assert sends_now(alice, "reminder", START + timedelta(hours=24), START)
    assert not sends_now(alice, "reminder", START + timedelta(hours=30), START)
    assert not sends_now(alice, "your_turn", START + timedelta(hours=30), START)
    assert sends_now(alice, "draw_offer", None, START), "an unknown kind counts as an offer"


def test_the_inbox_line_tells_the_kind_while_the_subject_keeps_the_thread(
        settings, worker, smtp, clock) -> None:
    player(ALICE, "each")
    play_to_the_end(settings, clock)
    worker.send_outbox()
    mails = smtp.to(ALICE)
    assert {m["Subject"] for m in mails} == {"Nim (test game), match #1"}
    first_lines = [m.get_body(("plain",)).get_content().splitlines()[0] for m in mails]
    assert first_lines[0] == "New match: Nim (test game) #1, you play First"
    assert first_lines[1] == "Your turn in Nim (test game) #1 · 1 day left"
    assert first_lines[-1].startswith("Result: Second (bob) wins")
    for mail, line in zip(mails, first_lines, strict=True):
        html = mail.get_body(("html",)).get_content()
        preheader = re.search(r'<div style="display:none[^>]*>(.*?)</div>', html).group(1)
        assert preheader == line
    root = mails[0]["Message-ID"]
    assert all(m["References"].split()[0] == root for m in mails[1:])


def test_every_notification_offers_one_click_unsubscribe_and_the_post_needs_no_cookie(
        settings, worker, smtp, app) -> None:
    create_match("nim", [ALICE, BOB], {}, settings.secret_key, START, seed=1)
    worker.send_outbox()
    for mail in smtp.messages:
        assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert re.fullmatch(r"<http://pbem\.test/mail/unsubscribe/\S+>",
                            mail["List-Unsubscribe"].strip())
    url = smtp.to(ALICE)[-1]["List-Unsubscribe"].strip().strip("<>").removeprefix("http://pbem.test")
    fresh = app.test_client()  # no cookie, no CSRF token: what a mail client sends
    shown = fresh.get(url)
    assert shown.status_code == 200 and b"Unsubscribe alice@example.org?" in shown.data
    assert Player.get(Player.email == ALICE).mail_pref == "turns", "GET changes nothing"
    for _ in range(2):  # idempotent
        done = app.test_client().post(url, data="List-Unsubscribe=One-Click",
                                      content_type="application/x-www-form-urlencoded")
        assert done.status_code == 200 and b"You are unsubscribed" in done.data
    assert Player.get(Player.email == ALICE).mail_pref == "off"
    assert Player.get(Player.email == BOB).mail_pref == "turns"
    assert app.test_client().post(url[:-3] + "xyz").status_code == 404


def test_the_preferences_link_in_a_mail_opens_the_page_and_undoes_an_unsubscribe(
        settings, worker, smtp, app) -> None:
    create_match("nim", [ALICE, BOB], {}, settings.secret_key, START, seed=1)
    worker.send_outbox()
    text = smtp.to(ALICE)[-1].get_body(("plain",)).get_content()
    url = re.search(r"http://pbem\.test(/mail/preferences/\S+)", text).group(1)
    unsubscribe = re.search(r"Unsubscribe: http://pbem\.test(\S+)", text).group(1)
    client = app.test_client()
    client.post(unsubscribe)
    page = client.get(url)
    assert page.status_code == 200 and b'value="off" checked' in page.data
    saved = client.post(url, data={"mail_pref": "digest", "digest_hour": "7",
                                   "timezone": "Europe/Paris"})
    assert saved.status_code == 303
    alice = Player.get(Player.email == ALICE)
    assert (alice.mail_pref, alice.digest_hour, alice.timezone) == ("digest", 7, "Europe/Paris")
    assert alice.digest_due_at == START.replace(hour=6) + timedelta(days=1)  # 07:00 CET
    bad = client.post(url, data={"mail_pref": "sometimes", "digest_hour": "7"})
    assert bad.status_code == 400 and b"is not a mail preference" in bad.data
    bad_zone = client.post(url, data={"mail_pref": "each", "timezone": "Mars/Base"})
    assert bad_zone.status_code == 422 and b"is not a time zone" in bad_zone.data
    assert client.get(url.replace("/preferences/", "/unsubscribe/")).status_code == 404, \
        "a preferences link is not an unsubscribe link"


def test_a_permanent_refusal_marks_the_address_undeliverable_for_opponents_and_admins(
        settings, worker, smtp, client) -> None:
    from tests.web.admin.test_queue import log_in

    smtp.refuse.add(BOB)
    match_id = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START, seed=1).match.id
    report = worker.send_outbox()
    assert report.failed == 1 and report.sent == 2
    bob = Player.get(Player.email == BOB)
    assert bob.undeliverable_at == START and "550" in bob.undeliverable_reason
    submit_move(match_id, 0, "take 1", 0, START)
    submit_move(match_id, 1, "take 1", 1, START)
    worker.send_outbox()
    text = smtp.to(ALICE)[-1].get_body(("plain",)).get_content()
    assert "Note: our mail to bob (Second) bounces" in text
    assert "Our mail to bob (Second) bounces" in smtp.to(ALICE)[-1].get_body(
        ("html",)).get_content()
    log_in(client)
    queue = client.get("/admin").data
    assert b"Undeliverable addresses" in queue and b"bob@example.org" in queue
    clear_undeliverable(bob.id)
    assert Player.get_by_id(bob.id).undeliverable_at is None


def test_a_temporary_refusal_does_not_mark_the_address(settings, worker, smtp) -> None:
    smtp.answer = "451 4.3.0 try later"
    create_match("nim", [ALICE, BOB], {}, settings.secret_key, START, seed=1)
    worker.send_outbox()
    assert Player.select().where(Player.undeliverable_at.is_null(False)).count() == 0


def test_sent_mail_keeps_a_small_record_and_drops_its_params_after_retention(
        settings, worker, smtp, clock, client) -> None:
    from tests.web.admin.test_queue import log_in

    play_to_the_end(settings, clock)
    worker.send_outbox()
    turn = OutboxMessage.get(OutboxMessage.template == "your_turn",
                             OutboxMessage.to_address == BOB)
    # A mail about a match keeps no copy of its subject: it is the match's thread subject.
    assert turn.params["d"] and turn.subject is None
    assert Composer(settings).recorded_subject(turn) == "Nim (test game), match #1"
    clock.advance(days=settings.mail_retention_days, hours=1)
    with_params = OutboxMessage.select().where(OutboxMessage.params.is_null(False)).count()
    assert with_params > 0 and worker.queue_digests().pruned == with_params
    turn = OutboxMessage.get_by_id(turn.id)
    assert turn.params is None and turn.status == "sent" and turn.sent_at is not None
    assert turn.template == "your_turn"
    assert Composer(settings).recorded_subject(turn) == "Nim (test game), match #1"
    log_in(client)
    page = client.get(f"/admin/mail/{turn.id}").data.decode()
    assert "Your turn in Nim (test game)" in page and "no longer kept" in page
    assert "http://pbem.test/play/…" in page and re.search(r"/play/[A-Za-z0-9_-]{20}", page) is None
