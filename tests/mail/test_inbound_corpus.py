"""Replies as real mail clients write them (tests/mail/corpus/*.eml), each fed to `pbem
inbound` and to `POST /inbound/mime`: every one plays the move its writer typed.

The files hold placeholders for what differs per match (the reply address, the Message-IDs of
pbem's mail); the bodies are as the clients encode them, quoted-printable and base64 alike.
"""

from __future__ import annotations

import secrets
from pathlib import Path

import pytest

from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import OutboxMessage
from pbem.core.mailout.notify import thread_root_key
from pbem.core.matches.models import Match
from tests.mail.conftest import INBOUND_SECRET
from tests.mail.inbound_support import ALICE, as_sent, latest, start

CORPUS = Path(__file__).parent / "corpus"
# What each writer typed as their move (Nim: the pile starts at 9).
MOVES = {
    "android_gmail_top_posted.eml": "take 2",
    "apple_mail_top_posted.eml": "take 2",
    "french_outlook_latin1.eml": "take 2",
    "french_thunderbird_bottom_posted.eml": "take 2",
    "german_gmail_bottom_posted.eml": "take 3",
    "german_outlook_latin1.eml": "take 2",
    "gmail_bottom_posted.eml": "take 3",
    "gmail_html_only.eml": "take 2",
    "gmail_web_top_posted.eml": "take 2",
    "ios_mail_sent_from_iphone.eml": "take 2",
    "outlook_desktop_top_posted.eml": "take 2",
    "outlook_web_html_only.eml": "take 2",
    "thunderbird_bottom_posted.eml": "take 2",
    "yahoo_top_posted.eml": "take 2",
}


def test_the_corpus_is_all_here() -> None:
    assert sorted(path.name for path in CORPUS.glob("*.eml")) == sorted(MOVES)


def _filled(name: str, settings) -> tuple[Match, bytes, str]:
    match = start()
    mail = as_sent(settings, latest(ALICE))
    message_id = f"<corpus.{secrets.token_hex(6)}@mail.example.org>"
    values = {"FROM": ALICE, "TO": mail["Reply-To"], "MESSAGE_ID": message_id,
              "PARENT": mail["Message-ID"],
              "ROOT": f"<{thread_root_key(match, 0)}@{settings.mail_domain}>"}
    raw = (CORPUS / name).read_bytes()
    for key, value in values.items():
        raw = raw.replace(f"{{{{{key}}}}}".encode(), value.encode())
    return match, raw, message_id


def _assert_played(name: str, match: Match, message_id: str) -> None:
    match = Match.get_by_id(match.id)
    pile = 9 - int(MOVES[name].split()[1])
    assert match.ply == 1 and match.state["pile"] == pile, name
    record = InboundMessage.get(InboundMessage.match == match)
    assert (record.action, record.sender, record.seat) == ("moved", ALICE, 0)
    answer = latest(ALICE, "inbound_answer")
    assert answer.match_id == match.id
    assert answer.params["parent"] == message_id  # threads under the player's reply
    assert answer.params["answer"] == "moved" and answer.params["move"] == MOVES[name]


@pytest.mark.parametrize("name", sorted(MOVES))
def test_each_client_reply_plays_through_the_pipe_and_the_http_endpoint(
        name: str, mail_settings, pipe, inbound_client) -> None:
    match, raw, message_id = _filled(name, mail_settings)
    assert pipe(raw) == 0
    _assert_played(name, match, message_id)

    match, raw, message_id = _filled(name, mail_settings)
    response = inbound_client.post("/inbound/mime", data=raw, content_type="message/rfc822",
                                   headers={"Authorization": f"Bearer {INBOUND_SECRET}"})
    assert response.status_code == 200, response.get_data(as_text=True)
    assert response.get_json()["action"] == "moved"
    _assert_played(name, match, message_id)
    assert OutboxMessage.select().where(OutboxMessage.to_address != ALICE,
                                        OutboxMessage.template == "inbound_answer").count() == 0
