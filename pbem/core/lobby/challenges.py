"""Challenges: a signed-in player invites others to a match; it starts when all accept.

Every change to a challenge (an accept, a decline, a cancel, expiry, the start) is a
conditional update on its `version` inside one write transaction, so racing requests (a
double-clicked accept, a cancel racing the last accept) have exactly one outcome. A change
that lost the race is retried against the challenge as it now is. The match is created by
`matches.create_match` inside the same transaction as the last accept: either the challenge
is started with its match, welcome and first "your turn" mails, or nothing happened.
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, TypeVar

from pbem import i18n
from pbem.core.accounts.computers import computer_name
from pbem.core.accounts.limits import Limit, release
from pbem.core.accounts.models import Player
from pbem.core.accounts.players import normalize_email
from pbem.core.accounts.signin import derived_token, token_hash
from pbem.core.admin.players import check_may_challenge
from pbem.core.computer.tables import check_computers, seat_people_and_computers
from pbem.core.db.connection import locking, write_transaction
from pbem.core.db.prepared import Prepared, ReadAhead
from pbem.core.db.retry import LostRace, retrying
from pbem.core.lobby.models import Challenge, ChallengeStatus, Invite, InviteStatus
from pbem.core.lobby.policy import LobbyPolicy
from pbem.core.mailout import accounts as account_mail
from pbem.core.matches.clocks import TimeControl
from pbem.core.matches.creation import create_match
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.matches.models import Match, MatchStatus
from pbem.core.ratings.queries import shown_for
from pbem.errors import (
    ConflictError,
    InvalidRequestError,
    NotFoundError,
    PbemError,
    UnprocessableError,
)
from pbem.games import get_rules
from pbem.i18n import N_, _

SEAT_ORDERS = ("random", "as-listed")
MAX_OPPONENTS = 8
T = TypeVar("T")


class ForbiddenError(PbemError):
    status = 403


@dataclass(frozen=True)
class ChallengeRequest:
    game: str
    opponents: Sequence[str]
    options: Mapping[str, Any] = field(default_factory=dict)
    clock: str = "3d"
    on_timeout: str = TimeoutPolicy.ADJUDICATE
    seat_order: str = "random"
    # Rated unless asked otherwise: every seat of a challenge is a player with an account.
    rated: bool = True
    # A mixed table (Mimic Taking): seats the computer fills, one level each.
    computers: Sequence[int] | str | None = None


@dataclass(frozen=True)
class Answer:
    challenge: Challenge
    already: bool = False  # the same answer had been given before (a double click)


def invite_token(secret_key: str, invite: Invite) -> str:
    return derived_token(secret_key, "invite", invite.id, invite.nonce)


def create_challenge(settings: LobbyPolicy, challenger: Player, request: ChallengeRequest,
                     now: datetime, seating: Sequence[int] | None = None,
                     rematch_of: Match | None = None) -> Challenge:
    """Check everything, then write the challenge and queue one invitation per invitee."""
    check_may_challenge(challenger)
    rules = get_rules(request.game)
    control = TimeControl.parse(request.clock)
    _check_terms(request)
    addresses = _opponent_addresses(challenger, request)
    computers = check_computers(request.computers)
    rules.check_player_count(1 + len(addresses) + len(computers))
    options = rules.resolve_options(request.options)
    _check_may_invite(settings, challenger, addresses)
    daily = Limit("invitations", settings.invitations_per_day, timedelta(days=1),
                  N_("invitations today"))
    counted = daily.reserve([f"player:{challenger.id}"] * len(addresses), now)
    try:
        with write_transaction():
            challenge = Challenge.create(
                challenger=challenger, game=rules.slug, options=options,
                time_control=str(control), on_timeout=request.on_timeout,
                seating=list(seating) if seating else None, rematch_of=rematch_of,
                rated=bool(request.rated), computers=computers or None,
                status=ChallengeStatus.PENDING, created_at=now,
                expires_at=now + timedelta(days=settings.challenge_expiry_days))
            if request.seat_order == "as-listed" and not seating:
                players = [challenger] + [Player.for_email(a, now) for a in addresses]
                challenge.seating = [player.id for player in players]
                challenge.save()
            _invite(settings, challenge, rules.title, addresses, now)
    except Exception:
        release(counted)
        raise
    return challenge


def _check_terms(request: ChallengeRequest) -> None:
    """The terms a challenge is made on: its timeout policy, seat order and rating."""
    if request.on_timeout not in TimeoutPolicy.ALL:
        raise InvalidRequestError(_("%(given)s is not a timeout policy (one of: %(known)s)",
                                    given=repr(request.on_timeout),
                                    known=", ".join(TimeoutPolicy.ALL)))
    if request.seat_order not in SEAT_ORDERS:
        raise InvalidRequestError(_("The seat order is %(known)s, not %(given)s.",
                                    known=_(" or ").join(SEAT_ORDERS),
                                    given=repr(request.seat_order)))
    if not isinstance(request.rated, bool):
        raise InvalidRequestError(_('"rated" is true or false.'))


def _opponent_addresses(challenger: Player, request: ChallengeRequest) -> list[str]:
    """The opponents' addresses, normalized: at least one, at most MAX_OPPONENTS, each once,
    and never the challenger's own."""
    if not request.opponents:
        raise InvalidRequestError(_("Name at least one opponent's email address."))
    if len(request.opponents) > MAX_OPPONENTS:
        raise InvalidRequestError(_("A challenge names at most %(most)s opponents.",
                                    most=MAX_OPPONENTS))
    addresses = [normalize_email(text) for text in request.opponents]
    if len(set(addresses)) != len(addresses):
        raise UnprocessableError(_("An opponent is listed twice."))
    if challenger.email in addresses:
        raise InvalidRequestError(_("You cannot challenge yourself."))
    return addresses


