"""Downloadable match records: `record.json` (enough to replay the match with the rules
module alone) and `record.txt` (a readable record with a header and numbered moves, as PGN is
for chess).

A live match exports what a spectator may see: no seed (it decides hidden deals), and a
secret move's notation is left out until the match ends.
"""

from __future__ import annotations

import json
from datetime import datetime
from typing import Any

from pbem.core.matches.clocks import TimeControl
from pbem.core.matches.creation import deal_of, rules_for
from pbem.core.matches.history import public_changes
from pbem.core.matches.models import (
    Adjudication,
    AdjudicationStatus,
    Match,
    Move,
    Seat,
)
from pbem.core.ratings.queries import match_changes
from pbem.core.records.archive import STATUS_WORDS, seats_of
from pbem.core.records.match_record import revealed_through, stored_event
from pbem.errors import InvalidRequestError

FORMAT = "pbem-record"
VERSION = 1


def match_record(match: Match) -> dict[str, Any]:
    """The record as JSON-safe data (see the module docstring for what a live match hides)."""
    rules = rules_for(match)
    state = rules.load(match.state)
    over = not match.is_live
    rated = bool(match.rated) and not match.has_computer
    players = seats_of([match.id])[match.id]
    moves = list(Move.select(Move.ply, Move.turn, Move.seat, Move.text, Move.visible_to,
                             Move.events, Move.note, Move.created_at)
                 .where(Move.match == match).order_by(Move.ply))
    revealed = 0 if over else revealed_through(match, rules, 1)
    listed = []
    for move in moves:
        readable = over or move.visible_to is None or move.ply <= revealed
        listed.append({
            "ply": move.ply, "turn": move.turn, "seat": move.seat,
            "text": move.text if readable else None,
            **({} if readable else {"hidden": True}),
            "at": _iso(move.created_at),
            "events": [rules.describe_event(event) for event in map(stored_event, move.events)
                       if over or event.is_visible_to(None)],
            # Only what is so: a move its player made says neither.
            **{fact: said for fact, said in move.how_made().items() if said},
        })
    result = None
    if match.result:
        result = {"winners": match.result["winners"], "scores": match.result["scores"],
                  "reason": match.result["reason"]}
    return {
        "format": FORMAT, "version": VERSION,
        "match": match.id,
        "game": match.game, "title": rules.title, "rules_version": match.rules_version,
        "options": match.options,
        "seed": match.seed if over else None,
        **(deal_of(match, rules, state) or {}),
        "status": STATUS_WORDS.get(match.status, match.status),
        "players": [{"seat": p["seat"], "name": p["name"],
                     "label": rules.seat_label(state, p["seat"])} for p in players],
        "time_control": match.time_control, "on_timeout": match.on_timeout,
        "created_at": _iso(match.created_at), "finished_at": _iso(match.finished_at),
        "moves": listed,
        "result": result,
        "rulings": rulings_of(match),
        # Whether the result counts for ratings: a match the computer plays or played in (a
        # seat an admin handed to it part-way too) never does, whatever it was created as.
        "rated": rated,
        # A finished rated match: each counted seat's rating before and after (core/ratings),
        # so anyone can check the arithmetic; an unrated one has none.
        "ratings": ratings_of_match(match) if over and rated else None,
        # Everything that happened to the match, from its change log (public details only).
        "changes": public_changes(match),
    }


def ratings_of_match(match: Match) -> list[dict[str, Any]]:
    return [{"seat": seat, "mu_before": e.mu_before, "sigma_before": e.sigma_before,
             "days_away": e.days_away, "rank": e.rank, "mu_after": e.mu_after,
             "sigma_after": e.sigma_after, "rating_before": e.display_before,
             "rating_after": e.display_after}
            for seat, e in sorted(match_changes(match.id).items())]


def rulings_of(match: Match) -> list[dict[str, Any]]:
    entries = (Adjudication.select().where(Adjudication.match == match,
                                           Adjudication.status == AdjudicationStatus.RULED)
               .order_by(Adjudication.ruled_at, Adjudication.id))
    return [{"ruling": entry.ruling, "seat": entry.seat, "cause": entry.cause,
             "reason": entry.reason, "at": _iso(entry.ruled_at)} for entry in entries]


