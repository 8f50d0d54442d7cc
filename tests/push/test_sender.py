"""Web push against a local push service: a small HTTP server standing in for a browser
maker's, which checks each push's VAPID signature (RFC 8292), its Urgency, Topic and TTL,
decrypts the body with the subscription's own keys (RFC 8291, `http_ece`), and answers 201,
or 410 for a subscription the browser dropped (which pbem then forgets). Also: which channel
tells a turn, and a turn mail dropped when the push was opened."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature

from pbem.config import Settings
from pbem.core.accounts.models import Player
from pbem.core.mailout.models import OutboxMessage, WaitingTurn
from pbem.core.mailout.waiting import release_due
from pbem.core.matches.creation import create_match
from pbem.core.presence import seen
from pbem.core.push import channels, subscriptions
from pbem.core.push.models import PushMessage, PushStatus, PushSubscription
from pbem.push.keys import make_key_if_missing, public_key
from pbem.push.sender import deliver_due
from tests.conftest import START, free_port

ANN, BEN = "ann@example.org", "ben@example.org"
AWAY = timedelta(seconds=300)


@dataclass
class PushService:
    """What the stand-in push service received, and how it answers each endpoint."""

    base: str
    received: list[dict[str, Any]] = field(default_factory=list)
    answers: dict[str, int] = field(default_factory=dict)


@pytest.fixture
def service() -> Iterator[PushService]:
    port = free_port()
    got = PushService(f"http://127.0.0.1:{port}")

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers["Content-Length"]))
            # Header names are case-insensitive (pywebpush sends them in lower case).
            got.received.append({"path": self.path, "body": body, "headers": {
                name.lower(): value for name, value in self.headers.items()}})
            self.send_response(got.answers.get(self.path, 201))
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", port), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield got
    server.shutdown()
    server.server_close()


@dataclass(frozen=True)
class Browser:
    """A browser's side of a subscription: its key pair and auth secret."""

    private_key: ec.EllipticCurvePrivateKey
    auth: bytes
    endpoint: str

    def subscription(self) -> dict[str, Any]:
        raw = self.private_key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        return {"endpoint": self.endpoint, "keys": {"p256dh": _b64(raw), "auth": _b64(self.auth)}}


def _browser(service: PushService, name: str) -> Browser:
    return Browser(ec.generate_private_key(ec.SECP256R1()), os.urandom(16),
                   f"{service.base}/push/{name}")


@pytest.fixture
def push_settings(settings: Settings) -> Settings:
    make_key_if_missing(settings)
    return settings


def _subscribe(email: str, browser: Browser) -> Player:
    player = Player.for_email(email, START)
    subscriptions.subscribe(player, browser.subscription(), START)
    return player


def _check_vapid(request: dict[str, Any], service: PushService, settings: Settings) -> None:
    scheme, _space, rest = request["headers"]["authorization"].partition(" ")
    assert scheme == "vapid"
    parts = dict(item.strip().split("=", 1) for item in rest.split(","))
    assert parts["k"] == public_key(settings)  # signed with the key browsers subscribed with
    header, claims, signature = parts["t"].split(".")
    key = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), _unb64(parts["k"]))
    raw = _unb64(signature)
    key.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"),
                                    int.from_bytes(raw[32:], "big")),
               f"{header}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    assert json.loads(_unb64(header))["alg"] == "ES256"
    said = json.loads(_unb64(claims))
    assert said["aud"] == service.base and said["sub"] == "mailto:pbem@pbem.test"
    assert time.time() < said["exp"] <= time.time() + 24 * 3600


def _decrypt(request: dict[str, Any], browser: Browser) -> dict[str, Any]:
    assert request["headers"]["content-encoding"] == "aes128gcm"
    plain = http_ece.decrypt(request["body"], private_key=browser.private_key,
                             auth_secret=browser.auth, version="aes128gcm")
    return json.loads(plain)


