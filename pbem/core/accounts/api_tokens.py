"""Personal API tokens: random, named, revocable; sent as `Authorization: Bearer <token>`.

Only the token's HMAC under the API-token key is stored; the token is shown once, when made.
Each token has scopes, chosen when it is made, so a script that only reads cannot play:

- `read`: the player's own matches, challenges and seeks (`GET /api/...`);
- `play`: challenge, accept, seek, rematch, and the seat links of `GET /api/me` (each is a key
  to a seat, so a read-only token never sees them);
- `account`: the player's settings (`PUT /api/me/settings`).

A token never opens an HTML page: those are for a signed-in browser only.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets
from collections.abc import Iterable
from datetime import datetime, timedelta
from enum import StrEnum

from pbem.core.accounts.models import ApiToken, Player
from pbem.core.db.connection import note_if_possible
from pbem.core.db.prepared import Prepared
from pbem.errors import InvalidRequestError, NotFoundError
from pbem.i18n import _
from pbem.keys import Purpose, purpose_key

PREFIX = "pbem_"
MAX_TOKEN = 100
MAX_NAME = 60
MAX_TOKENS = 20
TOUCH_EVERY = timedelta(minutes=5)


class Scope(StrEnum):
    READ = "read"
    PLAY = "play"
    ACCOUNT = "account"


def parse_scopes(chosen: Iterable[str]) -> tuple[Scope, ...]:
    """The scopes named (in a fixed order), or InvalidRequestError naming the unknown ones."""
    names = {name.strip().lower() for name in chosen if name.strip()}
    unknown = sorted(names - set(Scope))
    if unknown:
        raise InvalidRequestError(_("Unknown token scope(s): %(unknown)s (known: %(known)s).",
                                    unknown=", ".join(unknown), known=", ".join(Scope)))
    if not names:
        raise InvalidRequestError(_("Choose what the token may do: read, play, account."))
    return tuple(scope for scope in Scope if scope in names)


def token_hash(secret_key: str, token: str) -> str:
    key = purpose_key(secret_key, Purpose.API_TOKEN)
    return hmac.new(key, token.encode(), hashlib.sha256).hexdigest()


def create(secret_key: str, player: Player, name: str, now: datetime,
           scopes: Iterable[str] = (Scope.READ,)) -> tuple[ApiToken, str]:
    """Make a token; return its row and the token itself (to show once)."""
    chosen = parse_scopes(scopes)
    name = " ".join((name or "").split())
    if not name:
        raise InvalidRequestError(_("Give the token a name, so you know later what uses it."))
    if len(name) > MAX_NAME:
        raise InvalidRequestError(_("A token's name has at most %(max)s characters.",
                                    max=MAX_NAME))
    if ApiToken.select().where(ApiToken.player == player).count() >= MAX_TOKENS:
        raise InvalidRequestError(_("You have %(max)s tokens already; revoke one first.",
                                    max=MAX_TOKENS))
    token = PREFIX + secrets.token_urlsafe(32)
    row = ApiToken.create(player=player, name=name, token_hash=token_hash(secret_key, token),
                          created_at=now, scopes=" ".join(chosen))
    return row, token


def scopes_of(row: ApiToken) -> frozenset[str]:
    return frozenset(row.scopes.split())


def token_for(secret_key: str, token: str, now: datetime) -> ApiToken | None:
    """The token's row (its player joined), or None for an unknown or malformed token."""
    if not token or len(token) > MAX_TOKEN or not token.startswith(PREFIX):
        return None
    row = _TOKEN.first(token_hash(secret_key, token))
    if row is None:
        return None
    if row.last_used_at is None or now - row.last_used_at >= TOUCH_EVERY:
        note_if_possible(ApiToken.update(last_used_at=now).where(ApiToken.id == row.id)
                         .execute, "an API token's use")
    return row


# Read on every API request with a token (a client polling its matches): compiled once.
_TOKEN = Prepared(lambda digest: ApiToken.select(ApiToken, Player).join(Player)
                  .where(ApiToken.token_hash == digest))


def player_for(secret_key: str, token: str, now: datetime) -> Player | None:
    row = token_for(secret_key, token, now)
    return row.player if row is not None else None


def tokens_of(player: Player) -> list[ApiToken]:
    return list(ApiToken.select().where(ApiToken.player == player).order_by(ApiToken.id))


def revoke(player: Player, token_id: int) -> None:
    if not ApiToken.delete().where(ApiToken.id == token_id, ApiToken.player == player).execute():
        raise NotFoundError(_("There is no such token (it may be revoked already)."))
