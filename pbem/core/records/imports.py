"""Importing a finished match from its `record.json` (see exports.py), e.g. from another
install. Every move is replayed through the rules before anything is written, and the import
is refused whole, with a message that says why, when:

- a move is illegal (the message names the move), or the record is not a finished match;
- the result is not what the moves produce: a game the moves finish must end as the board
  says (winners and scores), and a game they leave unfinished needs an ending off the board
  that this server writes (a resignation, a timeout or forfeit, a draw by agreement, an
  adjudicator's ruling) with the winners and scores it gives, naming as the loser a player
  of the match. A record cut short, its board result kept, is refused;
- the match is here already: the same record was imported before (its fingerprint is kept
  on the match it made), or the same match with its start time moved was imported or played
  here (same game, seed and setup, the same moves at the same times, the same end);
- the input nests deeper than any record does (`load_record` parses a file's text).

Players are found as their page finds them (display name, an unnamed player's address local
part, a name given up), so an import never changes who a name leads to; a name nobody here
answers to gets a new player who can never receive mail."""

from __future__ import annotations

import hashlib
import json
import math
import re
import secrets
from collections.abc import Mapping
from datetime import datetime
from typing import Any

import peewee

from pbem import i18n
from pbem.core.accounts.models import Player
from pbem.core.accounts.players import find_player
from pbem.core.admin.models import AuditEntry
from pbem.core.db.connection import write_transaction
from pbem.core.matches.clocks import TimeControl
from pbem.core.matches.creation import MAX_SEED, SNAPSHOT_EVERY
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.core.matches.lifecycle import losing_result
from pbem.core.matches.models import (
    CONDITIONAL_NOTE,
    Adjudication,
    AdjudicationStatus,
    ChangeLog,
    Match,
    MatchStatus,
    Move,
    Position,
    Seat,
)
from pbem.core.matches.play import stored_events
from pbem.core.matches.seat_links import seat_token, token_hash
from pbem.core.records import standings
from pbem.core.records.deals import Deal, check_salts, read_deal
from pbem.core.records.exports import FORMAT, VERSION
from pbem.core.records.standings import DRAW, LOSS
from pbem.errors import InvalidRequestError
from pbem.games import REGISTRY
from pbem.games.base import CommitsDeals, GameRules, RulesError
from pbem.i18n import N_, _

# Players a record names who are not known here get an address that can never receive mail
# (RFC 2606 reserves .invalid); they show under their recorded name.
IMPORTED_DOMAIN = "imported.invalid"


# No record nests deeper than this (a change's details, an option's value); deeper input is
# refused before anything recursive (the JSON parser, an encoder) meets it.
MAX_DEPTH = 32


def load_record(text: str | bytes) -> Any:
    """A record file's text as data, or an InvalidRequestError in one line: not JSON, or
    nested deeper than any record is."""
    try:
        data = json.loads(text)
    except RecursionError:
        raise InvalidRequestError(_(_TOO_DEEP, depth=MAX_DEPTH)) from None
    except ValueError as error:
        raise InvalidRequestError(_("The file is not JSON (%(error)s). An import reads a "
                                    "match's record.json, not its record.txt.",
                                    error=error)) from None
    return data


def import_record(data: Any, secret_key: str, now: datetime, actor: str = "shell",
                  source: str = "a record") -> Match:
    """Recreate the finished match `data` describes; raise InvalidRequestError saying why not."""
    _check_depth(data)
    record = _object(data, _("the record"))
    rules, seed, names, options = _setup(record)
    result = _result(record.get("result"), len(names))
    deal, moves, final = _replay_all(record, rules, seed, len(names), options)
    _check_ending(rules, final, result, len(moves), len(names))
    created = _time(record.get("created_at"), "created_at")
    finished = (_time(record["finished_at"], "finished_at") if record.get("finished_at")
                else moves[-1]["at"] if moves else created)
    clock, policy = _clock_and_policy(record)
    rulings = _rulings(record.get("rulings", []), len(names))
    history = _history(record.get("changes", []), len(names))
    fingerprint = _fingerprint(rules, options, seed, created, len(names), moves)
    try:
        with write_transaction():
            _refuse_copy(fingerprint, rules, options, seed, moves, finished, len(names))
            match = Match.create(
                game=rules.slug, rules_version=rules.rules_version, options=options, seed=seed,
                **_deal_columns(deal), status=MatchStatus.FINISHED, ply=len(moves),
                turn=moves[-1]["next_turn"] if moves else 0, to_move=[], state=rules.dump(final),
                result=result, thread_key=secrets.token_hex(8), time_control=clock,
                on_timeout=policy, created_at=created, updated_at=finished, finished_at=finished,
                record_fingerprint=fingerprint)
            for seat, name in enumerate(names):
                Seat.create(match=match, seat=seat, player=_player(name, now),
                            token_hash=token_hash(seat_token(secret_key, match.id, seat, 1)))
            _write_history(match, rules, moves, rulings, history)
            AuditEntry.create(at=now, actor=actor, action="import", match=match,
                              reason=f"imported from {source}",
                              detail={"original_match": record.get("match")})
    except peewee.IntegrityError:
        _refuse_copy(fingerprint)  # another import of the same record won the race
        raise
    return match


