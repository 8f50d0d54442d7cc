"""Match chat: writing a message, reading a room, and who may do either.

Two rooms per match. The players' room is read and written through a seat (its page, its API,
its mails): only the match's seats ever see it, while the match runs and after it ends. The
spectators' room is for signed-in players who hold no seat in the match; the seats read it
only once the match is over (no help from the gallery while it runs).

A message is plain text: stored as typed (made storable by `cleaned`), escaped wherever it is
shown (Jinja's autoescape in pages and HTML mail; plain text mail and JSON carry it as text).
It is refused whole, with nothing stored, when too long, from a barred player, or over the
per-player rate limit (429 with the wait). A reader never sees a message from a player they
blocked, nor one an admin hid. Mail about a message is `mailout`'s (`mailout/chat.py`), which
reads this package, not the other way round.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any

from peewee import fn

from pbem.core.accounts.limits import Limit, release
from pbem.core.accounts.models import Player
from pbem.core.conversation.models import ChatMessage, ChatMute, PlayerBlock, Room
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared, ReadAhead, Shapes
from pbem.core.db.text import cleaned
from pbem.core.matches.models import Match, Move, Seat
from pbem.errors import NotFoundError, PbemError, UnprocessableError
from pbem.i18n import _

MAX_MESSAGE = 1000  # characters; a longer message is refused (422), not cut
PAGE_SIZE = 30
MAX_PAGE_SIZE = 100
# Per player, over every match and room: enough to talk, too few to flood anyone's inbox.
CHAT_LIMIT = Limit("chat", allowed=8, window=timedelta(minutes=1), what="chat messages")
# Control characters other than line breaks and tabs, zero-width spaces, and the direction
# overrides and isolates that make text display other than it reads (joiners stay: emoji and
# Persian need them).
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\u200b\u202a-\u202e\u2066-\u2069]")


class ChatBarredError(PbemError):
    status = 403


class Channel:
    WEB = "web"
    API = "api"
    MAIL = "mail"


@dataclass(frozen=True)
class Shown:
    """One message as a reader sees it."""

    id: int
    author: str
    seat: int | None
    text: str
    at: datetime
    ply: int
    mine: bool

    def as_json(self) -> dict[str, Any]:
        return {"id": self.id, "author": self.author, "seat": self.seat, "text": self.text,
                "at": self.at.isoformat() + "Z", "ply": self.ply, "mine": self.mine}


def clean_text(text: str | None, limit: int = MAX_MESSAGE, what: str = "message") -> str:
    """The text as it will be stored, or a 4xx saying why it cannot be: empty, or longer
    than `limit` (counted after trimming, so trailing blank lines never push it over)."""
    text = _CONTROL.sub("", (cleaned(text) or "").replace("\r\n", "\n").replace("\r", "\n"))
    text = "\n".join(line.rstrip() for line in text.strip().split("\n"))
    text = re.sub(r"\n{3,}", "\n\n", text)
    notes = what == "notes"  # the only other `what` (personal.save_notes)
    if not text:
        raise UnprocessableError(_("The notes is empty: write something first.") if notes else
                                 _("The message is empty: write something first."))
    if len(text) > limit:
        raise UnprocessableError(
            _("That notes is %(length)s characters long; the limit is %(limit)s. Nothing was "
              "posted: shorten it and send it again.", length=len(text), limit=limit) if notes
            else _("That message is %(length)s characters long; the limit is %(limit)s. "
                   "Nothing was posted: shorten it and send it again.", length=len(text),
                   limit=limit))
    return text


def post_as_seat(seat: Seat, text: str, now: datetime, via: str = Channel.WEB) -> ChatMessage:
    """Post `text` to the players' room as `seat`. Nobody is mailed here: the other seats
    are mailed it by `mailout/chat.py` (`post_and_mail`), or quoted by their turn mail when
    it came with a move."""
    match = Match.get_by_id(seat.match_id)
    return _post(match, seat.player, Room.PLAYERS, seat.seat, text, now, via)


def post_as_spectator(match_id: int, player: Player, text: str, now: datetime,
                      via: str = Channel.WEB) -> ChatMessage:
    """Post to the spectators' room: only for a signed-in player with no seat in the match."""
    match = _match(match_id)
    if is_seated(match.id, player.id):
        raise ChatBarredError(_("You play in this match: talk to your opponents from your own "
                                "page. The spectators' room is for those watching."))
    return _post(match, player, Room.SPECTATORS, None, text, now, via)


