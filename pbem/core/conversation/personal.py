"""What each player keeps for themselves: a seat's private notes, the players they blocked,
and the matches whose chat they muted."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from peewee import JOIN, fn

from pbem.core.accounts.models import Player
from pbem.core.accounts.players import find_player
from pbem.core.conversation.chat import clean_text
from pbem.core.conversation.models import ChatMute, PlayerBlock, SeatNote
from pbem.core.db.connection import write_transaction
from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.db.retry import retrying
from pbem.core.matches.models import ConditionalTree, Seat
from pbem.errors import InvalidRequestError, NotFoundError, UnprocessableError
from pbem.i18n import _, format_number

MAX_NOTES = 20_000  # characters: a long game's worth of plans, refused whole beyond it


def notes_of(seat: Seat) -> str:
    """The seat's own notes ("" when it has none). Only ever read for that seat."""
    note = _NOTE.first(seat.id)
    return note.text if note else ""


@dataclass(frozen=True)
class SeatPrivate:
    """What only a seat's own page shows beside its notes' text."""

    tree: tuple[int, Any, int] | None  # its conditional tree as stored: ply, tree, version
    notes: str  # "" when it has none
    muted: bool  # whether its player muted the match's chat


def private_of(seat: Seat) -> SeatPrivate:
    """The seat's conditional tree, its notes and its player's mute of the match's chat, read
    in one round trip (a play page's; it was three)."""
    found = _PRIVATE.rows(seat.id)
    if not found:
        return SeatPrivate(None, "", False)
    ply, tree, version, text, muted = found[0]
    return SeatPrivate((ply, tree, version) if ply is not None else None, text or "",
                       bool(muted))


def private_of_ahead(seat: Seat) -> ReadAhead:
    """`private_of`'s read, to send ahead (`pipeline.read_ahead`)."""
    return _PRIVATE.ahead(seat.id)


def save_notes(seat: Seat, text: str, now: datetime) -> str:
    """Replace the seat's notes; empty text deletes them. Too long: 422 and nothing saved."""
    if len(text or "") > MAX_NOTES:  # counted as sent, blanks too, before anything is cleaned
        raise UnprocessableError(_("Notes are at most %(limit)s characters; these have "
                                   "%(length)s. Nothing was saved.",
                                   limit=format_number(MAX_NOTES),
                                   length=format_number(len(text))))
    if not (text or "").strip():
        with write_transaction():
            SeatNote.delete().where(SeatNote.seat == seat.id).execute()
        return ""
    text = clean_text(text, MAX_NOTES, "notes")

    def save() -> None:
        # The row is made if missing (a racing first save makes it once), then written: the
        # last save wins. No savepoint: on MariaDB a deadlock ends the whole transaction, and
        # `retrying` runs it again.
        with write_transaction():
            SeatNote.insert(seat=seat.id, text=text, updated_at=now).on_conflict_ignore() \
                .execute()
            SeatNote.update(text=text, updated_at=now).where(SeatNote.seat == seat.id).execute()

    retrying(save)
    return text


def block(player: Player, name: str, now: datetime) -> Player:
    """`player` blocks the player named `name`: none of their messages reach `player`."""
    other = _named(name)
    if other.id == player.id:
        raise InvalidRequestError(_("You cannot block yourself."))
    _insert_once(PlayerBlock.insert(player=player.id, blocked=other.id, created_at=now))
    return other


def unblock(player: Player, blocked_id: int) -> None:
    with write_transaction():
        PlayerBlock.delete().where(PlayerBlock.player == player.id,
                                   PlayerBlock.blocked == blocked_id).execute()


def blocked_players(player: Player) -> list[Player]:
    return list(Player.select().join(PlayerBlock, on=PlayerBlock.blocked == Player.id)
                .where(PlayerBlock.player == player.id).order_by(PlayerBlock.id))


def set_muted(match_id: int, player_id: int, muted: bool, now: datetime) -> None:
    """Mute or unmute a match's chat for one player: no chat mails, no quotes in turn mails
    (the page still shows the room, for whoever looks)."""
    if muted:
        _insert_once(ChatMute.insert(match=match_id, player=player_id, created_at=now))
        return
    with write_transaction():
        ChatMute.delete().where(ChatMute.match == match_id,
                                ChatMute.player == player_id).execute()


def _insert_once(insert: Any) -> None:
    """Insert a row unless its unique key is taken (blocking or muting twice is once)."""
    def run() -> None:
        with write_transaction():
            insert.on_conflict_ignore().execute()

    retrying(run)


def _named(name: str) -> Player:
    """The player a name shown on the site stands for, found as their page finds them: the
    display name in any case, or an unnamed player's address's local part (what chat and
    the pages show for them)."""
    name = " ".join((name or "").split())
    if not name:
        raise InvalidRequestError(_("Type the name of the player to block."))
    found = find_player(name)
    if found is None:
        raise NotFoundError(_("There is no player named %(name)r.", name=name[:40]))
    return found


def block_author(player: Player, message_id: int, now: datetime) -> Player:
    """Block the writer of a message the player can see (the page's Block button)."""
    from pbem.core.conversation.models import ChatMessage

    message = ChatMessage.get_or_none(ChatMessage.id == message_id)
    if message is None:
        raise NotFoundError(_("That message is gone."))
    author = Player.get_by_id(message.author_id)
    if author.id == player.id:
        raise InvalidRequestError(_("You cannot block yourself."))
    _insert_once(PlayerBlock.insert(player=player.id, blocked=author.id, created_at=now))
    return author


# Read for every play page: compiled once.
_PRIVATE = Prepared(lambda seat_id: Seat.select(
    ConditionalTree.ply, ConditionalTree.tree, ConditionalTree.version, SeatNote.text,
    fn.EXISTS(ChatMute.select(ChatMute.id).where((ChatMute.match == Seat.match)
                                                 & (ChatMute.player == Seat.player))))
    .join(ConditionalTree, JOIN.LEFT_OUTER,
          on=((ConditionalTree.match == Seat.match) & (ConditionalTree.seat == Seat.seat)))
    .join_from(Seat, SeatNote, JOIN.LEFT_OUTER, on=(SeatNote.seat == Seat.id))
    .where(Seat.id == seat_id).limit(1).tuples())
_NOTE = Prepared(lambda seat_id: SeatNote.select(SeatNote.text)
                 .where(SeatNote.seat == seat_id).limit(1))
