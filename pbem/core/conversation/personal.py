"""What each player keeps for themselves: a seat's private notes, the players they blocked,
and the matches whose chat they muted."""

from __future__ import annotations

from datetime import datetime

import peewee

from pbem.core.accounts.models import Player
from pbem.core.conversation.chat import clean_text
from pbem.core.conversation.models import ChatMute, PlayerBlock, SeatNote
from pbem.core.db.connection import write_transaction
from pbem.core.matches.models import Seat
from pbem.errors import InvalidRequestError, NotFoundError

MAX_NOTES = 20_000  # characters: a long game's worth of plans, refused whole beyond it


def notes_of(seat: Seat) -> str:
    """The seat's own notes ("" when it has none). Only ever read for that seat."""
    note = SeatNote.get_or_none(SeatNote.seat == seat.id)
    return note.text if note else ""


def save_notes(seat: Seat, text: str, now: datetime) -> str:
    """Replace the seat's notes; empty text deletes them. Too long: 422 and nothing saved."""
    if not (text or "").strip():
        with write_transaction():
            SeatNote.delete().where(SeatNote.seat == seat.id).execute()
        return ""
    text = clean_text(text, MAX_NOTES, "notes")
    with write_transaction():
        updated = (SeatNote.update(text=text, updated_at=now)
                   .where(SeatNote.seat == seat.id).execute())
        if not updated:
            try:
                with SeatNote._meta.database.atomic():
                    SeatNote.create(seat=seat.id, text=text, updated_at=now)
            except peewee.IntegrityError:  # a racing save made the row: last write wins
                SeatNote.update(text=text, updated_at=now).where(
                    SeatNote.seat == seat.id).execute()
    return text


def block(player: Player, name: str, now: datetime) -> Player:
    """`player` blocks the player named `name`: none of their messages reach `player`."""
    other = _named(name)
    if other.id == player.id:
        raise InvalidRequestError("You cannot block yourself.")
    with write_transaction():
        try:
            with PlayerBlock._meta.database.atomic():
                PlayerBlock.create(player=player.id, blocked=other.id, created_at=now)
        except peewee.IntegrityError:
            pass  # already blocked: blocking twice is blocking
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
    with write_transaction():
        if not muted:
            ChatMute.delete().where(ChatMute.match == match_id,
                                    ChatMute.player == player_id).execute()
            return
        try:
            with ChatMute._meta.database.atomic():
                ChatMute.create(match=match_id, player=player_id, created_at=now)
        except peewee.IntegrityError:
            pass


def _named(name: str) -> Player:
    name = " ".join((name or "").split())
    if not name:
        raise InvalidRequestError("Type the name of the player to block.")
    found = Player.get_or_none(Player.name == name)
    if found is None:
        raise NotFoundError(f"There is no player named {name[:40]!r}.")
    return found


def block_author(player: Player, message_id: int, now: datetime) -> Player:
    """Block the writer of a message the player can see (the page's Block button)."""
    from pbem.core.conversation.models import ChatMessage

    message = ChatMessage.get_or_none(ChatMessage.id == message_id)
    if message is None:
        raise NotFoundError("That message is gone.")
    author = Player.get_by_id(message.author_id)
    if author.id == player.id:
        raise InvalidRequestError("You cannot block yourself.")
    with write_transaction():
        try:
            with PlayerBlock._meta.database.atomic():
                PlayerBlock.create(player=player.id, blocked=author.id, created_at=now)
        except peewee.IntegrityError:
            pass
    return author
