"""Admin sessions kept on the server: logout, a password change, a deleted admin and idle or
absolute expiry each end them, and a copied cookie then opens nothing. Failed logins are
throttled per client address, and per account only for browsers the admin never signed in
from, in the database, even under a burst."""

from __future__ import annotations

import threading

from pbem.core.accounts.admins import create_admin
from pbem.core.accounts.models import Admin, Attempt, Session
from tests.conftest import START
from tests.web.admin.test_queue import PASSWORD, csrf_from

EMAIL = "ref@club.org"


def log_in(client, email: str = EMAIL, password: str = PASSWORD, client_ip: str | None = None):
    token = csrf_from(client.get("/admin/login").data)
    environ = {"REMOTE_ADDR": client_ip} if client_ip else {}
    return client.post("/admin/login", data={"email": email, "password": password,
                                              "csrf_token": token}, environ_base=environ)


def copy_of(app, client):
    """A second browser holding a copy of the first one's admin cookie."""
    thief = app.test_client()
    thief.set_cookie("pbem_admin", client.get_cookie("pbem_admin").value)
    return thief


def test_a_copied_cookie_stops_working_after_logout(app, client) -> None:
    create_admin(EMAIL, PASSWORD, START)
    assert log_in(client).status_code == 303
    cookie = client.get_cookie("pbem_admin")
    assert cookie.http_only and cookie.secure and cookie.same_site == "Lax"
    # Only a hash is stored: the cookie's value is nowhere in the table.
    assert Session.select().where(Session.key_hash == cookie.value).count() == 0
    thief = copy_of(app, client)
    assert thief.get("/admin").status_code == 200
    token = csrf_from(client.get("/admin").data)
    assert client.post("/admin/logout", data={"csrf_token": token}).status_code == 303
    assert Session.select().count() == 0
    assert thief.get("/admin").headers["Location"].startswith("/admin/login")
    assert client.get("/admin").status_code == 302


def test_a_password_change_ends_every_session_of_that_admin_only(app, client) -> None:
    create_admin(EMAIL, PASSWORD, START)
    create_admin("other@club.org", PASSWORD, START)
    log_in(client)
    other = app.test_client()
    log_in(other, "other@club.org")
    thief = copy_of(app, client)
    create_admin(EMAIL, "a brand new password", START)
    assert thief.get("/admin").status_code == 302
    assert client.get("/admin").status_code == 302
    assert other.get("/admin").status_code == 200
    assert log_in(client, password="a brand new password").status_code == 303


def test_a_deleted_admins_session_stops_working(client) -> None:
    create_admin(EMAIL, PASSWORD, START)
    log_in(client)
    assert client.get("/admin").status_code == 200
    Admin.get(Admin.email == EMAIL).delete_instance()
    assert client.get("/admin").status_code == 302


def test_sessions_end_after_idle_time_and_at_their_absolute_expiry(client, clock) -> None:
    create_admin(EMAIL, PASSWORD, START)
    log_in(client)
    for _ in range(6):  # used every 13 days: never idle for 14, but 78 days in all
        clock.advance(days=13)
        assert client.get("/admin").status_code == 200
    clock.advance(days=13)  # 91 days after signing in: past the 90-day limit
    assert client.get("/admin").status_code == 302
    log_in(client)
    clock.advance(days=14, seconds=1)
    assert client.get("/admin").status_code == 302


def test_five_failures_from_one_client_hold_that_client_back_with_a_clear_message(
        client, clock) -> None:
    create_admin(EMAIL, PASSWORD, START)
    for _ in range(5):
        assert log_in(client, password="wrong", client_ip="10.0.0.1").status_code == 401
    # Even the right password waits, from that client.
    locked = log_in(client, client_ip="10.0.0.1")
    assert locked.status_code == 429
    assert b"Too many failed logins. Try again in 15 minutes." in locked.data
    clock.advance(minutes=10)
    assert b"Try again in 5 minutes." in log_in(client, client_ip="10.0.0.1").data
    clock.advance(minutes=5)
    assert log_in(client, client_ip="10.0.0.1").status_code == 303


