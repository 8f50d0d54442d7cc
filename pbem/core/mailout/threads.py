"""One thread per match for each player: the subject their mail client threads under, and
the messages a mail's `References` names.

A match's mails to one seat share one subject, fixed when the first of them is sent, in the
language the player read then: a player who switches language mid-match keeps one thread
(mail clients thread by subject as well as by `References`). Every mail names the thread's
root and the latest `RECENT` mails before it, so `References` stays short however long the
match. Gmail splits a thread past 100 messages on its own; before that, a new thread starts
deliberately (a new `part`, with a subject saying which part it is, and its first mail saying
why), counting the player's replies too (each is answered by a mail of ours).

The thread's rows are `MailThread`; which mails belong to a part follows from the outbox rows'
order, so a mail rendered again (a retry, the admin's page) names the same thread.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace

import peewee

from pbem.core.db.connection import database
from pbem.core.db.pipeline import read_ahead
from pbem.core.db.prepared import Prepared
from pbem.core.mailout.models import MailThread, OutboxMessage
from pbem.core.mailout.notify import message_key, thread_root_key
from pbem.core.matches.models import Match
from pbem.i18n import _

# Mails in one part, ours and the player's replies together: under the 100 at which Gmail
# splits a thread, with room for a reply or two that got no answer.
PART_LIMIT = 90
# How many of the latest mails `References` names besides the root.
RECENT = 10


@dataclass(frozen=True)
class Place:
    """Where a mail sits in its player's thread of a match."""

    part: int
    subject: str
    root: str                  # the root's Message-ID local part (see `notify.message_key`)
    recent: tuple[str, ...]    # the latest mails before this one in the part, oldest first
    starts: bool = False       # the first mail of a new part (after the first): it says so
    before: int = 0            # how many mails the part before held (for that sentence)


def place_of(message: OutboxMessage, match: Match, first_subject: Callable[[], str],
             keep: bool) -> Place | None:
    """The thread `message` belongs to, in the language in force for a subject not fixed yet
    (`first_subject` gives the match's usual one). `keep`: the mail is being sent, so a
    thread it starts is stored; otherwise (a page showing a mail not sent yet) it is only
    shown as it would be. None for a mail to no seat."""
    if message.seat is None:
        return None
    parts, rows = _read(match.id, message.seat, message.id)
    current = next((part for part in reversed(parts) if part.first_message <= message.id),
                   None)
    if current is None:
        current = _started(match, message, 0, first_subject(), 0, keep)
        return _place(match, message, current, rows)
    earlier = _since(rows, current.first_message)
    if current is parts[-1] and _size(earlier) >= PART_LIMIT:
        subject = _("%(subject)s (part %(part)s)", subject=parts[0].subject,
                    part=current.part + 2)
        current = _started(match, message, current.part + 1, subject, message.id, keep)
        earlier = []
    place = _place(match, message, current, earlier)
    if current.part and current.first_message == message.id:
        # The first mail of a later part (as sent, and every time it is shown again).
        before = _size(_since(rows, parts[current.part - 1].first_message))
        return replace(place, starts=True, before=before)
    return place


def _size(earlier: list[tuple[int, str]]) -> int:
    """Mails in a thread: ours, and a player's reply for each answer we sent to one."""
    return len(earlier) + sum(1 for _id, kind in earlier if kind == "inbound_answer")


def kept_subject(message: OutboxMessage) -> str | None:
    """The subject of the thread a sent mail went in, as stored (None: none was stored,
    as for mails sent before threads were kept)."""
    if message.match_id is None or message.seat is None:
        return None
    for part in reversed(_parts(message.match_id, message.seat)):
        if part.first_message <= message.id:
            return part.subject
    return None


def _parts(match_id: int, seat: int) -> list[MailThread]:
    return list(_PARTS.rows(match_id, seat))


def _read(match_id: int, seat: int, before: int
          ) -> tuple[list[MailThread], list[tuple[int, str]]]:
    """The seat's threads, and its latest mails before `before` (id, kind; oldest first, at
    most a part's worth and one): read for every mail sent, in one round trip on PostgreSQL."""
    with read_ahead(_PARTS.ahead(match_id, seat), _EARLIER.ahead(match_id, seat, before)):
        return _parts(match_id, seat), list(reversed(_EARLIER.rows(match_id, seat, before)))


def _since(rows: list[tuple[int, str]], first: int) -> list[tuple[int, str]]:
    return [row for row in rows if row[0] >= first]


# The outbox's hot path: compiled once (`core/db/prepared.py`), rows as plain tuples.
_EARLIER = Prepared(lambda match, seat, before: (
    OutboxMessage.select(OutboxMessage.id, OutboxMessage.template)
    .where(OutboxMessage.match == match, OutboxMessage.seat == seat,
           OutboxMessage.id < before)
    .order_by(OutboxMessage.id.desc()).limit(PART_LIMIT + 1).tuples()))
_PARTS = Prepared(lambda match, seat: (
    MailThread.select().where(MailThread.match == match, MailThread.seat == seat)
    .order_by(MailThread.part)))


def _started(match: Match, message: OutboxMessage, part: int, subject: str, first: int,
             keep: bool) -> MailThread:
    """The part's row: stored when `keep` (a second worker storing the same part at once
    finds the first one's), else only made to be shown."""
    thread = MailThread(match=match.id, seat=message.seat, part=part, subject=subject,
                        first_message=first, created_at=message.created_at)
    if not keep:
        return thread
    try:
        if database.in_transaction():
            with database.atomic():  # a savepoint: a lost race must not abort the transaction
                thread.save(force_insert=True)
        else:  # the outbox: one autocommitted statement, not BEGIN, INSERT and COMMIT
            thread.save(force_insert=True)
    except peewee.IntegrityError:
        stored = MailThread.get_or_none(MailThread.match == match.id,
                                        MailThread.seat == message.seat,
                                        MailThread.part == part)
        if stored is not None:
            return stored
        raise
    return thread


def _place(match: Match, message: OutboxMessage, part: MailThread,
           earlier: list[tuple[int, str]]) -> Place:
    root = thread_root_key(match, message.seat or 0)
    if part.part:
        # A later part's root is named by every mail of it (no mail carries that id): mail
        # clients thread on the shared reference, apart from the part before.
        root = f"{root}.p{part.part}"
    recent = tuple(message_key(OutboxMessage(id=row_id, template=kind, seat=message.seat),
                               match)
                   for row_id, kind in earlier[-RECENT:] if kind != "welcome")
    return Place(part.part, part.subject, root, recent)
