"""The spectators' room on the public match page, what it never shows (the players' chat, a
seat's notes), blocks, mutes, and a report handled end to end in the admin console."""

from __future__ import annotations

import re

from pbem.core.accounts.admins import create_admin
from pbem.core.accounts.models import Player
from pbem.core.admin.models import AuditEntry
from pbem.core.conversation.models import ChatMessage, ChatReport, PlayerBlock
from pbem.core.matches.creation import create_match
from pbem.core.matches.lifecycle import resign
from tests.conftest import START
from tests.support.players import csrf_from, post_form, sign_in
from tests.web.admin.test_queue import PASSWORD

ALICE, BOB, CAROL = "alice@example.org", "bob@example.org", "carol@example.org"
SECRET_TALK = "players only: I plan to take 3"
SECRET_NOTE = "note to self: bluff"
XSS = '"><svg onload=alert(1)>'


def _match(settings):
    created = create_match("nim", [ALICE, BOB], {}, settings.secret_key, START)
    return created.match, created.tokens


def _players_talk(client, tokens) -> None:
    assert client.post(f"/play/{tokens[0]}/chat", data={"text": SECRET_TALK}).status_code == 303
    assert client.post(f"/play/{tokens[0]}/notes",
                       data={"notes": SECRET_NOTE}).status_code == 303


def test_a_signed_in_watcher_talks_in_the_spectators_room_and_never_sees_the_players(
        settings, app, client, worker, smtp) -> None:
    match, tokens = _match(settings)
    _players_talk(client, tokens)
    signed_out = client.get(f"/matches/{match.id}").data.decode()
    assert "Sign in</a> to talk with other spectators" in signed_out

    carol = app.test_client()
    sign_in(carol, CAROL, worker, smtp)
    Player.update(name=f"Carol{XSS}"[:40]).where(Player.email == CAROL).execute()
    reply = post_form(carol, f"/matches/{match.id}/chat", page=f"/matches/{match.id}",
                      text=f"Who wins? {XSS}")
    assert reply.status_code == 303
    page = carol.get(f"/matches/{match.id}").data.decode()
    assert "Spectators&#39; room" in page or "Spectators' room" in page
    assert "Who wins?" in page and "<svg onload" not in page and "&lt;svg onload" in page
    # Nothing of the players' room or the seat's notes on any spectator page or answer.
    for path in (f"/matches/{match.id}", f"/matches/{match.id}/record.json",
                 f"/matches/{match.id}/record.txt", f"/api/matches/{match.id}"):
        for reader in (client, carol):
            body = reader.get(path).data.decode()
            assert SECRET_TALK not in body and SECRET_NOTE not in body, path
    # The players do not read the spectators while the match runs…
    assert "Who wins?" not in client.get(f"/play/{tokens[1]}").data.decode()
    # …and only afterwards; their own chat stays theirs after the end.
    resign(match.id, 1, START)
    assert "Who wins?" in client.get(f"/play/{tokens[1]}").data.decode()
    for path in (f"/matches/{match.id}", f"/matches/{match.id}/record.json",
                 f"/matches/{match.id}/record.txt", f"/api/matches/{match.id}",
                 "/matches", "/api/matches"):
        for reader in (client, carol):
            body = reader.get(path).data.decode()
            assert SECRET_TALK not in body and SECRET_NOTE not in body, path


def test_a_player_cannot_post_in_the_spectators_room_of_their_own_match(
        settings, app, worker, smtp) -> None:
    match, _ = _match(settings)
    alice = app.test_client()
    sign_in(alice, ALICE, worker, smtp)
    page = alice.get(f"/matches/{match.id}").data.decode()
    assert "Spectators" not in page  # not while the match runs
    token = csrf_from(alice.get("/me/settings").data)
    reply = alice.post(f"/matches/{match.id}/chat", data={"text": "hint?", "csrf_token": token})
    assert reply.status_code == 403
    assert ChatMessage.select().count() == 0


