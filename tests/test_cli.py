"""The `pbem` command, in-process and as real processes (`serve`, `worker --once`)."""

from __future__ import annotations

import contextlib
import io
import json
import os
import subprocess
import sys
import threading
import time
import urllib.request
from pathlib import Path

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from pbem.cli import main
from pbem.core.accounts.models import Player
from pbem.core.mailout.models import OutboxMessage
from pbem.core.matches.models import Match, Seat
from pbem.games import REGISTRY
from pbem.games.base import Option
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
    assert main(argv) == 2
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
    # Only new threads count: the test fixtures' own background threads (MariaDB's database
    # emptier, say) may end while the app is created.
    assert {thread.name for thread in threading.enumerate()} - before == set()


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
    from pbem.core.accounts.admins import authenticate

    monkeypatch.setenv("PBEM_ADMIN_PASSWORD", "a long enough password")
    assert main(["admin", "create", "Ref@Club.org"]) == 0
    assert "http://games.example/admin" in capsys.readouterr().out
    assert authenticate("ref@club.org", "a long enough password") is not None
    monkeypatch.setenv("PBEM_ADMIN_PASSWORD", "short")
    assert main(["admin", "create", "ref@club.org"]) == 2
    assert "at least 10 characters" in capsys.readouterr().err


def test_admin_create_gives_a_moderator_role(env, monkeypatch, capsys) -> None:
    from pbem.core.accounts.models import Admin

    monkeypatch.setenv("PBEM_ADMIN_PASSWORD", "a long enough password")
    assert main(["admin", "create", "mod@club.org", "--role", "moderator"]) == 0
    assert capsys.readouterr().out.startswith("moderator mod@club.org")
    assert Admin.get(Admin.email == "mod@club.org").role == "moderator"
    assert main(["admin", "create", "ref@club.org"]) == 0
    assert Admin.get(Admin.email == "ref@club.org").role == "admin"


def test_adjudicate_lists_the_queue_and_rules_from_the_shell(env, capsys) -> None:
    from datetime import timedelta

    from pbem.clock import utcnow
    from pbem.core.matches.sweep import sweep

    assert main(["match", "create", "--game", "mimic", "--player", "a@b.org", "--player",
                 "c@d.org", "--clock", "45s", "--on-timeout", "adjudicate"]) == 0
    assert main(["adjudicate", "list"]) == 0
    assert "nothing to rule on" in capsys.readouterr().out
    sweep(utcnow() + timedelta(minutes=1), timedelta(hours=1))
    assert main(["adjudicate", "list", "--json"]) == 0
    (entry,) = json.loads(capsys.readouterr().out)
    assert (entry["match"], entry["seat"], entry["cause"]) == (1, 0, "timeout")
    assert main(["adjudicate", "1", "award"]) == 2
    assert "needs a reason" in capsys.readouterr().err
    assert main(["adjudicate", "1", "banish", "--reason", "x"]) == 2
    assert main(["adjudicate", "1", "extend", "--extend", "2d", "--reason", "flu"]) == 0
    assert "extend" in capsys.readouterr().out
    from pbem.core.admin.audit import AuditFilter, search

    (ruled,) = search(AuditFilter(action="ruling"))
    assert (ruled.actor, ruled.reason) == ("shell", "flu")
    assert main(["match", "create", "--game", "mimic", "--player", "a@b.org", "--player",
                 "c@d.org", "--clock", "soon"]) == 2
    assert "not a time control" in capsys.readouterr().err


def test_games_lists_every_game_without_any_settings(monkeypatch, capsys) -> None:
    monkeypatch.delenv("PBEM_SECRET_KEY", raising=False)
    assert main(["games"]) == 0
    out = capsys.readouterr().out
    assert "mimic-taking" in out and "default off" in out


