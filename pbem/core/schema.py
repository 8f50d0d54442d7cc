"""Every table of every package, in the order they are created (foreign keys point back).

The migrations and the tests read this list; each package owns its own tables.
"""

from __future__ import annotations

from pbem.core.accounts.models import Admin, ApiToken, Attempt, Player, Session, SignInLink
from pbem.core.admin.models import AuditEntry, Heartbeat, JobRun
from pbem.core.db.base import BaseModel
from pbem.core.lobby.models import Challenge, Invite, Seek, SeekEntry
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import OutboxMessage, Suppression
from pbem.core.matches.models import Adjudication, DrawOffer, Match, Move, Seat, Vacation

ALL_MODELS: tuple[type[BaseModel], ...] = (
    Player, Match, Seat, Move, OutboxMessage, Vacation, Adjudication, Admin,
    AuditEntry, Heartbeat, DrawOffer, JobRun, Session, Attempt, SignInLink, ApiToken,
    Suppression, Challenge, Invite, Seek, SeekEntry, InboundMessage,
)
