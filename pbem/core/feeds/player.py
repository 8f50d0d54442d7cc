"""A player's own feeds, behind their secret link (`links.py`), in their language:

- `turns`: each match where it is their turn (one entry per turn: a new move is a new entry),
  each result, and the messages others wrote at their boards;
- `games`: each of their matches as it stands (one entry per match, updated as it goes on).

Links go to public match pages, never to seat links: a feed reader is a service the player
may share, and a seat link is a key to the seat (the turn mail carries it).
"""

from __future__ import annotations

from datetime import datetime, timedelta

from pbem.core.accounts.models import Player
from pbem.core.conversation.chat import players_room
from pbem.core.feeds.entries import Entry, Feed, make_feed
from pbem.core.records.home import my_matches
from pbem.i18n import _

# Finished matches and messages older than this are left to the pages.
RECENT = timedelta(days=30)
MESSAGES_PER_MATCH = 10
KINDS = ("turns", "games")


def player_feed(player: Player, kind: str, now: datetime) -> Feed:
    """The feed `kind` (one of KINDS) in the language in force (the web sets the player's)."""
    return _turns(player, now) if kind == "turns" else _games(player, now)


def _turns(player: Player, now: datetime) -> Feed:
    entries = []
    for row in my_matches(player, now):
        match = row["seat"].match
        page = f"/matches/{match.id}"
        named = _("%(game)s #%(id)s", game=row["title"], id=match.id)
        if row["your_turn"]:
            entries.append(Entry(
                f"player/{player.id}/turn/m{match.id}/p{match.ply}",
                _("Your turn: %(match)s", match=named), match.updated_at, page,
                _("against %(names)s", names=", ".join(row["opponents"]))))
        ended = match.finished_at
        if row["finished"] and ended is not None and ended >= now - RECENT:
            entries.append(Entry(f"player/{player.id}/result/m{match.id}",
                                 _("%(match)s: %(result)s", match=named,
                                   result=row["result"] or ""), ended, page))
        if row["finished"] and (ended is None or ended < now - RECENT):
            continue
        shown, _older = players_room(row["seat"], limit=MESSAGES_PER_MATCH)
        for message in shown:
            if message.mine or message.at < now - RECENT:
                continue
            entries.append(Entry(f"chat/{message.id}",
                                 _("%(author)s in %(match)s", author=message.author,
                                   match=named), message.at, page, message.text))
    return make_feed(f"player/{player.id}/turns", _("Your turns, results and messages"),
                     "/me", entries, player.created_at)


def _games(player: Player, now: datetime) -> Feed:
    entries = []
    for row in my_matches(player, now):
        match = row["seat"].match
        named = _("%(game)s #%(id)s against %(names)s", game=row["title"], id=match.id,
                  names=", ".join(row["opponents"]))
        if row["finished"]:
            if match.finished_at is None or match.finished_at < now - RECENT:
                continue
            state = row["result"] or ""
        elif row["your_turn"]:
            state = _("your turn (move %(ply)s)", ply=match.ply + 1)
        else:
            state = _("waiting for %(names)s (move %(ply)s)",
                      names=", ".join(row["waiting_for"]) or _("the others"),
                      ply=match.ply + 1)
        entries.append(Entry(f"player/{player.id}/game/m{match.id}",
                             f"{named}: {state}", match.finished_at or match.updated_at,
                             f"/matches/{match.id}"))
    return make_feed(f"player/{player.id}/games", _("Your games"), "/me", entries,
                     player.created_at)