def test_a_stranger_cannot_lock_an_admin_out_of_their_usual_browser(app, clock) -> None:
    """Before: five wrong passwords from anyone locked the account from every client for 15
    minutes. Now guesses spread over many addresses hold back only browsers the admin never
    signed in from; the admin's own browser (its device cookie) signs in throughout."""
    create_admin(EMAIL, PASSWORD, START)
    usual = app.test_client()
    assert log_in(usual, client_ip="198.51.100.4").status_code == 303
    device = usual.get_cookie("pbem_admin_device", path="/admin")
    assert device is not None and device.http_only
    token = csrf_from(usual.get("/admin").data)
    usual.post("/admin/logout", data={"csrf_token": token})
    stranger = app.test_client()
    answers = [log_in(stranger, password="wrong", client_ip=f"10.2.{n // 200}.{n % 200}")
               .status_code for n in range(60)]
    # 50 guesses are checked, then the account is held back for strangers.
    assert answers.count(401) == 50 and answers.count(429) == 10, answers
    refused = log_in(app.test_client(), client_ip="203.0.113.9")
    assert refused.status_code == 429
    assert b"browsers it never signed in from" in refused.data
    # The admin's usual browser is not a stranger, from its usual address or a new one.
    assert log_in(usual, client_ip="198.51.100.4").status_code == 303
    assert log_in(usual, client_ip="192.0.2.200").status_code == 303


def test_a_forged_or_foreign_device_cookie_counts_as_a_stranger(app) -> None:
    create_admin(EMAIL, PASSWORD, START)
    create_admin("other@club.org", PASSWORD, START)
    other = app.test_client()
    assert log_in(other, "other@club.org", client_ip="198.51.100.5").status_code == 303
    forged = app.test_client()
    forged.set_cookie("pbem_admin_device", "ref@club.org.forged", path="/admin")
    for n in range(50):
        assert log_in(app.test_client(), password="wrong",
                      client_ip=f"10.3.0.{n}").status_code == 401
    # other@'s cookie is for other@, not for ref@; a forged one is nobody's.
    assert log_in(other, client_ip="198.51.100.5").status_code == 429
    assert log_in(forged, client_ip="198.51.100.6").status_code == 429


def test_one_client_address_trying_many_accounts_is_throttled(client) -> None:
    create_admin(EMAIL, PASSWORD, START)
    for number in range(5):
        assert log_in(client, f"guess{number}@club.org", client_ip="192.0.2.7").status_code == 401
    refused = log_in(client, client_ip="192.0.2.7")
    assert refused.status_code == 429 and b"Too many failed logins" in refused.data
    assert log_in(client, client_ip="192.0.2.8").status_code == 303


def test_a_successful_login_does_not_count_as_a_failure(client) -> None:
    create_admin(EMAIL, PASSWORD, START)
    for _ in range(8):
        assert log_in(client).status_code == 303
    assert Attempt.select().count() == 0


def test_a_burst_of_wrong_passwords_from_one_client_lets_at_most_five_through(app) -> None:
    create_admin(EMAIL, PASSWORD, START)
    answers: list[int] = []
    barrier = threading.Barrier(12)

    def attempt(number: int) -> None:
        browser = app.test_client()
        token = csrf_from(browser.get("/admin/login").data)
        barrier.wait()
        reply = browser.post("/admin/login", data={"email": EMAIL, "password": "wrong",
                                                    "csrf_token": token},
                             environ_base={"REMOTE_ADDR": "10.1.0.1"})
        answers.append(reply.status_code)

    threads = [threading.Thread(target=attempt, args=(n,)) for n in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # Each request records its attempt before counting, so a burst may refuse even the first
    # five: never more than five wrong passwords are checked, and every answer is one of two.
    assert set(answers) <= {401, 429} and answers.count(401) <= 5, answers
    assert answers.count(429) >= 7
