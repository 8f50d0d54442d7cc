"""The `pbem` command: set up the database, run the server and worker, and manage matches.

Exit status: 0 when the command did its work; 2 when the command line or a value in it is
refused (nothing was changed, and the message says why); 1 when something outside the
command failed (the configuration, the database, the network).
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import logging
import re
import sys
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

import peewee

from pbem.config import Settings, load_settings
from pbem.core.db.connection import bind_database, database
from pbem.errors import ConfigError, PbemError
from pbem.games import REGISTRY, get_rules
from pbem.games.base import RulesError

# Bad input: the command is refused and nothing changed.
USAGE = 2
# Something outside the command failed.
FAILURE = 1
_MATCH_ID = re.compile(r"[0-9]{1,18}")  # ASCII digits only, and below 2**63 for every database


def main(argv: Sequence[str] | None = None) -> int:
    parser = _parser()
    args = parser.parse_args(argv)
    if not getattr(args, "handler", None):
        parser.print_help(sys.stderr)
        return USAGE
    logging.basicConfig(level=logging.INFO,
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # APScheduler logs every run of every job at INFO: keep the log for what happened.
    logging.getLogger("apscheduler").setLevel(logging.WARNING)
    from pbem.core import settlers

    settlers.install()  # what every change to a match sets going (core/settlers.py)
    try:
        if not getattr(args, "needs_settings", True):
            return args.handler(args, None)
        settings = load_settings(_overrides(args), config_file=args.config)
        settlers.install(settings.notify_away_seconds)
        return args.handler(args, settings)
    except ConfigError as error:
        return _fail(str(error), FAILURE)
    except (PbemError, RulesError) as error:
        return _fail(str(error), USAGE)
    except (ValueError, OverflowError) as error:
        # A value out of any sensible range that no check above caught (a date past 9999, a
        # number too large to store): still the command line's fault, and nothing was written
        # (every service writes in one transaction).
        return _fail(f"a value is out of range: {error}", USAGE)
    except peewee.PeeweeException as error:
        return _fail(f"the database failed: {type(error).__name__}: {error}", FAILURE)


def cmd_init(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.db import generation

    done = _migrate(settings)
    if done:
        print(f"database upgraded: applied {', '.join(done)}")
    else:
        print("database is up to date")
    # A database made or changed here: running processes forget what they kept of it.
    with database.connection_context():
        generation.bump()
    from pbem.push.keys import make_key_if_missing

    made = make_key_if_missing(settings)
    if made is not None:
        print(f"made the web push key {made} (keep it with your backups)")
    return 0


def cmd_backup(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.db.backups import backup

    failed = _backups_step(backup, settings, args.file)
    if failed is not None:
        return _fail(failed, FAILURE)
    print(f"wrote {args.file}")
    return 0


def cmd_restore(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.db.backups import restore

    failed = _backups_step(restore, settings, args.file)
    if failed is not None:
        return _fail(f"{failed}; the database is as it was", FAILURE)
    done = _migrate(settings)
    applied = f", then applied {', '.join(done)}" if done else ""
    print(f"restored {args.file}{applied}: running processes show it from their next request")
    return 0


def _backups_step(step: Callable[[str, Path], object], settings: Settings,
                  file: str) -> str | None:
    """Run a backup or a restore (`step`) of the configured database with `file`; what went
    wrong, in words, when it refused or failed."""
    from pbem.core.db.backups import BackupFailed

    bind_database(settings.database_url)
    try:
        with database.connection_context():
            step(settings.database_url, Path(file))
    except BackupFailed as error:
        return str(error)
    return None


def cmd_generation_bump(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.db import generation

    bind_database(settings.database_url)
    with database.connection_context():
        generation.bump()
    print("new database generation: running processes forget what they kept")
    return 0


def cmd_migration_status(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.db.migrations import applied, pending
    from pbem.core.schema import schema_diff

    bind_database(settings.database_url)
    with database.connection_context():
        for name in applied():
            print(f"applied  {name}")
        for name in pending():
            print(f"pending  {name}")
        diff = schema_diff() if not pending() else None
    if diff:
        print(f"the models differ from the database:\n{diff}")
    return 0


def cmd_migration_draft(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.db.migrations import pending
    from pbem.core.schema import draft

    _migrate(settings)
    bind_database(settings.database_url)
    with database.connection_context():
        if pending():
            print("pbem: apply the pending migrations first (pbem init)", file=sys.stderr)
            return 1
        print(f"wrote {draft(args.name)}: review it before committing")
    return 0


def cmd_worker(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.worker import Worker, run_forever

    bind_database(settings.database_url)
    worker = Worker(settings)
    if args.once:
        report = worker.run_once()
        print(json.dumps({name: vars(result) for name, result in report.items()}))
        return 0
    run_forever(worker)
    return 0


def cmd_serve(args: argparse.Namespace, settings: Settings) -> int:
    import socket

    from werkzeug.serving import run_simple

    from pbem.web import create_app
    from pbem.worker import Worker, start_in_background

    settings = served_settings(settings, args.host, args.port)
    _migrate(settings)
    app = create_app(settings)
    # The development server runs each request on a new thread: its connection ends with it.
    app.config["PBEM_THREAD_PER_REQUEST"] = True
    scheduler = start_in_background(Worker(settings))
    where = f"http://{args.host}:{args.port}"
    print(f"pbem is serving {where} (database {settings.database_url})")
    if settings.uses_dev_mailbox:
        print(f"no SMTP host is set: emails appear in the development mailbox, {where}/dev/mail")
    try:
        # No reloader: it would start a second process and so a second scheduler.
        run_simple(args.host, args.port, app, threaded=True, use_reloader=False)
    except socket.gaierror as error:
        return _fail(f"cannot serve on {args.host!r}: {error}", USAGE)
    except OSError as error:
        return _fail(f"cannot serve on {args.host}:{args.port}: {error}", FAILURE)
    finally:
        scheduler.shutdown(wait=False)
    return 0


def served_settings(settings: Settings, host: str, port: int) -> Settings:
    """With no base URL configured, links in pages and mails point at where `serve` listens
    (`--port 5057` wrote every link with port 5000)."""
    if settings.base_url != Settings.base_url:
        return settings
    shown = "127.0.0.1" if host in ("0.0.0.0", "::", "") else host
    shown = f"[{shown}]" if ":" in shown else shown
    return dataclasses.replace(settings, base_url=f"http://{shown}:{port}")


def cmd_match_create(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.matches.creation import create_match

    options = dict(_option_pair(text) for text in args.option)
    bind_database(settings.database_url)
    with database.connection_context():
        # create_match checks every argument before it writes, and writes in one transaction.
        created = create_match(args.game, args.player, options, settings.secret_key, _now(settings),
                               seed=args.seed,
                               time_control=args.clock or settings.default_time_control,
                               on_timeout=args.on_timeout or settings.default_on_timeout)
        emails = [row.player.email for row in created.match.seat_rows()]
    links = [f"{settings.base_url}/play/{token}" for token in created.tokens]
    seats = [{"seat": i, "seat_number": i + 1, "email": email, "link": link}
             for i, (email, link) in enumerate(zip(emails, links, strict=True))]
    if args.json:
        print(json.dumps({"match": created.match.id, "seats": seats}))
    else:
        print(f"match {created.match.id} created: {get_rules(created.match.game).title}")
        for seat in seats:
            # The index the other commands take, and the name pages and mails give the seat.
            print(f"  seat {seat['seat']} (Player {seat['seat_number']}) {seat['email']}: "
                  f"{seat['link']}")
    return 0


MATCH_ACTIONS = {
    "resign": "resign SEAT's match (with 2 players the other wins)",
    "draw-yes": "SEAT offers a draw, or accepts the one offered",
    "draw-no": "SEAT declines the draw offer",
    "abort": "abort the match before every seat has moved (no result)",
    "claim-victory": "SEAT claims the win from a seat whose time ran out (claim policy)",
}


def cmd_match_action(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.matches import lifecycle
    from pbem.core.matches.changes import Channel

    services = {"resign": lifecycle.resign, "draw-yes": lifecycle.draw_yes,
                "draw-no": lifecycle.draw_no, "abort": lifecycle.abort,
                "claim-victory": lifecycle.claim_victory}
    bind_database(settings.database_url)
    with database.connection_context():
        try:
            done = services[args.action](args.match, args.seat, _now(settings), via=Channel.CLI)
        except PbemError as error:
            print(f"pbem: {error}", file=sys.stderr)
            return 2
    print(f"match {args.match}, seat {args.seat}: {done}")
    return 0


def cmd_verify(args: argparse.Namespace, settings: Settings | None) -> int:
    """Replays a record with this install's rules; needs no database."""
    from pbem.core.records.imports import load_record, verify_record

    try:
        with open(args.file, encoding="utf-8") as handle:
            data = load_record(handle.read())
    except (OSError, PbemError) as error:
        print(f"pbem: cannot read {args.file}: {error}", file=sys.stderr)
        return FAILURE
    problem = verify_record(data)
    if problem is not None:
        print(f"{args.file}: NOT verified: {problem}")
        return FAILURE
    committed = isinstance(data, dict) and data.get("deal_scheme") is not None
    print(f"{args.file}: verified" + ("" if committed else
                                      " (moves only: its deals were not committed)"))
    return 0


