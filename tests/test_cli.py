"""The `pbem` command, in-process and as real processes (`serve`, `worker --once`)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest

from pbem.cli import main
from pbem.core.models import Match, OutboxMessage
from tests.conftest import STRONG_KEY, SMTPRecorder, free_port


@pytest.fixture
def env(monkeypatch: pytest.MonkeyPatch, db_url: str, tmp_path: Path) -> dict[str, str]:
    values = {"PBEM_DATABASE_URL": db_url, "PBEM_SECRET_KEY": STRONG_KEY,
              "PBEM_BASE_URL": "http://games.example", "PBEM_INSTANCE_PATH": str(tmp_path)}
    for name, value in values.items():
        monkeypatch.setenv(name, value)
    monkeypatch.delenv("PBEM_CONFIG", raising=False)
    return values


def test_init_is_idempotent(env, capsys) -> None:
    assert main(["init"]) == 0
    assert main(["init"]) == 0
    assert "database is up to date" in capsys.readouterr().out


def test_match_create_prints_each_seat_link_as_json(env, capsys) -> None:
    code = main(["match", "create", "--game", "nim", "--player", "Ann@Example.org",
                 "--player", "ben@example.org", "--option", "pile=7", "--seed", "4", "--json"])
    assert code == 0
    out = json.loads(capsys.readouterr().out)
    assert out["match"] == 1 and [s["email"] for s in out["seats"]] == [
        "ann@example.org", "ben@example.org"]
    assert all(s["link"].startswith("http://games.example/play/") for s in out["seats"])
    match = Match.get_by_id(1)
    assert match.seed == 4 and match.options == {"pile": 7}


@pytest.mark.parametrize(("argv", "message"), [
    (["match", "create", "--game", "nim", "--player", "a@b.org"], "played by 2 players"),
    (["match", "create", "--game", "nim", "--player", "a@b.org", "--player", "c@d.org",
      "--option", "pile"], "NAME=VALUE"),
    (["match", "create", "--game", "go", "--player", "a@b.org", "--player", "c@d.org"],
     "no game called 'go'"),
])
def test_bad_commands_explain_themselves(env, capsys, argv: list[str], message: str) -> None:
    assert main(argv) == 1
    assert message in capsys.readouterr().err
    assert Match.select().count() == 0


def test_outside_development_a_secret_key_is_required(env, monkeypatch, capsys) -> None:
    monkeypatch.delenv("PBEM_SECRET_KEY")
    assert main(["init"]) == 1
    assert "PBEM_SECRET_KEY is not set" in capsys.readouterr().err
    assert main(["--dev", "init"]) == 0


def test_worker_once_sends_the_outbox_over_smtp(env, monkeypatch, smtp: SMTPRecorder,
                                                capsys) -> None:
    monkeypatch.setenv("PBEM_SMTP_HOST", smtp.host)
    monkeypatch.setenv("PBEM_SMTP_PORT", str(smtp.port))
    main(["match", "create", "--game", "mimic", "--player", "a@b.org", "--player", "c@d.org"])
    capsys.readouterr()
    assert main(["worker", "--once"]) == 0
    out = capsys.readouterr()
    assert json.loads(out.out)["outbox"]["sent"] == 3, out
    assert len(smtp.messages) == 3 and OutboxMessage.select().count() == 3


def test_the_app_itself_never_starts_a_scheduler(settings) -> None:
    from pbem.web import create_app

    before = {thread.name for thread in threading.enumerate()}
    create_app(settings)
    assert {thread.name for thread in threading.enumerate()} == before


def test_serve_runs_the_web_app_and_the_worker_in_one_process(tmp_path: Path) -> None:
    port = free_port()
    env = {**os.environ, "PBEM_INSTANCE_PATH": str(tmp_path), "PBEM_BASE_URL":
           f"http://127.0.0.1:{port}"}
    env.pop("PBEM_DATABASE_URL", None)
    server = subprocess.Popen(
        [sys.executable, "-m", "pbem.cli", "--dev", "serve", "--port", str(port)],
        env=env, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        page = _get_when_up(f"http://127.0.0.1:{port}/dev/mail")
        assert "Development mailbox" in page
        assert (tmp_path / "pbem.sqlite3").exists()
    finally:
        server.terminate()
        output = server.communicate(timeout=20)[0]
    assert "emails appear in the development mailbox" in output
    assert "worker started in this process" in output


def _get_when_up(url: str, seconds: float = 20) -> str:
    deadline = time.monotonic() + seconds
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as response:
                return response.read().decode()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def test_admin_create_takes_the_password_from_the_environment(env, monkeypatch,
                                                              capsys) -> None:
    from pbem.core.admins import authenticate

    monkeypatch.setenv("PBEM_ADMIN_PASSWORD", "a long enough password")
    assert main(["admin", "create", "Ref@Club.org"]) == 0
    assert "http://games.example/admin" in capsys.readouterr().out
    assert authenticate("ref@club.org", "a long enough password") is not None
    monkeypatch.setenv("PBEM_ADMIN_PASSWORD", "short")
    assert main(["admin", "create", "ref@club.org"]) == 1
    assert "at least 10 characters" in capsys.readouterr().err


def test_adjudicate_lists_the_queue_and_rules_from_the_shell(env, capsys) -> None:
    from datetime import timedelta

    from pbem.clock import utcnow
    from pbem.core.sweep import sweep

    assert main(["match", "create", "--game", "mimic", "--player", "a@b.org", "--player",
                 "c@d.org", "--clock", "45s", "--on-timeout", "adjudicate"]) == 0
    assert main(["adjudicate", "list"]) == 0
    assert "nothing to rule on" in capsys.readouterr().out
    sweep(utcnow() + timedelta(minutes=1), timedelta(hours=1))
    assert main(["adjudicate", "list", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert (entry["match"], entry["seat"], entry["cause"]) == (1, 0, "timeout")
    assert main(["adjudicate", "1", "award"]) == 1
    assert "needs a reason" in capsys.readouterr().err
    assert main(["adjudicate", "1", "banish", "--reason", "x"]) == 2
    assert main(["adjudicate", "1", "extend", "--extend", "2d", "--reason", "flu"]) == 0
    assert "extend" in capsys.readouterr().out
    from pbem.core.models import AuditEntry

    assert (AuditEntry.get().actor, AuditEntry.get().reason) == ("shell", "flu")
    assert main(["match", "create", "--game", "mimic", "--player", "a@b.org", "--player",
                 "c@d.org", "--clock", "soon"]) == 1
    assert "not a time control" in capsys.readouterr().err


def test_games_lists_every_game_without_any_settings(monkeypatch, capsys) -> None:
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "mimic-taking" in out and "default off" in out


def test_player_token_prints_a_working_api_token(env, capsys) -> None:
    from pbem.core.api_tokens import player_for
    from pbem.core.models import ApiToken, Player
    from tests.conftest import START

    assert main(["player", "token", "New@Example.org", "--name", "my script"]) == 0
    token = capsys.readouterr().out.strip()
    assert player_for(STRONG_KEY, token, START).email == "new@example.org"
    assert ApiToken.get().name == "my script" and ApiToken.get().token_hash != token
    assert main(["player", "token", "not an address"]) == 1
    assert "not a valid email address" in capsys.readouterr().err
    assert Player.select().count() == 1


def test_seat_reissue_revokes_the_link_and_mails_the_new_one(env, monkeypatch, capsys,
                                                             smtp: SMTPRecorder) -> None:
    import re

    monkeypatch.setenv("PBEM_SMTP_HOST", smtp.host)
    monkeypatch.setenv("PBEM_SMTP_PORT", str(smtp.port))
    main(["match", "create", "--game", "nim", "--player", "a@b.org", "--player", "c@d.org",
          "--json"])
    old = json.loads(capsys.readouterr().out)["seats"][1]["link"]
    assert main(["seat", "reissue", "1", "1"]) == 0
    assert "emailed to c@d.org" in capsys.readouterr().out
    assert main(["seat", "reissue", "1", "7"]) == 1
    assert "has no seat 7" in capsys.readouterr().err
    main(["worker", "--once"])
    mail = [m for m in smtp.to("c@d.org") if "new link" in m["Subject"]][-1]
    new = re.search(r"http://games.example/play/\S+", mail.get_body(("plain",)).get_content())
    assert new and new.group(0) != old
    from pbem.core.tokens import seat_for_token
    from pbem.errors import NotFoundError

    with pytest.raises(NotFoundError):
        seat_for_token(old.rsplit("/", 1)[1])
    assert seat_for_token(new.group(0).rsplit("/", 1)[1]).seat == 1
