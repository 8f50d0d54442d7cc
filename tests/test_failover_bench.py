"""`bench/failover.py` in short: a primary and a synchronous standby from this machine's
PostgreSQL binaries, two gunicorn servers and two `pbem worker`s on the multi-host URL, load
by HTTP, by mail and by the computer; a web process and a worker SIGKILLed, the primary shut
down at once and the standby promoted. Nothing accepted is lost, no move is made twice, every
mail is sent (one sent twice at most, for the killed worker's mail in flight), no 500.

Slow (a minute and a half): deselected from the default run (`pyproject.toml`); run it with
`pytest -m slow`."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_a_primary_lost_under_load_loses_nothing_accepted() -> None:
    ran = subprocess.run([sys.executable, str(ROOT / "bench" / "failover.py"), "--minutes",
                          "0.5", "--json"], capture_output=True, text=True, timeout=900,
                         check=False)
    assert ran.returncode == 0, ran.stderr[-3000:]
    result = json.loads(ran.stdout.strip().splitlines()[-1])
    assert result["accepted"] > 50 and result["accepted_by_mail"] > 0, result
    assert result["computer_moves"] > 0 and result["outbox_drained"], result
    assert result["lost"] == 0 and result["duplicated_moves"] == 0, result
    assert result["illegal_matches"] == 0 and result["missing_mails"] == 0, result
    assert result["duplicate_mails"] <= 2 and result["errors_5xx"] == 0, result
    assert result["outage_seconds"] <= 30, result
