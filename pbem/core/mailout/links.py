"""Signed links in mail that need no sign-in: mail preferences, one-click unsubscribe, and each
player's secret calendar feed.

Preference and unsubscribe links are stateless itsdangerous signatures of the player's id,
each under its own purpose key, so an unsubscribe link cannot open the preferences page. The
calendar link is an HMAC of the player's id and a generation that revoking bumps. Nothing here
is stored: a link is derived again whenever a mail or page shows it.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import hmac

from itsdangerous import BadSignature, URLSafeSerializer

from pbem.core.accounts.models import Player
from pbem.errors import NotFoundError
from pbem.i18n import _
from pbem.keys import Purpose, purpose_key

PREFERENCES = Purpose.MAIL_PREFERENCES
UNSUBSCRIBE = Purpose.UNSUBSCRIBE
CALENDAR = Purpose.CALENDAR_FEED
MAX_LINK_TOKEN = 200


def preferences_token(secret: str, player_id: int) -> str:
    return _signed_id(secret, PREFERENCES, player_id)


def unsubscribe_token(secret: str, player_id: int) -> str:
    return _signed_id(secret, UNSUBSCRIBE, player_id)


def player_for_preferences(secret: str, token: str) -> Player:
    return _player(_load(secret, PREFERENCES, token))


def player_for_unsubscribe(secret: str, token: str) -> Player:
    return _player(_load(secret, UNSUBSCRIBE, token))


def calendar_token(secret: str, player: Player) -> str:
    message = f"{player.id}:{player.calendar_generation}".encode()
    digest = hmac.new(purpose_key(secret, CALENDAR), message, hashlib.sha256).digest()
    return f"{player.id}-" + base64.urlsafe_b64encode(digest[:24]).decode()


def calendar_url(base_url: str, secret: str, player: Player) -> str:
    """The player's secret calendar feed (their deadlines as iCalendar), as the preferences
    page and `GET /api/me` show it."""
    return f"{base_url}/calendar/{calendar_token(secret, player)}.ics"


def player_for_calendar(secret: str, token: str) -> Player:
    """The player whose feed `token` opens; NotFoundError if wrong or revoked."""
    number, _dash, _rest = token.partition("-")
    wellformed = len(token) <= MAX_LINK_TOKEN and number.isascii() and number.isdigit() and (
        len(number) <= 18)
    player = Player.get_or_none(Player.id == int(number)) if wellformed else None
    if player is None or not hmac.compare_digest(
            token, calendar_token(secret, player)):
        raise NotFoundError(
            _("This calendar link is not valid (or was replaced by a new one)."))
    return player


def _signed_id(secret: str, purpose: Purpose, player_id: int) -> str:
    """`_serializer(secret, purpose).dumps(player_id)`, written out for the ids players have.

    Every mail signs two of these, and itsdangerous's general path (JSON, an attempt to
    compress, a signer built and its key derived each time) cost four times the signature.
    The token is the same (a test compares them): the id's JSON (its digits) in unpadded
    URL-safe base64, ".", then its HMAC-SHA1 under the signer's derived key, likewise
    encoded. Ids of ten digits or more, which itsdangerous may compress, take its own path.
    """
    if not 0 <= player_id < 10**9:
        return _serializer(secret, purpose).dumps(player_id)
    payload = base64.urlsafe_b64encode(str(player_id).encode()).rstrip(b"=")
    mac = hmac.digest(_signer_key(secret, purpose), payload, "sha1")
    return f"{payload.decode()}.{base64.urlsafe_b64encode(mac).rstrip(b'=').decode()}"


@functools.lru_cache(maxsize=16)
def _serializer(secret: str, purpose: Purpose) -> URLSafeSerializer:
    return URLSafeSerializer(purpose_key(secret, purpose), salt=purpose.value)


@functools.lru_cache(maxsize=16)
def _signer_key(secret: str, purpose: Purpose) -> bytes:
    return _serializer(secret, purpose).make_signer().derive_key()


def _load(secret: str, purpose: Purpose, token: str) -> int:
    if not token or len(token) > MAX_LINK_TOKEN:
        raise NotFoundError(_("This link is not valid. Check that you copied it whole."))
    try:
        value = _serializer(secret, purpose).loads(token)
    except BadSignature:
        raise NotFoundError(
            _("This link is not valid. Check that you copied it whole.")) from None
    if not isinstance(value, int):
        raise NotFoundError(_("This link is not valid."))
    return value


def _player(player_id: int) -> Player:
    player = Player.get_or_none(Player.id == player_id)
    if player is None:
        raise NotFoundError(_("This link is for a player who no longer exists."))
    return player
