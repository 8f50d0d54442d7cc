"""Signing in by an emailed link, through real SMTP on loopback: the GET only shows a button,
the POST signs in once, the link expires, the answer never says whether an address is known,
sign-in mails are rate-limited, and signing out ends the session on the server."""

from __future__ import annotations

from pbem.core.accounts.models import Player, Session, SignInLink
from pbem.core.mailout.models import OutboxMessage
from tests.support.players import csrf_from, last_mail, link_in, post_form, sign_in, text_of


def test_a_new_player_signs_in_by_the_emailed_link(client, worker, smtp) -> None:
    assert client.get("/me").headers["Location"].startswith("/signin")
    asked = post_form(client, "/signin", email="Ann@Example.org")
    assert asked.status_code == 200 and b"a sign-in link is on its way" in asked.data
    assert Player.select().count() == 0  # nobody is made until the link is used
    worker.run_once()
    mail = last_mail(smtp, "ann@example.org", "sign-in")
    path = link_in(mail, "/signin/")
    assert "30 minutes" in text_of(mail)
    assert SignInLink.get().token_hash != path.rsplit("/", 1)[1]
    # Opening the link (a mail scanner does) signs nobody in.
    page = client.get(path)
    assert page.status_code == 200 and b">Sign in</button>" in page.data
    assert client.get("/me").status_code == 302
    done = client.post(path, data={"csrf_token": csrf_from(page.data)})
    assert done.status_code == 303 and done.headers["Location"] == "/me"
    home = client.get("/me")
    assert home.status_code == 200 and b"Signed in as ann@example.org" in home.data
    assert home.headers["Cache-Control"] == "no-store"
    # Once only.
    again = client.post(path, data={"csrf_token": csrf_from(page.data)})
    assert again.status_code == 404 and b"used already or has expired" in again.data
    assert client.get(path).status_code == 404


def test_the_link_expires_after_30_minutes(client, worker, smtp, clock) -> None:
    post_form(client, "/signin", email="ann@example.org")
    worker.run_once()
    path = link_in(last_mail(smtp, "ann@example.org"), "/signin/")
    token = csrf_from(client.get(path).data)
    clock.advance(minutes=30)
    assert client.post(path, data={"csrf_token": token}).status_code == 404
    assert Session.select().count() == 0


def test_known_and_unknown_addresses_get_the_same_answer(client, worker, smtp) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    other = client.application.test_client()
    known = post_form(other, "/signin", email="ann@example.org").data
    unknown = post_form(other, "/signin", email="zed@example.org").data
    assert known.replace(b"ann@example.org", b"X") == unknown.replace(b"zed@example.org", b"X")


def test_a_malformed_address_is_refused_with_a_clear_message(client) -> None:
    for bad in ("not-an-address", "ann@", "=?utf-8?q?ann?=@example.org", "a b@example.org"):
        reply = post_form(client, "/signin", email=bad)
        assert reply.status_code == 400 and b"not" in reply.data and b"email address" in reply.data
    assert OutboxMessage.select().count() == 0


def test_sign_in_mails_are_limited_per_address_and_per_client(app, client, worker, smtp,
                                                              clock) -> None:
    for _ in range(3):
        assert post_form(client, "/signin", email="ann@example.org").status_code == 200
    refused = post_form(client, "/signin", email="ann@example.org")
    assert refused.status_code == 429
    assert b"Too many sign-in emails to this address. Try again in 15 minutes." in refused.data
    worker.run_once()
    assert len(smtp.to("ann@example.org")) == 3
    # One client asking for many addresses is stopped too (10 per window by default).
    browser = app.test_client()
    answers = [post_form(browser, "/signin", email=f"p{n}@example.org").status_code
               for n in range(8)]
    assert answers == [200] * 7 + [429]
    clock.advance(minutes=15)
    assert post_form(client, "/signin", email="ann@example.org").status_code == 200


def test_signing_out_ends_the_session_on_the_server(app, client, worker, smtp) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    copy = app.test_client()
    copy.set_cookie("pbem_player", client.get_cookie("pbem_player").value)
    assert copy.get("/me").status_code == 200
    assert post_form(client, "/signout", page="/me").status_code == 303
    assert Session.select().count() == 0
    assert copy.get("/me").status_code == 302 and client.get("/me").status_code == 302


def test_sessions_are_listed_and_revoked_from_the_settings_page(app, client, worker, smtp,
                                                               clock) -> None:
    sign_in(client, "ann@example.org", worker, smtp)
    phone = app.test_client()
    phone.environ_base["HTTP_USER_AGENT"] = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like "
                                             "Mac OS X) Version/17.0 Mobile Safari/604.1")
    clock.advance(minutes=20)
    sign_in(phone, "ann@example.org", worker, smtp)
    page = client.get("/me/settings").data
    assert b"Safari on iPhone" in page and b"(this one)" in page
    phone_session = Session.select().order_by(Session.id.desc()).first()
    assert post_form(client, f"/me/sessions/{phone_session.id}/revoke",
                     page="/me/settings").status_code == 303
    assert phone.get("/me").status_code == 302 and client.get("/me").status_code == 200
    # Idle sessions end by themselves.
    clock.advance(days=15)
    assert client.get("/me").status_code == 302