def verify_record(data: Any) -> str | None:
    """What is wrong with a record (its setup, its commitment, a deal, a move, its ending), or
    None when everything follows: `pbem verify`. Writes nothing."""
    try:
        _check_depth(data)
        record = _object(data, _("the record"))
        rules, seed, names, options = _setup(record)
        result = _result(record.get("result"), len(names))
        _deal, moves, final = _replay_all(record, rules, seed, len(names), options)
        _check_ending(rules, final, result, len(moves), len(names))
    except InvalidRequestError as error:
        return str(error)
    return None


def _replay_all(record: Mapping[str, Any], rules: GameRules, seed: int, seats: int,
                options: dict[str, Any]) -> tuple[Deal | None, list[dict[str, Any]], Any]:
    """The record's committed deal (None: the older scheme), its moves replayed from the
    deal, and the final state; refused when a move or a salt does not follow."""
    deal = read_deal(record, rules)
    if deal is not None and isinstance(rules, CommitsDeals):
        start = rules.new_committed_game(seats, options, deal.seed)
    else:
        start = rules.new_game(seats, options, seed)
    moves = _replay(rules, seats, start, record.get("moves"))
    final = moves[-1]["state"] if moves else start
    if deal is not None:
        check_salts(deal, rules, final)
    return deal, moves, final


def _deal_columns(deal: Deal | None) -> dict[str, Any]:
    if deal is None:
        return {}
    return {"deal_seed": deal.seed, "deal_commitment": deal.commitment,
            "deal_match": deal.match_id}


def _setup(record: Mapping[str, Any]) -> tuple[GameRules, int, list[str], dict[str, Any]]:
    """The record's game, seed, players and options, each checked against this server."""
    if record.get("format") != FORMAT or record.get("version") != VERSION:
        raise InvalidRequestError(_("This is not a pbem match record (format %(format)r, "
                                    "version %(version)s).", format=FORMAT, version=VERSION))
    game = record.get("game")
    rules = REGISTRY.get(game) if isinstance(game, str) else None
    if rules is None:
        raise InvalidRequestError(_("This server has no game called %(game)r.", game=game))
    if record.get("rules_version") != rules.rules_version:
        raise InvalidRequestError(_(
            "The record was played under %(game)s rules version %(theirs)r; this server has "
            "version %(ours)s.", game=rules.title, theirs=record.get("rules_version"),
            ours=rules.rules_version))
    if record.get("status") != "finished":
        raise InvalidRequestError(_("Only finished matches can be imported; this one is "
                                    "%(status)r.", status=record.get("status")))
    seed = record.get("seed")
    if not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < MAX_SEED:
        raise InvalidRequestError(_("The record has no usable seed (a finished match's "
                                    "record carries it)."))
    names = _names(record.get("players"))
    try:
        rules.check_player_count(len(names))
        # A record's options are a made match's: one made before an option existed (or
        # while its default differed) plays by the value it had then.
        options = rules.resolve_options(_object(record.get("options", {}), _("options")),
                                        stored=True)
    except RulesError as error:
        raise InvalidRequestError(_("The record's setup is refused: %(error)s",
                                    error=error)) from None
    return rules, seed, names, options


