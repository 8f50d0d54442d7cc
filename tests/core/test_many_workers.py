"""Several `pbem worker` processes over the same due work, on a database with row locks.

Three real processes run the worker's jobs at once (the sweep, then the outbox, tick after
tick until nothing is left) against one PostgreSQL database and one loopback SMTP server.
Every due deadline must be settled exactly once and every message delivered exactly once.
"""

from __future__ import annotations

import multiprocessing
from datetime import datetime, timedelta
from pathlib import Path

import pytest

from pbem.config import Settings
from pbem.core.db.connection import database
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, Move
from tests.conftest import BACKENDS, START, STRONG_KEY, SMTPRecorder, make_settings

WORKERS = 3
MATCHES = 24
MAX_TICKS = 40
PLAYERS = [f"p{n}@example.org" for n in range(2 * MATCHES)]
# Databases with row locks and many connections: SQLite runs one worker (docs/operators/scaling.md).
SHARED = [name for name in BACKENDS if name != "sqlite"]


def _work(settings: Settings, now: datetime, start: multiprocessing.synchronize.Barrier,
          failures: multiprocessing.Queue) -> None:
    from pbem.worker import Worker

    try:
        worker = Worker(settings, clock=lambda: now)
        start.wait(timeout=60)
        # Like `pbem worker` ticking: until a tick finds nothing left for this process.
        for _ in range(MAX_TICKS):
            report = worker.run_once()
            if not report["deadlines"].settled and not report["outbox"].sent:
                break
        database.close()
    except BaseException as error:  # report to the test, which fails on it
        failures.put(repr(error))


@pytest.mark.parametrize("db_url", SHARED, indirect=True)
def test_three_workers_settle_every_deadline_once_and_send_every_mail_once(
        db_url: str, tmp_path: Path, smtp: SMTPRecorder) -> None:
    settings = make_settings(db_url, tmp_path, smtp_host=smtp.host, smtp_port=smtp.port,
                             outbox_batch_size=10)
    matches = [create_match("mimic", PLAYERS[2 * n:2 * n + 2], {}, STRONG_KEY, START,
                            seed=n, time_control="1h", on_timeout="autoplay").match
               for n in range(MATCHES)]
    due = START + timedelta(hours=1, minutes=1)
    # Each process opens its own connections: none is shared across the fork.
    database.close()
    context = multiprocessing.get_context("fork")
    start, failures = context.Barrier(WORKERS), context.Queue()
    processes = [context.Process(target=_work, args=(settings, due, start, failures))
                 for _ in range(WORKERS)]
    for process in processes:
        process.start()
    for process in processes:
        process.join(timeout=240)
    database.connect(reuse_if_open=True)
    assert [process.exitcode for process in processes] == [0] * WORKERS
    assert failures.empty(), failures.get()

    # Every due seat was autoplayed exactly once: one move per match, and the match goes on.
    for match in matches:
        moves = list(Move.select().where(Move.match == match.id))
        assert len(moves) == 1 and "autoplay" in moves[0].note, match.id
        assert Match.get_by_id(match.id).ply == 1
    # Every queued message (welcomes, first turns, the turns after the autoplays) went out
    # exactly once: as many deliveries as messages, no Message-ID twice.
    queued = list(OutboxMessage.select())
    assert queued and all(row.status == MessageStatus.SENT for row in queued)
    delivered = [message["Message-ID"] for message in smtp.messages]
    assert len(delivered) == len(queued) == len(set(delivered))
