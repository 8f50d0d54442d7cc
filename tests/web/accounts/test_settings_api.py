"""PUT /api/me/settings: a player sets their mail preferences with a Bearer token; bad bodies
get a problem+json 400 and change nothing. Signing in clears an undeliverable mark."""

from __future__ import annotations

from pbem.core.accounts import api_tokens
from pbem.core.accounts.models import Player
from pbem.core.accounts.players import mark_undeliverable
from tests.conftest import START

ANN = "ann@example.org"


def bearer(settings) -> dict[str, str]:
    _, token = api_tokens.create(settings.secret_key, Player.for_email(ANN, START), "tests",
                                 START, scopes=("read", "play", "account"))
    return {"Authorization": f"Bearer {token}"}


def test_a_player_sets_mail_preferences_through_the_api(settings, client) -> None:
    headers = bearer(settings)
    reply = client.put("/api/me/settings", headers=headers,
                       json={"mail_pref": "digest", "digest_hour": 7, "timezone": "Asia/Tokyo"})
    assert reply.status_code == 200
    assert reply.get_json() == {"mail_pref": "digest", "digest_hour": 7,
                                "timezone": "Asia/Tokyo", "language": None,
                                "next_digest_at": reply.get_json()["next_digest_at"]}
    ann = Player.get(Player.email == ANN)
    assert (ann.mail_pref, ann.digest_hour, ann.timezone) == ("digest", 7, "Asia/Tokyo")
    assert ann.digest_due_at is not None
    for bad, status in (({"mail_pref": "sometimes"}, 400), ({"digest_hour": 25}, 400),
                        ({"digest_hour": "7"}, 400), ({"colour": "red"}, 400), ([], 400),
                        # a well-formed zone name that names no zone: unprocessable
                        ({"timezone": "Mars/Base"}, 422)):
        refused = client.put("/api/me/settings", headers=headers, json=bad)
        assert refused.status_code == status, bad
        assert refused.mimetype == "application/problem+json"
    assert Player.get(Player.email == ANN).mail_pref == "digest"
    assert client.put("/api/me/settings", json={"mail_pref": "off"}).status_code == 401


def test_signing_in_clears_an_undeliverable_address(settings, worker, smtp) -> None:
    from pbem.core.accounts.signin import redeem
    from pbem.core.mailout.accounts import request_sign_in_link
    from tests.support.players import last_mail, link_in

    Player.for_email(ANN, START)
    mark_undeliverable(ANN, "550 no such mailbox", START)
    assert Player.get(Player.email == ANN).undeliverable_at == START
    request_sign_in_link(settings, ANN, "tests", START)
    worker.send_outbox()
    token = link_in(last_mail(smtp, ANN), "/signin/").split("/signin/", 1)[1]
    redeem(token, START)
    assert Player.get(Player.email == ANN).undeliverable_at is None