def cmd_match_import(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.records.imports import import_record, load_record

    try:
        with open(args.file, encoding="utf-8") as handle:
            data = load_record(handle.read())
        bind_database(settings.database_url)
        with database.connection_context():
            match = import_record(data, settings.secret_key, _now(settings), source=args.file)
    except (OSError, ValueError, PbemError) as error:
        # A refused import is bad input (exit 2), and nothing was written.
        print(f"pbem: cannot import {args.file}: {error}", file=sys.stderr)
        return 2
    print(f"match {match.id} imported: {settings.base_url}/matches/{match.id}")
    return 0


def cmd_admin_create(args: argparse.Namespace, settings: Settings) -> int:
    import getpass
    import os

    from pbem.core.accounts.admins import create_admin

    password = os.environ.get("PBEM_ADMIN_PASSWORD")
    if password is None:
        password = getpass.getpass(f"Password for {args.email}: ")
        if getpass.getpass("Again: ") != password:
            return _fail("the passwords differ; nothing was changed", USAGE)
    bind_database(settings.database_url)
    with database.connection_context():
        try:
            admin = create_admin(args.email, password, _now(settings), role=args.role)
        except PbemError as error:
            return _fail(str(error), USAGE)
    print(f"{admin.role} {admin.email} can now log in at {settings.base_url}/admin")
    return 0


def cmd_adjudicate(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.clock import think_clock
    from pbem.core.matches.clocks import TimeControl
    from pbem.core.matches.computer_turns import StandIn
    from pbem.core.matches.rulings import RULINGS, make_ruling, open_entries

    bind_database(settings.database_url)
    with database.connection_context():
        if args.target == "list":
            entries = [{"entry": e.id, "match": e.match_id, "game": e.match.game,
                        "seat": e.seat, "cause": e.cause,
                        "opened_at": e.opened_at.isoformat() + "Z"} for e in open_entries()]
            if args.json:
                print(json.dumps(entries))
            for e in [] if args.json else entries:
                print(f"match {e['match']} ({e['game']}): seat {e['seat']}, {e['cause']} "
                      f"since {e['opened_at']}")
            if not entries and not args.json:
                print("nothing to rule on")
            return 0
        if not _MATCH_ID.fullmatch(args.target) or args.ruling not in RULINGS:
            return _fail("write `pbem adjudicate list` or `pbem adjudicate MATCH RULING "
                         f"--reason TEXT` with RULING one of {', '.join(RULINGS)}", USAGE)
        extension = TimeControl.parse(args.extend).bank if args.extend else None
        entry = make_ruling(int(args.target), args.ruling, args.reason or "", args.actor,
                            _now(settings), extension=extension,
                            max_extension=timedelta(days=settings.max_extension_days),
                            stand_in=StandIn(settings.autoplay_level, think_clock))
    print(f"match {entry.match_id}: {RULINGS.get(entry.ruling or '', entry.ruling)} "
          f"({entry.reason})")
    return 0


def cmd_player_token(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.accounts import api_tokens
    from pbem.core.accounts.models import Player
    from pbem.core.accounts.players import normalize_email
    from pbem.core.db.connection import write_transaction

    address = normalize_email(args.email)
    bind_database(settings.database_url)
    with database.connection_context(), write_transaction():
        player = Player.for_email(address, _now(settings))
        _, token = api_tokens.create(settings.secret_key, player, args.name, _now(settings),
                                     scopes=args.scopes.split(","))
    print(token)
    return 0


def cmd_seat_reissue(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.mailout.accounts import reissue_seat_link

    bind_database(settings.database_url)
    with database.connection_context():
        seat = reissue_seat_link(settings.secret_key, args.match, args.seat, _now(settings))
    print(f"match {args.match} seat {args.seat}: the old link is revoked; the new one is "
          f"emailed to {seat.player.email}")
    return 0
def cmd_leagues_rebuild(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.leagues.rebuild import rebuild

    _migrate(settings)
    with database.connection_context():
        report = rebuild()
    print(f"leagues rebuilt: {report.divisions} divisions, {report.ladders} ladders, "
          f"{report.changed} changed")
    return 0


def cmd_ratings_rebuild(args: argparse.Namespace, settings: Settings) -> int:
    from pbem.core.ratings.rebuild import rebuild

    _migrate(settings)
    started = time.monotonic()
    bar = sys.stderr.isatty()

    def progress(done: int, total: int) -> None:
        if bar and total:
            filled = done * 40 // total
            sys.stderr.write(f"\r[{'#' * filled}{'.' * (40 - filled)}] {done}/{total} "
                             "rating events")
            sys.stderr.flush()

    with database.connection_context():
        report = rebuild(progress)
    if bar:
        sys.stderr.write("\n")
    print(f"ratings rebuilt: {report.matches} matches, {report.events} rating events, "
          f"{report.changed} changed, in {time.monotonic() - started:.1f}s")
    return 0


def cmd_inbound(args: argparse.Namespace, settings: None) -> int:
    from pbem.mail.inbound.pipe import run

    return run(sys.stdin.buffer, lambda: load_settings(_overrides(args), config_file=args.config),
               recipient=args.recipient)


def cmd_games(args: argparse.Namespace, settings: Settings | None) -> int:
    for slug, rules in sorted(REGISTRY.items()):
        counts = " or ".join(str(n) for n in sorted(rules.player_counts))
        print(f"{slug:15} {rules.title} ({counts} players)")
        for option in rules.options:
            print(f"    --option {option.name}=… ({option.describe()}, default "
                  f"{option.default_text()}): {option.help}")
    return 0


def _fail(message: str, status: int) -> int:
    print(f"pbem: {message}", file=sys.stderr)
    return status


def _migrate(settings: Settings) -> list[str]:
    from pbem.core.db.migrations import migrate

    bind_database(settings.database_url)
    with database.connection_context():
        return migrate()


def _option_pair(text: str) -> tuple[str, Any]:
    name, sep, value = text.partition("=")
    if not sep or not name.strip():
        raise RulesError(f"write options as NAME=VALUE, not {text!r}")
    return name.strip(), value.strip()


def _port(text: str) -> int:
    if not re.fullmatch(r"[0-9]{1,5}", text.strip()) or not 0 < int(text) < 65536:
        raise argparse.ArgumentTypeError(f"{text!r} is not a port number (1 to 65535)")
    return int(text)


def _now(settings: Settings) -> datetime:
    from pbem.clock import clock_for

    # The install's clock: moved by `pbem dev clock advance` in development.
    return clock_for(settings)()


def _existing_file(text: str) -> str:
    if not Path(text).is_file():
        raise argparse.ArgumentTypeError(f"there is no file {text!r}")
    return text


def _overrides(args: argparse.Namespace) -> dict[str, Any]:
    return {"development": True} if getattr(args, "dev", False) else {}


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="pbem", description=__doc__)
    parser.add_argument("--config", type=_existing_file,
                        help="TOML settings file (default: $PBEM_CONFIG or ./pbem.toml)")
    parser.add_argument("--dev", action="store_true",
                        help="development mode: no secret key needed, dev mailbox page")
    commands = parser.add_subparsers(title="commands")
    for add in (_add_database_commands, _add_backup_commands, _add_process_commands,
                _add_match_commands, _add_people_commands, _add_adjudicate_command,
                _add_dev_commands):
        add(commands)
    return parser


def _add_database_commands(commands: Any) -> None:
    init = commands.add_parser("init", help="create or upgrade the database schema (idempotent)")
    init.set_defaults(handler=cmd_init)
    migration = commands.add_parser(
        "migration", help="schema migrations: status, or draft a new one (developers)"
    ).add_subparsers(title="migration")
    status = migration.add_parser("status", help="applied and pending migrations")
    status.set_defaults(handler=cmd_migration_status)
    draft = migration.add_parser("draft", help="write a migration from the models' changes")
    draft.add_argument("name", help="what it does, e.g. add_player_names")
    draft.set_defaults(handler=cmd_migration_draft)


def _add_process_commands(commands: Any) -> None:
    serve = commands.add_parser("serve", help="run the web app and the worker in one process")
    serve.add_argument("--host", default="127.0.0.1")
    serve.add_argument("--port", type=_port, default=5000)
    serve.add_argument("--dev", action="store_true", default=argparse.SUPPRESS,
                       help="development mode (same as `pbem --dev serve`)")
    serve.set_defaults(handler=cmd_serve)

    worker = commands.add_parser("worker", help="run the scheduler: outbox and other jobs")
    worker.add_argument("--once", action="store_true", help="run every job once and exit")
    worker.set_defaults(handler=cmd_worker)

    inbound = commands.add_parser(
        "inbound", help="read one email on stdin and act on it (for a mail server's pipe); "
                        "exits 75 when it cannot be handled now")
    inbound.add_argument("--recipient", metavar="ADDRESS",
                         help="the envelope recipient, if the mail server passes it")
    inbound.set_defaults(handler=cmd_inbound, needs_settings=False)

    games = commands.add_parser("games", help="list the games and their options")
    games.set_defaults(handler=cmd_games, needs_settings=False)


def _add_match_commands(commands: Any) -> None:
    match = commands.add_parser("match", help="manage matches").add_subparsers(title="match")
    create = match.add_parser("create", help="create and start a match, emailing every player")
    create.add_argument("--game", required=True, help="game slug (see `pbem games`)")
    create.add_argument("--player", action="append", required=True, metavar="EMAIL",
                        help="a player's email address, once per seat, in seat order")
    create.add_argument("--option", action="append", default=[], metavar="NAME=VALUE")
    create.add_argument("--seed", type=int, help="random seed (default: random)")
    create.add_argument("--clock", metavar="TIME",
                        help="time control: 3d, 36h, 90m, 45s per move, or 7d+1d/14d "
                             "(default: the default_time_control setting)")
    create.add_argument("--on-timeout", choices=("adjudicate", "forfeit", "autoplay", "claim"),
                        help="what a timeout does (default: the default_on_timeout setting)")
    create.add_argument("--json", action="store_true", help="print the result as JSON")
    create.set_defaults(handler=cmd_match_create)
    for name, text in MATCH_ACTIONS.items():
        action = match.add_parser(name, help=f"for an operator: {text}")
        action.add_argument("match", type=int, metavar="MATCH")
        action.add_argument("seat", type=int, metavar="SEAT", help="the seat, from 0")
        action.set_defaults(handler=cmd_match_action, action=name)

    imported = match.add_parser("import", help="recreate a finished match from its "
                                               "record.json (refused if any move is illegal)")
    imported.add_argument("file", help="a record.json downloaded from /matches/<id>")
    imported.set_defaults(handler=cmd_match_import)
    verify = commands.add_parser("verify", help="check a record.json: its deal commitment, "
                                                "every deal and every move (exit 0 or 1)")
    verify.add_argument("file", help="a record.json downloaded from /matches/<id>")
    verify.set_defaults(handler=cmd_verify, needs_settings=False)


def _add_people_commands(commands: Any) -> None:
    player = commands.add_parser("player", help="manage players").add_subparsers(title="player")
    token = player.add_parser("token", help="print a new personal API token for a player "
                                            "(creating the player if needed)")
    token.add_argument("email")
    token.add_argument("--name", default="command line", help="what the token is for")
    token.add_argument("--scopes", default="read,play",
                       help="what it may do, comma-separated from read, play, account "
                            "(default read,play)")
    token.set_defaults(handler=cmd_player_token)

    seat = commands.add_parser("seat", help="manage seats").add_subparsers(title="seat")
    reissue = seat.add_parser("reissue", help="revoke a seat's link and email the new one")
    reissue.add_argument("match", type=int)
    reissue.add_argument("seat", type=int, help="seat number, from 0")
    reissue.set_defaults(handler=cmd_seat_reissue)

    ratings = commands.add_parser("ratings", help="ratings").add_subparsers(title="ratings")
    rebuild = ratings.add_parser("rebuild", help="recompute every rating from the history, "
                                                 "in finishing order")
    rebuild.set_defaults(handler=cmd_ratings_rebuild)

    leagues = commands.add_parser("leagues", help="leagues and ladders").add_subparsers(
        title="leagues")
    leagues.add_parser("rebuild", help="derive every league's standings and every ladder's "
                                       "places again from the results").set_defaults(
        handler=cmd_leagues_rebuild)

    admin = commands.add_parser("admin", help="manage admins").add_subparsers(title="admin")
    admin_create = admin.add_parser("create", help="create an admin, or set their password "
                                                   "(from PBEM_ADMIN_PASSWORD or a prompt)")
    admin_create.add_argument("email")
    admin_create.add_argument("--role", choices=("admin", "moderator"), default="admin",
                              help="admin: every page; moderator: the queue and matches only")
    admin_create.set_defaults(handler=cmd_admin_create)


def _add_dev_commands(commands: Any) -> None:
    dev = commands.add_parser("dev", help="development only: tools for trying pbem by hand"
                              ).add_subparsers(title="dev")
    clock = dev.add_parser("clock", help="the server's clock in development: "
                                         "show, advance DURATION, reset").add_subparsers(
        title="clock")
    show = clock.add_parser("show", help="the time the server reads, and how far it is moved")
    show.set_defaults(handler=cmd_dev_clock, action="show")
    forward = clock.add_parser("advance", help="move the clock forward (deadlines, reminders, "
                                               "rounds, seasons), e.g. 3d, 12h, 1d12h")
    forward.add_argument("duration", type=_clock_step)
    forward.set_defaults(handler=cmd_dev_clock, action="advance")
    back = clock.add_parser("reset", help="back to real time")
    back.set_defaults(handler=cmd_dev_clock, action="reset")


def _clock_step(text: str) -> timedelta:
    from pbem.clock import parse_step

    try:
        return parse_step(text)
    except ValueError as error:
        raise argparse.ArgumentTypeError(str(error)) from None


def cmd_dev_clock(args: argparse.Namespace, settings: Settings) -> int:
    from pbem import clock

    if not settings.development:
        return _fail("pbem dev clock only works in development: it would move a live "
                     "server's deadlines. Run it as `pbem --dev dev clock ...` against a "
                     "development install (PBEM_DEVELOPMENT=1 or `pbem serve --dev`).", USAGE)
    path = clock.offset_path(settings)
    if args.action == "advance":
        from pbem.core.matches.sweep import clock_moved

        bind_database(settings.database_url)
        with database.connection_context():
            clock_moved(args.duration, lambda: clock.advance(path, args.duration))
    elif args.action == "reset":
        clock.reset(path)
    offset = clock.read_offset(path)
    print(f"the server's clock reads {_now(settings):%Y-%m-%d %H:%M:%S} UTC "
          f"({_in_words(offset)} ahead of real time); the web app and the worker of this "
          f"install read it from {path}")
    return 0


def _in_words(offset: timedelta) -> str:
    hours, seconds = divmod(offset.seconds, 3600)
    return f"{offset.days}d {hours}h {seconds // 60}m" if offset else "not"


def _add_adjudicate_command(commands: Any) -> None:
    adjudicate = commands.add_parser(
        "adjudicate", help="`list` the open adjudications, or rule: MATCH RULING --reason TEXT")
    adjudicate.add_argument("target", metavar="list|MATCH")
    adjudicate.add_argument("ruling", nargs="?", metavar="RULING",
                            help="award, draw, extend, autoplay, computer or abort")
    adjudicate.add_argument("--reason", help="why (sent to every player; required)")
    adjudicate.add_argument("--extend", metavar="TIME", help="for extend: how long, e.g. 2d")
    adjudicate.add_argument("--actor", default="shell", help="who rules (for the audit log)")
    adjudicate.add_argument("--json", action="store_true", help="with list: print JSON")
    adjudicate.set_defaults(handler=cmd_adjudicate)


def _add_backup_commands(commands: Any) -> None:
    backup = commands.add_parser("backup", help="copy the whole database to a file "
                                                "(SQLite or PostgreSQL, while it runs)")
    backup.add_argument("file", help="where to write the copy (replaced when complete)")
    backup.set_defaults(handler=cmd_backup)
    restore = commands.add_parser("restore", help="put the database back from a `pbem backup` "
                                                  "file, under running processes")
    restore.add_argument("file", help="a file written by `pbem backup`")
    restore.set_defaults(handler=cmd_restore)
    generation = commands.add_parser(
        "generation", help="the database's generation: `bump` after changing rows by hand"
    ).add_subparsers(title="generation")
    bump = generation.add_parser("bump", help="make running processes forget what they kept "
                                              "(after an UPDATE written by hand)")
    bump.set_defaults(handler=cmd_generation_bump)


if __name__ == "__main__":
    sys.exit(main())
