"""A restart never re-sends a batch. A real `pbem worker` process sends a few hundred mails to
a real (slow) SMTP server on loopback and is stopped mid-batch three times with SIGTERM, and
killed three times with SIGKILL; each mail is counted by its Message-ID.

- SIGTERM: the worker finishes the mail in flight, hands the rest of its batch back, exits:
  no mail is sent twice.
- SIGKILL: the mail in flight may have been accepted but not recorded: at most one mail is
  sent twice per kill (the rest was recorded mail by mail; the claim's lease then expires).
"""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller

from pbem.clock import utcnow
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.creation import create_match
from tests.conftest import STRONG_KEY, free_port

MATCHES = 60  # three mails each: about 180 in all


class SlowRecorder:
    """An SMTP server that takes its time over each mail, so a batch of 50 spans half a second
    or more: a stop after 15 mails lands mid-batch."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server, session, envelope) -> str:
        await asyncio.sleep(0.01)
        content = envelope.original_content or envelope.content
        for line in content.split(b"\r\n"):
            if line.lower().startswith(b"message-id:"):
                with self.lock:
                    self.ids.append(line.split(b":", 1)[1].strip().decode())
                break
        return "250 OK"


@pytest.fixture
def slow_smtp():
    recorder = SlowRecorder()
    port = free_port()
    controller = Controller(recorder, hostname="127.0.0.1", port=port)
    controller.start()
    yield recorder, port
    controller.stop()


def _worker(db_url: str, port: int, tmp_path: Path,
            stderr: Any = subprocess.DEVNULL) -> subprocess.Popen[bytes]:
    env = {**os.environ, "PBEM_DATABASE_URL": db_url, "PBEM_SECRET_KEY": STRONG_KEY,
           "PBEM_SMTP_HOST": "127.0.0.1", "PBEM_SMTP_PORT": str(port),
           "PBEM_BASE_URL": "http://pbem.test", "PBEM_MAIL_FROM": "pbem <pbem@pbem.test>",
           "PBEM_INSTANCE_PATH": str(tmp_path), "PBEM_OUTBOX_INTERVAL_SECONDS": "1",
           "PBEM_OUTBOX_LEASE_SECONDS": "2"}
    env.pop("PBEM_CONFIG", None)
    return subprocess.Popen([sys.executable, "-m", "pbem.cli", "worker"], env=env,
                            stdout=subprocess.DEVNULL, stderr=stderr)


def _until(condition, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.02)


def _claims_expired() -> bool:
    """No mail is held by a claim still running (the killed worker's has run out)."""
    from pbem.core.db.connection import database

    with database.connection_context():
        return not OutboxMessage.select().where(
            OutboxMessage.status == MessageStatus.SENDING,
            OutboxMessage.claimed_until >= utcnow()).exists()


def _all_sent() -> bool:
    from pbem.core.db.connection import database

    with database.connection_context():
        return not OutboxMessage.select().where(
            OutboxMessage.status != MessageStatus.SENT).exists()


@pytest.mark.parametrize(("stop", "most_twice"), [(signal.SIGTERM, 0), (signal.SIGKILL, 1)],
                         ids=["sigterm", "kill-9"])
def test_stopping_a_worker_mid_batch_three_times(db_url, tmp_path, slow_smtp, stop,
                                                 most_twice) -> None:
    if db_url.startswith("sqlite:///:memory:"):
        pytest.fail("the worker process needs a database it can open too")
    recorder, port = slow_smtp
    for _ in range(MATCHES):
        # A real game (the worker process knows no test-only one), made now, with a long
        # clock, so the worker has nothing to do but send.
        create_match("mimic", ["ann@example.org", "ben@example.org"], {}, STRONG_KEY,
                     utcnow(), time_control="365d")
    total = OutboxMessage.select().count()
    for _ in range(3):
        worker = _worker(db_url, port, tmp_path)
        seen = len(recorder.ids)
        _until(lambda seen=seen: len(recorder.ids) >= seen + 15)  # mid-batch
        worker.send_signal(stop)
        assert worker.wait(timeout=20) is not None
        if stop == signal.SIGKILL:
            _until(_claims_expired, 10)  # the next worker may send the killed one's batch
    finisher = _worker(db_url, port, tmp_path)
    try:
        _until(_all_sent, 60)
    finally:
        finisher.send_signal(signal.SIGTERM)
        finisher.wait(timeout=20)
    counts = Counter(recorder.ids)
    twice = sum(n - 1 for n in counts.values() if n > 1)
    assert len(counts) == total  # every mail arrived
    assert twice <= 3 * most_twice, f"{twice} mails sent twice"
