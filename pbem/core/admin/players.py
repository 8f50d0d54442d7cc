"""An admin's actions on a player, each audited once (see audit.py): re-issue and email their
live seat links, end every session, block or unblock new challenges."""

from __future__ import annotations

from datetime import datetime

from pbem.core.accounts.models import Player, Session
from pbem.core.accounts.players import clear_undeliverable as clear_undeliverable_mark
from pbem.core.admin import audit
from pbem.core.mailout.accounts import reissue_seat_link
from pbem.core.matches.models import Match, MatchStatus, Seat
from pbem.errors import ConflictError, NotFoundError, PbemError
from pbem.i18n import _


class BlockedError(PbemError):
    status = 403


def check_may_challenge(player: Player) -> None:
    """Called before a challenge or seek is created."""
    if player.challenges_blocked_at is not None:
        raise BlockedError(_("An admin has stopped this account from starting new "
                             "challenges and seeks. Your matches and invitations go on as "
                             "before."))


def resend_links(secret_key: str, player_id: int, actor: str, now: datetime,
                 action_key: str | None = None) -> int:
    """Replace the link of every seat the player holds in a live match and email the new
    ones (the old links stop working). Returns how many were sent."""
    with audit.fresh_action(action_key):
        player = find_player(player_id)
        seats = list(Seat.select(Seat.match, Seat.seat).join(Match)
                     .where(Seat.player == player, Match.status == MatchStatus.ACTIVE))
        for seat in seats:
            reissue_seat_link(secret_key, seat.match_id, seat.seat, now)
        audit.record(actor, "player-resend-links", now, f"new links for {len(seats)} seats",
                     None, {"player": player.id,
                            "seats": [[s.match_id, s.seat] for s in seats]}, action_key)
    return len(seats)


def reissue_link(secret_key: str, match_id: int, seat: int, actor: str, reason: str,
                 now: datetime, action_key: str | None = None) -> None:
    with audit.fresh_action(action_key):
        reissue_seat_link(secret_key, match_id, seat, now)
        audit.record(actor, "reissue-link", now, reason or "link re-issued", match_id,
                     {"seat": seat}, action_key)


def revoke_sessions(player_id: int, actor: str, now: datetime,
                    action_key: str | None = None) -> int:
    with audit.fresh_action(action_key):
        player = find_player(player_id)
        ended = Session.delete().where(Session.player == player).execute()
        audit.record(actor, "player-revoke-sessions", now, f"{ended} sessions ended", None,
                     {"player": player.id}, action_key)
    return ended


def set_blocked(player_id: int, blocked: bool, actor: str, reason: str, now: datetime,
                action_key: str | None = None) -> None:
    with audit.fresh_action(action_key):
        player = find_player(player_id)
        if (player.challenges_blocked_at is not None) == blocked:
            raise ConflictError(_("The player is already blocked.") if blocked else
                                _("The player is already free to start challenges."))
        Player.update(challenges_blocked_at=now if blocked else None).where(
            Player.id == player.id).execute()
        audit.record(actor, "player-block" if blocked else "player-unblock", now,
                     reason or ("blocked from new challenges" if blocked else "unblocked"),
                     None, {"player": player.id}, action_key)


def find_player(player_id: int) -> Player:
    """The player, or NotFoundError naming the id an admin's form gave."""
    player = Player.get_or_none(Player.id == player_id)
    if player is None:
        raise NotFoundError(_("There is no player %(id)s.", id=player_id))
    return player


def clear_undeliverable(player_id: int, actor: str, now: datetime,
                        action_key: str | None = None) -> None:
    """The admin knows the address works again: mail to it is sent as before."""
    with audit.fresh_action(action_key):
        player = find_player(player_id)
        if player.undeliverable_at is None:
            raise ConflictError(_("The address is not marked undeliverable."))
        clear_undeliverable_mark(player.id)
        audit.record(actor, "player-clear-undeliverable", now,
                     f"was: {player.undeliverable_reason or 'refused'}", None,
                     {"player": player.id}, action_key)
