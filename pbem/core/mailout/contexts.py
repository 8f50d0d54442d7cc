"""What a queued mail shows: its template context, built when it is rendered.

An outbox row holds only (template, recipient, match, seat, ply, small params); everything else
is read back here: the position after `ply` (replayed by `state_after` when the match has moved
on), the recipient seat's own view of it, the move's events that seat may see, the result.
Rendering the same row twice gives the same mail (times are as of the row's `created_at`), so
the admin pages can show what was sent without storing it. The mail layer adds the links.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from peewee import Tuple

from pbem import i18n
from pbem.core.accounts.models import Player
from pbem.core.conversation.chat import chatting, message_for_mail, quoted_for
from pbem.core.db.prepared import Planned
from pbem.core.mailout.models import OutboxMessage
from pbem.core.mailout.notify import describe_outcome
from pbem.core.matches.clocks import TimeControl, deadline_info
from pbem.core.matches.creation import deal_of, state_after
from pbem.core.matches.models import Match, Move, Seat
from pbem.core.matches.play import stored_event
from pbem.games import get_rules
from pbem.games.base import GameRules, Outcome
from pbem.i18n import N_, _

MAX_LISTED_MOVES = 30
# The commands the first line of a reply may hold (English words in every language, so any
# mail client can send them), and what `help` says of each (translated where the help is
# rendered). `mailin/replies.py` acts on them; the mails list them, so they live here.
COMMANDS = {
    "resign": N_("give up the match"),
    "draw": N_("offer a draw, or accept the one offered"),
    "decline": N_("decline a draw offer"),
    "board": N_("get the position and your legal moves again"),
    "moves": N_("get every legal move (a mail lists the first 30)"),
    "help": N_("get this help"),
}
# A batch's rows, read with IN lists: built by kept plans (see `Planned`).
_MATCHES, _SEATS, _MOVES = Planned(), Planned(), Planned()
_DAY = "%a %d %b %Y, %H:%M UTC"


class RenderCache:
    """Rows and positions shared by the mails of one batch (most are about the same few
    matches and plies), so a batch reads and replays each once."""

    def __init__(self) -> None:
        self.matches: dict[int, Match] = {}
        self.seats: dict[int, list[Seat]] = {}
        self.states: dict[tuple[int, int], Any] = {}
        self.players: dict[str, Player | None] = {}
        self.moves: dict[tuple[int, int], Move | None] = {}
        # The batch's matches whose players have said anything (None: not read; then any
        # may have): a turn mail quotes the chat, and most matches have none to quote.
        self.chatting: set[int] | None = None

    def prefetch(self, messages: Sequence[OutboxMessage]) -> None:
        """Read every match, seat, player and move a batch needs, and which of its matches
        have a players' chat, in four queries."""
        match_ids = {m.match_id for m in messages if m.match_id is not None}
        if not match_ids:
            return
        for match in _MATCHES.rows(Match.select().where(Match.id.in_(match_ids))):
            self.matches[match.id] = match
        seats = (Seat.select(Seat, Player).join(Player)
                 .where(Seat.match.in_(match_ids)).order_by(Seat.match, Seat.seat))
        for seat in _SEATS.rows(seats):
            self.seats.setdefault(seat.match_id, []).append(seat)
        self.chatting = chatting(match_ids)
        wanted = {(m.match_id, m.ply) for m in messages
                  if m.match_id is not None and m.ply and (m.params or {}).get("ev")}
        for key in wanted:
            self.moves[key] = None
        if wanted:
            for move in _MOVES.rows(Move.select(Move.match, Move.ply, Move.events)
                                    .where(Tuple(Move.match, Move.ply).in_(list(wanted)))):
                self.moves[(move.match_id, move.ply)] = move

    def may_have_chat(self, match_id: int) -> bool:
        return self.chatting is None or match_id in self.chatting

    def move(self, match_id: int, ply: int) -> Move | None:
        if (match_id, ply) not in self.moves:
            self.moves[(match_id, ply)] = Move.get_or_none(Move.match == match_id,
                                                           Move.ply == ply)
        return self.moves[(match_id, ply)]

    def match(self, match_id: int) -> Match:
        if match_id not in self.matches:
            self.matches[match_id] = Match.get_by_id(match_id)
        return self.matches[match_id]

    def seat_rows(self, match: Match) -> list[Seat]:
        if match.id not in self.seats:
            self.seats[match.id] = match.seat_rows()
        return self.seats[match.id]

    def state(self, match: Match, ply: int) -> Any:
        key = (match.id, ply)
        if key not in self.states:
            self.states[key] = state_after(match, min(ply, match.ply))
        return self.states[key]

    def player(self, address: str) -> Player | None:
        if address not in self.players:
            self.players[address] = Player.get_or_none(Player.email == address)
        return self.players[address]