def test_a_turn_is_pushed_encrypted_and_signed_and_a_410_forgets_the_browser(
        db_url: str, push_settings: Settings, service: PushService) -> None:
    phone, old_laptop = _browser(service, "phone"), _browser(service, "laptop")
    _subscribe(ANN, phone)
    _subscribe(ANN, old_laptop)
    service.answers["/push/laptop"] = 410
    created = create_match("nim", [ANN, BEN], {}, push_settings.secret_key, START)
    assert PushMessage.select().count() == 2  # one per browser
    report = deliver_due(push_settings, START)
    assert (report.sent, report.gone) == (1, 1)
    phone_push = next(r for r in service.received if r["path"] == "/push/phone")
    _check_vapid(phone_push, service, push_settings)
    headers = phone_push["headers"]
    assert headers["urgency"] == "high" and headers["ttl"] == "86400"
    assert headers["topic"] == f"m{created.match.id}s0"
    said = _decrypt(phone_push, phone)
    assert said["title"] == f"Your turn: Nim (test game) #{created.match.id}"
    assert said["url"] == f"http://pbem.test/play/{created.tokens[0]}"
    assert [row.endpoint for row in PushSubscription.select()] == [phone.endpoint]
    assert deliver_due(push_settings, START + timedelta(minutes=5)).sent == 0  # once only
    assert PushMessage.get().status == PushStatus.SENT


def test_a_push_service_down_is_retried_and_sent_once(
        db_url: str, push_settings: Settings, service: PushService) -> None:
    phone = _browser(service, "phone")
    _subscribe(ANN, phone)
    service.answers["/push/phone"] = 503
    create_match("nim", [ANN, BEN], {}, push_settings.secret_key, START)
    assert deliver_due(push_settings, START).retrying == 1
    assert deliver_due(push_settings, START + timedelta(seconds=30)).sent == 0  # backing off
    del service.answers["/push/phone"]
    assert deliver_due(push_settings, START + timedelta(minutes=2)).sent == 1
    assert len(service.received) == 2  # the refused one and the one taken


def test_with_both_an_opened_push_cancels_the_turn_mail(
        db_url: str, push_settings: Settings, service: PushService) -> None:
    seen.forget_written()
    _subscribe(ANN, _browser(service, "phone"))
    first = create_match("nim", [ANN, BEN], {}, push_settings.secret_key, START).match.id
    second = create_match("nim", [ANN, BEN], {}, push_settings.secret_key, START).match.id
    turn_mails = OutboxMessage.select().where(OutboxMessage.template == "your_turn",
                                              OutboxMessage.seat == 0)
    assert turn_mails.count() == 0 and WaitingTurn.select().count() == 2
    seen.mark_seen(first, 0, START + timedelta(seconds=40))  # she opened the first one's push
    assert release_due(START + AWAY) == 1
    assert [mail.match_id for mail in turn_mails] == [second]


def test_push_only_sends_no_mail_and_no_browser_means_mail(
        db_url: str, push_settings: Settings, service: PushService) -> None:
    ann = _subscribe(ANN, _browser(service, "phone"))
    channels.choose(ann.id, "turns", channels.PUSH)
    create_match("nim", [ANN, BEN], {}, push_settings.secret_key, START)
    assert PushMessage.select().count() == 1
    assert WaitingTurn.select().count() == 0
    assert not OutboxMessage.select().where(OutboxMessage.template == "your_turn").exists()
    create_match("nim", [BEN, ANN], {}, push_settings.secret_key, START)  # Ben: no browser
    assert OutboxMessage.select().where(OutboxMessage.template == "your_turn").count() == 1


def test_a_bad_subscription_is_refused_with_a_reason(db_url: str) -> None:
    from pbem.errors import InvalidRequestError

    player = Player.for_email(ANN, START)
    for bad in (None, {"endpoint": "ftp://x"}, {"endpoint": "https://push.example/1"},
                {"endpoint": "https://push.example/1", "keys": {"p256dh": "abc", "auth": "x"}}):
        with pytest.raises(InvalidRequestError):
            subscriptions.subscribe(player, bad, START)
    assert PushSubscription.select().count() == 0


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode()


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))
