"""Server-side sessions for players and admins.

The browser's cookie holds a random id; the table holds only its HMAC under the session key
(`pbem/keys.py`), so neither a copy of the database nor a guess opens a session. A session
ends when its row goes: on sign-out, on revocation from the settings page, when an admin's
password changes, when its admin or player is deleted (cascade), after `idle` unused, or at
its absolute expiry.
"""

from __future__ import annotations

import hashlib
import hmac
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

from pbem.core.accounts.models import Admin, Player, Session, SessionKind
from pbem.core.db.connection import note_if_possible
from pbem.core.db.prepared import Prepared
from pbem.keys import Purpose, purpose_key

MAX_COOKIE = 100
# Writing `last_seen_at` on every request would make every page a write; a minute is plenty
# of precision for an idle limit counted in days.
TOUCH_EVERY = timedelta(minutes=1)


@dataclass(frozen=True)
class SessionPolicy:
    idle: timedelta
    absolute: timedelta

    @classmethod
    def from_days(cls, idle_days: int, max_days: int) -> SessionPolicy:
        return cls(timedelta(days=idle_days), timedelta(days=max_days))


def key_hash(secret_key: str, session_id: str) -> str:
    key = purpose_key(secret_key, Purpose.SESSION)
    return hmac.new(key, f"session:{session_id}".encode(), hashlib.sha256).hexdigest()


def start(secret_key: str, kind: str, now: datetime, policy: SessionPolicy,
          player: Player | None = None, admin: Admin | None = None,
          user_agent: str = "") -> str:
    """Open a session; return the id to put in the cookie (never stored)."""
    session_id = secrets.token_urlsafe(32)
    Session.create(key_hash=key_hash(secret_key, session_id), kind=kind, player=player,
                   admin=admin, user_agent=summarize_user_agent(user_agent), created_at=now,
                   last_seen_at=now, expires_at=now + policy.absolute)
    return session_id


def find(secret_key: str, session_id: str | None, kind: str, now: datetime,
         policy: SessionPolicy) -> Session | None:
    """The live session a cookie names, or None (wrong, ended, idle too long or expired)."""
    if not session_id or len(session_id) > MAX_COOKIE:
        return None
    # With its owner's row: every page a signed-in reader opens asks who they are.
    lookup = _ADMIN_SESSION if kind == SessionKind.ADMIN else _PLAYER_SESSION
    session = lookup.first(key_hash(secret_key, session_id), kind)
    if session is None:
        return None
    if session.expires_at <= now or session.last_seen_at + policy.idle <= now:
        session.delete_instance()
        return None
    owner = session.admin_id if kind == SessionKind.ADMIN else session.player_id
    if owner is None:
        return None
    if now - session.last_seen_at >= TOUCH_EVERY:
        note_if_possible(Session.update(last_seen_at=now).where(Session.id == session.id)
                         .execute, "a session's use")
        session.last_seen_at = now
    return session


# Read on every request of a signed-in reader (the language, the header and the page ask who
# is reading): compiled once, where peewee building the session's and then the player's
# SELECT was about half of a simple page's CPU.
_PLAYER_SESSION = Prepared(lambda key, kind: Session.select(Session, Player)
                           .join(Player, on=Session.player)
                           .where(Session.key_hash == key, Session.kind == kind))
_ADMIN_SESSION = Prepared(lambda key, kind: Session.select(Session, Admin)
                          .join(Admin, on=Session.admin)
                          .where(Session.key_hash == key, Session.kind == kind))


def end(secret_key: str, session_id: str | None) -> None:
    if session_id and len(session_id) <= MAX_COOKIE:
        Session.delete().where(Session.key_hash == key_hash(secret_key, session_id)).execute()


def end_admin_sessions(admin: Admin) -> int:
    return Session.delete().where(Session.admin == admin).execute()


def player_sessions(player: Player) -> list[Session]:
    return list(Session.select().where(Session.player == player, Session.kind == SessionKind.PLAYER)
                .order_by(Session.last_seen_at.desc()))


def revoke_player_session(player: Player, session_id: int) -> bool:
    """End one of the player's own sessions (by row id, from the settings page)."""
    return Session.delete().where(Session.id == session_id, Session.player == player).execute() > 0


def prune(now: datetime, policy: SessionPolicy) -> int:
    return Session.delete().where((Session.expires_at <= now)
                                  | (Session.last_seen_at <= now - policy.idle)).execute()


_BROWSERS = (("Edg/", "Edge"), ("OPR/", "Opera"), ("Firefox/", "Firefox"),
             ("Chrome/", "Chrome"), ("Safari/", "Safari"), ("curl/", "curl"))
_SYSTEMS = (("Android", "Android"), ("iPhone", "iPhone"), ("iPad", "iPad"),
            ("Windows", "Windows"), ("Mac OS X", "macOS"), ("Linux", "Linux"))


def summarize_user_agent(user_agent: str) -> str:
    """"Firefox on Linux": enough to recognise a session in a list, no fingerprint kept."""
    browser = next((name for mark, name in _BROWSERS if mark in user_agent), None)
    system = next((name for mark, name in _SYSTEMS if mark in user_agent), None)
    if browser and system:
        return f"{browser} on {system}"
    return browser or system or (re.sub(r"[^\w ./-]", "", user_agent)[:40] or "unknown browser")