def _clock_and_policy(record: Mapping[str, Any]) -> tuple[str, str]:
    clock = record.get("time_control") or "3d"
    policy = record.get("on_timeout") or TimeoutPolicy.ADJUDICATE
    if not isinstance(clock, str) or not isinstance(policy, str) or policy not in \
            TimeoutPolicy.ALL:
        raise InvalidRequestError(_("The record's time control or timeout policy is "
                                    "unreadable."))
    TimeControl.parse(clock)
    return clock, policy


def _write_history(match: Match, rules: GameRules, moves: list[dict[str, Any]],
                   rulings: list[dict[str, Any]], history: list[dict[str, Any]]) -> None:
    """The imported match's moves, kept positions, rulings, change log and results."""
    Move.insert_many([{
        "match": match.id, "ply": ply, "turn": move["turn"], "seat": move["seat"],
        "text": move["text"], "visible_to": move["visible_to"], "events": move["events"],
        "note": move["note"], "created_at": move["at"],
    } for ply, move in enumerate(moves, start=1)]).execute()
    # A finished match keeps one position in SNAPSHOT_EVERY (see thin_snapshots).
    Position.insert_many([
        {"match": match.id, "ply": ply, "state": rules.dump(move["state"])}
        for ply, move in enumerate(moves, start=1) if ply % SNAPSHOT_EVERY == 0
    ]).execute()
    for ruling in rulings:
        Adjudication.create(match=match, seat=ruling["seat"], cause=ruling["cause"],
                            status=AdjudicationStatus.RULED, opened_at=ruling["at"],
                            ruling=ruling["ruling"], reason=ruling["reason"],
                            ruled_by="import", ruled_at=ruling["at"])
    for row in history:  # the match's history, as the record tells it
        ChangeLog.create(match=match, **row)
    standings.settle(match.id)
    standings.tally_ended(match.id, started=False)