def _post(match: Match, author: Player, room: str, seat: int | None, text: str,
          now: datetime, via: str) -> ChatMessage:
    text = clean_text(text)
    if author.chat_barred_at is not None:
        raise ChatBarredError(_("An admin has barred you from the chat; you can still play."))
    reserved = CHAT_LIMIT.reserve([f"player:{author.id}"], now)
    try:
        with write_transaction():
            return ChatMessage.create(match=match.id, room=room, seat=seat, author=author.id,
                                      text=text, ply=match.ply, channel=via, created_at=now)
    except BaseException:
        release(reserved)
        raise


def withdraw(message: ChatMessage) -> None:
    """Take back a message posted ahead of a move by email that the move then failed (the
    reply is answered as a whole: nothing of it happened)."""
    with write_transaction():
        ChatMessage.delete().where(ChatMessage.id == message.id).execute()


def attach_to_ply(message: ChatMessage, ply: int) -> None:
    with write_transaction():
        ChatMessage.update(ply=ply).where(ChatMessage.id == message.id).execute()


def players_room(seat: Seat, before: int | None = None,
                 limit: int = PAGE_SIZE) -> tuple[list[Shown], int | None]:
    """A page of the players' room as `seat` sees it, newest first, and the id to pass as
    `before` for the next page (None on the last page)."""
    return _page(seat.match_id, Room.PLAYERS, seat.player_id, before, limit)


def spectators_room(match: Match, reader: Player | None, before: int | None = None,
                    limit: int = PAGE_SIZE) -> tuple[list[Shown], int | None]:
    if not may_read_spectators(match, reader):
        return [], None
    return _page(match.id, Room.SPECTATORS, reader.id if reader else None, before, limit)


def may_read_spectators(match: Match, reader: Player | None) -> bool:
    """Signed-in watchers read the spectators' room; the match's own players only after the
    end (while it runs, the gallery must not coach them)."""
    if reader is None:
        return False
    return not match.is_live or not is_seated(match.id, reader.id)


def is_seated(match_id: int, player_id: int) -> bool:
    return Seat.select().where(Seat.match == match_id, Seat.player == player_id).exists()


def players_room_ahead(seat: Seat, before: int | None = None,
                       limit: int = PAGE_SIZE) -> ReadAhead:
    """`players_room`'s read, to send ahead (`pipeline.read_ahead`)."""
    return _page_read(seat.match_id, Room.PLAYERS, seat.player_id, before, limit)


def _page_read(match_id: int, room: str, reader_id: int | None, before: int | None,
               limit: int) -> ReadAhead:
    return _PAGES(reader_id is not None, before is not None).ahead(
        match_id, str(room), _page_size(limit) + 1,
        *[value for value in (reader_id, before) if value is not None])


def _page_size(limit: int) -> int:
    return max(1, min(limit, MAX_PAGE_SIZE))


def _page(match_id: int, room: str, reader_id: int | None, before: int | None,
          limit: int) -> tuple[list[Shown], int | None]:
    rows = _page_read(match_id, room, reader_id, before, limit).rows()
    limit = _page_size(limit)
    more = len(rows) > limit
    rows = rows[:limit]
    shown = [_shown(row, reader_id) for row in rows]
    return shown, (rows[-1].id if more else None)


def _listing() -> Any:
    """Messages with their writers' names, only the columns shown, as plain rows: a page is
    read for every play page, and building full models took most of its time."""
    return (ChatMessage.select(ChatMessage.id, ChatMessage.seat, ChatMessage.text,
                               ChatMessage.created_at, ChatMessage.ply, ChatMessage.author,
                               Player.name, Player.email)
            .join(Player).namedtuples())


def _shown(row: Any, reader_id: int | None) -> Shown:
    author = row.name or row.email.split("@", 1)[0]  # as Player.public_name
    return Shown(row.id, author, row.seat, row.text, row.created_at, row.ply,
                 reader_id is not None and row.author == reader_id)


def _blocked_by(reader_id: int) -> Any:
    return PlayerBlock.select(PlayerBlock.blocked).where(PlayerBlock.player == reader_id)


def blocks(reader_id: int, author_id: int) -> bool:
    return PlayerBlock.select().where(PlayerBlock.player == reader_id,
                                      PlayerBlock.blocked == author_id).exists()


def is_muted(match_id: int, player_id: int) -> bool:
    return _MUTE.first(match_id, player_id) is not None


# The most messages a turn mail quotes (the latest ones; the play page has the rest).
QUOTED_AT_MOST = 10


def quoted_for(match_id: int, seat: int, player_id: int, ply: int,
               written: datetime) -> list[Shown]:
    """The players' messages a seat's turn mail quotes: those the other seats wrote since this
    seat's last move (or the start), up to the mail's own time, oldest first. Nothing from a
    player the reader blocked, nothing hidden, and nothing at all if they muted the match."""
    rows = _QUOTED.rows(match_id, str(Room.PLAYERS), seat, ply, written, player_id)
    return [_shown(row, player_id) for row in reversed(rows)]


