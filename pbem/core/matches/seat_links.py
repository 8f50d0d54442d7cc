"""Private seat links.

A seat's token is HMAC-SHA256(seat-link key, match, seat, generation), 32 bytes in URL-safe
base64: as unguessable as `secrets.token_urlsafe(32)`, but derivable, so every later email can
carry the link without the database ever holding it. The seat-link key is derived from the
secret key for this purpose only (`pbem/keys.py`). Only its SHA-256 is stored, for lookup.
Re-issuing bumps the generation, which revokes the old link. Changing the secret key revokes
every link (say so before rotating it).

A seat's reply key (the part of its reply-by-email address after the dot) is made the same way
under its own purpose key, so reissuing the link revokes the reply address too. It reads
`<match>-<seat>-<mac>`: the lookup decodes match and seat and checks the MAC against the seat's
current generation, so nothing usable is stored. The MAC is 128 bits of base32 in lower case,
because some mail servers change the case of local parts.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import re
from typing import NamedTuple, TypeVar

from pbem.core.accounts.models import Player
from pbem.core.db.prepared import Prepared
from pbem.core.matches.models import Match, Seat
from pbem.errors import NotFoundError
from pbem.i18n import _
from pbem.keys import Purpose, purpose_key

MAX_TOKEN_LENGTH = 100
REPLY_MAC_CHARS = 26  # 130 bits of base32
T = TypeVar("T")
_REPLY_KEY = re.compile(rf"([0-9]{{1,12}})-([0-9]{{1,2}})-([a-z2-7]{{{REPLY_MAC_CHARS}}})")


def seat_token(secret_key: str, match_id: int, seat: int, generation: int) -> str:
    message = f"pbem-seat-link:{match_id}:{seat}:{generation}".encode()
    digest = hmac.digest(purpose_key(secret_key, Purpose.SEAT_LINK), message, "sha256")
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
    return _found(_SEAT_BY_TOKEN.first(_lookup_hash(token)))


def _lookup_hash(token: str) -> str:
    """What a seat is looked up by: the hash of a token that may be one."""
    if not token or len(token) > MAX_TOKEN_LENGTH:
        raise NotFoundError(_("This link is not valid. Check that you copied it whole."))
    return token_hash(token)


def _found(found: T | None) -> T:
    if found is None:
        raise NotFoundError(_("This link is not valid (or was replaced by a newer one)."))
    return found


class SeatRef(NamedTuple):
    """Which seat a token opens, and no more: what a change through the door needs (the door
    reads the match and its seats itself, under its locks)."""

    match_id: int
    seat: int


def seat_ref_for_token(token: str) -> SeatRef:
    """The match and seat number a link token opens, read from the seat row alone;
    NotFoundError as `seat_for_token`."""
    return SeatRef(*_found(_REF_BY_TOKEN.first(_lookup_hash(token))))


_REF_BY_TOKEN = Prepared(lambda digest: Seat.select(Seat.match, Seat.seat)
                         .where(Seat.token_hash == digest).limit(1).tuples())


def seat_and_table(token: str) -> tuple[Seat, list[Seat]]:
    """The seat a link token opens and all its match's seat rows (with their players, in seat
    order, the opened seat among them), in one round trip: a seat's page and record need
    both. NotFoundError as `seat_for_token`."""
    digest = _lookup_hash(token)
    table = _TABLE_BY_TOKEN.rows(digest)
    seat = _found(next((row for row in table if row.token_hash == digest), None))
    return seat, table


_OPENED = Seat.alias()
# Every seat row carries the match's columns: all hold one match object, the first row's (and
# a player seated twice, the computer at one level in two seats, is one row too).
_TABLE_BY_TOKEN = Prepared(lambda digest: Seat.select(Seat, Match, Player).join(Match)
                           .switch(Seat).join(Player)
                           .where(Seat.match.in_(_OPENED.select(_OPENED.match)
                                                 .where(_OPENED.token_hash == digest)))
                           .order_by(Seat.seat), share_joined=True)
_SEAT_BY_TOKEN = Prepared(lambda digest: Seat.select(Seat, Match, Player).join(Match)
                          .switch(Seat).join(Player).where(Seat.token_hash == digest).limit(1))


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
def reply_key(secret_key: str, match_id: int, seat: int, generation: int) -> str:
    message = f"pbem-reply:{match_id}:{seat}:{generation}".encode()
    digest = hmac.digest(purpose_key(secret_key, Purpose.REPLY_KEY), message, "sha256")
    mac = base64.b32encode(digest).decode().lower()[:REPLY_MAC_CHARS]
    return f"{match_id}-{seat}-{mac}"


def reply_key_for(secret_key: str, seat: Seat) -> str:
    return reply_key(secret_key, seat.match_id, seat.seat, seat.token_generation)


def seat_for_reply_key(secret_key: str, key: str) -> Seat | None:
    """The seat a reply key opens, or None for a malformed, forged or revoked key."""
    found = _REPLY_KEY.fullmatch(key.strip().lower())
    if found is None:
        return None
    match_id, seat_number = int(found.group(1)), int(found.group(2))
    seat = (Seat.select(Seat, Match, Player).join(Match).switch(Seat).join(Player)
            .where(Seat.match == match_id, Seat.seat == seat_number).first())
    if seat is None:
        return None
    expected = reply_key_for(secret_key, seat)
    return seat if hmac.compare_digest(expected, found.group(0)) else None
