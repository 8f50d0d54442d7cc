"""Ladders: joining (at the bottom), leaving, challenging someone above within range,
accepting, and what a challenge's end does to the places.

Places are derived by replaying the ladder's events (`plan.ladder_places`); every change that
adds an event locks the ladder row first (`FOR UPDATE`; SQLite's write lock), so two
challenges for the same place at once are checked one after the other: the second sees the
first's open challenge and the incoming limit. The copy of the places on `LadderMember` is
written from the replay after each event.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime, timedelta
from typing import Any

from pbem.core.accounts.models import Player
from pbem.core.accounts.players import find_player
from pbem.core.admin.players import check_may_challenge
from pbem.core.db.connection import locking, write_transaction
from pbem.core.leagues import mail, plan, spec
from pbem.core.leagues.models import (
    ChallengeStatus,
    Ladder,
    LadderChallenge,
    LadderEvent,
    LadderMember,
)
from pbem.core.matches.changes import Settled
from pbem.core.matches.creation import create_match
from pbem.errors import ConflictError, InvalidRequestError, NotFoundError, UnprocessableError
from pbem.i18n import _

OPEN_STATES = (ChallengeStatus.OPEN, ChallengeStatus.PLAYING)


def create_ladder(organiser: Player, body: Mapping[str, Any], now: datetime) -> Ladder:
    check_may_challenge(organiser)
    common = spec.common(body)
    if common.table_size:
        raise UnprocessableError(_("A ladder's games are for two players."))
    reach = spec.whole(body.get("challenge_range", 5), "challenge_range", 1, 50)
    limit = spec.whole(body.get("incoming_limit", 3), "incoming_limit", 1, 20)
    accept_days = spec.whole(body.get("accept_days", 7), "accept_days", 1, 60)
    with write_transaction():
        return Ladder.create(name=common.name, organiser=organiser, game=common.game,
                             options=common.options, time_control=common.time_control,
                             on_timeout=common.on_timeout, rated=common.rated,
                             challenge_range=reach, incoming_limit=limit,
                             accept_days=accept_days, created_at=now)


def get_ladder(ladder_id: int) -> Ladder:
    found = Ladder.get_or_none(Ladder.id == ladder_id)
    if found is None:
        raise NotFoundError(_("There is no ladder %(ladder)s.", ladder=ladder_id))
    return found


def lock_ladder(ladder_id: int) -> Ladder:
    found = locking(Ladder.select().where(Ladder.id == ladder_id)).first()
    if found is None:
        raise NotFoundError(_("There is no ladder %(ladder)s.", ladder=ladder_id))
    return found


def places(ladder: Ladder) -> plan.LadderState:
    """The places now, replayed from the ladder's events."""
    rows = (LadderEvent.select().where(LadderEvent.ladder == ladder).order_by(LadderEvent.id))
    first = ladder.created_at
    return plan.ladder_places(
        plan.LadderStep(row.kind, row.player_id, row.other_id,
                        (row.at - first).total_seconds() / 86400) for row in rows)


def join(ladder_id: int, player: Player, now: datetime) -> int:
    """Join at the bottom, or come back from hold; returns the player's place."""
    with write_transaction():
        ladder = lock_ladder(ladder_id)
        state = places(ladder)
        if player.id in state.places and player.id not in state.on_hold:
            raise ConflictError(_("You are on this ladder already."))
        kind = "back" if player.id in state.places else "join"
        _event(ladder, kind, player.id, None, None, now)
        LadderMember.get_or_create(ladder=ladder, player=player)
        refresh_places(ladder)
        return places(ladder).places.index(player.id) + 1


def leave(ladder_id: int, player: Player, now: datetime) -> None:
    with write_transaction():
        ladder = lock_ladder(ladder_id)
        if player.id not in places(ladder).places:
            raise ConflictError(_("You are not on this ladder."))
        _event(ladder, "leave", player.id, None, None, now)
        (LadderChallenge.update(status=ChallengeStatus.WITHDRAWN, decided_at=now)
         .where(LadderChallenge.ladder == ladder, LadderChallenge.status == ChallengeStatus.OPEN,
                (LadderChallenge.challenger == player) | (LadderChallenge.defender == player))
         .execute())
        refresh_places(ladder)


def challenge(ladder_id: int, challenger: Player, target: Mapping[str, Any],
              now: datetime) -> LadderChallenge:
    """Challenge the player at `{"place": N}` or `{"player": "<name>"}`: someone above, at
    most `challenge_range` places up, with fewer than `incoming_limit` open challenges, and
    no open challenge between the two already."""
    check_may_challenge(challenger)
    with write_transaction():
        ladder = lock_ladder(ladder_id)
        state = places(ladder)
        # Before the target is read: on an empty ladder no place exists to name.
        if challenger.id not in state.places:
            raise ConflictError(_("Join the ladder before you challenge."))
        defender = _target(state.places, target)
        if not plan.may_challenge(state.places, challenger.id, defender,
                                  ladder.challenge_range):
            raise UnprocessableError(_(
                "You may challenge only players above you, at most %(range)s places up.",
                range=ladder.challenge_range))
        _check_open(ladder, challenger.id, defender)
        made = LadderChallenge.create(ladder=ladder, challenger=challenger,
                                      defender=defender, created_at=now)
        mail.queue_challenge(ladder, challenger, Player.get_by_id(defender),
                             state.places.index(defender) + 1, now)
        return made


