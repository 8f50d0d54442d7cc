"""The push doors: the public key, subscribing and unsubscribing a browser by API token, by
seat link and by session; bad bodies answered with a reason, never a 500."""

from __future__ import annotations

import base64
import os

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric import ec

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import Player
from pbem.core.matches.creation import create_match
from pbem.core.push.models import PushChoice, PushSubscription
from pbem.push.keys import make_key_if_missing
from tests.conftest import START, STRONG_KEY
from tests.support.players import csrf_from, sign_in

ANN, BEN = "ann@example.org", "ben@example.org"


def _subscription(name: str = "a") -> dict:
    raw = ec.generate_private_key(ec.SECP256R1()).public_key().public_bytes(
        serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    encode = lambda data: base64.urlsafe_b64encode(data).rstrip(b"=").decode()  # noqa: E731
    return {"endpoint": f"https://push.example.org/{name}",
            "keys": {"p256dh": encode(raw), "auth": encode(os.urandom(16))}}


def test_the_key_is_public_once_made(client, settings) -> None:
    missing = client.get("/api/push/key")
    assert missing.status_code == 404 and missing.content_type == "application/problem+json"
    make_key_if_missing(settings)
    key = client.get("/api/push/key").get_json()["key"]
    assert len(base64.urlsafe_b64decode(key + "=")) == 65  # an uncompressed P-256 point
    made = (settings.instance_path + "/vapid_private_key.pem")
    assert oct(os.stat(made).st_mode & 0o777) == "0o600"


def test_a_token_subscribes_and_unsubscribes_a_browser(client, settings) -> None:
    ann = Player.for_email(ANN, START)
    _, token = api_tokens.create(settings.secret_key, ann, "t", START, scopes=("account",))
    bearer = {"Authorization": f"Bearer {token}"}
    body = _subscription()
    made = client.post("/api/me/push", json=body, headers=bearer)
    assert made.status_code == 201 and made.get_json() == {"subscribed": True}
    assert client.post("/api/me/push", json=body, headers=bearer).status_code == 201
    assert PushSubscription.select().count() == 1  # the same endpoint again: replaced
    gone = client.delete("/api/me/push", json={"endpoint": body["endpoint"]}, headers=bearer)
    assert gone.status_code == 200 and PushSubscription.select().count() == 0
    again = client.delete("/api/me/push", json={"endpoint": body["endpoint"]}, headers=bearer)
    assert again.status_code == 404
    assert client.delete("/api/me/push", json={"endpoint": "http://0*"},
                         headers=bearer).status_code == 400
    for bad in ({"endpoint": "nope"}, [], {"endpoint": "https://x/1", "keys": {}},
                {**body, "endpoint": "https://["}, {**body, "endpoint": ""},
                {**body, "endpoint": "http://0*"},  # the API description's pattern refuses it
                {**body, "keys": {**body["keys"], "auth": body["keys"]["auth"][:-1] + "B"}}):
        refused = client.post("/api/me/push", json=bad, headers=bearer)
        assert refused.status_code == 400 and refused.content_type == "application/problem+json"
    assert client.post("/api/me/push", json=body).status_code == 401


def test_a_seat_link_subscribes_its_player(client) -> None:
    created = create_match("nim", [ANN, BEN], {}, STRONG_KEY, START)
    answer = client.post(f"/play/{created.tokens[1]}/push", json=_subscription("ben"))
    assert answer.status_code == 201
    assert PushSubscription.get().player.email == BEN
    assert client.post(f"/play/{created.tokens[1]}/push/remove",
                       json={"endpoint": "https://push.example.org/ben"}).status_code == 200
    assert client.post("/play/wrong/push", json=_subscription()).status_code == 404


def test_me_chooses_the_channel_per_kind_of_news(client, worker, smtp) -> None:
    sign_in(client, ANN, worker, smtp)
    page = client.get("/me")
    assert b"Follow your games" in page.data and b"Notify me on this device" in page.data
    token = csrf_from(page.data)
    subscribed = client.post("/me/push", json=_subscription(), headers={"X-CSRFToken": token})
    assert subscribed.status_code == 201
    saved = client.post("/me/push/channels",
                        data={"csrf_token": token, "turns": "push", "results": "mail"})
    assert saved.status_code == 303
    assert {(row.kind, row.channel) for row in PushChoice.select()} == {
        ("turns", "push"), ("results", "mail")}
    refused = client.post("/me/push/channels", data={"csrf_token": token, "turns": "pigeon"})
    assert refused.status_code == 400
