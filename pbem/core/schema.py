"""Every table of every package, in the order they are created (foreign keys point back), and
the tools that hold them against a database: the difference, a draft migration, a clean slate.

Each package owns its own tables; the migrations in `db/migrations` are the schema's history.
"""

from __future__ import annotations

from pathlib import Path

from playhouse.migrations import template
from playhouse.schema_diff import SchemaDiff, diff_models

from pbem.core.accounts.models import (
    Admin,
    ApiToken,
    Attempt,
    FormerName,
    Player,
    Session,
    SignInLink,
)
from pbem.core.admin.models import AuditEntry, Heartbeat, JobRun
from pbem.core.computer.models import MatchAnalysis
from pbem.core.conversation.models import (
    ChatMessage,
    ChatMute,
    ChatReport,
    PlayerBlock,
    SeatNote,
)
from pbem.core.db.base import BaseModel
from pbem.core.db.connection import database
from pbem.core.db.generation import DatabaseGeneration
from pbem.core.db.migrations import runner
from pbem.core.feeds.models import FeedLink
from pbem.core.leagues.models import (
    Ladder,
    LadderChallenge,
    LadderEvent,
    LadderMember,
    League,
    LeagueDivision,
    LeagueGame,
    LeagueMember,
    LeagueSeason,
)
from pbem.core.lobby.models import Challenge, Invite, Seek, SeekEntry
from pbem.core.mailin.models import InboundMessage
from pbem.core.mailout.models import MailThread, OutboxMessage, Suppression, WaitingTurn
from pbem.core.matches.models import (
    Adjudication,
    ChangeLog,
    ComputerJob,
    ConditionalTree,
    DrawOffer,
    Match,
    Move,
    Position,
    Seat,
    Vacation,
)
from pbem.core.presence.models import Presence
from pbem.core.push.models import PushChoice, PushMessage, PushSubscription
from pbem.core.ratings.models import Rating, RatingEvent
from pbem.core.records.models import PlayerTally
from pbem.core.tournaments.models import Pairing, Tournament, TournamentEntry, TournamentRound

ALL_MODELS: tuple[type[BaseModel], ...] = (
    Player, Match, Seat, Move, OutboxMessage, Vacation, Adjudication, Admin,
    AuditEntry, Heartbeat, DrawOffer, JobRun, Session, Attempt, SignInLink, ApiToken,
    Suppression, Challenge, Invite, Seek, SeekEntry, InboundMessage, FormerName,
    ChangeLog, Rating, RatingEvent, PlayerTally, ConditionalTree, ChatMessage, SeatNote,
    ChatReport, PlayerBlock, ChatMute,
    Tournament, TournamentEntry, TournamentRound, Pairing,
    League, LeagueMember, LeagueSeason, LeagueDivision, LeagueGame,
    Ladder, LadderMember, LadderChallenge, LadderEvent,
    ComputerJob, Position, DatabaseGeneration, MailThread, MatchAnalysis,
    Presence, WaitingTurn, FeedLink, PushSubscription, PushChoice, PushMessage,
)


def schema_diff() -> SchemaDiff:
    """What differs between the models and the database (falsy when nothing does)."""
    return diff_models(database.obj, list(ALL_MODELS))


def draft(name: str) -> Path:
    """Write a new migration file from the difference between the models and a database
    migrated to the latest file; review it before committing (it is a draft)."""
    diff = schema_diff()
    if not diff:
        raise SystemExit("the models match the database: nothing to migrate")
    return Path(runner().create(name, body=template(diff)))


def drop_everything() -> None:
    """Drop every table and the migration history (benchmarks and tests start afresh)."""
    database.drop_tables(list(ALL_MODELS), safe=True)
    database.execute_sql("DROP TABLE IF EXISTS schema_migration")
