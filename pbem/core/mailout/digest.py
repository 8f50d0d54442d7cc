"""The daily digest: the worker's job reads players whose digest is due and queues one mail
each, listing every match where they must act (with time left) and the results since their
last digest. Nothing is mailed when nothing is due.

`digest_due_at` is claimed with a conditional update before anything is queued, so two
workers never send a player two digests; the next one is due at the player's hour on the
next day, whatever time the job ran (a worker that was down sends one digest, not several).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.core.accounts.models import Player
from pbem.core.conversation.chat import unread_counts
from pbem.core.db.connection import write_transaction
from pbem.core.mailout import notify
from pbem.core.mailout.preferences import ChatMail, MailPreference, next_digest_at
from pbem.core.matches.models import Match, MatchStatus, Seat

FIRST_WINDOW = timedelta(days=1)


def queue_due_digests(now: datetime, batch: int = 200) -> int:
    """Queue the digests due at `now`; return how many were queued."""
    due = (Player.select(Player.id)
           .where(Player.digest_due_at <= now,
                  (Player.mail_pref == MailPreference.DIGEST)
                  | (Player.chat_mail == ChatMail.DIGEST))
           .order_by(Player.digest_due_at).limit(batch))
    # Read the ids first: a SELECT left open while writing would pin an old snapshot (on
    # SQLite the write lock could then never be taken).
    return sum(_digest(player_id, now) for player_id in [row.id for row in due])


def _digest(player_id: int, now: datetime) -> bool:
    with write_transaction():
        player = Player.get_or_none(Player.id == player_id)
        if player is None or player.digest_due_at is None or player.digest_due_at > now:
            return False
        claimed = (Player.update(digest_due_at=next_digest_at(player.digest_hour,
                                                              player.timezone, now),
                                 last_digest_at=now)
                   .where(Player.id == player.id,
                          Player.digest_due_at == player.digest_due_at).execute())
        if claimed != 1:
            return False
        since = player.last_digest_at or now - FIRST_WINDOW
        params = _contents(player, since, now)
        if not params["acts"] and not params["results"] and not params.get("chats"):
            return False
        notify.queue_digest(player.email, params, now)
    return True


def _contents(player: Player, since: datetime, now: datetime) -> dict[str, object]:
    turns = player.mail_pref == MailPreference.DIGEST
    chats = _chats(player, since, now) if player.chat_mail == ChatMail.DIGEST else []
    if not turns:  # a digest for the chat alone: turns and results came at once
        return {"since": since.isoformat(), "acts": [], "results": [], "chats": chats,
                "chat_only": True}
    owed = (Seat.select(Seat.match, Seat.seat, Seat.deadline).join(Match)
            .where(Seat.player == player.id, Seat.owes_since.is_null(False),
                   Match.status == MatchStatus.ACTIVE)
            .order_by(Seat.deadline.asc(nulls="LAST"), Seat.match))
    finished = (Seat.select(Seat.match, Seat.seat).join(Match)
                .where(Seat.player == player.id, Match.status == MatchStatus.FINISHED,
                       Match.finished_at > since, Match.finished_at <= now)
                .order_by(Match.finished_at))
    return {
        "since": since.isoformat(),
        "acts": [[seat.match_id, seat.seat,
                  seat.deadline.isoformat() if seat.deadline else None] for seat in owed],
        "results": [[seat.match_id, seat.seat] for seat in finished],
        "chats": chats,
    }


def _chats(player: Player, since: datetime, now: datetime) -> list[list[int]]:
    """[match, seat, messages] for each match where others wrote in the players' room since
    the last digest (the messages themselves are read when the digest is rendered)."""
    return unread_counts(player.id, since, now)