def test_a_blocked_player_is_not_shown_and_a_muted_chat_mails_nothing(
        settings, app, client, worker, smtp) -> None:
    from pbem.core.mailout.models import OutboxMessage

    _, tokens = _match(settings)
    client.post(f"/play/{tokens[0]}/chat", data={"text": "first words"})
    assert OutboxMessage.select().where(OutboxMessage.template == "chat").count() == 1
    message = ChatMessage.get()
    assert client.post(f"/play/{tokens[1]}/chat/{message.id}/block").status_code == 303
    assert "first words" not in client.get(f"/play/{tokens[1]}").data.decode()
    client.post(f"/play/{tokens[0]}/chat", data={"text": "second words"})
    assert OutboxMessage.select().where(OutboxMessage.template == "chat").count() == 1
    api = client.get(f"/api/play/{tokens[1]}/chat").get_json()
    assert api["messages"] == []
    # Bob's settings list the block and undo it.
    bob = app.test_client()
    sign_in(bob, BOB, worker, smtp)
    settings_page = bob.get("/me/settings").data.decode()
    assert "Players you blocked" in settings_page and "alice" in settings_page
    alice_id = Player.get(Player.email == ALICE).id
    post_form(bob, f"/me/blocks/{alice_id}/remove", page="/me/settings")
    assert "second words" in client.get(f"/play/{tokens[1]}").data.decode()
    # Alice mutes the chat: Bob's messages mail her nothing.
    client.post(f"/play/{tokens[0]}/chat/mute", data={"muted": "yes"})
    client.post(f"/play/{tokens[1]}/chat", data={"text": "hello?"})
    assert OutboxMessage.select().where(OutboxMessage.template == "chat",
                                        OutboxMessage.to_address == ALICE).count() == 0
    assert "This chat is muted for you" in client.get(f"/play/{tokens[0]}").data.decode()


def _admin(app):
    create_admin("ref@club.org", PASSWORD, START, role="moderator")
    admin = app.test_client()
    token = csrf_from(admin.get("/admin/login").data)
    assert admin.post("/admin/login", data={"email": "ref@club.org", "password": PASSWORD,
                                            "csrf_token": token}).status_code == 303
    return admin


def _form(admin, path: str, action: str, reason: str) -> dict[str, str]:
    html = admin.get(path).data.decode()
    form = html[html.index(f"/{action}\""):]
    return {"csrf_token": re.search(r'name="csrf_token" value="([^"]+)"', form).group(1),
            "action_key": re.search(r'name="action_key" value="([^"]+)"', form).group(1),
            "reason": reason}


def test_a_report_is_handled_end_to_end_in_the_admin_console(settings, app, client) -> None:
    match, tokens = _match(settings)
    client.post(f"/play/{tokens[1]}/chat", data={"text": "good luck"})
    client.post(f"/play/{tokens[0]}/chat", data={"text": f"you are an idiot {XSS}"})
    client.post(f"/play/{tokens[1]}/chat", data={"text": "that was rude"})
    rude = ChatMessage.get(ChatMessage.text.startswith("you are"))
    assert client.post(f"/play/{tokens[1]}/chat/{rude.id}/report",
                       data={"reason": "insult"}).status_code == 303
    # A seat of another match cannot report (or even name) this one's messages.
    other = create_match("nim", [BOB, CAROL], {}, settings.secret_key, START).tokens[1]
    assert client.post(f"/play/{other}/chat/{rude.id}/report").status_code == 404
    report = ChatReport.get()

    admin = _admin(app)
    listing = admin.get("/admin/reports").data.decode()
    assert "insult" in listing and f"/admin/reports/{report.id}" in listing
    page = admin.get(f"/admin/reports/{report.id}").data.decode()
    assert "good luck" in page and "that was rude" in page  # the context
    assert "you are an idiot" in page and "<svg onload" not in page
    data = _form(admin, f"/admin/reports/{report.id}", "bar", "insulting an opponent")
    for _ in range(2):  # posted twice: acted on and logged once
        assert admin.post(f"/admin/reports/{report.id}/bar", data=data).status_code == 303
    entries = list(AuditEntry.select().where(AuditEntry.action == "chat-bar"))
    assert len(entries) == 1 and entries[0].match_id == match.id
    assert entries[0].detail["message"] == rude.id
    assert ChatReport.get_by_id(report.id).resolution == "barred"
    assert "No open reports" in admin.get("/admin/reports").data.decode()
    # The message is gone for the players, and Alice can no longer write.
    assert "you are an idiot" not in client.get(f"/play/{tokens[1]}").data.decode()
    assert client.post(f"/play/{tokens[0]}/chat", data={"text": "sorry"}).status_code == 403
    assert client.post(f"/api/play/{tokens[0]}/chat", json={"text": "sorry"}).status_code == 403


