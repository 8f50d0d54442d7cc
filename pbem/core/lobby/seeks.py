"""Open seeks: a signed-in player offers a game; anyone signed in may take a seat, and the
match starts when the seats are full.

Joining bumps the seek's `version` with a conditional update in one write transaction, and
the join that fills the last seat creates the match (`matches.create_match`) in that same
transaction: two players racing for the last seat get one seat and one "full", and a match
is either fully started or not at all.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

import peewee

from pbem.core.accounts.models import Player
from pbem.core.admin.players import check_may_challenge
from pbem.core.computer.tables import check_computers, seat_people_and_computers
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.db.retry import LostRace, retrying
from pbem.core.lobby.models import Seek, SeekEntry, SeekStatus
from pbem.core.lobby.policy import LobbyPolicy
from pbem.core.matches.clocks import TimeControl
from pbem.core.matches.creation import create_match
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.ratings import model
from pbem.core.ratings.queries import displayed, ratings_of, shown_for
from pbem.errors import ConflictError, InvalidRequestError, NotFoundError, UnprocessableError
from pbem.games import get_rules
from pbem.i18n import _


def create_seek(settings: LobbyPolicy, creator: Player, game: str, options: Mapping[str, Any],
                clock: str, players: Any, now: datetime,
                on_timeout: str = TimeoutPolicy.ADJUDICATE, rated: Any = True,
                rating_min: Any = None, rating_max: Any = None,
                computers: Any = None) -> Seek:
    """`players` counts every seat; `computers` lists the levels of the seats the computer
    fills (a mixed table), so `players - len(computers)` people take the others."""
    check_may_challenge(creator)
    if not isinstance(rated, bool):
        raise InvalidRequestError(_('"rated" is true or false.'))
    for bound in (rating_min, rating_max):
        if bound is not None and (isinstance(bound, bool) or not isinstance(bound, int)
                                  or not 0 <= bound <= 10_000):
            raise InvalidRequestError(_("A rating range is two whole numbers from 0 to 10000 "
                                        "(either may be left out)."))
    if rating_min is not None and rating_max is not None and rating_min > rating_max:
        raise UnprocessableError(_("The lowest rating of the range is above its highest."))
    if (rating_min is not None or rating_max is not None) and not rated:
        raise UnprocessableError(_("A rating range is for rated seeks only."))
    rules = get_rules(game)
    control = TimeControl.parse(clock)
    if on_timeout not in TimeoutPolicy.ALL:
        raise InvalidRequestError(_("%(given)s is not a timeout policy (one of: %(known)s)",
                                    given=repr(on_timeout),
                                    known=", ".join(TimeoutPolicy.ALL)))
    if isinstance(players, bool) or not isinstance(players, int):
        raise InvalidRequestError(_('"players" is the number of players, a whole number.'))
    rules.check_player_count(players)
    levels = check_computers(computers)
    if players - len(levels) < 2:
        raise UnprocessableError(_("A seek needs seats for at least two people; to play the "
                                   "computer alone, use Play the computer."))
    resolved = rules.resolve_options(options)
    mine = Seek.select().where(Seek.creator == creator, Seek.status == SeekStatus.OPEN).count()
    if mine >= settings.max_pending_challenges:
        raise ConflictError(_("You have %(count)s open seeks, the most allowed; cancel one "
                              "first.", count=mine))
    with write_transaction():
        seek = Seek.create(creator=creator, game=rules.slug, options=resolved,
                           time_control=str(control), on_timeout=on_timeout, players=players,
                           rated=rated, rating_min=rating_min, rating_max=rating_max,
                           computers=levels or None, status=SeekStatus.OPEN, created_at=now)
        SeekEntry.create(seek=seek, player=creator, joined_at=now)
    return seek


def join(settings: LobbyPolicy, seek_id: int, player: Player, now: datetime) -> Seek:
    """Take a seat; the join that fills the seek starts its match."""
    def once() -> Seek:
        with write_transaction():
            return _join_once(settings, seek_id, player, now)
    return retrying(once, _("Many players are joining this seek at once; try again."))


def cancel(seek_id: int, player: Player, now: datetime) -> Seek:
    with write_transaction():
        seek = _get(seek_id)
        if seek.creator_id != player.id:
            raise NotFoundError(_("There is no open seek %(seek)s of yours.", seek=seek_id))
        if seek.status != SeekStatus.OPEN:
            raise ConflictError(_closed(seek))
        changed = (Seek.update(status=SeekStatus.CANCELLED, version=Seek.version + 1)
                   .where(Seek.id == seek.id, Seek.version == seek.version).execute())
        if changed != 1:
            raise ConflictError(_("This seek changed meanwhile; reload and try again."))
    return Seek.get_by_id(seek_id)


def open_seeks(limit: int = 100, viewer: Player | None = None) -> list[Seek]:
    """Open seeks the viewer may join: one with a rating range shows only to players whose
    rating in its game is in it (and to its creator), never to someone signed out."""
    seeks = list(Seek.select(Seek, Player).join(Player).where(Seek.status == SeekStatus.OPEN)
                 .order_by(Seek.created_at.desc()).limit(limit))
    mine = {row.game: row.display for row in ratings_of(viewer.id).values()} if viewer else {}
    return [seek for seek in seeks if _fits(seek, viewer, mine.get(seek.game))]


def _fits(seek: Seek, viewer: Player | None, rating: int | None) -> bool:
    if seek.rating_min is None and seek.rating_max is None:
        return True
    if viewer is None:
        return False
    if viewer.id == seek.creator_id:
        return True
    value = rating if rating is not None else model.display(model.MU, model.SIGMA)
    return ((seek.rating_min is None or value >= seek.rating_min)
            and (seek.rating_max is None or value <= seek.rating_max))


def seeks_of(player: Player) -> list[Seek]:
    return _SEEKS_OF.rows(player.id)


def seeks_of_ahead(player: Player) -> ReadAhead:
    """`seeks_of`'s read, to send ahead (`pipeline.read_ahead`)."""
    return _SEEKS_OF.ahead(player.id)