def accept(challenge_id: int, defender: Player, secret_key: str, now: datetime,
           ladder_id: int | None = None) -> int:
    """The defender accepts: the game starts (the challenger takes the first seat). Returns
    the match's id."""
    found = LadderChallenge.get_or_none(LadderChallenge.id == challenge_id)
    if found is None or ladder_id not in (None, found.ladder_id):
        raise NotFoundError(_("There is no challenge %(challenge)s.", challenge=challenge_id))
    with write_transaction():
        ladder = lock_ladder(found.ladder_id)
        row = LadderChallenge.get_by_id(challenge_id)
        if row.defender_id != defender.id:
            raise ConflictError(_("Only the player challenged can accept."))
        if row.status != ChallengeStatus.OPEN:
            raise ConflictError(_("This challenge is not open any more."))
        emails = [row.challenger.email, defender.email]
        created = create_match(ladder.game, emails, ladder.options, secret_key, now,
                               time_control=ladder.time_control, on_timeout=ladder.on_timeout,
                               rated=bool(ladder.rated), competition="ladder")
        LadderChallenge.update(status=ChallengeStatus.PLAYING, match=created.match.id).where(
            LadderChallenge.id == row.id).execute()
        return created.match.id


def expire(now: datetime) -> int:
    """The worker's job: a challenge not accepted within `accept_days` counts as won by the
    challenger. Returns how many were decided."""
    decided = 0
    rows = list(LadderChallenge.select(LadderChallenge, Ladder).join(Ladder)
                .where(LadderChallenge.status == ChallengeStatus.OPEN))
    for row in rows:
        if row.created_at + timedelta(days=row.ladder.accept_days) > now:
            continue
        with write_transaction():
            ladder = lock_ladder(row.ladder_id)
            fresh = LadderChallenge.get_by_id(row.id)
            if fresh.status != ChallengeStatus.OPEN:
                continue
            _event(ladder, "result", fresh.challenger_id, fresh.defender_id, fresh.id, now)
            LadderChallenge.update(status=ChallengeStatus.DONE, decided_at=now).where(
                LadderChallenge.id == fresh.id).execute()
            refresh_places(ladder)
            decided += 1
    return decided


def settle_challenge(settled: Settled) -> None:
    """A ladder game's end (the door's settler, through `results.settle_leagues`): the
    winner's result moves places, a seat that timed out is put on hold (or to the bottom)."""
    if not settled.ended:
        return
    row = LadderChallenge.get_or_none(LadderChallenge.match == settled.match.id)
    if row is None or row.status != ChallengeStatus.PLAYING:
        return
    ladder = lock_ladder(row.ladder_id)
    seat_player = {seat.seat: seat.player_id for seat in settled.seats}
    winners = (settled.match.result or {}).get("winners", [])
    now = settled.now
    if len(winners) == 1:
        winner = seat_player[winners[0]]
        loser = row.defender_id if winner == row.challenger_id else row.challenger_id
        _event(ladder, "result", winner, loser, row.id, now)
    for seat in sorted(settled.timed_out):
        late = seat_player[seat]
        _event(ladder, "timeout", late, None, row.id, now)
        state = places(ladder)
        if late in state.on_hold:
            mail.queue_on_hold(ladder, Player.get_by_id(late), state.places.index(late) + 1, now)
    LadderChallenge.update(status=ChallengeStatus.DONE, decided_at=now).where(
        LadderChallenge.id == row.id).execute()
    refresh_places(ladder)


def refresh_places(ladder: Ladder) -> bool:
    """Write the replayed places onto the members; True if any changed."""
    state = places(ladder)
    where = {p: i + 1 for i, p in enumerate(state.places)}
    changed = False
    for member in LadderMember.select().where(LadderMember.ladder == ladder):
        place, hold = where.get(member.player_id), member.player_id in state.on_hold
        if (member.place, member.on_hold) != (place, hold):
            LadderMember.update(place=place, on_hold=hold).where(
                LadderMember.id == member.id).execute()
            changed = True
    return changed


def _target(ordered: list[int], target: Mapping[str, Any]) -> int:
    if "place" in target:
        place = spec.whole(target["place"], "place", 1, max(1, len(ordered)))
        return ordered[place - 1]
    name = target.get("player")
    if not isinstance(name, str) or not name.strip():
        raise InvalidRequestError(_('Name a "place" (a number) or a "player" (a name).'))
    found = find_player(name)
    if found is None or found.id not in ordered:
        raise NotFoundError(_("%(name)s is not on this ladder.", name=name.strip()))
    return int(found.id)


def _check_open(ladder: Ladder, challenger: int, defender: int) -> None:
    open_rows = list(LadderChallenge.select(LadderChallenge.challenger, LadderChallenge.defender)
                     .where(LadderChallenge.ladder == ladder,
                            LadderChallenge.status.in_(OPEN_STATES)))
    if any({r.challenger_id, r.defender_id} == {challenger, defender} for r in open_rows):
        raise ConflictError(_("You have an open challenge with this player already."))
    incoming = sum(1 for r in open_rows if r.defender_id == defender)
    if incoming >= ladder.incoming_limit:
        raise ConflictError(_("This player has %(count)s open challenges, the most allowed; "
                              "try again when one is over.", count=incoming))


def _event(ladder: Ladder, kind: str, player: int, other: int | None, challenge_id: int | None,
           now: datetime) -> None:
    LadderEvent.create(ladder=ladder, kind=kind, player=player, other=other,
                       challenge=challenge_id, at=now)
    Ladder.update(version=Ladder.version + 1).where(Ladder.id == ladder.id).execute()
