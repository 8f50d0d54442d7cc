"""The audit log: who did what, when and why.

A change to a match (a ruling, an admin's pause or abort, a timeout settled by its policy, an
outage's credit) is kept once, in the match's change log (`core/matches`): the audit view
reads those rows from there (`search`), beside the rows of this table, which holds what is
not a change to a match (an action on a player, a mail retried, a chat report settled).

An admin form carries a one-time `action_key`: a match change keeps it on its change-log row
(the door refuses it a second time); an entry here stores it (unique), so the same form posted
twice, even by two racing requests, acts and is logged once.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

import peewee

from pbem.core.admin.models import AuditEntry
from pbem.core.db.connection import write_transaction
from pbem.core.matches.changes import SERVER, AlreadyDoneError
from pbem.core.matches.models import ChangeLog
from pbem.core.matches.sweep import SALT_CAUSE

__all__ = ["AlreadyDoneError"]  # the door's: one error for every form sent twice

SYSTEM_ACTOR = "pbem"  # the sweep and the door acting on a policy, not a person
MAX_KEY = 64


def check_fresh(action_key: str | None) -> None:
    """Refuse a form whose action was already done. Called inside the action's transaction;
    the unique key in `record` settles a race between two posts that both pass here."""
    if action_key and AuditEntry.select().where(AuditEntry.action_key == action_key).exists():
        raise AlreadyDoneError


@contextmanager
def fresh_action(action_key: str | None) -> Iterator[None]:
    """The write transaction of an admin's action on what is not a match (a player, a mail,
    a chat report), refused when its form was already acted on (`check_fresh`)."""
    with write_transaction():
        check_fresh(action_key)
        yield


def record(actor: str, action: str, now: datetime, reason: str = "",
           match_id: int | None = None, detail: dict[str, Any] | None = None,
           action_key: str | None = None) -> AuditEntry:
    try:
        with AuditEntry._meta.database.atomic():
            return AuditEntry.create(at=now, actor=actor, action=action, match=match_id,
                                     reason=reason, detail=detail or {},
                                     action_key=(action_key or None) and action_key[:MAX_KEY])
    except peewee.IntegrityError as error:
        raise AlreadyDoneError from error


@dataclass(frozen=True)
class AuditFilter:
    actor: str = ""
    action: str = ""
    match_id: int | None = None
    since: datetime | None = None
    until: datetime | None = None


@dataclass(frozen=True)
class AuditRow:
    """One line of the audit view: an entry of this table, or a match change from the change
    log (its `id` then says so: "change-<id>")."""

    id: int | str
    at: datetime
    actor: str
    action: str
    match_id: int | None
    reason: str
    detail: dict[str, Any] = field(default_factory=dict)


def search(filters: AuditFilter, limit: int | None = 200) -> list[AuditRow]:
    """The newest rows first (at most `limit`): the audit entries and the audited match
    changes of the change log, under one filter."""
    rows = [*_entries(filters, limit), *_changes(filters, limit)]
    rows.sort(key=lambda row: row.at, reverse=True)
    return rows if limit is None else rows[:limit]


def actions() -> list[str]:
    """Every action the filter may name: those of this table and those of match changes."""
    logged = {row.action for row in AuditEntry.select(AuditEntry.action).distinct()}
    return sorted(logged | CHANGE_ACTIONS)


def to_csv(entries: Iterable[AuditRow]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "at_utc", "actor", "action", "match", "reason", "detail"])
    for entry in entries:
        writer.writerow([entry.id, entry.at.isoformat(sep=" "), entry.actor, entry.action,
                         entry.match_id or "", _no_formula(entry.reason),
                         _no_formula(str(entry.detail))])
    return out.getvalue()


def _entries(filters: AuditFilter, limit: int | None) -> list[AuditRow]:
    query = (AuditEntry.select().where(_not_in_the_change_log())
             .order_by(AuditEntry.at.desc(), AuditEntry.id.desc()))
    if filters.actor:
        query = query.where(AuditEntry.actor == filters.actor)
    if filters.action:
        query = query.where(AuditEntry.action.startswith(filters.action))
    query = _within(query, AuditEntry.match, AuditEntry.at, filters)
    if limit is not None:
        query = query.limit(limit)
    return [AuditRow(e.id, e.at, e.actor, e.action, e.match_id, e.reason, dict(e.detail or {}))
            for e in query]


def _changes(filters: AuditFilter, limit: int | None) -> list[AuditRow]:
    """The audited changes of the change log (not a player's own: their moves, offers,
    resignations are the match's history, not an admin's or a policy's doing)."""
    query = (ChangeLog.select()
             .where(ChangeLog.kind.in_(sorted(_DESCRIBED)), ChangeLog.actor != "player")
             .order_by(ChangeLog.at.desc(), ChangeLog.id.desc()))
    if filters.actor:
        query = query.where(ChangeLog.actor == (SERVER if filters.actor == SYSTEM_ACTOR
                                                else filters.actor))
    query = _within(query, ChangeLog.match, ChangeLog.at, filters)
    if limit is not None and not filters.action:  # the action is known once described
        query = query.limit(limit)
    rows = [_described(change) for change in query]
    return [row for row in rows if row.action.startswith(filters.action)]


def _not_in_the_change_log() -> Any:
    """Entries a release before this one wrote for a match change, beside its change-log row
    (same match, same moment): the view shows that change once, from the change log. An
    older entry with no such row (an outage's one entry for every match) still shows."""
    logged = ChangeLog.select(peewee.SQL("1")).where(
        ChangeLog.match == AuditEntry.match, ChangeLog.at.same_second_as(AuditEntry.at))
    return (AuditEntry.action.not_in(sorted(CHANGE_ACTIONS))
            | AuditEntry.match.is_null() | ~peewee.fn.EXISTS(logged))


def _within(query: Any, match: Any, at: Any, filters: AuditFilter) -> Any:
    """`query` kept to the filter's match and time span (`match`, `at`: its columns)."""
    if filters.match_id is not None:
        query = query.where(match == filters.match_id)
    if filters.since is not None:
        query = query.where(at >= filters.since)
    if filters.until is not None:
        query = query.where(at < filters.until)
    return query


def _described(change: ChangeLog) -> AuditRow:
    payload = dict(change.payload or {})
    action, reason = _DESCRIBED[change.kind](payload)
    actor = SYSTEM_ACTOR if change.actor == SERVER else change.actor
    detail = {name: value for name, value in payload.items() if name != "reason"}
    if change.seat is not None:
        detail["seat"] = change.seat
    return AuditRow(f"change-{change.id}", change.at, actor, action, change.match_id, reason,
                    detail)


def _timeout(payload: dict[str, Any]) -> tuple[str, str]:
    """A timeout settled by the match's policy, in the words the audit log always used."""
    policy, cause = payload.get("policy"), payload.get("cause", "timeout")
    if policy == "autoplay" and cause == SALT_CAUSE:
        return "autoplay", "the clock ran out before the first deal: the seat took its salt"
    if policy == "autoplay":
        return "autoplay", "the clock ran out (autoplay policy)"
    if policy == "forfeit":
        return "forfeit", ("the clock ran out (forfeit policy)" if cause != "autoplay-limit"
                           else "the clock ran out once too often after autoplayed moves; "
                           "the seat forfeits")
    if policy == "claim":
        return "out-of-time", "the clock ran out (claim policy): the others may claim the win"
    return "queued", f"sent to the admin queue ({cause})"


def _said(action: str) -> Callable[[dict[str, Any]], tuple[str, str]]:
    return lambda payload: (action, str(payload.get("reason") or ""))


def _outage(payload: dict[str, Any]) -> tuple[str, str]:
    outage = timedelta(seconds=int(payload.get("outage") or 0))
    return "outage-extension", (f"the worker was silent for {outage}: running deadlines "
                                "pushed back")


# A match change's kind -> its audit action and reason, from its logged payload.
_DESCRIBED: dict[str, Callable[[dict[str, Any]], tuple[str, str]]] = {
    "ruling": lambda payload: (f"ruling:{payload.get('ruling')}", str(payload.get("reason"))),
    "timeout": _timeout,
    "sweep-failure": lambda payload: (
        "queued", "sent to the admin queue: the sweep could not settle the seat"),
    "outage-credit": _outage,
    "forfeit": _said("forfeit"),
    "autoplay": _said("autoplay"),
    "pause": _said("pause"),
    "resume": _said("resume"),
    "extension": _said("extend-seat"),
    "abort": _said("abort"),
    "void": _said("void"),
    "tournament-adjudication": _said("tournament:adjudicate"),
}
CHANGE_ACTIONS = frozenset({"autoplay", "forfeit", "out-of-time", "queued", "outage-extension",
                            "pause", "resume", "extend-seat", "abort", "void",
                            "tournament:adjudicate", *(f"ruling:{r}" for r in (
                                "award", "draw", "extend", "autoplay", "computer", "abort"))})


def _no_formula(text: str) -> str:
    # A reason typed by an admin must not run as a formula when the CSV opens in a sheet.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
