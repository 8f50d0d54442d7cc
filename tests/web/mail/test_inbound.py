"""Reply by email in the browser-facing pages: the dev mailbox's Reply form sends a real reply
through the pipeline, and the admin sees every inbound message."""

from __future__ import annotations

import re

from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match
from tests.conftest import SUPPORT_TEMPLATES, Clock, make_settings
from tests.mail.inbound_support import ALICE, start
from tests.web.admin.test_queue import log_in


def _dev_client(db_url, tmp_path):
    from pbem.core.db.connection import database
    from pbem.web import create_app

    settings = make_settings(db_url, tmp_path, development=True)
    app = create_app(settings, extra_template_dirs=(SUPPORT_TEMPLATES,), clock=Clock())
    app.config["TESTING"] = True
    database.connect(reuse_if_open=True)
    return app.test_client()


def _turn_mail_id() -> int:
    return (OutboxMessage.select().where(OutboxMessage.to_address == ALICE,
                                         OutboxMessage.template == "your_turn").get().id)


def test_the_dev_mailbox_replies_to_a_mail_through_the_real_pipeline(db_url, tmp_path) -> None:
    client = _dev_client(db_url, tmp_path)
    start()
    page = client.get(f"/dev/mail/{_turn_mail_id()}").get_data(as_text=True)
    assert "Reply-To" in page and re.search(r"play\.1-0-[a-z2-7]+@pbem\.test", page)
    assert 'name="body"' in page
    done = client.post(f"/dev/mail/{_turn_mail_id()}/reply", data={"body": "Take 2"},
                       follow_redirects=True)
    text = done.get_data(as_text=True)
    assert "Reply handled: moved (take 2); the answer is below." in text
    assert Match.get_by_id(1).ply == 1
    assert InboundMessage.get().via == "dev"
    # The confirmation is in the mailbox, threaded under the reply.
    answer = OutboxMessage.get(OutboxMessage.template == "inbound_answer")
    assert answer.to_address == ALICE and answer.params["parent"].startswith("<dev.")
    assert "Your move take 2 is played." in client.get(f"/dev/mail/{answer.id}").get_data(
        as_text=True)


def test_the_dev_mailbox_reply_from_another_address_is_refused(db_url, tmp_path) -> None:
    client = _dev_client(db_url, tmp_path)
    start()
    done = client.post(f"/dev/mail/{_turn_mail_id()}/reply",
                       data={"body": "take 2", "sender": "mallory@example.org"},
                       follow_redirects=True)
    assert "foreign sender" in done.get_data(as_text=True)
    assert Match.get_by_id(1).ply == 0


def test_the_admin_sees_every_inbound_message(db_url, tmp_path) -> None:
    client = _dev_client(db_url, tmp_path)
    start()
    client.post(f"/dev/mail/{_turn_mail_id()}/reply", data={"body": "take 9"})
    assert client.get("/admin/inbound").status_code == 302  # login first
    log_in(client)
    page = client.get("/admin/inbound").get_data(as_text=True)
    assert "alice@example.org" in page and "<code>take 9</code>" in page
    assert "refused: illegal: you cannot take 9" in page


def test_the_dev_mailbox_words_a_stale_reply_as_the_answer_mail_does(db_url, tmp_path) -> None:
    """A reply to an older mail is refused in mail's words, not the web page's ("since this
    page was loaded")."""
    client = _dev_client(db_url, tmp_path)
    start()
    first = _turn_mail_id()
    client.post(f"/dev/mail/{first}/reply", data={"body": "take 1"})
    done = client.post(f"/dev/mail/{first}/reply", data={"body": "take 1"},
                       follow_redirects=True)
    text = done.get_data(as_text=True)
    assert "Reply handled: refused (stale: it answers an older mail" in text
    assert "page was loaded" not in text