def _fingerprint(rules: GameRules, options: dict[str, Any], seed: int, created: datetime,
                 seats: int, moves: list[dict[str, Any]]) -> str:
    """What makes a record the same match wherever it was exported from: the game, its setup,
    when it began and every move (in canonical notation, with its time). Not the match number
    or the players' names, which differ between installs."""
    facts = [rules.slug, options, seed, created.isoformat(), seats,
             [[move["seat"], move["text"], move["at"].isoformat()] for move in moves]]
    text = json.dumps(facts, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()


def _refuse_copy(fingerprint: str, rules: GameRules | None = None,
                 options: dict[str, Any] | None = None, seed: int | None = None,
                 moves: list[dict[str, Any]] | None = None,
                 finished: datetime | None = None, seats: int = 0) -> None:
    known = Match.select(Match.id).where(Match.record_fingerprint == fingerprint).first()
    if known is not None:
        raise InvalidRequestError(_("This match is already here as match %(id)s (imported "
                                    "from the same record). Nothing was imported.",
                                    id=known.id))
    if rules is None or seed is None or moves is None:
        return
    # The same match with its start moved has another fingerprint, and a match played here
    # has none: each is found by its game and seed (drawn at random for each match), then
    # compared by its setup, its moves with their times, and its end, its start aside.
    ours = [(move["seat"], move["text"], move["at"]) for move in moves]
    for known in (Match.select(Match.id, Match.options, Match.finished_at,
                               Match.record_fingerprint)
                  .where(Match.game == rules.slug, Match.seed == seed)):
        if known.options != options or known.finished_at != finished or Seat.select().where(
                Seat.match == known.id).count() != seats:
            continue
        played = [(m.seat, m.text, m.created_at) for m in
                  Move.select(Move.seat, Move.text, Move.created_at)
                  .where(Move.match == known.id).order_by(Move.ply)]
        if played != ours:
            continue
        raise InvalidRequestError(
            _("This match is already here as match %(id)s (imported from a record of the "
              "same match, its start time moved). Nothing was imported.", id=known.id)
            if known.record_fingerprint else
            _("This match is already here as match %(id)s (it was played on this server). "
              "Nothing was imported.", id=known.id))


# The fields every row of a record's `changes` has; the rest are the change's details.
_CHANGE_FIELDS = ("version", "kind", "seat", "by", "channel", "at")


def _history(raw: Any, seats: int) -> list[dict[str, Any]]:
    """A record's `changes` (its change log, public details only) as rows to store."""
    if not isinstance(raw, list):
        raise InvalidRequestError(_("The record's changes must be a list."))
    rows = []
    for number, item in enumerate(raw, start=1):
        change = _object(item, _("change %(number)s", number=number))
        version, kind, seat = change.get("version"), change.get("kind"), change.get("seat")
        by, channel = change.get("by"), change.get("channel")
        if (not isinstance(version, int) or isinstance(version, bool)
                or not isinstance(kind, str) or not 0 < len(kind) <= 32
                or not (seat is None or (isinstance(seat, int) and 0 <= seat < seats))
                or by not in ("player", "server", "admin")
                or not isinstance(channel, str) or len(channel) > 8):
            raise InvalidRequestError(_("Change %(number)s of the record is unreadable.",
                                        number=number))
        details = {name: value for name, value in change.items()
                   if name not in _CHANGE_FIELDS}
        rows.append({"version": version, "kind": kind, "seat": seat, "actor": by,
                     "channel": channel, "payload": details,
                     "at": _time(change.get("at"), _("change %(number)s's time",
                                                     number=number))})
    return rows


def _replay(rules: GameRules, seats: int, start: Any, raw: Any) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise InvalidRequestError(_("The record's moves must be a list."))
    state = start
    turn = 0
    replayed = []
    for ply, item in enumerate(raw, start=1):
        move = _object(item, _("move %(ply)s", ply=ply))
        seat, text = move.get("seat"), move.get("text")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < seats:
            raise InvalidRequestError(_("Move %(ply)s names no seat of this match.", ply=ply))
        if not isinstance(text, str) or not text.strip():
            raise InvalidRequestError(_("Move %(ply)s has no move text (a live match's record "
                                        "hides secret moves; only finished records import).",
                                        ply=ply))
        label = rules.seat_label(state, seat)
        before = rules.to_move(state)
        if seat not in before:
            raise InvalidRequestError(
                _("Move %(ply)s (%(label)s %(text)r) is illegal: the game was already over. "
                  "Nothing was imported.", ply=ply, label=label, text=text) if not before else
                _("Move %(ply)s (%(label)s %(text)r) is illegal: it was not %(label)s's turn. "
                  "Nothing was imported.", ply=ply, label=label, text=text))
        try:
            parsed = rules.parse_move(state, seat, text)
        except RulesError as error:
            raise InvalidRequestError(_("Move %(ply)s (%(label)s %(text)r) is illegal: "
                                        "%(error)s. Nothing was imported.", ply=ply,
                                        label=label, text=text, error=error)) from None
        canonical = rules.format_move(state, parsed)
        readers = rules.move_visibility(state, seat, parsed)
        transition = rules.apply_move(state, seat, parsed)
        after = rules.to_move(transition.state)
        same_decision = bool(after) and after == before - {seat}
        note = move.get("autoplayed") or (CONDITIONAL_NOTE if move.get("conditional") is True
                                          else None)
        replayed.append({
            "seat": seat, "text": canonical, "turn": turn,
            "visible_to": None if readers is None else sorted(readers),
            "events": stored_events(transition.events),
            "note": note if isinstance(note, str) else None,
            "at": _time(move.get("at"), _("move %(ply)s's time", ply=ply)),
            "state": transition.state,
        })
        turn = turn if same_decision else turn + 1
        replayed[-1]["next_turn"] = turn
        state = transition.state
    return replayed


def _names(raw: Any) -> list[str]:
    if not isinstance(raw, list) or not raw:
        raise InvalidRequestError(_("The record's players must be a list of {seat, name}."))
    names = []
    for number, item in enumerate(sorted(raw, key=lambda p: _object(p, _("a player"))
                                         .get("seat", -1))):
        name = item.get("name")
        if item.get("seat") != number:
            raise InvalidRequestError(_("The record's players must have seats 0, 1, 2, … "
                                        "once each."))
        if not isinstance(name, str) or not name.strip() or "@" in name or len(name) > 64:
            raise InvalidRequestError(_("Seat %(number)s's player name %(name)r is not a "
                                        "display name (1 to 64 characters, no @).",
                                        number=number, name=name))
        names.append(name.strip())
    return names


def _result(raw: Any, seats: int) -> dict[str, Any]:
    result = _object(raw, _("the result"))
    winners, scores, reason = result.get("winners"), result.get("scores"), result.get("reason")
    if not isinstance(winners, list) or not all(
            isinstance(w, int) and 0 <= w < seats for w in winners):
        raise InvalidRequestError(_("The result's winners must be a list of seat numbers."))
    if not isinstance(scores, list) or len(scores) != seats or not all(
            isinstance(x, int | float) and not isinstance(x, bool) for x in scores):
        raise InvalidRequestError(_("The result's scores must be one number per seat."))
    if not isinstance(reason, str):
        raise InvalidRequestError(_("The result needs a reason (text)."))
    return {"winners": sorted(set(winners)), "scores": [float(x) for x in scores],
            "reason": reason}


# The results the server writes when a match ends off the board, before the moves finish the
# game (lifecycle.py: resign, draw by agreement, claim; rulings.py: forfeit, a ruling;
# sweep.py: forfeit after the autoplay limit), each with what it makes of the winners and
# scores. `losers` names the seats that lost (by their labels, as the reason was written).
_AWARD = "award"
_ENDS_OFF_THE_BOARD = (
    (re.compile(r"(?P<losers>.+) resigned"), LOSS),
    (re.compile(r"drawn by agreement"), DRAW),
    (re.compile(r"(?P<losers>.+) ran out of time; (?P<claimer>.+) claimed the win"), LOSS),
    (re.compile(r"(?P<losers>.+) ran out of time and forfeits"), LOSS),
    (re.compile(r"(?P<losers>.+?) ran out of time (?:once|\d+ times) in a row, was moved for, "
                r"and now forfeits"), LOSS),
    (re.compile(r"awarded by the adjudicator: .*", re.DOTALL), _AWARD),
    (re.compile(r"drawn by the adjudicator: .*", re.DOTALL), DRAW),
)


def _check_ending(rules: GameRules, final: Any, result: dict[str, Any], plies: int,
                  seats: int) -> None:
    """The record's result must be the one its moves produce: the board's outcome when the
    moves finish the game, else an ending off the board (a record cut short keeps the result
    of moves it no longer has, and is refused), with the winners and scores that ending
    gives, and naming players of the match."""
    outcome = rules.outcome(final)
    reason = result["reason"]
    ending = next(((kind, found) for pattern, kind in _ENDS_OFF_THE_BOARD
                   if (found := pattern.fullmatch(reason))), None)
    if outcome is not None:
        if set(result["winners"]) != set(outcome.winners):
            raise InvalidRequestError(_(
                "The record's result names winners %(theirs)s, but the moves end the game with "
                "%(ours)s winning.", theirs=result["winners"], ours=sorted(outcome.winners)))
        if ending is not None:
            raise InvalidRequestError(_(
                "The moves end the game at move %(plies)s (%(why)s), but the record's result "
                "says %(reason)r. Nothing was imported.", plies=plies, why=outcome.reason,
                reason=reason))
        _check_scores(result, list(outcome.scores))
        return
    if ending is None:
        raise InvalidRequestError(_(
            "The record stops after move %(plies)s with the game unfinished, so its result "
            "(%(reason)r) is not what the moves produce: only a resignation, a timeout, a "
            "draw by agreement or an adjudicator's ruling ends a game before its last move. "
            "Nothing was imported.", plies=plies, reason=reason))
    winners, scores = _ending_result(rules, final, ending[0], ending[1], result, seats)
    if set(result["winners"]) not in winners:
        raise InvalidRequestError(_(
            "The record's result names winners %(theirs)s, which %(reason)r does not give. "
            "Nothing was imported.", theirs=result["winners"], reason=reason))
    _check_scores(result, scores)


def _ending_result(rules: GameRules, final: Any, kind: str, found: re.Match[str],
                   result: dict[str, Any], seats: int) -> tuple[list[set[int]], list[float]]:
    """The winners (each set allowed) and scores that an ending off the board gives."""
    everyone = set(range(seats))
    if kind == DRAW:
        return [set(), everyone], [1 / seats] * seats
    if kind == _AWARD:
        # The adjudicator awards the match to every seat but the late one.
        late = everyone - set(result["winners"])
        if len(late) != 1:
            return [], []
        return [everyone - late], [0.0 if seat in late else 1.0 for seat in range(seats)]
    with i18n.language("en"):  # the reason was written in English (lifecycle.py)
        labels = {rules.seat_label(final, seat): seat for seat in range(seats)}
    losers = {_seat_named(labels, name, result) for name in found["losers"].split(" and ")}
    claimer = found.groupdict().get("claimer")
    if claimer is not None and _seat_named(labels, claimer, result) in losers:
        raise InvalidRequestError(_(
            "The record's result says %(reason)r, but %(name)s cannot both run out of time "
            "and claim the win. Nothing was imported.", reason=result["reason"], name=claimer))
    if losers == everyone:
        return [], []
    winners, scores = losing_result(rules, final, seats, losers)
    return [set(winners)], scores


def _seat_named(labels: Mapping[str, int], name: str, result: dict[str, Any]) -> int:
    if name not in labels:
        raise InvalidRequestError(_(
            "The record's result says %(reason)r, but no player of this match is called "
            "%(name)s (its players are %(labels)s). Nothing was imported.",
            reason=result["reason"], name=name, labels=", ".join(labels)))
    return labels[name]


def _check_scores(result: dict[str, Any], scores: list[float]) -> None:
    if len(scores) != len(result["scores"]) or not all(
            math.isclose(theirs, ours, abs_tol=1e-6)
            for theirs, ours in zip(result["scores"], scores, strict=True)):
        raise InvalidRequestError(_(
            "The record's result gives the scores %(theirs)s, but its moves and %(reason)r "
            "give %(ours)s. Nothing was imported.", theirs=_shown(result["scores"]),
            reason=result["reason"], ours=_shown(scores)))


def _shown(scores: list[float]) -> str:
    return "[" + ", ".join(f"{score:g}" for score in scores) + "]"


def _rulings(raw: Any, seats: int) -> list[dict[str, Any]]:
    if not isinstance(raw, list):
        raise InvalidRequestError(_("The record's rulings must be a list."))
    rulings = []
    for item in raw:
        ruling = _object(item, _("a ruling"))
        seat = ruling.get("seat")
        if not isinstance(seat, int) or not 0 <= seat < seats or not isinstance(
                ruling.get("ruling"), str):
            raise InvalidRequestError(_("A ruling in the record names no seat or no "
                                        "ruling."))
        rulings.append({"seat": seat, "ruling": ruling["ruling"][:16],
                        "cause": str(ruling.get("cause") or "timeout")[:16],
                        "reason": str(ruling.get("reason") or ""),
                        "at": _time(ruling.get("at"), _("a ruling's time"))})
    return rulings


def _player(name: str, now: datetime) -> Player:
    """The player this server knows by `name`, as their page and the archive filter find them
    (display name, an unnamed player's address local part, or a name they gave up), else one
    made for the import. A made one takes the name as its display name only when nobody here
    answers to it in any case, so an import never changes who a name leads to."""
    known = find_player(name) or standings.formerly_named(name)
    if known is not None:
        return known
    email = f"{name}@{IMPORTED_DOMAIN}"
    made = Player.get_or_none(Player.email == email)  # an earlier import's, with no page
    if made is not None:
        return made
    free = len(name) <= Player.name.max_length and not standings.answers_to(name)
    return Player.create(email=email, name=name if free else None, created_at=now)


_TOO_DEEP = N_("The file is nested more than %(depth)s levels deep; no match record is. "
               "Nothing was imported.")


def _check_depth(data: Any) -> None:
    """Walked without recursion, so no depth of input can exhaust the stack here."""
    pending = [(data, 1)]
    while pending:
        value, depth = pending.pop()
        if isinstance(value, dict | list):
            if depth > MAX_DEPTH:
                raise InvalidRequestError(_(_TOO_DEEP, depth=MAX_DEPTH))
            items = value.values() if isinstance(value, dict) else value
            pending.extend((item, depth + 1) for item in items)


def _object(value: Any, what: str) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise InvalidRequestError(_("In the record, %(what)s must be a JSON object.",
                                    what=what))
    return value


def _time(value: Any, what: str) -> datetime:
    if not isinstance(value, str):
        raise InvalidRequestError(_("The record's %(what)s is missing.", what=what))
    try:
        moment = datetime.fromisoformat(value.removesuffix("Z"))
    except ValueError:
        raise InvalidRequestError(_("The record's %(what)s %(value)r is not an ISO time.",
                                    what=what, value=value)) from None
    return moment.replace(tzinfo=None)
