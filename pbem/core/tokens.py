"""Private seat links.

A seat's token is HMAC-SHA256(seat-link key, match, seat, generation), 32 bytes in URL-safe
base64: as unguessable as `secrets.token_urlsafe(32)`, but derivable, so every later email can
carry the link without the database ever holding it. The seat-link key is derived from the
secret key for this purpose only (`pbem.core.keys`). Only its SHA-256 is stored, for lookup.
Re-issuing bumps the generation, which revokes the old link. Changing the secret key revokes
every link (say so before rotating it).
"""

from __future__ import annotations

import base64
import hashlib
import hmac

from pbem.core.keys import Purpose, purpose_key
from pbem.core.models import Match, Player, Seat
from pbem.errors import NotFoundError

MAX_TOKEN_LENGTH = 100


def seat_token(secret_key: str, match_id: int, seat: int, generation: int) -> str:
    message = f"pbem-seat-link:{match_id}:{seat}:{generation}".encode()
    key = purpose_key(secret_key, Purpose.SEAT_LINK)
    digest = hmac.new(key, message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def token_for(secret_key: str, seat: Seat) -> str:
    """The seat's current link token, for an email."""
    token = seat_token(secret_key, seat.match_id, seat.seat, seat.token_generation)
    if seat.token_hash and token_hash(token) != seat.token_hash:
        # A link made before seat links had a key of their own (HMAC with the bare secret):
        # keep mailing it, so links already sent and links sent from now on both open the
        # seat, until a reissue moves it to the seat-link key.
        legacy = _legacy_seat_token(secret_key, seat.match_id, seat.seat, seat.token_generation)
        if token_hash(legacy) == seat.token_hash:
            return legacy
    return token


def seat_for_token(token: str) -> Seat:
    """The seat a link token opens; NotFoundError for a wrong, revoked or malformed token."""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise NotFoundError("This link is not valid. Check that you copied it whole.")
    seat = (Seat.select(Seat, Match, Player).join(Match).switch(Seat).join(Player)
            .where(Seat.token_hash == token_hash(token)).first())
    if seat is None:
        raise NotFoundError("This link is not valid (or was replaced by a newer one).")
    return seat


def reissue(secret_key: str, seat: Seat) -> str:
    """Revoke a seat's link and return the new token."""
    seat.token_generation += 1
    token = seat_token(secret_key, seat.match_id, seat.seat, seat.token_generation)
    seat.token_hash = token_hash(token)
    # Only the link columns: a whole-row save could undo a clock change made meanwhile.
    Seat.update(token_generation=seat.token_generation, token_hash=seat.token_hash).where(
        Seat.id == seat.id).execute()
    return token


def _legacy_seat_token(secret_key: str, match_id: int, seat: int, generation: int) -> str:
    message = f"pbem-seat-link:{match_id}:{seat}:{generation}".encode()
    digest = hmac.new(secret_key.encode(), message, hashlib.sha256).digest()
    return base64.urlsafe_b64encode(digest).rstrip(b"=").decode()
