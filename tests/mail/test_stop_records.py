"""SIGTERM mid-batch leaves a clean record. A real `pbem worker` process sends to a real (slow)
SMTP server on loopback and is stopped with SIGTERM while its batch is half sent, four times.
Each time, before the next worker starts:

- it exits without a traceback (on a database server the mail job records each sent mail on a
  thread of its own; a stop once reached that thread's pool after the interpreter had begun to
  shut it down: "cannot schedule new futures after shutdown", and the job died);
- every mail the SMTP server took is recorded as sent (none left claimed, to go again after
  the lease);
- the rest of its batch is handed back (pending again at once, not held by a claim).
"""

from __future__ import annotations

import signal
from pathlib import Path

from pbem.clock import utcnow
from pbem.core.db.connection import database
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.mailout.notify import message_key
from pbem.core.matches.creation import create_match
from tests.conftest import STRONG_KEY
from tests.mail.test_restarts import _until, _worker, slow_smtp  # noqa: F401 (a fixture)

MATCHES = 70  # three mails each
STOPS = 4


def test_sigterm_mid_batch_records_every_sent_mail_and_hands_the_rest_back(
        db_url, tmp_path: Path, slow_smtp) -> None:  # noqa: F811 (the fixture)
    recorder, port = slow_smtp
    for _ in range(MATCHES):
        create_match("mimic", ["ann@example.org", "ben@example.org"], {}, STRONG_KEY,
                     utcnow(), time_control="365d")
    database.close()
    for stop in range(STOPS):
        log = tmp_path / f"worker-{stop}.log"
        seen = len(recorder.ids)
        with log.open("wb") as errors:
            worker = _worker(db_url, port, tmp_path, stderr=errors)
            _until(lambda seen=seen: len(recorder.ids) >= seen + 12)  # mid-batch
            worker.send_signal(signal.SIGTERM)
            assert worker.wait(timeout=30) == 0
        said = log.read_text()
        assert "Traceback" not in said and "cannot schedule" not in said, said[-3000:]
        with database.connection_context():
            rows = {row.id: row.status for row in OutboxMessage.select()}
            ids = {message_key(row, row.match).split("@")[0]: row.id
                   for row in OutboxMessage.select()}
        arrived = {ids[key.strip("<>").split("@")[0]] for key in recorder.ids}
        unrecorded = sorted(i for i in arrived if rows.get(i) != MessageStatus.SENT)
        assert not unrecorded, f"stop {stop}: sent but not recorded: {unrecorded}"
        held = sorted(i for i, status in rows.items() if status == MessageStatus.SENDING)
        assert not held, f"stop {stop}: still claimed after the stop: {held}"
        if all(status == MessageStatus.SENT for status in rows.values()):
            break
    assert len(recorder.ids) == len(set(recorder.ids))  # and nothing went twice
