"""Personal API tokens: random, named, revocable; sent as `Authorization: Bearer <token>`.

Only the token's HMAC under the API-token key is stored; the token is shown once, when made.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from datetime import datetime, timedelta

from pbem.core.accounts.models import ApiToken, Player
from pbem.errors import InvalidRequestError, NotFoundError
from pbem.keys import Purpose, purpose_key

PREFIX = "pbem_"
MAX_TOKEN = 100
MAX_NAME = 60
MAX_TOKENS = 20
TOUCH_EVERY = timedelta(minutes=5)


def token_hash(secret_key: str, token: str) -> str:
    key = purpose_key(secret_key, Purpose.API_TOKEN)
    return hmac.new(key, token.encode(), hashlib.sha256).hexdigest()


def create(secret_key: str, player: Player, name: str, now: datetime) -> tuple[ApiToken, str]:
    """Make a token; return its row and the token itself (to show once)."""
    name = " ".join((name or "").split())
    if not name:
        raise InvalidRequestError("Give the token a name, so you know later what uses it.")
    if len(name) > MAX_NAME:
        raise InvalidRequestError(f"A token's name has at most {MAX_NAME} characters.")
    if ApiToken.select().where(ApiToken.player == player).count() >= MAX_TOKENS:
        raise InvalidRequestError(f"You have {MAX_TOKENS} tokens already; revoke one first.")
    token = PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.create(player=player, name=name, token_hash=token_hash(secret_key, token),
                          created_at=now)
    return row, token


def player_for(secret_key: str, token: str, now: datetime) -> Player | None:
    if not token or len(token) > MAX_TOKEN or not token.startswith(PREFIX):
        return None
    row = (ApiToken.select(ApiToken, Player).join(Player)
           .where(ApiToken.token_hash == token_hash(secret_key, token)).first())
    if row is None:
        return None
    if row.last_used_at is None or now - row.last_used_at >= TOUCH_EVERY:
        ApiToken.update(last_used_at=now).where(ApiToken.id == row.id).execute()
    return row.player


def tokens_of(player: Player) -> list[ApiToken]:
    return list(ApiToken.select().where(ApiToken.player == player).order_by(ApiToken.id))


def revoke(player: Player, token_id: int) -> None:
    if not ApiToken.delete().where(ApiToken.id == token_id, ApiToken.player == player).execute():
        raise NotFoundError("There is no such token (it may be revoked already).")
