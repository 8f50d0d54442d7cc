"""Signing in by an emailed one-time link.

The link's token is HMAC(sign-in key, row id, a random nonce): the mail layer derives it at
send time, the table keeps only its hash, and a stolen database copy opens nothing. The mail
that carries it is queued by `mailout/accounts.py` (`request_sign_in_link`). A link lives 30
minutes and works once; opening it (GET) only shows a button, because mail scanners open
every link, and the POST redeems it. Anyone may ask for a link to any address (that is
how new players arrive), so the answer never says whether the address is known.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
from datetime import datetime, timedelta
from typing import Protocol

from pbem.core.accounts.limits import Limit, release
from pbem.core.accounts.models import Player, SignInLink
from pbem.core.accounts.players import clear_undeliverable
from pbem.errors import NotFoundError
from pbem.i18n import N_, _
from pbem.keys import Purpose, purpose_key

LIFETIME = timedelta(minutes=30)
MAX_TOKEN = 100


class SignInPolicy(Protocol):
    """What signing in needs of the server's settings (the adapters pass `Settings`)."""

    @property
    def secret_key(self) -> str: ...
    @property
    def rate_window_minutes(self) -> int: ...
    @property
    def signin_mails_per_address(self) -> int: ...
    @property
    def signin_mails_per_client(self) -> int: ...


def derived_token(secret_key: str, kind: str, row_id: int, nonce: str) -> str:
    """A link token for a row (sign-in links, invitations) under the sign-in key."""
    key = purpose_key(secret_key, Purpose.SIGN_IN)
    digest = hmac.new(key, f"{kind}:{row_id}:{nonce}".encode(), hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def link_token(secret_key: str, link: SignInLink) -> str:
    return derived_token(secret_key, "sign-in", link.id, link.nonce)


def mail_limits(settings: SignInPolicy) -> tuple[Limit, Limit]:
    window = timedelta(minutes=settings.rate_window_minutes)
    return (Limit("signin-address", settings.signin_mails_per_address, window,
                  N_("sign-in emails to this address")),
            Limit("signin-client", settings.signin_mails_per_client, window,
                  N_("sign-in emails from your connection")))


def count_mail(settings: SignInPolicy, address: str, client: str, now: datetime) -> None:
    """Count one more sign-in mail to `address` asked from `client`, or refuse it
    (LimitReachedError) and count nothing."""
    per_address, per_client = mail_limits(settings)
    counted = per_address.reserve([f"address:{address}"], now)
    try:
        per_client.reserve([f"client:{client}"], now)
    except Exception:
        release(counted)
        raise


def new_link(secret_key: str, address: str, now: datetime) -> SignInLink:
    """A new link for `address`, stored by its token's hash only; the caller's transaction
    queues the mail that carries it (`mailout/accounts.py`), so a link is never without one."""
    nonce = secrets.token_hex(16)
    link = SignInLink.create(email=address, nonce=nonce, token_hash=secrets.token_hex(32),
                             created_at=now, expires_at=now + LIFETIME)
    link.token_hash = token_hash(link_token(secret_key, link))
    link.save()
    return link


def usable_link(token: str, now: datetime) -> SignInLink:
    """The link a token names, if it can still be used (for the GET page)."""
    link = _find(token)
    if link.used_at is not None or link.expires_at <= now:
        raise NotFoundError(_(_SPENT))
    return link


def redeem(token: str, now: datetime) -> Player:
    """Use the link once: exactly one of several racing POSTs signs in."""
    link = _find(token)
    used = (SignInLink.update(used_at=now)
            .where(SignInLink.id == link.id, SignInLink.used_at.is_null(),
                   SignInLink.expires_at > now).execute())
    if used != 1:
        raise NotFoundError(_(_SPENT))
    player = Player.for_email(link.email, now)
    # The link came through: the address works again, whatever bounced before.
    clear_undeliverable(player.id)
    return player


def prune(now: datetime) -> int:
    return SignInLink.delete().where(SignInLink.expires_at <= now - timedelta(days=1)).execute()


_SPENT = N_("This sign-in link has been used already or has expired. Ask for a new one.")


def _find(token: str) -> SignInLink:
    if not token or len(token) > MAX_TOKEN:
        raise NotFoundError(_(_SPENT))
    link = SignInLink.get_or_none(SignInLink.token_hash == token_hash(token))
    if link is None:
        raise NotFoundError(_(_SPENT))
    return link
