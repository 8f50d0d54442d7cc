"""Chat mails: a message of the players' room mailed to the other seats that want it now.

A message sent with a move by email is not mailed on its own: the turn mail the move queues
quotes it (`contexts.py`), and only the seats no turn mail reaches are mailed it
(`mail_others` with `skip_seats`)."""

from __future__ import annotations

from datetime import datetime

from pbem.core.conversation.chat import Channel, blocks, is_muted, post_as_seat
from pbem.core.conversation.models import ChatMessage
from pbem.core.db.connection import write_transaction
from pbem.core.mailout import notify
from pbem.core.matches.models import Match, Seat


def post_and_mail(seat: Seat, text: str, now: datetime, via: str = Channel.WEB) -> ChatMessage:
    """Post `text` to the players' room as `seat`; the other seats are mailed it by their
    chat preference."""
    message = post_as_seat(seat, text, now, via)
    mail_others(message, now)
    return message


def mail_others(message: ChatMessage, now: datetime,
                skip_seats: set[int] | frozenset[int] = frozenset()) -> None:
    """One chat mail to each other seat's player who wants them now (preferences.sends_now
    reads `chat_mail`), has not muted the match and has not blocked the writer; none to the
    seats in `skip_seats` (a turn mail quotes the message to them)."""
    match = Match.get_by_id(message.match_id)
    for seat in match.seat_rows():
        if (seat.seat == message.seat or seat.player_id == message.author_id
                or seat.seat in skip_seats):
            continue  # in table talk (one player in every seat) nobody mails themselves
        if is_muted(match.id, seat.player_id) or blocks(seat.player_id, message.author_id):
            continue
        with write_transaction():
            notify.queue_for(match, seat, "chat", now, {"m": message.id})