def _account_context(params: dict[str, Any]) -> dict[str, Any]:
    """An account mail (sign-in, invitation): its few names and ids, and the clock and the
    expiry (stored as the time control and a time) worded for this mail's reader."""
    context = dict(params)
    if "time_control" in params:
        context["clock"] = TimeControl.parse(params["time_control"]).describe()
    if "expires_at" in params:
        context["expires"] = i18n.format_time(datetime.fromisoformat(params["expires_at"]),
                                              "%a %d %b %Y, %H:%M", style="full")
    return context


def context_for(message: OutboxMessage, cache: RenderCache) -> dict[str, Any]:
    params = message.params or {}
    if message.match_id is None:
        if message.template == "digest":
            return _digest_context(message, params, cache)
        if message.template == "tournament_round":
            return _tournament_round_context(params, cache)
        return _account_context(params)
    match = cache.match(message.match_id)
    rules = get_rules(match.game)
    ply = match.ply if message.ply is None else message.ply
    state = cache.state(match, ply)
    seats = cache.seat_rows(match)
    seat = seats[message.seat or 0]  # every mail about a match goes to one of its seats
    context = _seat_context(match, rules, state, seat, seats, ply, params, message.created_at)
    if params.get("ev"):
        context["events"] = _events(cache.move(match.id, ply), rules, seat.seat)
    build = _KINDS.get(message.template)
    if build is not None:
        build(context, match, rules, state, seat, seats, params, cache)
    else:
        # Other kinds (a match's life, a re-issued link) keep their few words in `params`.
        context.update({name: value for name, value in params.items()
                        if name not in _RESERVED})
    return context


def recipient(message: OutboxMessage, cache: RenderCache) -> Player | None:
    if message.match_id is not None and message.seat is not None:
        return cache.seat_rows(cache.match(message.match_id))[message.seat].player
    return cache.player(message.to_address)


# --- per kind ---------------------------------------------------------------------------------

def _turn(context: dict[str, Any], match: Match, rules: GameRules, state: Any,
          seat: Seat, seats: list[Seat], params: dict[str, Any],
          cache: RenderCache) -> None:
    moves = [rules.format_move(state, move) for move in rules.legal_moves(state, seat.seat)]
    # A mail lists the first few; the answer to a `moves` reply lists them all.
    listed = len(moves) if params.get("answer") == "moves" else MAX_LISTED_MOVES
    context["legal_moves"] = moves[:listed]
    context["more_moves"] = max(0, len(moves) - listed)


def _your_turn(context: dict[str, Any], match: Match, rules: GameRules, state: Any,
               seat: Seat, seats: list[Seat], params: dict[str, Any],
               cache: RenderCache) -> None:
    """The turn, and what the others said since this seat's last move ("Ben wrote: …"),
    read from the message rows as of the mail's own time."""
    _turn(context, match, rules, state, seat, seats, params, cache)
    context["chat"] = [_said(shown) for shown in
                       quoted_for(match.id, seat.seat, seat.player_id, context["ply"],
                                  context["written"])] if cache.may_have_chat(match.id) else []


def _chat(context: dict[str, Any], match: Match, rules: GameRules, state: Any,
          seat: Seat, seats: list[Seat], params: dict[str, Any],
          cache: RenderCache) -> None:
    """One message from the players' room; gone (hidden, or its writer blocked since) means
    the mail says so instead of showing it."""
    shown = message_for_mail(int(params.get("m", 0)), seat)
    context["said"] = _said(shown) if shown is not None else None


def _said(shown: Any) -> dict[str, Any]:
    return {"author": shown.author, "text": shown.text, "at": shown.at.strftime(_DAY)}


def _result(context: dict[str, Any], match: Match, rules: GameRules, state: Any,
            seat: Seat, seats: list[Seat], params: dict[str, Any],
            cache: RenderCache) -> None:
    stored = match.result or {"winners": [], "scores": [0] * len(seats), "reason": "ended"}
    outcome = Outcome(frozenset(stored["winners"]), tuple(stored["scores"]), stored["reason"])
    context["result"] = describe_outcome(rules, state, outcome, seats)
    context["you_won"] = seat.seat in outcome.winners


