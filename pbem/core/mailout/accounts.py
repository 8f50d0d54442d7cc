"""Mails about a player's account rather than a move: sign-in links, invitations and their
answers, re-issued seat links; and the suppression list of addresses never to invite again.
Like `notify`, nothing here renders or holds a usable token: the mail layer derives links from
the row ids in `params` at send time (`pbem.mail.links`)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from pbem.core.accounts import signin
from pbem.core.accounts.models import Player
from pbem.core.accounts.players import normalize_email
from pbem.core.db.connection import write_transaction
from pbem.core.mailout.models import MessageStatus, OutboxMessage, Suppression
from pbem.core.matches.creation import rules_for
from pbem.core.matches.models import Match, Seat
from pbem.core.matches.seat_links import reissue
from pbem.errors import NotFoundError
from pbem.i18n import _


def queue(to_address: str, template: str, context: dict[str, Any], now: datetime,
          match: Match | int | None = None, seat: int | None = None) -> OutboxMessage:
    return OutboxMessage.create(
        match=match, seat=seat, to_address=to_address, template=template, params=context,
        status=MessageStatus.PENDING,
        next_attempt_at=now, created_at=now,
    )


def request_sign_in_link(settings: signin.SignInPolicy, email: str, client: str,
                         now: datetime) -> str:
    """Queue a sign-in mail; return the normalised address. Refuses a malformed address
    (InvalidRequestError) or one over a rate limit (LimitReachedError)."""
    address = normalize_email(email)
    signin.count_mail(settings, address, client, now)
    with write_transaction():
        link = signin.new_link(settings.secret_key, address, now)
        queue(address, "sign_in", {"sign_in_link": link.id,
                                   "minutes": int(signin.LIFETIME.total_seconds() // 60)}, now)
    return address


def suppress(email: str, now: datetime) -> None:
    """Never send this address an invitation again (idempotent)."""
    Suppression.insert(email=email, created_at=now).on_conflict_ignore().execute()


def is_suppressed(email: str) -> bool:
    return Suppression.select().where(Suppression.email == email).exists()


def check_own_seat(match_id: int, seat_number: int, player: Player) -> None:
    """NotFoundError unless the seat is the player's own (before asking to replace its link)."""
    if not Seat.select().where(Seat.match == match_id, Seat.seat == seat_number,
                               Seat.player == player).exists():
        raise NotFoundError(_("Match %(match)s has no seat %(seat)s of yours.", match=match_id,
                              seat=seat_number))


def reissue_seat_link(secret_key: str, match_id: int, seat_number: int, now: datetime,
                      player: Player | None = None) -> Seat:
    """Revoke a seat's link and email the new one to its player. With `player`, only that
    player's own seat may be re-issued (the /me button); without, any (the operator)."""
    with write_transaction():
        seat = (Seat.select(Seat, Match, Player).join(Match).switch(Seat).join(Player)
                .where(Seat.match == match_id, Seat.seat == seat_number).first())
        if seat is None or (player is not None and seat.player_id != player.id):
            raise NotFoundError(_("Match %(match)s has no seat %(seat)s of yours.",
                                  match=match_id, seat=seat_number)
                                if player is not None else
                                _("Match %(match)s has no seat %(seat)s.", match=match_id,
                                  seat=seat_number))
        reissue(secret_key, seat)
        rules = rules_for(seat.match)
        queue(seat.player.email, "seat_link", {
            "match": match_id, "game": seat.match.game, "title": rules.title,
            "seat": seat_number,
        }, now, match=match_id, seat=seat_number)
    return seat
