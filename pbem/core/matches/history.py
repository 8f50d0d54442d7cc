"""A match's history, read from its change log: every change the door made, in order.

The admin sees every row as stored. Everyone else (the public page, `record.json`) sees each
change's kind, seat, when and through which channel, with only the details that are public:
a move's notation is never here (the move list shows it, hiding what a hidden-card game
hides), an admin is "an admin", not an address, and a form's one-time key is not logged.
"""

from __future__ import annotations

from typing import Any

from pbem.core.db.prepared import Prepared
from pbem.core.matches.models import ChangeLog, Match
from pbem.i18n import N_, _

# Per kind, the details anyone may read (a ruling's reason and an abort's are mailed to every
# player; a pause's reason is the admin's note).
PUBLIC_DETAILS: dict[str, tuple[str, ...]] = {
    "create": ("game", "players", "options", "clock", "on_timeout"),
    "move": ("ply",), "computer-move": ("ply",), "conditional-answer": ("ply",),
    "autoplay": ("ply", "reason"),
    "resign": ("result",), "draw-offer": ("did", "result"), "draw-decline": (),
    "abort": (), "claim": ("late", "result"),
    "ruling": ("ruling", "reason", "late", "extension"),
    "timeout": ("policy", "cause", "settled"), "forfeit": ("reason",),
    "reminder": (), "pause": (), "resume": ("paused_seconds",), "extension": ("extension",),
    "outage-credit": ("outage", "seats"), "vacation": ("starts_at", "ends_at"),
    "vacation-cancelled": ("starts_at", "ends_at", "under_way"), "sweep-failure": (),
    # A tournament's (core/tournaments): its organiser's decision, mailed to the players, and
    # its round's deadline falling on the seats still to move.
    "tournament-adjudication": ("winners", "reason"), "round-deadline": ("round", "late"),
    # A league season's last day falling on the seats still to move (core/leagues).
    "season-deadline": ("season", "late"),
    # An admin took the finished match out of the ratings; the reason is the public's too.
    "void": ("reason",),
}
# Kinds that are moves (the move list shows them) and ones the server makes routinely.
MOVE_KINDS = frozenset({"move", "computer-move", "conditional-answer", "reminder"})
# What each kind is called on a page (translated there, by `words`).
WORDS: dict[str, str] = {
    "create": N_("match started"), "move": N_("move"), "computer-move": N_("the computer moved"),
    "conditional-answer": N_("a conditional move answered"),
    "autoplay": N_("the server moved for a late player"), "resign": N_("resigned"),
    "draw-offer": N_("draw offered or accepted"), "draw-decline": N_("draw declined"),
    "abort": N_("aborted"), "claim": N_("claimed the win"), "ruling": N_("an admin ruled"),
    "timeout": N_("time ran out"), "forfeit": N_("forfeited"), "reminder": N_("reminded"),
    "pause": N_("clocks paused by an admin"), "resume": N_("clocks resumed by an admin"),
    "extension": N_("more time given by an admin"),
    "outage-credit": N_("deadlines pushed back after a server outage"),
    "vacation": N_("a player's vacation"),
    "vacation-cancelled": N_("a player called off a vacation"),
    "sweep-failure": N_("sent to an admin"),
    "tournament-adjudication": N_("decided by the tournament's organiser"),
    "round-deadline": N_("the tournament round's deadline came"),
    "season-deadline": N_("the league season's last day came"),
    "void": N_("voided for ratings by an admin"),
}


def changes_of(match: Match | int) -> list[ChangeLog]:
    """Every row, in the order the changes were made (the admin's view)."""
    return list(ChangeLog.select().where(ChangeLog.match == match)
                .order_by(ChangeLog.version, ChangeLog.id))


def public_changes(match: Match | int) -> list[dict[str, Any]]:
    """The history as anyone may read it (record.json)."""
    return [public(row) for row in changes_of(match)]


def public_events(match: Match | int) -> list[dict[str, Any]]:
    """The history besides the moves (MOVE_KINDS), as anyone may read it: the public page's
    list (the moves have their own). Filtered by the database: a long match's page would
    otherwise read and drop a row for every move it ever made."""
    return [public(row) for row in _EVENTS.rows(match if isinstance(match, int) else match.id)]


# Read on every public page of a match (a spectator's, a link's preview): compiled once,
# where peewee building it was about a quarter of the page's CPU.
_EVENTS = Prepared(lambda match_id: ChangeLog.select()
                   .where(ChangeLog.match == match_id, ChangeLog.kind.not_in(sorted(MOVE_KINDS)))
                   .order_by(ChangeLog.version, ChangeLog.id))


def public(row: ChangeLog) -> dict[str, Any]:
    shown = PUBLIC_DETAILS.get(row.kind, ())
    by = row.actor if row.actor in ("player", "server") else "admin"
    return {"version": row.version, "kind": row.kind, "seat": row.seat, "by": by,
            "channel": row.channel, "at": row.at.isoformat() + "Z",
            **{name: row.payload[name] for name in shown if name in (row.payload or {})}}


def words(kind: str) -> str:
    return _(WORDS[kind]) if kind in WORDS else kind.replace("-", " ")