def _adjudication(context: dict[str, Any], match: Match, rules: GameRules, state: Any,
                  seat: Seat, seats: list[Seat], params: dict[str, Any],
                  cache: RenderCache) -> None:
    late = params.get("late", seat.seat)
    context.update(late_label=rules.seat_label(state, late), late_is_you=seat.seat == late,
                   cause=params.get("cause", "timeout"))


def _ruling(context: dict[str, Any], match: Match, rules: GameRules, state: Any,
            seat: Seat, seats: list[Seat], params: dict[str, Any],
            cache: RenderCache) -> None:
    late = params.get("late", seat.seat)
    context.update(late_label=rules.seat_label(state, late), ruling=params.get("ruling", ""),
                   # Stored in the admin's words; translated if the catalogs know them.
                   ruling_text=_translated(params.get("ruling_text", N_("an admin has ruled"))),
                   reason=params["reason"] if "reason" in params else _("(no longer kept)"),
                   new_deadline=deadline_info(_when(params.get("new_deadline")),
                                              match.time_control, seat.player.timezone,
                                              context["written"]))


def _vacation(context: dict[str, Any], match: Match, rules: GameRules, state: Any,
              seat: Seat, seats: list[Seat], params: dict[str, Any],
              cache: RenderCache) -> None:
    away = params.get("away", 0)
    context.update(away_label=rules.seat_label(state, away),
                   away_name=params.get("away_name", seats[away].player.public_name),
                   starts=_day(params.get("starts")), ends=_day(params.get("ends")),
                   cancelled=params.get("cancelled"))


def _draw_offer(context: dict[str, Any], match: Match, rules: GameRules, state: Any,
                seat: Seat, seats: list[Seat], params: dict[str, Any],
                cache: RenderCache) -> None:
    """The offerer by seat and name ("Blue (ann)"), as a result names the winner; mails
    queued before the offerer's seat was kept say the seat alone."""
    context.update({name: value for name, value in params.items() if name not in _RESERVED})
    offerer = params.get("offerer")
    if offerer is not None:
        context["offerer_label"] = (f"{params['offerer_label']} "
                                    f"({seats[offerer].player.public_name})")


def _inbound_answer(context: dict[str, Any], match: Match, rules: GameRules, state: Any,
                    seat: Seat, seats: list[Seat], params: dict[str, Any],
                    cache: RenderCache) -> None:
    """An answer to a player's reply (mailin.py): what was done or why not, the position,
    and the moves and commands they may send next."""
    context.update({name: value for name, value in params.items() if name not in _RESERVED})
    context.update(kind=params.get("answer", "help"), commands=COMMANDS, live=match.is_live)
    if params.get("posted_id"):
        shown = message_for_mail(int(params["posted_id"]), seat)
        context["posted"] = shown.text if shown is not None else None
    if match.is_live and seat.seat in rules.to_move(state):
        _turn(context, match, rules, state, seat, seats, params, cache)
    else:
        context.update(legal_moves=[], more_moves=0)


_KINDS = {"your_turn": _your_turn, "chat": _chat, "reminder": _turn, "result": _result,
          "adjudication": _adjudication, "ruling": _ruling, "vacation": _vacation,
          "draw_offer": _draw_offer,
          "inbound_answer": _inbound_answer}
# Params that steer rendering rather than fill the template.
_RESERVED = frozenset({"deadline", "ev", "parent", "answer", "cond", "m", "posted_id"})


# --- shared -----------------------------------------------------------------------------------