def _check_may_invite(settings: LobbyPolicy, challenger: Player,
                      addresses: Sequence[str]) -> None:
    """No invitee has asked not to be mailed, and the challenger has room for one more
    challenge waiting for answers."""
    for address in addresses:
        if account_mail.is_suppressed(address):
            raise InvalidRequestError(_("%(address)s has asked not to receive invitations "
                                        "from this server; no invitation was sent.",
                                        address=address))
    pending = Challenge.select().where(Challenge.challenger == challenger,
                                       Challenge.status == ChallengeStatus.PENDING).count()
    if pending >= settings.max_pending_challenges:
        raise ConflictError(
            _("You have %(count)s challenges waiting for answers, the most allowed; wait for "
              "them or cancel one first.", count=pending))


def _invite(settings: LobbyPolicy, challenge: Challenge, title: str,
            addresses: Sequence[str], now: datetime) -> None:
    """One invite a person, each with its own link, and the invitation mails queued (inside
    the challenge's transaction: all of them or none)."""
    invites = []
    for position, address in enumerate(addresses, start=1):
        invite = Invite.create(challenge=challenge, player=Player.for_email(address, now),
                               position=position, nonce=secrets.token_hex(16),
                               token_hash=secrets.token_hex(32))
        invite.token_hash = token_hash(invite_token(settings.secret_key, invite))
        invite.save()
        invites.append(invite)
    for invite in invites:
        account_mail.queue(invite.player.email, "invitation",
                           _mail_context(challenge, title, invite=invite), now)


def invite_for_token(token: str) -> Invite:
    invite = (Invite.get_or_none(Invite.token_hash == token_hash(token))
              if token and len(token) <= 100 else None)
    if invite is None:
        raise NotFoundError(_("This invitation link is not valid. Check that you copied it "
                              "whole."))
    return invite


def invite_of(challenge_id: int, player: Player) -> Invite:
    invite = Invite.get_or_none(Invite.challenge == challenge_id, Invite.player == player)
    if invite is None:
        if Challenge.get_or_none(Challenge.id == challenge_id, Challenge.challenger == player):
            raise ForbiddenError(_("You sent this challenge: only your opponents can answer "
                                   "it."))
        raise NotFoundError(_("There is no challenge %(challenge)s for you.",
                              challenge=challenge_id))
    return invite