def test_player_token_prints_a_working_api_token(env, capsys) -> None:
    from pbem.core.accounts.api_tokens import player_for
    from pbem.core.accounts.models import ApiToken, Player
    from tests.conftest import START

    assert main(["player", "token", "New@Example.org", "--name", "my script"]) == 0
    token = capsys.readouterr().out.strip()
    assert player_for(STRONG_KEY, token, START).email == "new@example.org"
    assert ApiToken.get().name == "my script" and ApiToken.get().token_hash != token
    assert main(["player", "token", "not an address"]) == 2
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
    assert main(["seat", "reissue", "1", "7"]) == 2
    assert "has no seat 7" in capsys.readouterr().err
    main(["worker", "--once"])
    mail = [m for m in smtp.to("c@d.org") if "new link" in m["Subject"]][-1]
    new = re.search(r"http://games.example/play/\S+", mail.get_body(("plain",)).get_content())
    assert new and new.group(0) != old
    from pbem.core.matches.seat_links import seat_for_token
    from pbem.errors import NotFoundError

    with pytest.raises(NotFoundError):
        seat_for_token(old.rsplit("/", 1)[1])
    assert seat_for_token(new.group(0).rsplit("/", 1)[1]).seat == 1
# --- bad input: a message and exit status 2, never a traceback or a half-made match ----------