def test_hiding_a_message_is_logged(settings, app, client) -> None:
    _, tokens = _match(settings)
    client.post(f"/play/{tokens[0]}/chat", data={"text": "spam spam"})
    message = ChatMessage.get()
    client.post(f"/play/{tokens[1]}/chat/{message.id}/report", data={"reason": "spam"})
    admin = _admin(app)
    report = ChatReport.get()
    data = _form(admin, f"/admin/reports/{report.id}", "hide", "spam")
    assert admin.post(f"/admin/reports/{report.id}/hide", data=data).status_code == 303
    assert AuditEntry.get(AuditEntry.action == "chat-hide").reason == "spam"
    assert ChatMessage.get_by_id(message.id).hidden_by == "ref@club.org"
    assert client.get(f"/api/play/{tokens[1]}/chat").get_json()["messages"] == []


def test_blocking_by_name_on_the_settings_page(settings, app, worker, smtp) -> None:
    _match(settings)
    Player.update(name="Bobby").where(Player.email == BOB).execute()
    alice = app.test_client()
    sign_in(alice, ALICE, worker, smtp)
    # A name as the site shows it, in any case: as the player's page finds them.
    assert post_form(alice, "/me/blocks", page="/me/settings", name="bobby").status_code == 303
    assert "Bobby" in alice.get("/me/settings").data.decode()
    assert PlayerBlock.select().count() == 1
    # A player with no display name goes by their address's local part, as chat shows them.
    cy = Player.for_email("cy@example.org", START)
    assert post_form(alice, "/me/blocks", page="/me/settings", name="cy").status_code == 303
    assert PlayerBlock.get(PlayerBlock.blocked == cy.id)
    # A refusal is said on the settings page, beside the form, and blocks nobody.
    missing = post_form(alice, "/me/blocks", page="/me/settings", name="Nobody Here")
    assert missing.status_code == 303
    assert missing.headers["Location"].endswith("/me/settings#blocks")
    assert "no player named" in alice.get("/me/settings").data.decode()
    Player.update(name="Alice").where(Player.email == ALICE).execute()
    itself = post_form(alice, "/me/blocks", page="/me/settings", name="Alice")
    assert itself.status_code == 303
    assert "cannot block yourself" in alice.get("/me/settings").data.decode()
    assert PlayerBlock.select().count() == 2


def test_an_admin_bars_and_lifts_the_bar_from_a_players_page(settings, app, client) -> None:
    _, tokens = _match(settings)
    create_admin("boss@club.org", PASSWORD, START)
    admin = app.test_client()
    token = csrf_from(admin.get("/admin/login").data)
    admin.post("/admin/login", data={"email": "boss@club.org", "password": PASSWORD,
                                     "csrf_token": token})
    alice = Player.get(Player.email == ALICE)
    page = f"/admin/players/{alice.id}"
    data = _form(admin, page, "chatbar", "spamming the chat")
    for _ in range(2):
        assert admin.post(f"{page}/chatbar", data=data).status_code == 303
    assert Player.get_by_id(alice.id).chat_barred_at is not None
    assert client.post(f"/play/{tokens[0]}/chat", data={"text": "hi"}).status_code == 403
    assert "An admin has barred you" in client.get(f"/play/{tokens[0]}").data.decode()
    data = _form(admin, page, "chatunbar", "promised to behave")
    assert admin.post(f"{page}/chatunbar", data=data).status_code == 303
    assert [e.action for e in AuditEntry.select().order_by(AuditEntry.id)] == [
        "chat-bar", "chat-unbar"]
    assert client.post(f"/play/{tokens[0]}/chat", data={"text": "hi"}).status_code == 303