# Read on every visit to a player's home page (/me): compiled once.
_SEEKS_OF = Prepared(lambda player_id: Seek.select().join(SeekEntry)
                     .where(SeekEntry.player == player_id, Seek.status == SeekStatus.OPEN)
                     .order_by(Seek.created_at.desc()))


def describe(seek: Seek, viewer: Player | None = None) -> dict[str, Any]:
    entries = list(SeekEntry.select(SeekEntry, Player).join(Player)
                   .where(SeekEntry.seek == seek).order_by(SeekEntry.id))
    shown = shown_for([entry.player_id for entry in entries], seek.game)
    return {
        "id": seek.id, "game": seek.game, "title": get_rules(seek.game).title,
        "options": seek.options, "clock": seek.time_control,
        "clock_text": TimeControl.parse(seek.time_control).describe(),
        "on_timeout": seek.on_timeout, "players": seek.players, "status": seek.status,
        "computers": list(seek.computers or []),
        "creator": seek.creator.public_name,
        "joined": [entry.player.public_name for entry in entries],
        "you_joined": viewer is not None and any(e.player_id == viewer.id for e in entries),
        "yours": viewer is not None and seek.creator_id == viewer.id,
        "match": seek.match_id,
        "created_at": seek.created_at.isoformat() + "Z",
        "rated": bool(seek.rated),
        "rating_range": ({"min": seek.rating_min, "max": seek.rating_max}
                         if seek.rating_min is not None or seek.rating_max is not None
                         else None),
        # Each seated player's rating in the game, as shown ("1000?" while provisional).
        "ratings": {entry.player.public_name: shown[entry.player_id] for entry in entries},
    }


def _join_once(settings: LobbyPolicy, seek_id: int, player: Player, now: datetime) -> Seek:
    seek = _get(seek_id)
    if seek.status != SeekStatus.OPEN:
        raise ConflictError(_closed(seek))
    entries = list(SeekEntry.select().where(SeekEntry.seek == seek).order_by(SeekEntry.id))
    if any(entry.player_id == player.id for entry in entries):
        raise ConflictError(_("You have a seat in this seek already."))
    if not _fits(seek, player, displayed(player.id, seek.game)):
        # Told as for a seek that is not there: players outside the range never see it.
        raise NotFoundError(_("There is no open seek %(seek)s for your rating.", seek=seek.id))
    changed = (Seek.update(version=Seek.version + 1)
               .where(Seek.id == seek.id, Seek.version == seek.version,
                      Seek.status == SeekStatus.OPEN).execute())
    if changed != 1:
        raise LostRace
    try:
        with write_transaction():  # a savepoint: a duplicate row must not end the transaction
            SeekEntry.create(seek=seek, player=player, joined_at=now)
    except peewee.IntegrityError:
        raise ConflictError(_("You have a seat in this seek already.")) from None
    if len(entries) + 1 == seek.players - len(seek.computers or []):
        ids = [entry.player_id for entry in entries] + [player.id]
        emails = [Player.get_by_id(player_id).email for player_id in ids]
        # Every seat drawn at random, the computer's (a mixed table) among them.
        emails, computers = seat_people_and_computers(emails, seek.computers or [],
                                                      shuffle=True)
        created = create_match(seek.game, emails, seek.options, settings.secret_key, now,
                               time_control=seek.time_control, on_timeout=seek.on_timeout,
                               rated=bool(seek.rated), computers=computers)
        Seek.update(status=SeekStatus.STARTED, match=created.match,
                    version=Seek.version + 1).where(Seek.id == seek.id).execute()
    return Seek.get_by_id(seek.id)


def _get(seek_id: int) -> Seek:
    seek = Seek.get_or_none(Seek.id == seek_id)
    if seek is None:
        raise NotFoundError(_("There is no seek %(seek)s.", seek=seek_id))
    return seek


def _closed(seek: Seek) -> str:
    if seek.status == SeekStatus.STARTED:
        return _("This seek is full: its match (%(match)s) has started.", match=seek.match_id)
    return _("This seek was cancelled.")
