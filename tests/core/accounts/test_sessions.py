"""Server-side sessions in the core: only a keyed hash is stored, and every end works."""

from __future__ import annotations

from datetime import timedelta

from pbem.core.accounts import sessions
from pbem.core.accounts.models import Player, Session, SessionKind
from tests.conftest import START

SECRET = "x" * 64
POLICY = sessions.SessionPolicy.from_days(14, 90)


def test_a_session_is_found_by_its_cookie_only_and_ends_on_request(db_url) -> None:
    player = Player.for_email("ann@example.org", START)
    cookie = sessions.start(SECRET, SessionKind.PLAYER, START, POLICY, player=player,
                            user_agent="Mozilla/5.0 (X11; Linux x86_64) Firefox/130.0")
    row = Session.get()
    assert cookie not in row.key_hash and row.user_agent == "Firefox on Linux"
    assert sessions.find(SECRET, cookie, SessionKind.PLAYER, START, POLICY).player_id == player.id
    assert sessions.find(SECRET, cookie, SessionKind.ADMIN, START, POLICY) is None
    assert sessions.find("y" * 64, cookie, SessionKind.PLAYER, START, POLICY) is None
    assert sessions.find(SECRET, cookie + "x", SessionKind.PLAYER, START, POLICY) is None
    sessions.end(SECRET, cookie)
    assert sessions.find(SECRET, cookie, SessionKind.PLAYER, START, POLICY) is None


def test_idle_and_absolute_expiry_and_pruning(db_url) -> None:
    player = Player.for_email("ann@example.org", START)
    idle = sessions.start(SECRET, SessionKind.PLAYER, START, POLICY, player=player)
    busy = sessions.start(SECRET, SessionKind.PLAYER, START, POLICY, player=player)
    later = START + timedelta(days=10)
    assert sessions.find(SECRET, busy, SessionKind.PLAYER, later, POLICY) is not None
    later += timedelta(days=5)
    assert sessions.find(SECRET, busy, SessionKind.PLAYER, later, POLICY) is not None
    assert sessions.find(SECRET, idle, SessionKind.PLAYER, later, POLICY) is None
    assert sessions.prune(START + timedelta(days=91), POLICY) == 1
    assert Session.select().count() == 0


def test_a_player_revokes_only_their_own_sessions(db_url) -> None:
    ann = Player.for_email("ann@example.org", START)
    ben = Player.for_email("ben@example.org", START)
    sessions.start(SECRET, SessionKind.PLAYER, START, POLICY, player=ann)
    sessions.start(SECRET, SessionKind.PLAYER, START, POLICY, player=ben)
    bens = sessions.player_sessions(ben)[0]
    assert not sessions.revoke_player_session(ann, bens.id)
    assert sessions.revoke_player_session(ben, bens.id)
    assert [s.player_id for s in Session.select()] == [ann.id]


def test_user_agents_are_summarised_not_kept() -> None:
    iphone = ("Mozilla/5.0 (iPhone; CPU iPhone OS 17_0 like Mac OS X) AppleWebKit/605.1.15 "
              "(KHTML, like Gecko) Version/17.0 Mobile/15E148 Safari/604.1")
    assert sessions.summarize_user_agent(iphone) == "Safari on iPhone"
    assert sessions.summarize_user_agent("") == "unknown browser"
    assert sessions.summarize_user_agent("curl/8.1") == "curl"