def _seat_context(match: Match, rules: GameRules, state: Any, seat: Seat, seats: list[Seat],
                  ply: int, params: dict[str, Any], written: datetime) -> dict[str, Any]:
    view = rules.view(state, seat.seat)
    # The match had ended in this position when the mail was written, though perhaps not on
    # the board (a resignation, a timeout, a ruling): then nobody is to move in it. A mail
    # written before the end is shown again as it was sent.
    over = (match.finished_at is not None and ply == match.ply
            and written >= match.finished_at)
    deadline = (_from_epoch(params["d"]) if "d" in params
                else _when(params.get("deadline")))  # rows queued before 0042 hold ISO text
    return {
        "deadline": deadline_info(deadline, match.time_control, seat.player.timezone, written),
        "time_control": TimeControl.of_match(match.time_control).describe(),
        "match": match.id,
        "game": match.game,
        "title": rules.title,
        "seat": seat.seat,
        "seat_label": rules.seat_label(state, seat.seat),
        "ply": ply,
        "players": [{"seat": other.seat, "name": other.player.public_name,
                     "label": rules.seat_label(state, other.seat),
                     "undeliverable": _undeliverable(other.player)} for other in seats],
        "view": view,
        "board_text": rules.render_text(view, over=over),
        "to_move": [] if over else sorted(rules.to_move(state)),
        "match_over": over,
        "events": [],
        # This seat's own conditional moves, played or cleared (never another seat's).
        "conditional": list(params.get("cond", [])),
        "written": written,
        "deal": deal_of(match, rules, state),
    }


def _events(move: Move | None, rules: GameRules, seat: int) -> list[str]:
    if move is None:
        return []
    return [rules.describe_event(event) for event in map(stored_event, move.events)
            if event.is_visible_to(seat)]


def _digest_context(message: OutboxMessage, params: dict[str, Any],
                    cache: RenderCache) -> dict[str, Any]:
    player = cache.player(message.to_address)
    zone = player.timezone if player else None
    acts, results = [], []
    for match_id, seat_number, deadline in params.get("acts", []):
        item = _digest_item(cache, match_id, seat_number)
        if item is not None:
            match = cache.match(match_id)
            item["deadline"] = deadline_info(_when(deadline), match.time_control, zone,
                                             message.created_at)
            acts.append(item)
    for match_id, seat_number in params.get("results", []):
        item = _digest_item(cache, match_id, seat_number)
        if item is not None:
            match = cache.match(match_id)
            rules = get_rules(match.game)
            seats = cache.seat_rows(match)
            _result(item, match, rules, cache.state(match, match.ply), seats[seat_number],
                    seats, {}, cache)
            results.append(item)
    chats = []
    for match_id, seat_number, count in params.get("chats", []):
        item = _digest_item(cache, match_id, seat_number)
        if item is not None:
            item["messages"] = count
            chats.append(item)
    return {"acts": acts, "results": results, "chats": chats,
            "chat_only": bool(params.get("chat_only")),
            "since": _day(params.get("since")),
            "name": player.public_name if player else message.to_address}


def _tournament_round_context(params: dict[str, Any], cache: RenderCache) -> dict[str, Any]:
    """One mail for a player's new seats in a tournament round: each as a digest item (the
    mail layer adds each seat's link to `acts` at send time, as for the digest)."""
    acts = []
    for match_id, seat_number in params.get("seats", []):
        item = _digest_item(cache, match_id, seat_number)
        if item is not None:
            match = cache.match(match_id)
            item["your_turn"] = seat_number in match.to_move
            acts.append(item)
    return {**{k: v for k, v in params.items() if k != "seats"}, "acts": acts}


def _digest_item(cache: RenderCache, match_id: int, seat_number: int) -> dict[str, Any] | None:
    match = Match.get_or_none(Match.id == match_id)
    if match is None:
        return None
    cache.matches.setdefault(match_id, match)
    rules = get_rules(match.game)
    seats = cache.seat_rows(match)
    state = cache.state(match, match.ply)
    return {"match": match_id, "seat": seat_number, "title": rules.title,
            "seat_label": rules.seat_label(state, seat_number),
            "opponents": [other.player.public_name for other in seats
                          if other.seat != seat_number]}


def _translated(stored: str) -> str:
    # gettext("") would be the catalog's header.
    return _(stored) if stored else stored


def _undeliverable(player: Player) -> bool:
    return getattr(player, "undeliverable_at", None) is not None


def _from_epoch(seconds: int) -> datetime:
    return datetime.fromtimestamp(seconds, UTC).replace(tzinfo=None)


def _when(text: str | None) -> datetime | None:
    return datetime.fromisoformat(text) if text else None


def _day(text: str | None) -> str:
    """A stored time as the mail shows it: English keeps its form; the other languages
    write it their own way, in the reader's zone."""
    if not text:
        return ""
    moment = datetime.fromisoformat(text)
    return moment.strftime(_DAY) if i18n.current() == i18n.DEFAULT else i18n.format_time(moment)
