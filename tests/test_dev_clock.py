"""`pbem dev clock`: development only; it moves the clock that the web app, the worker and
every command of one install read, so a deadline, a reminder or a round can be seen to pass."""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import timedelta
from pathlib import Path

import pytest

from pbem import clock
from pbem.cli import main
from pbem.config import load_settings
from pbem.core.matches.models import Match
from pbem.web import create_app
from pbem.worker import Worker
from tests.conftest import STRONG_KEY


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, db_url: str, tmp_path: Path) -> dict[str, str]:
    values = {"PBEM_DATABASE_URL": db_url, "PBEM_SECRET_KEY": STRONG_KEY,
              "PBEM_BASE_URL": "http://games.example", "PBEM_INSTANCE_PATH": str(tmp_path)}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    monkeypatch.delenv("PBEM_DEVELOPMENT", raising=False)
    return values


def test_outside_development_the_clock_is_refused_and_never_moves(env, tmp_path, capsys) -> None:
    assert main(["dev", "clock", "advance", "3d"]) == 2
    assert "only works in development" in capsys.readouterr().err
    assert not (tmp_path / clock.OFFSET_FILE).exists()
    # Even an offset file left in a live install's folder is never read there.
    clock.advance(tmp_path / clock.OFFSET_FILE, timedelta(days=3))
    live = load_settings(environ=dict(env))
    assert not live.development
    assert abs(clock.clock_for(live)() - clock.utcnow()) < timedelta(minutes=1)


@pytest.mark.parametrize("bad", ["", "3", "-3d", "3 days", "0d", "400d", "3x", "d"])
def test_a_bad_duration_is_refused_with_a_message(env, capsys, bad: str) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--dev", "dev", "clock", "advance", bad])
    assert exited.value.code == 2
    assert "duration" in capsys.readouterr().err


def test_advance_adds_up_and_every_process_of_the_install_reads_it(env, tmp_path,
                                                                   capsys) -> None:
    settings = load_settings({"development": True}, environ=dict(env))
    app = create_app(settings)
    worker = Worker(settings)
    before = clock.utcnow()
    assert main(["--dev", "dev", "clock", "advance", "3d"]) == 0
    assert main(["--dev", "dev", "clock", "advance", "1d12h"]) == 0
    assert "4d 12h 0m ahead of real time" in capsys.readouterr().out
    for reads in (app.config["PBEM_CLOCK"], worker.clock):
        ahead = reads() - before
        assert timedelta(days=4, hours=12) <= ahead < timedelta(days=4, hours=12, minutes=1)
    assert main(["--dev", "dev", "clock", "reset"]) == 0
    assert "not ahead of real time" in capsys.readouterr().out
    assert app.config["PBEM_CLOCK"]() - clock.utcnow() < timedelta(minutes=1)


def test_a_deadline_passes_for_a_worker_in_another_process(env, tmp_path) -> None:
    assert main(["--dev", "match", "create", "--game", "mimic", "--player", "a@b.org",
                 "--player", "c@d.org", "--clock", "1d", "--on-timeout", "forfeit"]) == 0
    run = {"env": {**os.environ, **env, "PBEM_DEVELOPMENT": "1"}, "cwd": tmp_path,
           "capture_output": True, "text": True, "timeout": 120}
    worker = [sys.executable, "-m", "pbem.cli", "worker", "--once"]
    assert subprocess.run(worker, **run).returncode == 0  # type: ignore[call-overload]
    assert Match.get().status == "active"  # a day to move: nothing due yet
    assert main(["--dev", "dev", "clock", "advance", "2d"]) == 0
    assert subprocess.run(worker, **run).returncode == 0  # type: ignore[call-overload]
    match = Match.get()
    assert match.status == "finished" and "time" in str(match.result).lower()