def _run(argv: list[str]) -> tuple[int, str, str]:
    """Run `pbem` in this process like a shell would: status, stdout, stderr."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = main(argv)
        except SystemExit as stop:  # argparse refusing the command line
            code = stop.code if isinstance(stop.code, int) else 2
    return code, out.getvalue(), err.getvalue()


def _rows() -> tuple[int, ...]:
    return tuple(model.select().count() for model in (Match, Seat, Player, OutboxMessage))


def test_a_game_slug_in_any_case_creates_one_match_and_names_it(env) -> None:
    code, out, err = _run(["match", "create", "--game", " MIMIC ", "--player", "a@b.org",
                           "--player", "c@d.org"])
    assert (code, err) == (0, "")
    assert out.startswith("match 1 created: Mimic")
    assert Match.get().game == "mimic" and _rows()[0] == 1


@pytest.mark.parametrize(("argv", "message"), [
    (["match", "create", "--game", "mimic", "--player", "a@b.org", "--player", "c@d.org",
      "--seed", "99999999999999999999"], "the seed must be a whole number"),
    (["match", "create", "--game", "mimic", "--player", "a@b.org", "--player", "c@d.org",
      "--seed", "9" * 5000], "invalid int value"),
    (["match", "create", "--game", "mimic", "--player", "a@b.org", "--player", "c@d.org",
      "--clock", "1d+9999999d/9999999d"], "at most 365 days"),
    (["match", "create", "--game", "mimic", "--player", "a@b.org", "--player", "c@d.org",
      "--clock", "99999999999999999999d"], "is not a time control"),
    (["match", "create", "--game", "mimic", "--player", "a@b.org", "--player",
      "=?utf-8?q?ann=40b.org?=@evil.example"], "encoded words"),
    (["match", "create", "--game", "mimic", "--player", "a@b.org", "--player", "c\x01@d.org"],
     "control characters"),
    (["match", "create", "--game", "mimic", "--player", "a@b.org", "--player", "c@d.org",
      "--option", "mimic_goal_wins=²"], "must be on or off"),
    (["match", "create", "--game", "nim", "--player", "a@b.org", "--player", "c@d.org",
      "--option", "pile=²"], "must be a whole number"),
    (["adjudicate", "²", "award", "--reason", "x"], "pbem adjudicate MATCH RULING"),
    (["adjudicate", "9223372036854775808", "award", "--reason", "x"],
     "pbem adjudicate MATCH RULING"),
    (["adjudicate", "1", "extend", "--extend", "9" * 400 + "d", "--reason", "x"],
     "is not a time control"),
    (["admin", "create", "=?utf-8?q?ref?=@club.org"], "encoded words"),
    (["serve", "--port", "99999"], "not a port number"),
    (["--config", "/", "init"], "there is no file '/'"),
])
def test_bad_values_are_refused_with_status_2_and_change_nothing(
        env, monkeypatch, argv: list[str], message: str) -> None:
    monkeypatch.setenv("PBEM_ADMIN_PASSWORD", "a long enough password")
    before = _rows()
    code, out, err = _run(argv)
    assert (code, out) == (2, "")
    assert message in err and "Traceback" not in err
    assert _rows() == before


def test_a_creation_that_fails_after_writing_leaves_nothing_and_a_retry_makes_one(
        env, monkeypatch) -> None:
    from pbem.core.mailout import notify

    def broken_mail(*args: object, **kwargs: object) -> None:
        raise RuntimeError("the mail queue broke after the match row was written")

    argv = ["match", "create", "--game", "mimic", "--player", "a@b.org", "--player", "c@d.org"]
    with monkeypatch.context() as patch:
        patch.setattr(notify, "queue_match_started", broken_mail)
        with pytest.raises(RuntimeError):
            main(argv)
    assert _rows() == (0, 0, 0, 0)
    assert _run(argv)[0] == 0
    assert _rows() == (1, 2, 2, 3)


def test_a_real_process_refuses_bad_input_without_a_traceback(env, tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "pbem.cli", "match", "create", "--game", "mimic", "--player",
         "a@b.org", "--player", "c@d.org", "--clock", "1d+9999999d/9999999d"],
        env={**os.environ, **env}, cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert result.returncode == 2
    assert result.stderr.startswith("pbem: ") and "Traceback" not in result.stderr
    assert Match.select().count() == 0


def _deep_change(depth: int) -> str:
    """A real record whose one change carries a detail nested `depth` lists deep."""
    record = {"format": "pbem-record", "version": 1, "game": "nim", "rules_version": 1,
              "status": "finished", "seed": 1, "options": {},
              "players": [{"seat": 0, "name": "Ann"}, {"seat": 1, "name": "Ben"}],
              "result": {"winners": [0, 1], "scores": [0.5, 0.5], "reason": "drawn by agreement"},
              "moves": [], "created_at": "2026-01-05T12:00:00Z", "rulings": [],
              "changes": [{"version": 1, "kind": "x", "seat": None, "by": "player",
                           "channel": "web", "at": "2026-01-05T12:00:00Z", "detail": "@"}]}
    return json.dumps(record).replace('"@"', "[" * depth + "]" * depth)


@pytest.mark.parametrize("text", [
    "[" * 100_000, '{"a": ' * 100_000 + "1" + "}" * 100_000, _deep_change(900),
], ids=["lists", "objects", "parseable-but-deep"])
def test_match_import_refuses_deeply_nested_json_in_one_line(env, tmp_path: Path,
                                                             text: str) -> None:
    deep = tmp_path / "deep.json"
    deep.write_text(text)
    before = _rows()
    code, out, err = _run(["match", "import", str(deep)])
    assert (code, out) == (2, "")
    assert err.startswith(f"pbem: cannot import {deep}: ") and err.count("\n") == 1
    assert "nested" in err and "Traceback" not in err
    assert _rows() == before


_TEXT = st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00"),
                max_size=24)  # a real command line cannot carry NUL or lone surrogates
_WILD = st.integers(0, 4).map(lambda n: n == 0)  # one value in five is out of the ordinary
_ADDRESSES = ["ann@example.org", "Ben@Example.ORG", " cy@example.net ", "dee@example.com"]
_BAD_VALUES: dict[str, st.SearchStrategy[str]] = {
    "--game": st.one_of(st.sampled_from(["go", "mimic taking", "MIMIC-"]), _TEXT),
    "--player": st.one_of(
        st.sampled_from(["a@b", "no-at-sign", "=?utf-8?q?ann=40example.org?=@evil.example"]),
        st.emails(), _TEXT),
    "--option": st.one_of(
        st.tuples(st.one_of(st.sampled_from(["pile", "hand", "size", "face_up"]), _TEXT),
                  st.one_of(st.sampled_from(["-1", "²", "٣", "1e3", "99"]),
                            st.integers().map(str), _TEXT)).map("=".join),
        _TEXT),
    "--seed": st.one_of(st.integers(min_value=-2**70, max_value=2**70).map(str), _TEXT),
    "--clock": st.one_of(
        st.sampled_from(["1d+9999999d/9999999d", "0d", "366d", "7d+1d/1d", "soon"]),
        st.integers(min_value=0, max_value=10**30).map(lambda n: f"{n}h"), _TEXT),
    "--on-timeout": st.one_of(st.sampled_from(["ignore", "Forfeit"]), _TEXT),
}


def _option_value(option: Option) -> st.SearchStrategy[str]:
    if isinstance(option.default, bool):
        return st.sampled_from(["on", "off", "yes", "no", "1", "0"])
    if option.choices is not None:
        return st.sampled_from([str(choice) for choice in option.choices])
    if option.minimum is not None and option.maximum is not None:
        return st.integers(option.minimum, option.maximum).map(str)
    return st.just(str(option.default))


@st.composite
def _match_create_argv(draw: st.DrawFn) -> list[str]:
    """Mostly sensible requests, each flag now and then replaced by something strange."""
    slug = draw(st.sampled_from(sorted(REGISTRY)))
    rules = REGISTRY[slug]
    argv = ["match", "create"]

    def flag(name: str, sensible: st.SearchStrategy[str]) -> None:
        argv.extend([name, draw(_BAD_VALUES[name] if draw(_WILD) else sensible)])

    flag("--game", st.sampled_from([slug, slug.upper(), f" {slug.title()} "]))
    players = draw(st.sampled_from(sorted(rules.player_counts)))
    for address in draw(st.permutations(_ADDRESSES))[:players]:
        flag("--player", st.just(address))
    for option in draw(st.lists(st.sampled_from(rules.options), unique=True)
                       if rules.options else st.just([])):
        flag("--option", _option_value(option).map(lambda value, o=option: f"{o.name}={value}"))
    if draw(st.booleans()):
        flag("--seed", st.integers(0, 2**62 - 1).map(str))
    if draw(st.booleans()):
        flag("--clock", st.sampled_from(["3d", "45s", "90m", "7d+1d/14d", "365d"]))
    if draw(st.booleans()):
        flag("--on-timeout", st.sampled_from(["adjudicate", "forfeit", "autoplay"]))
    if draw(st.booleans()):
        argv.append("--json")
    return argv + draw(st.lists(_TEXT, max_size=1) if draw(_WILD) else st.just([]))


@st.composite
def _other_argv(draw: st.DrawFn) -> list[str]:
    kind = draw(st.sampled_from(["adjudicate", "adjudicate", "admin", "garbage"]))
    if kind == "adjudicate":
        target = draw(st.one_of(st.sampled_from(["list", "1", "²", "9" * 19]), _TEXT))
        argv = ["adjudicate", target]
        argv += draw(st.lists(st.one_of(st.sampled_from(["award", "draw", "extend"]), _TEXT),
                              max_size=1))
        for flag in ("--reason", "--extend"):
            argv += [part for value in draw(st.lists(_TEXT, max_size=1)) for part in (flag, value)]
        return argv
    if kind == "admin":
        return ["admin", "create", draw(st.one_of(st.sampled_from(_ADDRESSES),
                                                  _BAD_VALUES["--player"]))]
    words = st.one_of(st.sampled_from(["match", "create", "games", "init", "adjudicate",
                                       "admin", "--dev", "--json", "--game", "--player"]), _TEXT)
    return draw(st.lists(words, max_size=6).filter(
        lambda argv: not {"serve", "worker"} & {word.strip() for word in argv}))


@settings(max_examples=100, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(argv=st.one_of(_match_create_argv(), _other_argv()))
def test_no_command_line_gives_a_traceback_or_a_duplicate(env, monkeypatch,
                                                          argv: list[str]) -> None:
    monkeypatch.setenv("PBEM_ADMIN_PASSWORD", "a long enough password")
    before = _rows()
    code, _out, err = _run(argv)
    event(f"{argv[:2]} exit {code}")
    assert code in (0, 2), (code, err)
    assert "Traceback" not in err
    created = _rows()[0] - before[0]
    if code == 0:
        assert created == (1 if argv[:2] == ["match", "create"] else 0)
    else:
        assert err and _rows() == before
        # Retrying a refused command is refused again, and still writes nothing.
        assert _run(argv)[0] == 2 and _rows() == before


def test_serve_writes_links_with_the_port_it_listens_on(tmp_path) -> None:
    """`pbem --dev serve --port 5057` wrote every link with port 5000."""
    from pbem.cli import served_settings
    from pbem.config import load_settings

    unset = load_settings({"development": True, "instance_path": str(tmp_path)}, environ={})
    assert served_settings(unset, "127.0.0.1", 5057).base_url == "http://127.0.0.1:5057"
    assert served_settings(unset, "0.0.0.0", 8080).base_url == "http://127.0.0.1:8080"
    configured = load_settings({"development": True, "instance_path": str(tmp_path),
                                "base_url": "https://games.example.org"}, environ={})
    assert served_settings(configured, "0.0.0.0", 8080).base_url == "https://games.example.org"