def visible_challenge(challenge_id: int, player: Player) -> Challenge:
    """A challenge its challenger or one of its invitees may see; 404 for anyone else."""
    challenge = Challenge.get_or_none(Challenge.id == challenge_id)
    if challenge is None or not (
            challenge.challenger_id == player.id
            or Invite.select().where(Invite.challenge == challenge, Invite.player == player)
            .exists()):
        raise NotFoundError(_("There is no challenge %(challenge)s for you.",
                              challenge=challenge_id))
    return challenge


def accept(settings: LobbyPolicy, invite_id: int, now: datetime) -> Answer:
    """Accept; when it is the last acceptance, start the match in the same transaction."""
    def attempt() -> Answer:
        challenge, invite = _current(invite_id)
        if invite.status == InviteStatus.ACCEPTED and challenge.status in (
                ChallengeStatus.PENDING, ChallengeStatus.STARTED):
            return Answer(challenge, already=True)
        _check_open(challenge, invite, now)
        _bump(challenge)
        Invite.update(status=InviteStatus.ACCEPTED, answered_at=now).where(
            Invite.id == invite.id).execute()
        waiting = Invite.select().where(Invite.challenge == challenge,
                                        Invite.status != InviteStatus.ACCEPTED).count()
        if waiting == 0:
            _start(settings, challenge, now)
        return Answer(Challenge.get_by_id(challenge.id))
    return _retrying(attempt)


def decline(invite_id: int, now: datetime) -> Answer:
    def attempt() -> Answer:
        challenge, invite = _current(invite_id)
        if invite.status == InviteStatus.DECLINED:
            return Answer(challenge, already=True)
        _check_open(challenge, invite, now)
        _bump(challenge, status=ChallengeStatus.DECLINED, closed_at=now)
        Invite.update(status=InviteStatus.DECLINED, answered_at=now).where(
            Invite.id == invite.id).execute()
        context = _mail_context(challenge, get_rules(challenge.game).title)
        context["decliner"] = invite.player.public_name
        account_mail.queue(challenge.challenger.email, "challenge_declined", context, now)
        return Answer(Challenge.get_by_id(challenge.id))
    return _retrying(attempt)


def cancel(challenge_id: int, player: Player, now: datetime) -> Answer:
    def attempt() -> Answer:
        challenge = visible_challenge(challenge_id, player)
        if challenge.challenger_id != player.id:
            raise ForbiddenError(_("Only the player who sent a challenge can cancel it."))
        if challenge.status == ChallengeStatus.CANCELLED:
            return Answer(challenge, already=True)
        if challenge.status != ChallengeStatus.PENDING:
            raise ConflictError(_closed_message(challenge))
        _bump(challenge, status=ChallengeStatus.CANCELLED, closed_at=now)
        return Answer(Challenge.get_by_id(challenge.id))
    return _retrying(attempt)


def expire_due(now: datetime) -> int:
    """Close every pending challenge past its expiry and tell its challenger (worker job)."""
    due = [row.id for row in Challenge.select(Challenge.id).where(
        Challenge.status == ChallengeStatus.PENDING, Challenge.expires_at <= now)]
    expired = 0
    for challenge_id in due:
        with write_transaction():
            # The row first, locked by its key: two workers expiring at once then queue on it
            # (the second sees it expired), instead of each locking a range of the status
            # index for its UPDATE, which deadlocked on MariaDB.
            challenge = locking(Challenge.select().where(Challenge.id == challenge_id)).first()
            if challenge is None or challenge.status != ChallengeStatus.PENDING:
                continue
            changed = (Challenge.update(status=ChallengeStatus.EXPIRED, closed_at=now,
                                        version=Challenge.version + 1)
                       .where(Challenge.id == challenge_id,
                              Challenge.status == ChallengeStatus.PENDING,
                              Challenge.version == challenge.version).execute())
            if changed == 1:
                account_mail.queue(challenge.challenger.email, "challenge_expired",
                                   _mail_context(challenge, get_rules(challenge.game).title),
                                   now)
                expired += changed
    return expired


