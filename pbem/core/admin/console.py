"""What the admin console reads: the queue with its evidence, match and player searches, and
a match's full record with every hidden thing shown (admins only). Nothing here writes,
except `preview_ruling`, which rolls its writes back."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from pbem.core.accounts.models import Player
from pbem.core.admin import audit
from pbem.core.db.connection import write_transaction
from pbem.core.db.retry import retrying
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches import history, offers
from pbem.core.matches.clocks import describe_left
from pbem.core.matches.computer_turns import StandIn
from pbem.core.matches.creation import rules_for
from pbem.core.matches.models import (
    Adjudication,
    AdjudicationStatus,
    Match,
    Move,
    Seat,
    Vacation,
)
from pbem.core.matches.play import stored_event
from pbem.core.matches.rulings import make_ruling
from pbem.errors import InvalidRequestError
from pbem.i18n import _

PAGE = 100


def late_for(since: datetime, now: datetime) -> str:
    return describe_left(now - since).removesuffix(" left")


@dataclass
class Evidence:
    """One queue entry with everything an admin weighs before ruling."""

    entry: Adjudication
    match: Match
    late: Seat
    late_name: str
    late_for: str
    mails: list[OutboxMessage]
    last_seen_at: datetime | None
    vacations: list[Vacation]
    prior_rulings: list[Adjudication]
    offers: list[dict[str, Any]] = field(default_factory=list)
    replies: list[InboundMessage] = field(default_factory=list)
    # How the game names each seat ("Blue", "Yuki"): pages say that, never "seat 0".
    labels: dict[int, str] = field(default_factory=dict)

    @property
    def undelivered(self) -> int:
        return sum(m.status == "failed" or (m.status != "sent" and m.attempts > 0)
                   for m in self.mails)


def evidence(entry: Adjudication, now: datetime) -> Evidence:
    match = entry.match
    late = (Seat.select(Seat, Player).join(Player)
            .where(Seat.match == match, Seat.seat == entry.seat).get())
    mails = list(OutboxMessage.select().where(OutboxMessage.match == match,
                                              OutboxMessage.seat == entry.seat)
                 .order_by(OutboxMessage.id))
    recent = now - timedelta(days=60)
    away = list(Vacation.select().where(Vacation.player == late.player_id,
                                        Vacation.ends_at > recent)
                .order_by(Vacation.starts_at))
    prior = list(Adjudication.select().where(Adjudication.match == match,
                                             Adjudication.id != entry.id,
                                             Adjudication.status != AdjudicationStatus.OPEN)
                 .order_by(Adjudication.id))
    replies = list(InboundMessage.select().where(InboundMessage.match == match,
                                                 InboundMessage.seat == entry.seat)
                   .order_by(InboundMessage.id))
    return Evidence(entry, match, late, late.player.public_name,
                    late_for(entry.opened_at, now), mails, late.last_seen_at, away, prior,
                    offers.history(match), replies, seat_labels(match))


def seat_labels(match: Match) -> dict[int, str]:
    """Each seat as the game names it; "Player N" (counting from 1) when the stored state
    cannot be read (a damaged match an admin is looking into)."""
    seats = range(len(match.seat_rows()))
    try:
        rules = rules_for(match)
        state = rules.load(match.state)
        return {seat: rules.seat_label(state, seat) for seat in seats}
    except Exception:  # a game removed, or a dump the rules cannot read
        return {seat: _("Player %(n)s", n=seat + 1) for seat in seats}


def queue(now: datetime) -> list[Evidence]:
    entries = (Adjudication.select(Adjudication, Match).join(Match)
               .where(Adjudication.status == AdjudicationStatus.OPEN)
               .order_by(Adjudication.opened_at, Adjudication.id))
    return [evidence(entry, now) for entry in entries]


def stale_entries(now: datetime, older_than: timedelta = timedelta(days=1)) -> list[Adjudication]:
    return list(Adjudication.select(Adjudication, Match).join(Match)
                .where(Adjudication.status == AdjudicationStatus.OPEN,
                       Adjudication.opened_at <= now - older_than)
                .order_by(Adjudication.opened_at))


# --- previews -------------------------------------------------------------------------------

@dataclass(frozen=True)
class Preview:
    status: str
    result: str | None
    deadline: datetime | None
    moves: list[str]
    mails: list[tuple[str, str]]  # (recipient's name, kind of mail)


class _Undo(Exception):
    def __init__(self, preview: Preview) -> None:
        self.preview = preview


def preview_ruling(entry: Adjudication, ruling: str, reason: str, actor: str, now: datetime,
                   extension: timedelta | None, max_extension: timedelta,
                   stand_in: StandIn | None = None) -> Preview:
    """What the ruling would do, found by making it in a transaction rolled back after. The
    transaction takes the write lock from its start: on SQLite one that reads first (the
    outbox's last mail, in `_ruling_made`) could not write after a move landed meanwhile. A
    lock held elsewhere past the busy timeout is tried again, then refused as busy (nothing
    to undo: a preview never keeps its writes)."""
    def attempt() -> Preview:
        try:
            with write_transaction():
                raise _Undo(_ruling_made(entry, ruling, reason, actor, now, extension,
                                         max_extension, stand_in))
        except _Undo as undo:
            return undo.preview
    return retrying(attempt)


def _ruling_made(entry: Adjudication, ruling: str, reason: str, actor: str, now: datetime,
                 extension: timedelta | None, max_extension: timedelta,
                 stand_in: StandIn | None) -> Preview:
    """Make the ruling (inside the preview's transaction) and say what it did: the match's
    state and the late seat's deadline after it, and the moves and mails it added."""
    last_mail = OutboxMessage.select(OutboxMessage.id).order_by(
        OutboxMessage.id.desc()).scalar() or 0
    last_ply = Match.get_by_id(entry.match_id).ply
    make_ruling(entry.match_id, ruling, reason, actor, now, extension=extension,
                entry_id=entry.id, max_extension=max_extension, stand_in=stand_in)
    match = Match.get_by_id(entry.match_id)
    late = Seat.get(Seat.match == match, Seat.seat == entry.seat)
    names = {s.seat: s.player.public_name for s in match.seat_rows()}
    mails = [(names.get(m.seat, m.to_address) if m.seat is not None else m.to_address,
              m.template.replace("_", " "))
             for m in OutboxMessage.select().where(OutboxMessage.id > last_mail)
             .order_by(OutboxMessage.id)]
    moves = [f"{names[m.seat]}: {m.text}" for m in Move.select().where(
        Move.match == match, Move.ply > last_ply).order_by(Move.ply)]
    return Preview(match.status, (match.result or {}).get("reason"), late.deadline, moves,
                   mails)


# --- searches -------------------------------------------------------------------------------

@dataclass(frozen=True)
class MatchQuery:
    match_id: int | None = None
    game: str = ""
    player: str = ""
    status: str = ""


def find_matches(query: MatchQuery) -> list[Match]:
    found = Match.select().order_by(Match.id.desc()).limit(PAGE)
    if query.match_id is not None:
        found = found.where(Match.id == query.match_id)
    if query.game:
        found = found.where(Match.game == query.game)
    if query.status:
        found = found.where(Match.status == query.status)
    if query.player:
        ids = Seat.select(Seat.match).join(Player).where(_player_filter(query.player))
        found = found.where(Match.id.in_(ids))
    return list(found)


def find_players(text: str) -> list[Player]:
    text = text.strip()
    if not text:
        return list(Player.select().order_by(Player.id.desc()).limit(PAGE))
    return list(Player.select().where(_player_filter(text)).order_by(Player.id).limit(PAGE))


def _player_filter(text: str) -> Any:
    text = text.strip().lower()
    if len(text) > 254:
        raise InvalidRequestError(_("That is too long for an address or a name."))
    return (Player.email.contains(text)) | (Player.name.contains(text))


# --- a match in full ------------------------------------------------------------------------

def full_record(match: Match, now: datetime) -> dict[str, Any]:
    """Everything about a match, hidden information included (marked `hidden`)."""
    seats = match.seat_rows()
    record: dict[str, Any] = {"seats": seats, "error": None, "labels": {},
                              "changes": history.changes_of(match),
                              "offers": offers.history(match),
                              "entries": list(Adjudication.select().where(
                                  Adjudication.match == match).order_by(Adjudication.id)),
                              "audit": list(reversed(audit.search(
                                  audit.AuditFilter(match_id=match.id), limit=None))),
                              "clocks": [clock_state(match, seat, now) for seat in seats]}
    try:
        rules = rules_for(match)
        state = rules.load(match.state)
    except Exception as error:  # a game removed, or a dump the rules cannot read
        record.update(error=str(error) or type(error).__name__, moves=[], views=[],
                      labels=seat_labels(match))
        return record
    labels = {seat.seat: rules.seat_label(state, seat.seat) for seat in seats}
    record["labels"] = labels
    record["moves"] = [{
        "ply": move.ply, "by": labels.get(move.seat, str(move.seat)), "text": move.text,
        "hidden_from": None if move.visible_to is None else
        [labels[s] for s in labels if s not in move.visible_to],
        "events": [rules.describe_event(stored_event(item)) for item in move.events],
        "at": move.created_at, **move.how_made(),
    } for move in Move.select(Move.ply, Move.seat, Move.text, Move.visible_to, Move.events,
                              Move.note, Move.created_at)
        .where(Move.match == match).order_by(Move.ply)]
    over = not match.is_live
    record["public_board"] = rules.render_text(rules.view(state, None), over=over)
    record["views"] = [{"label": labels[seat.seat], "name": seat.player.public_name,
                        "board": rules.render_text(rules.view(state, seat.seat), over=over)}
                       for seat in seats]
    return record


def clock_state(match: Match, seat: Seat, now: datetime) -> dict[str, Any]:
    if seat.out_of_time_at is not None:
        state = _("out of time since %(time)s UTC",
                  time=seat.out_of_time_at.strftime("%Y-%m-%d %H:%M"))
    elif seat.owes_since is None:
        state = _("not to move")
    elif match.paused_at is not None:
        state = _("owes a move; clock paused")
    elif seat.deadline is None:
        state = _("owes a move; time ran out (see the queue)")
    else:
        state = _("owes a move; %(left)s", left=describe_left(seat.deadline - now))
    return {"seat": seat.seat, "state": state, "deadline": seat.deadline,
            "owes_since": seat.owes_since, "allowance": describe_left(
                timedelta(seconds=seat.allowance_seconds)).removesuffix(" left"),
            "last_seen_at": seat.last_seen_at, "generation": seat.token_generation}
