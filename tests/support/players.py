"""Helpers for the player-facing tests: read links out of real mails, sign in through the
emailed link, fill CSRF tokens."""

from __future__ import annotations

import re
from email.message import EmailMessage

from tests.conftest import SMTPRecorder


def csrf_from(html: bytes) -> str:
    return re.search(rb'name="csrf_token" value="([^"]+)"', html).group(1).decode()


def text_of(message: EmailMessage) -> str:
    return message.get_body(("plain",)).get_content()


def link_in(message: EmailMessage, path: str) -> str:
    """The first link in a mail's text whose path starts with `path` (e.g. "/signin/")."""
    found = re.search(rf"https?://[^/\s]+({re.escape(path)}[^\s]*)", text_of(message))
    assert found, f"no {path} link in:\n{text_of(message)}"
    return found.group(1)


def last_mail(smtp: SMTPRecorder, address: str, subject_part: str = "") -> EmailMessage:
    mails = [m for m in smtp.to(address) if subject_part in m["Subject"]]
    assert mails, f"no mail to {address} about {subject_part!r}: " \
                  f"{[m['Subject'] for m in smtp.messages]}"
    return mails[-1]


def post_form(client, path: str, page: str | None = None, **data: str):
    """POST a form the way a browser does: with the CSRF token of the page it is on."""
    token = csrf_from(client.get(page or path).data)
    return client.post(path, data={"csrf_token": token, **data})


def sign_in(client, email: str, worker, smtp: SMTPRecorder, client_ip: str = "127.0.0.1"):
    """Ask for a link, let the worker mail it over SMTP, open it and press the button."""
    token = csrf_from(client.get("/signin").data)
    asked = client.post("/signin", data={"email": email, "csrf_token": token},
                        environ_base={"REMOTE_ADDR": client_ip})
    assert asked.status_code == 200, asked.data
    worker.run_once()
    path = link_in(last_mail(smtp, email.lower(), "sign-in"), "/signin/")
    page = client.get(path)
    assert page.status_code == 200
    return client.post(path, data={"csrf_token": csrf_from(page.data)})