def chatting(match_ids: Iterable[int]) -> set[int]:
    """Which of these matches have any message in the players' room (hidden ones too: the
    few they are do not matter), in one query: a batch of turn mails skips the quote of
    those that have none."""
    query: Any = (ChatMessage.select(ChatMessage.match)
                  .where(ChatMessage.match.in_(list(match_ids)),
                         ChatMessage.room == Room.PLAYERS)
                  .distinct().tuples())
    return {match_id for (match_id,) in query}


def message_for_mail(message_id: int, seat: Seat) -> Shown | None:
    """A chat mail's message, read when the mail is rendered: None if it is gone, hidden since,
    not from this seat's match, or from a player the reader blocked meanwhile."""
    row = (ChatMessage.select(ChatMessage, Player).join(Player)
           .where(ChatMessage.id == message_id).first())
    if (row is None or row.hidden_at is not None or row.match_id != seat.match_id
            or row.room != Room.PLAYERS or blocks(seat.player_id, row.author_id)):
        return None
    return Shown(row.id, row.author.public_name, row.seat, row.text, row.created_at, row.ply,
                 row.author_id == seat.player_id)


def _match(match_id: int) -> Match:
    match = Match.get_or_none(Match.id == match_id)
    if match is None:
        raise NotFoundError(_("There is no match %(id)s.", id=match_id))
    return match


def unread_counts(player_id: int, since: datetime, now: datetime) -> list[list[int]]:
    """For the daily digest: [match, seat, how many] for each of the player's matches where
    someone else wrote in the players' room in (since, now]; muted matches and blocked
    writers left out."""
    seats = {seat.match_id: seat.seat for seat in
             Seat.select(Seat.match, Seat.seat).where(Seat.player == player_id)}
    if not seats:
        return []
    muted = ChatMute.select(ChatMute.match).where(ChatMute.player == player_id)
    rows: Any = (ChatMessage.select(ChatMessage.match, fn.COUNT(ChatMessage.id).alias("n"))
            .where(ChatMessage.match.in_(list(seats)), ChatMessage.room == Room.PLAYERS,
                   ChatMessage.author != player_id, ChatMessage.hidden_at.is_null(),
                   ChatMessage.created_at > since, ChatMessage.created_at <= now,
                   ChatMessage.match.not_in(muted),
                   ChatMessage.author.not_in(_blocked_by(player_id)))
            .group_by(ChatMessage.match).order_by(ChatMessage.match).dicts())
    return [[row["match"], seats[row["match"]], int(row["n"])] for row in rows]


def _page_query(reader: bool, paged: bool) -> Prepared:
    """A page of a room (match, room, how many; then the reader, then `before`, when given),
    compiled once for each of the four shapes: a page is read for every play page."""
    def build(match_id: Any, room: Any, limit: Any, *rest: Any) -> Any:
        given = list(rest)
        query = (_listing()
                 .where(ChatMessage.match == match_id, ChatMessage.room == room,
                        ChatMessage.hidden_at.is_null()))
        if reader:
            query = query.where(ChatMessage.author.not_in(_blocked_by(given.pop(0))))
        if paged:
            query = query.where(ChatMessage.id < given.pop(0))
        return query.order_by(ChatMessage.id.desc()).limit(limit)
    return Prepared(build, arity=3 + reader + paged)


_PAGES = Shapes(_page_query)
_MUTE = Prepared(lambda match_id, player_id: ChatMute.select(ChatMute.id).where(
    ChatMute.match == match_id, ChatMute.player == player_id).limit(1))
# A turn mail quotes the chat since its reader's last move: read for every turn mail the outbox
# sends, in one statement (a database round trip is much of a mail's cost on a server).
# Plies, not times, say what came after the reader's move: a message carries the ply the match
# stood at when it was written, and the reader's last move made the ply it names (none yet:
# everything since the start). A reader who muted the match is quoted nothing.
_QUOTED = Prepared(lambda match_id, room, seat, ply, written, reader_id: (
    _listing().where(ChatMessage.match == match_id, ChatMessage.room == room,
                     ChatMessage.seat != seat, ChatMessage.hidden_at.is_null(),
                     ChatMessage.ply <= ply, ChatMessage.created_at <= written,
                     ChatMessage.author.not_in(_blocked_by(reader_id)),
                     ChatMessage.ply >= fn.COALESCE(
                         Move.select(fn.MAX(Move.ply)).where(Move.match == match_id,
                                                             Move.seat == seat,
                                                             Move.ply <= ply), -1),
                     ~fn.EXISTS(ChatMute.select(ChatMute.id).where(
                         ChatMute.match == match_id, ChatMute.player == reader_id)))
    .order_by(ChatMessage.id.desc()).limit(QUOTED_AT_MOST)))
