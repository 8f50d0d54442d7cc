"""A browser's push subscription: kept per player, replaced by its endpoint, forgotten when
the push service says it is gone (404 or 410) or the player turns push off."""

from __future__ import annotations

import base64
import binascii
import hashlib
from datetime import datetime
from typing import Any
from urllib.parse import urlsplit

from pbem.core.accounts.models import Player
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.push.models import PushSubscription
from pbem.errors import InvalidRequestError
from pbem.i18n import _

MAX_ENDPOINT = 1000
MAX_PER_PLAYER = 10  # browsers; the oldest goes when an eleventh subscribes


def subscribe(player: Player, subscription: Any, now: datetime) -> PushSubscription:
    """Keep the browser's subscription (`PushSubscription.toJSON()`) for `player`; the same
    endpoint subscribed again replaces its keys (and its player)."""
    endpoint, p256dh, auth = _checked(subscription)
    digest = _hash(endpoint)
    with write_transaction():
        PushSubscription.delete().where(PushSubscription.endpoint_hash == digest).execute()
        row = PushSubscription.create(player=player.id, endpoint=endpoint, endpoint_hash=digest,
                                      p256dh=p256dh, auth=auth, created_at=now)
        kept = [old.id for old in PushSubscription.select(PushSubscription.id)
                .where(PushSubscription.player == player.id)
                .order_by(PushSubscription.created_at.desc(), PushSubscription.id.desc())]
        if len(kept) > MAX_PER_PLAYER:
            PushSubscription.delete().where(
                PushSubscription.id.in_(kept[MAX_PER_PLAYER:])).execute()
    return row


def unsubscribe(player: Player, endpoint: Any) -> bool:
    """Forget the player's subscription at `endpoint`; False if there was none."""
    if not isinstance(endpoint, str) or not endpoint:
        raise InvalidRequestError(_('"endpoint" must be the subscription\'s endpoint URL'))
    return bool(PushSubscription.delete().where(
        PushSubscription.endpoint_hash == _hash(endpoint),
        PushSubscription.player == player.id).execute())


def forget(subscription_id: int) -> None:
    """The push service says the subscription is gone (404, 410): never push to it again."""
    PushSubscription.delete().where(PushSubscription.id == subscription_id).execute()


def has_subscription(player_id: int) -> bool:
    """Asked before every turn, reminder and result mail (`channels.channel_for`)."""
    return _ANY.first(player_id) is not None


def has_subscription_ahead(player_id: int) -> ReadAhead:
    return _ANY.ahead(player_id)


_ANY = Prepared(lambda player_id: PushSubscription.select(PushSubscription.id)
                .where(PushSubscription.player == player_id).limit(1).tuples())


def _checked(subscription: Any) -> tuple[str, str, str]:
    if not isinstance(subscription, dict):
        raise InvalidRequestError(_("Send the browser's push subscription as a JSON object "
                                    'with "endpoint" and "keys" ("p256dh", "auth").'))
    endpoint, keys = subscription.get("endpoint"), subscription.get("keys")
    if not isinstance(endpoint, str) or len(endpoint) > MAX_ENDPOINT:
        endpoint = ""
    try:
        parts = urlsplit(endpoint)
    except ValueError:  # "https://[" : not even a URL
        parts = urlsplit("")
    if parts.scheme not in ("https", "http") or not parts.netloc:
        raise InvalidRequestError(_('"endpoint" must be the push service\'s URL (https://…)'))
    if not isinstance(keys, dict):
        raise InvalidRequestError(_('"keys" must hold the subscription\'s "p256dh" and '
                                    '"auth" keys'))
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    # A P-256 public key, uncompressed (65 bytes), and a 16-byte secret, base64url-encoded.
    if _decoded_length(p256dh) != 65 or _decoded_length(auth) != 16:
        raise InvalidRequestError(_('"keys" must hold the subscription\'s "p256dh" (65 '
                                    'bytes) and "auth" (16 bytes) in base64url'))
    return endpoint, str(p256dh), str(auth)  # both checked as text by `_decoded_length`


def _decoded_length(value: Any) -> int:
    if not isinstance(value, str) or len(value) > 200:
        return -1
    try:
        return len(base64.urlsafe_b64decode(value + "=" * (-len(value) % 4)))
    except (binascii.Error, ValueError):
        return -1


def _hash(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode()).hexdigest()
