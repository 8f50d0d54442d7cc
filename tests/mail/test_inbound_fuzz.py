"""Hypothesis feeds random bodies and headers to the pipeline: it never crashes, and the match
changes only when the reply's first line was a legal move (which is then what was played)."""

from __future__ import annotations

from datetime import timedelta
from email.message import EmailMessage

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match, Move
from pbem.games import get_rules
from pbem.mail.inbound import handle
from tests.conftest import START
from tests.mail.inbound_support import ALICE, as_sent, latest, start

LATER = START + timedelta(minutes=5)
WORDS = ["take 1", "take 2", "Take 3", "take 4", "2", "board", "help", "resign", "draw",
         "take", "On Mon, 5 Jan 2026, pbem wrote:", "> take 1", "-- ", "Sent from my iPhone",
         "From: pbem <pbem@pbem.test>", "Sent: Monday", "<b>take 2</b>", "\u200btake 1", ""]
HEADERS = st.sampled_from([
    ("Auto-Submitted", "auto-replied"), ("Auto-Submitted", "no"), ("Precedence", "bulk"),
    ("Return-Path", "<>"), ("Return-Path", "<alice@example.org>"), ("X-Autoreply", "yes"),
    ("In-Reply-To", "<nonsense>"), ("References", "<a@b> <c@d>"), ("Subject", "Out of office"),
    ("Content-Transfer-Encoding", "base64"), ("Content-Type", "text/html"),
    ("Content-Type", "multipart/mixed; boundary=zz"), ("From", "mallory@example.org"),
    ("From", "=?utf-8?b?QWxpY2U=?= <alice@example.org>"), ("Message-ID", ""),
])
BODIES = st.one_of(
    st.text(max_size=300),
    st.lists(st.one_of(st.sampled_from(WORDS), st.text(max_size=40)), max_size=8)
    .map("\n".join),
)


def _mail(reply_to: str, parent: str, body: str, headers: list[tuple[str, str]],
          charset: str) -> bytes:
    mail = EmailMessage()
    mail["From"] = ALICE
    mail["To"] = reply_to
    mail["Subject"] = "Re: Nim"
    mail["In-Reply-To"] = parent
    try:
        mail.set_content(body, charset=charset)
    except (UnicodeError, LookupError):
        mail.set_content(body)
    raw = mail.as_bytes()
    head, _, rest = raw.partition(b"\n\n")
    extra = b"".join(f"{name}: {value}\n".encode("utf-8", "replace") for name, value in headers)
    return extra + head + b"\n\n" + rest


@settings(max_examples=80, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(body=BODIES, headers=st.lists(HEADERS, max_size=3),
       charset=st.sampled_from(["utf-8", "latin-1", "utf-16"]))
def test_random_replies_never_crash_nor_change_the_match_without_a_legal_move(
        mail_settings, body, headers, charset) -> None:
    for model in (Move, OutboxMessage, Match):
        model.delete().execute()
    match = start()
    mail = as_sent(mail_settings, latest(ALICE))
    rules = get_rules("nim")
    before = rules.load(match.state)
    raw = _mail(mail["Reply-To"], mail["Message-ID"], body, headers, charset)
    receipt = handle(raw, mail_settings, "pipe", LATER)
    after = Match.get_by_id(match.id)
    if after.ply == match.ply:
        assert receipt.action != "moved"
        return
    assert receipt.action == "moved" and after.ply == match.ply + 1
    played = Move.get(Move.match == match)
    # What was played is the legal reading of a line the player wrote.
    lines = [line.strip().strip("`*_ ") for line in body.replace("\u200b", "").splitlines()]
    legal = {rules.format_move(before, m) for m in rules.legal_moves(before, 0)}
    assert played.text in legal
    assert any(_reads_as(rules, before, line) == played.text for line in lines if line)


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(raw=st.binary(max_size=2000))
def test_random_bytes_never_crash(mail_settings, raw) -> None:
    receipt = handle(raw, mail_settings, "http", LATER)
    assert receipt.action in ("no_key", "unknown_key", "duplicate", "oversized")


def _reads_as(rules, state, line: str) -> str | None:
    try:
        return rules.format_move(state, rules.parse_move(state, 0, line))
    except ValueError:
        return None
