"""A player's secret feed links: `/feeds/player/<token>/turns.atom` and `…/games.atom`.

The token is the player's id and an HMAC of their id and feed generation under the feed key,
as the calendar link is: nothing usable is stored, no password is in the address, and
replacing the links (a new generation) makes the old ones fail at once.
"""

from __future__ import annotations

import base64
import hashlib
import hmac
from datetime import timedelta

import peewee

from pbem.core.accounts.limits import Limit
from pbem.core.accounts.models import Player
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.feeds.models import FeedLink
from pbem.errors import NotFoundError
from pbem.i18n import N_, _
from pbem.keys import Purpose, purpose_key

MAX_TOKEN = 80


def feed_token(secret: str, player_id: int) -> str:
    return _token(secret, player_id, _generation(player_id))


def player_for_feed(secret: str, token: str) -> Player:
    """The player whose feeds `token` opens; NotFoundError if it is wrong or was replaced."""
    number, _dash, _rest = token.partition("-")
    wellformed = (len(token) <= MAX_TOKEN and number.isascii() and number.isdigit()
                  and len(number) <= 18)
    player = Player.get_or_none(Player.id == int(number)) if wellformed else None
    if player is None or not hmac.compare_digest(
            token.encode(), _token(secret, player.id, _generation(player.id)).encode()):
        raise NotFoundError(_("This feed link is not valid (or was replaced by a new one)."))
    return player


def replace_links(player_id: int) -> None:
    """Revoke the player's feed links: every one derived before stops working."""
    with write_transaction():
        bumped = (FeedLink.update(generation=FeedLink.generation + 1)
                  .where(FeedLink.player == player_id).execute())
        if not bumped:
            try:
                with write_transaction():  # a savepoint: a racing first replacement
                    FeedLink.insert(player=player_id, generation=1).execute()
            except peewee.IntegrityError:
                (FeedLink.update(generation=FeedLink.generation + 1)
                 .where(FeedLink.player == player_id).execute())


def links_ahead(player_id: int) -> list[ReadAhead]:
    """`feed_token`'s read, to send ahead with a page's others (`pipeline.read_ahead`)."""
    return [_GENERATION.ahead(player_id)]


def _generation(player_id: int) -> int:
    row = _GENERATION.first(player_id)
    return row[0] if row else 0


# /me and GET /api/me show the links on every read: one statement, sent with their others.
_GENERATION = Prepared(lambda player_id: FeedLink.select(FeedLink.generation)
                       .where(FeedLink.player == player_id).tuples())


def _token(secret: str, player_id: int, generation: int) -> str:
    message = f"{player_id}:{generation}".encode()
    digest = hmac.new(purpose_key(secret, Purpose.FEED), message, hashlib.sha256).digest()
    return f"{player_id}-" + base64.urlsafe_b64encode(digest[:24]).decode()


# A feed reader asks now and then; one asking more than once a minute on one link (a feed's
# answer changes at most with a move) is told to wait (429 with Retry-After).
FEED_LIMIT = Limit("feed", allowed=1, window=timedelta(minutes=1), what=N_("feed reads"))
