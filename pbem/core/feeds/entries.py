"""A feed as a value, and the public feeds: a match's moves and events, a competition's
rounds and results. What a match's feed shows is what its public page shows a spectator
(`records.match_record.public_record`, `matches.history.public_events`), so a hidden card or
a hidden move's notation never reaches it."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime

from pbem.core.accounts.models import Player
from pbem.core.matches.creation import get_match
from pbem.core.matches.history import public_events, words
from pbem.core.matches.models import Match
from pbem.core.records.match_record import public_record
from pbem.core.tournaments.models import Pairing, Tournament, TournamentEntry, TournamentRound
from pbem.i18n import _

# A feed reader shows the newest; older entries are on the pages.
MAX_ENTRIES = 50


@dataclass(frozen=True)
class Entry:
    """One entry: `key` makes its stable id (`tag:<site>,2026:<key>`), `path` the page it
    links to on this site, `updated` when what it tells happened."""

    key: str
    title: str
    updated: datetime
    path: str
    summary: str = ""


@dataclass(frozen=True)
class Feed:
    key: str
    title: str
    path: str  # the page the feed follows
    entries: tuple[Entry, ...]
    updated: datetime  # the newest entry's time (or when the followed thing began)


def make_feed(key: str, title: str, path: str, entries: Sequence[Entry],
              since: datetime) -> Feed:
    """The newest MAX_ENTRIES entries, newest first."""
    newest = sorted(entries, key=lambda entry: (entry.updated, entry.key), reverse=True)
    kept = tuple(newest[:MAX_ENTRIES])
    return Feed(key, title, path, kept, kept[0].updated if kept else since)


def match_feed(match_id: int, now: datetime) -> Feed:
    """A match's moves, events and result, as a spectator sees them; NotFoundError if none."""
    match = get_match(match_id)
    record = public_record(match, now)
    page = f"/matches/{match.id}"
    entries = [_move_entry(match, move) for move in record["moves"]]
    for event in public_events(match):
        if event["kind"] == "create":
            continue
        label = _seat_label(record, event.get("seat"))
        what = words(event["kind"])
        entries.append(Entry(
            f"match/{match.id}/v{event['version']}",
            f"{label}: {what}" if label else what[:1].upper() + what[1:],
            _time(event["at"]), page))
    result = record.get("result")
    if result and match.finished_at is not None:
        entries.append(Entry(f"match/{match.id}/result", result["headline"],
                             match.finished_at, page, result.get("reason", "")))
    title = _("%(game)s #%(id)s: %(names)s", game=record["title"], id=match.id,
              names=_(" vs ").join(player["name"] for player in record["players"]))
    return make_feed(f"match/{match.id}", title, page, entries, match.created_at)


def tournament_feed(tournament_id: int) -> Feed | None:
    """A tournament's start, rounds, results and end."""
    tournament = Tournament.get_or_none(Tournament.id == tournament_id)
    if tournament is None:
        return None
    page = f"/tournaments/{tournament.id}"
    names = {entry.id: entry.player.public_name for entry in
             TournamentEntry.select(TournamentEntry, Player).join(Player)
             .where(TournamentEntry.tournament == tournament.id)}
    key = f"tournament/{tournament.id}"
    entries = []
    if tournament.started_at is not None:
        entries.append(Entry(f"{key}/started", _("%(name)s has started", name=tournament.name),
                             tournament.started_at, page))
    rounds = {row.id: row for row in TournamentRound.select()
              .where(TournamentRound.tournament == tournament.id)}
    for row in rounds.values():
        entries.append(Entry(f"{key}/round/{row.number}",
                             _("Round %(n)s has begun", n=row.number), row.started_at, page))
    finished = (Pairing.select(Pairing, Match).join(Match)
                .where(Pairing.tournament == tournament.id, Pairing.finished == True))  # noqa: E712
    for pairing in finished:
        round_row = rounds.get(pairing.round_id)
        played = pairing.match  # joined: a finished pairing here has its match
        if played is None:
            continue
        when = played.finished_at or played.updated_at
        score = _(", ").join(
            f"{names.get(entry, '?')} {_points(points)}"
            for entry, points in zip(pairing.players, pairing.points or (), strict=False))
        entries.append(Entry(
            f"{key}/pairing/{pairing.id}",
            _("Round %(n)s: %(score)s", n=round_row.number if round_row else "?", score=score),
            when, f"/matches/{pairing.match_id}"))
    if tournament.finished_at is not None:
        entries.append(Entry(f"{key}/finished", _("%(name)s has finished", name=tournament.name),
                             tournament.finished_at, page))
    return make_feed(key, _("Tournament: %(name)s", name=tournament.name), page, entries,
                     tournament.created_at)


def _move_entry(match: Match, move: dict) -> Entry:
    text = move["text"]
    title = (_("%(ply)s. %(by)s: %(move)s", ply=move["ply"], by=move["by"], move=text)
             if text is not None else
             _("%(ply)s. %(by)s moved (hidden for now)", ply=move["ply"], by=move["by"]))
    return Entry(f"match/{match.id}/ply/{move['ply']}", title, _time(move["at"]),
                 f"/matches/{match.id}?ply={move['ply']}", "; ".join(move["events"]))


def _seat_label(record: dict, seat: int | None) -> str:
    for player in record["players"]:
        if player["seat"] == seat:
            return f"{player['label']} ({player['name']})"
    return ""


def _time(text: str) -> datetime:
    return datetime.fromisoformat(text.removesuffix("Z"))


def _points(points: float) -> str:
    return str(int(points)) if float(points).is_integer() else f"{points:g}"