def received(player: Player) -> list[Challenge]:
    return _RECEIVED.rows(player.id)


def sent(player: Player) -> list[Challenge]:
    """The latest 20, those still pending first."""
    return _SENT.rows(player.id)


def received_and_sent_ahead(player: Player) -> list[ReadAhead]:
    """`received`'s and `sent`'s reads, to send ahead (`pipeline.read_ahead`)."""
    return [_RECEIVED.ahead(player.id), _SENT.ahead(player.id)]


# Both read on every visit to a player's home page (/me) and by the API's `/api/me`:
# compiled once, where peewee building them was a sixth of the page's CPU.
_RECEIVED = Prepared(lambda player_id: Challenge.select().join(Invite).where(
    Invite.player == player_id, Challenge.status == ChallengeStatus.PENDING)
    .order_by(Challenge.created_at.desc()))
_SENT = Prepared(lambda player_id: Challenge.select().where(Challenge.challenger == player_id)
                 .order_by(Challenge.status != ChallengeStatus.PENDING,
                           Challenge.created_at.desc()).limit(20))


def rematch(settings: LobbyPolicy, match_id: int, player: Player, now: datetime) -> Challenge:
    """A challenge to the same players with the same settings, every seat moved one on."""
    match = Match.get_or_none(Match.id == match_id)
    seats = match.seat_rows() if match is not None else []
    if match is None or player.id not in [seat.player_id for seat in seats]:
        raise NotFoundError(_("There is no match %(match)s of yours.", match=match_id))
    if match.status == MatchStatus.ACTIVE:
        raise ConflictError(_("This match is still being played; a rematch comes after it "
                              "ends."))
    if any(seat.player.computer_level is not None for seat in seats):
        raise ConflictError(_("The computer takes no challenges: play it again from \"Play "
                              "the computer\" on your page or the game's page."))
    players = [seat.player for seat in seats]
    rotated = players[1:] + players[:1]
    request = ChallengeRequest(
        game=match.game, opponents=[p.email for p in players if p.id != player.id],
        options=match.options, clock=match.time_control, on_timeout=match.on_timeout,
        seat_order="as-listed", rated=bool(match.rated))
    return create_challenge(settings, player, request, now,
                            seating=[p.id for p in rotated], rematch_of=match)


def describe(challenge: Challenge, viewer: Player | None = None) -> dict[str, Any]:
    """A challenge as pages and the API show it; addresses only to its challenger."""
    invites = list(Invite.select(Invite, Player).join(Player)
                   .where(Invite.challenge == challenge).order_by(Invite.position))
    mine = viewer is not None and viewer.id == challenge.challenger_id
    own = next((invite for invite in invites
                if viewer is not None and invite.player_id == viewer.id), None)
    shown = shown_for([challenge.challenger_id] + [i.player_id for i in invites], challenge.game)
    return {
        "id": challenge.id,
        "status": challenge.status,
        "game": challenge.game,
        "title": get_rules(challenge.game).title,
        "options": challenge.options,
        "clock": challenge.time_control,
        # Pages show the clock and the expiry as the invitation mail words them.
        "clock_text": TimeControl.parse(challenge.time_control).describe(),
        "on_timeout": challenge.on_timeout,
        "seat_order": "as-listed" if challenge.seating else "random",
        "rated": bool(challenge.rated),
        # Each player's rating in the game, as shown ("1000?" while provisional).
        "ratings": {challenge.challenger.public_name: shown[challenge.challenger_id],
                    **{i.player.public_name: shown[i.player_id] for i in invites}},
        "challenger": challenge.challenger.public_name,
        "opponents": [{"name": invite.player.public_name, "status": invite.status,
                       **({"email": invite.player.email} if mine else {})}
                      for invite in invites],
        "created_at": challenge.created_at.isoformat() + "Z",
        "expires_at": challenge.expires_at.isoformat() + "Z",
        "expires_text": i18n.format_time(challenge.expires_at, "%a %d %b %Y, %H:%M",
                                         style="full"),
        "rematch_of": challenge.rematch_of_id,
        # Seats the computer fills: their levels ("Computer (level N)" once started).
        "computers": list(challenge.computers or []),
        "match": challenge.match_id,
        "your_answer": own.status if own is not None else None,
    }


