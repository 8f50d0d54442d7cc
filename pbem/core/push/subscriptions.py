"""A browser's push subscription: kept per player, replaced by its endpoint, forgotten when
the push service says it is gone (404 or 410) or the player turns push off."""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Any

from pbem.core.accounts.models import Player
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.push.models import PushSubscription
from pbem.errors import InvalidRequestError
from pbem.i18n import _

MAX_ENDPOINT = 1000
# What a browser's `PushSubscription.toJSON()` holds, checked here and described by these same
# patterns in the API description (so the two cannot disagree): the push service's URL (plain
# ASCII), its P-256 public key (65 bytes uncompressed) and its secret (16 bytes), both
# base64url. 87 characters carry 65 bytes, 22 carry 16.
ENDPOINT_PATTERN = r"https?://[A-Za-z0-9.-]+(:[0-9]{1,5})?(/[!-~]*)?"
P256DH_PATTERN = r"[A-Za-z0-9_-]{86}[AEIMQUYcgkosw048]=?"
AUTH_PATTERN = r"[A-Za-z0-9_-]{21}[AQgw](==)?"
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
    endpoint = checked_endpoint(endpoint)
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
    endpoint, keys = checked_endpoint(subscription.get("endpoint")), subscription.get("keys")
    if not isinstance(keys, dict):
        raise InvalidRequestError(_('"keys" must hold the subscription\'s "p256dh" and '
                                    '"auth" keys'))
    p256dh, auth = keys.get("p256dh"), keys.get("auth")
    if not (_matches(P256DH_PATTERN, p256dh) and _matches(AUTH_PATTERN, auth)):
        raise InvalidRequestError(_('"keys" must hold the subscription\'s "p256dh" (65 '
                                    'bytes) and "auth" (16 bytes) in base64url'))
    return endpoint, str(p256dh), str(auth)


def checked_endpoint(endpoint: Any) -> str:
    """A push service's URL, as the API description's pattern says, else InvalidRequestError."""
    if not _matches(ENDPOINT_PATTERN, endpoint) or len(endpoint) > MAX_ENDPOINT:
        raise InvalidRequestError(_('"endpoint" must be the push service\'s URL (https://…)'))
    return str(endpoint)


def _matches(pattern: str, value: Any) -> bool:
    return isinstance(value, str) and re.fullmatch(pattern, value) is not None


def _hash(endpoint: str) -> str:
    return hashlib.sha256(endpoint.encode()).hexdigest()
