"""The audit log: who did what, when and why. Every admin action and every automatic policy
action (forfeit, autoplay, outage extension, timeout sent to the queue) writes one row, in
the same transaction as the action itself.

An admin form carries a one-time `action_key`; the row stores it (unique), so the same form
posted twice, even by two racing requests, acts and is logged once.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import peewee

from pbem.core.admin.models import AuditEntry
from pbem.errors import ConflictError
from pbem.i18n import _

SYSTEM_ACTOR = "pbem"  # the sweep and the door acting on a policy, not a person
MAX_KEY = 64


class AlreadyDoneError(ConflictError):
    """This form was already posted: its action was done once and is not done again."""


def check_fresh(action_key: str | None) -> None:
    """Refuse a form whose action was already done. Called inside the action's transaction;
    the unique key in `record` settles a race between two posts that both pass here."""
    if action_key and AuditEntry.select().where(AuditEntry.action_key == action_key).exists():
        raise AlreadyDoneError(_("That was already done (the form was sent twice); "
                                 "nothing more was changed."))


def record(actor: str, action: str, now: datetime, reason: str = "",
           match_id: int | None = None, detail: dict[str, Any] | None = None,
           action_key: str | None = None) -> AuditEntry:
    try:
        with AuditEntry._meta.database.atomic():
            return AuditEntry.create(at=now, actor=actor, action=action, match=match_id,
                                     reason=reason, detail=detail or {},
                                     action_key=(action_key or None) and action_key[:MAX_KEY])
    except peewee.IntegrityError as error:
        raise AlreadyDoneError(_("That was already done (the form was sent twice); "
                                 "nothing more was changed.")) from error


@dataclass(frozen=True)
class AuditFilter:
    actor: str = ""
    action: str = ""
    match_id: int | None = None
    since: datetime | None = None
    until: datetime | None = None


def search(filters: AuditFilter, limit: int | None = 200) -> list[AuditEntry]:
    query = AuditEntry.select().order_by(AuditEntry.at.desc(), AuditEntry.id.desc())
    if filters.actor:
        query = query.where(AuditEntry.actor == filters.actor)
    if filters.action:
        query = query.where(AuditEntry.action.startswith(filters.action))
    if filters.match_id is not None:
        query = query.where(AuditEntry.match == filters.match_id)
    if filters.since is not None:
        query = query.where(AuditEntry.at >= filters.since)
    if filters.until is not None:
        query = query.where(AuditEntry.at < filters.until)
    if limit is not None:
        query = query.limit(limit)
    return list(query)


def actions() -> list[str]:
    return [row.action for row in AuditEntry.select(AuditEntry.action).distinct()
            .order_by(AuditEntry.action)]


def to_csv(entries: Iterable[AuditEntry]) -> str:
    out = io.StringIO()
    writer = csv.writer(out)
    writer.writerow(["id", "at_utc", "actor", "action", "match", "reason", "detail"])
    for entry in entries:
        writer.writerow([entry.id, entry.at.isoformat(sep=" "), entry.actor, entry.action,
                         entry.match_id or "", _no_formula(entry.reason),
                         _no_formula(str(entry.detail))])
    return out.getvalue()


def _no_formula(text: str) -> str:
    # A reason typed by an admin must not run as a formula when the CSV opens in a sheet.
    return "'" + text if text[:1] in ("=", "+", "-", "@", "\t", "\r") else text