def record_text(record: dict[str, Any], url: str | None = None) -> str:
    """The record as text: `[Tag "value"]` header lines, a blank line, one numbered line per
    move (`{…}` holds what the move caused), and the result last."""
    labels = {p["seat"]: p["label"] for p in record["players"]}
    names = {p["seat"]: p["name"] for p in record["players"]}
    tags: list[tuple[str, Any]] = [
        ("Game", record["title"]), ("GameSlug", record["game"]),
        ("Match", record["match"]), ("Site", url),
        ("Date", (record["created_at"] or "")[:10].replace("-", ".")),
        ("Status", record["status"]),
        *[(f"Seat{seat + 1}", f"{labels[seat]}: {names[seat]}") for seat in sorted(labels)],
        ("Options", json.dumps(record["options"], sort_keys=True) if record["options"] else None),
        ("Seed", record["seed"]),
        ("RulesVersion", record["rules_version"]),
        ("TimeControl", _describe_clock(record["time_control"])),
        ("Plies", len(record["moves"])),
    ]
    if record["result"]:
        winners = record["result"]["winners"]
        tags.append(("Winners", ", ".join(names[s] for s in winners) if winners else "none"))
        tags.append(("Scores", " ".join(f"{_number(x)}" for x in record["result"]["scores"])))
        tags.append(("Termination", record["result"]["reason"]))
    lines = [f'[{name} "{_escape(value)}"]' for name, value in tags if value is not None]
    for ruling in record["rulings"]:
        lines.append(f'[Ruling "{ruling["at"][:16].replace("T", " ")} {ruling["ruling"]}: '
                     f'{_escape(ruling["reason"] or "")}"]')
    lines.append("")
    width = len(str(len(record["moves"]))) if record["moves"] else 1
    label_width = max((len(label) for label in labels.values()), default=0)
    for move in record["moves"]:
        text = move["text"] if move["text"] is not None else "(hidden)"
        notes = list(move["events"])
        if move.get("autoplayed"):
            note = move["autoplayed"]
            notes.append(note if note.startswith("played by ") else
                         f"played by the server: {note}")
        if move.get("conditional"):
            notes.append("conditional")
        comment = f"  {{{'; '.join(notes)}}}" if notes else ""
        lines.append(f"{move['ply']:>{width}}. {labels[move['seat']]:<{label_width}}  "
                     f"{text}{comment}")
    lines.append("")
    lines.append(_ending(record, names))
    return "\n".join(lines) + "\n"


def _ending(record: dict[str, Any], names: dict[int, str]) -> str:
    if record["status"] == "aborted":
        return "Aborted."
    if record["result"] is None:
        return "In play."
    winners = record["result"]["winners"]
    if not winners or len(winners) == len(names):
        return f"Drawn. {record['result']['reason']}"
    return f"{' and '.join(names[s] for s in winners)} won. {record['result']['reason']}"


def _describe_clock(text: str) -> str:
    try:
        return TimeControl.parse(text).describe()
    except InvalidRequestError:  # an imported record may carry a clock we cannot read
        return text


def _number(score: float) -> str:
    return str(int(score)) if float(score).is_integer() else f"{score:.2f}"


def _escape(value: Any) -> str:
    return str(value).replace("\\", "\\\\").replace('"', '\\"').replace("\n", " ")


def _iso(moment: datetime | None) -> str | None:
    return None if moment is None else moment.isoformat() + "Z"



def seat_record_export(seat: Seat) -> dict[str, Any]:
    """A seat's own download: the match's record as anyone may have it, plus what only this
    seat may read and keep: its private notes and the players' chat as this seat sees it
    (oldest first). Never built for anyone but the seat's own link."""
    from pbem.core.conversation.chat import players_room
    from pbem.core.conversation.personal import notes_of

    record = match_record(Match.get_by_id(seat.match_id))
    messages: list[dict[str, Any]] = []
    before = None
    while True:  # every page of the room, newest first, then turned around
        page, before = players_room(seat, before, limit=100)
        messages.extend(shown.as_json() for shown in page)
        if before is None:
            break
    record["for_seat"] = {"seat": seat.seat, "notes": notes_of(seat),
                          "chat": list(reversed(messages))}
    return record