def _start(settings: LobbyPolicy, challenge: Challenge, now: datetime) -> None:
    invites = list(Invite.select(Invite, Player).join(Player)
                   .where(Invite.challenge == challenge).order_by(Invite.position))
    by_id = {invite.player_id: invite.player for invite in invites}
    by_id[challenge.challenger_id] = challenge.challenger
    if challenge.seating:
        players = [by_id[player_id] for player_id in challenge.seating]
    else:
        players = list(by_id.values())
        secrets.SystemRandom().shuffle(players)
    # A mixed table: the computer's seats among the people's (at random), or after them.
    emails, computers = seat_people_and_computers(
        [p.email for p in players], challenge.computers or [], shuffle=not challenge.seating)
    created = create_match(challenge.game, emails, challenge.options,
                           settings.secret_key, now, time_control=challenge.time_control,
                           on_timeout=challenge.on_timeout, rated=bool(challenge.rated),
                           computers=computers)
    Challenge.update(status=ChallengeStatus.STARTED, match=created.match, closed_at=now,
                     version=Challenge.version + 1).where(Challenge.id == challenge.id).execute()


def _retrying(attempt: Callable[[], T]) -> T:
    """One transaction, run again after a lost race or a deadlock (the project's one retry)."""
    def once() -> T:
        with write_transaction():
            return attempt()
    return retrying(once, _("Too many people answered this challenge at once; try again."))


def _current(invite_id: int) -> tuple[Challenge, Invite]:
    invite = Invite.select(Invite, Player).join(Player).where(Invite.id == invite_id).first()
    if invite is None:
        raise NotFoundError(_("There is no such invitation."))
    return Challenge.get_by_id(invite.challenge_id), invite


def _check_open(challenge: Challenge, invite: Invite, now: datetime) -> None:
    if challenge.status != ChallengeStatus.PENDING:
        raise ConflictError(_closed_message(challenge))
    if invite.status == InviteStatus.DECLINED:
        raise ConflictError(_("You declined this challenge."))
    if challenge.expires_at <= now:
        raise ConflictError(_("This challenge has expired."))


def _bump(challenge: Challenge, **changes: Any) -> None:
    changed = (Challenge.update(version=Challenge.version + 1, **changes)
               .where(Challenge.id == challenge.id, Challenge.version == challenge.version,
                      Challenge.status == ChallengeStatus.PENDING).execute())
    if changed != 1:
        raise LostRace


def _closed_message(challenge: Challenge) -> str:
    if challenge.status == ChallengeStatus.STARTED:
        return _("This challenge has started already: it is match %(match)s.",
                 match=challenge.match_id)
    if challenge.status == ChallengeStatus.DECLINED:
        return _("This challenge was declined.")
    if challenge.status == ChallengeStatus.CANCELLED:
        return _("This challenge was cancelled by its sender.")
    if challenge.status == ChallengeStatus.EXPIRED:
        return _("This challenge has expired.")
    return _("This challenge is %(status)s.", status=challenge.status)


def _mail_context(challenge: Challenge, title: str, invite: Invite | None = None
                  ) -> dict[str, Any]:
    context: dict[str, Any] = {
        "challenge": challenge.id, "game": challenge.game, "title": title,
        "challenger": challenge.challenger.public_name,
        # Worded for each reader when the mail is rendered (core/mailout/contexts.py).
        "time_control": challenge.time_control,
        "on_timeout": challenge.on_timeout, "options": challenge.options,
        "expires_at": challenge.expires_at.isoformat(),
        "rematch": challenge.rematch_of_id is not None,
    }
    if invite is not None:
        context["invite"] = invite.id
        others = (Invite.select(Invite, Player).join(Player)
                  .where(Invite.challenge == challenge, Invite.id != invite.id))
        context["others"] = [other.player.public_name for other in others] + [
            computer_name(level) for level in challenge.computers or []]
    return context
