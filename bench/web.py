"""What a request costs next to a bare Flask + peewee endpoint doing the same I/O.

    python bench/web.py [--database-url URL] [--rounds 5] [--requests 200]

Serves pbem and a bare app (Flask + peewee) with gunicorn, one sync worker each, as the
Procfile does, on the same database. The bare app has three endpoints:
- a row read by primary key, answered as JSON (through peewee's query builder and model
  rows);
- a play page (`bare page`): the same five reads as pbem's play page read again, in kind,
  order and tables, written by hand as SQL strings, answered with a few of the values read as
  JSON; on PostgreSQL the last four travel in one pipeline, as pbem sends them ahead;
- a posted move (`bare move`): the same statements as pbem's posted move in kind and order,
  written by hand as SQL strings (its reads fetch only the columns it uses, and the players'
  read has none of pbem's three EXISTS sub-selects, so it is if anything cheaper than
  pbem's): the seat by its link's hash, then in one transaction the match and its seats
  (locked), its players, the guarded match row, the move, its position, both seats' clocks,
  the turn mail and the change log row, answered with a 303. On PostgreSQL it sends them in
  psycopg's pipeline as pbem does, waiting for the server as often (a bare app written with
  peewee's query builder, or waiting for every answer, is slower than pbem, and would
  flatter it).
- a first read (`bare page, 1st`, `/page/<token>/first`): the bare page's reads with what a
  first read of a match version adds, as pbem sends them: the visit noted (in a
  transaction), the version's draw offers, latest page of moves and rulings shown; and the
  API's first read (`bare api, 1st`, `/api/<token>/first`): the seat's table and those three.
A whole move (`whole move` against `bare whole move`) is a posted move, the opponent's first
read of the new version, and the opponent's turn mail sent over SMTP to a loopback aiosmtpd
sink (a process of its own): pbem's by its outbox (`deliver_due`, as `pbem worker` sends
it), the bare app's row read by hand, written with `EmailMessage` and sent with `smtplib`,
then recorded as sent; the mail's CPU in this process is added to the server's.
Then, in interleaved rounds, times sequential requests to each endpoint and prints each
one's rate as a ratio to its baseline's rate in the same round (the median and the spread
over rounds): a posted move against the bare move, a play page read again against the bare
page on the same match (`bare page`, `bare page@500`), a first read against its bare first
read, a whole move against the bare whole move, the rest against the bare row read:
an API read again is one read, as the row read is. The other baselines' medians follow in
brackets (a first read's and a whole move's ratio to the row read too, as earlier rounds
measured them). tests/test_bench_baseline.py holds the claim that the bare move, page and
first reads do pbem's I/O.

- `POST move`: a move through the web form (each request plays the first move of its own
  fresh match, so every POST does the full work of a move; the bare app's posted moves play
  in fresh matches of their own);
- `GET play`: a seat's play page at ply 10, and `GET play@500` at ply 500 (÷ ply 10 too);
- `GET api`: `GET /api/play/<token>`;
- `GET home, in`: the site's home page read by a signed-in player (their session cookie):
  what being signed in adds to a plain page (finding the session and its player), against
  the bare row read;
- `GET me`: `/me`, the page a signed-in player opens most (their matches, whose turn it is),
  for a player with three matches, read again with their session cookie, against the bare
  row read;
- `GET api me`: `/api/me` with that player's personal API token (`Authorization: Bearer`),
  what a client polling its matches asks, against the bare row read;
- `GET public`: `GET /matches/<id>` at ply 10, the public page of the match (what a
  spectator or a link's preview reads), read again, against the bare row read;
- `GET poll`: `GET /matches/<id>/ply`, what a waiting page asks every few seconds: one
  match row read by its id and answered with three of its values as JSON, as the bare row
  read is (a waiting page's poll that finds nothing new is answered 304; this one, without
  `If-None-Match`, is the full answer);
- `GET play, 1st` and `GET api, 1st`: the same at ply 10, but each request reads a match of
  its own, so each is the first read of its position. pbem keeps what a match version derives
  to (its view, legal moves, board, move list) for the next reads of that version, and the
  HTML of a page's parts for the next page that shows them alike: the lines above measure a
  page read again (a reload, a polling client, spectators), these the first read after a move
  (the mover's page after its redirect, the opponent's after the poll), which renders the
  parts of its match afresh.

Default database: a temporary SQLite file. Pass a PostgreSQL URL to measure that (its pbem
tables are dropped and recreated); pbem runs on it as given (use `postgresql+pool://`, as in
production).

The baseline (`bare`) keeps its database connection as pbem does on SQLite (one connection
per thread, never closed between requests) and on a `+pool` URL (pbem hands its connection
back to its pool after each request, where the bare app simply keeps it; use `+pool` for
PostgreSQL and MariaDB, as pbem's production does). A second,
labelled line (`bare, connection per request`) is the usual Flask + peewee app that opens a
connection for each request and closes it after, on the URL without `+pool`: the older, more
flattering baseline, kept only for comparison. Beside each rate is the server's CPU time per
request (its gunicorn worker's user + system time over the same requests, from /proc), and
its ratio to the baseline's.
"""

from __future__ import annotations

import argparse
import functools
import http.client
import os
import secrets
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
import urllib.parse
from collections.abc import Callable
from datetime import datetime, timedelta
from email.message import EmailMessage
from email.utils import formatdate, make_msgid
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pbem.clock import utcnow  # noqa: E402
from pbem.config import Settings, load_settings  # noqa: E402
from pbem.core import settlers  # noqa: E402
from pbem.core.accounts import api_tokens, sessions  # noqa: E402
from pbem.core.accounts.models import Player, SessionKind  # noqa: E402
from pbem.core.db.connection import bind_database, database  # noqa: E402
from pbem.core.db.migrations import migrate  # noqa: E402
from pbem.core.matches.creation import create_match  # noqa: E402
from pbem.core.matches.play import submit_move  # noqa: E402
from pbem.core.schema import drop_everything  # noqa: E402
from pbem.games import get_rules  # noqa: E402
from pbem.mail.compose import Composer  # noqa: E402
from pbem.mail.outbox import deliver_due  # noqa: E402
from pbem.mail.senders import SMTPSender  # noqa: E402

BASE = "bare"
OLD_BASE = "bare, connection per request"
# The bare app's posted move and play page: the same statements as pbem's, written by hand
# (BARE_APP).
BARE_MOVE = "bare move"
BARE_PAGE = "bare page"
BARE_PAGE_500 = "bare page@500"
BARE_FIRST = "bare page, 1st"
BARE_API_FIRST = "bare api, 1st"
BARE_WHOLE = "bare whole move"
# Each line measured against the bare line doing its I/O; the rest against the row read.
BASELINE = {"POST move": BARE_MOVE, "GET play": BARE_PAGE, "GET play@500": BARE_PAGE_500,
            "GET play, 1st": BARE_FIRST, "GET api, 1st": BARE_API_FIRST,
            "whole move": BARE_WHOLE}
SECRET = secrets.token_urlsafe(32)
NOW = datetime(2026, 6, 1, 12, 0)
GAME = "mimic"
PLAYERS = ["ann@example.org", "ben@example.org"]
READER = ["cat@example.org", "dan@example.org"]

BARE_APP = textwrap.dedent("""
    import hashlib
    import os
    from contextlib import nullcontext
    from datetime import datetime, timedelta, timezone

    import peewee
    from flask import Flask, abort, jsonify, redirect, request
    from playhouse.db_url import connect

    # Connected with pbem's own settings (core/db/connection.py `open_database`), so a write
    # costs the same on both: WAL with synchronous=NORMAL and foreign keys on SQLite,
    # psycopg 3 (with its pipeline) on PostgreSQL, utf8mb4 on MariaDB.
    URL = os.environ["BARE_DATABASE_URL"]
    db = connect(URL, **(
        {"pragmas": {"journal_mode": "wal", "foreign_keys": 1, "synchronous": "normal",
                     "busy_timeout": 10_000}, "timeout": 10} if URL.startswith("sqlite")
        else {"charset": "utf8mb4"} if URL.startswith("mysql")
        else {"prefer_psycopg3": True}))
    SQLITE = isinstance(db, peewee.SqliteDatabase)
    # Only PostgreSQL's reads are sent ahead (psycopg's pipeline; PyMySQL has none).
    AHEAD = isinstance(db, peewee.PostgresqlDatabase)

    class Match(peewee.Model):
        game = peewee.CharField()
        ply = peewee.IntegerField()
        status = peewee.CharField()

        class Meta:
            database = db
            table_name = "match"

    app = Flask(__name__)

    @app.before_request
    def _connect():
        db.connect(reuse_if_open=True)
        # pbem reads its database's generation first (core/db/generation.py); on PostgreSQL
        # its pooled connections hear of a new one instead (LISTEN), with no statement a
        # request (the bench serves pbem with a pool there).
        if not isinstance(db, peewee.PostgresqlDatabase):
            db.execute_sql("SELECT value FROM database_generation WHERE id = 1").fetchone()

    # BARE_KEEP=1: keep the connection between requests, as pbem does (SQLite: one per
    # thread; a +pool URL: closing hands it back to the pool, so it is kept either way).
    @app.teardown_request
    def _close(_exc):
        if os.environ.get("BARE_KEEP") != "1" and not db.is_closed():
            db.close()

    @app.route("/row/<int:match_id>", methods=["GET", "POST"])
    def row(match_id):
        match = Match.get_by_id(match_id)
        return jsonify({"id": match.id, "game": match.game, "ply": match.ply,
                        "status": match.status})

    # `match` is a reserved word on MariaDB: quoted as the database quotes names.
    MATCH = "match".join(db.quote)

    def sql(text, *params):
        return db.execute_sql(text.replace("?", db.param).replace("MATCH", MATCH), params)

    LOCK = "" if SQLITE else " FOR UPDATE"

    # On PostgreSQL (psycopg 3), statements sent without waiting for each answer, as pbem's
    # door sends them: a wait only where an answer is read.
    def pipeline():
        connection = db.connection()
        return connection.pipeline() if hasattr(connection, "pipeline") else nullcontext()

    # The same statements as pbem's posted move, written by hand and sent as they are (no
    # query building, no model rows): find the seat by its link's hash; then, in one
    # transaction, read the match and its seats (locked) and its players, write the match
    # row (guarded by its version), the move, its position, both seats' clocks, the
    # opponent's turn mail and the change log row; answer 303. On PostgreSQL it waits for
    # the server as often as pbem does: BEGIN with the reads, the writes with the guard's
    # answer and the turn mail's question, then the last writes with COMMIT. No rules, no
    # checks beyond the ply, no session, no page: what a posted move costs at the least.
    @app.route("/move/<token>", methods=["POST"])
    def move(token):
        digest = hashlib.sha256(token.encode()).hexdigest()
        found = sql("SELECT match_id, seat FROM seat WHERE token_hash = ? LIMIT 1",
                    digest).fetchone()
        if found is None:
            abort(404)
        match_id, number = found
        now = datetime.now(timezone.utc).replace(tzinfo=None, microsecond=0)
        with pipeline() as sent, db.atomic(*(["IMMEDIATE"] if SQLITE else [])):
            # The three reads sent before any is read, as pbem's door sends them.
            match_read = sql("SELECT ply, turn, state, version FROM MATCH WHERE id = ?" + LOCK,
                             match_id)
            seats_read = sql("SELECT id, seat, player_id FROM seat WHERE match_id = ? "
                             "ORDER BY seat" + LOCK, match_id)
            emails_read = sql("SELECT player.id, player.email FROM player JOIN seat "
                              "ON seat.player_id = player.id WHERE seat.match_id = ?", match_id)
            ply, turn, state, version = match_read.fetchone()
            seats = seats_read.fetchall()
            emails = dict(emails_read.fetchall())
            if ply != int(request.form["ply"]):
                abort(409)
            other = seats[(number + 1) % len(seats)]
            guard = sql("UPDATE MATCH SET ply = ?, turn = ?, to_move = ?, state = ?, "
                        "updated_at = ?, version = version + 1 WHERE id = ? AND version = ?",
                        ply + 1, turn + 1, f"[{other[1]}]", state, now, match_id, version)
            sql("INSERT INTO move (match_id, ply, turn, seat, text, events, created_at) "
                "VALUES (?, ?, ?, ?, ?, ?, ?)",
                match_id, ply + 1, turn, number, request.form["move"], "[]", now)
            sql("INSERT INTO position (match_id, ply, state) VALUES (?, ?, ?)",
                match_id, ply + 1, state)
            sql("UPDATE seat SET owes_since = NULL, deadline = NULL, remind_at = NULL, "
                "version = version + 1 WHERE id = ?", seats[number][0])
            sql("UPDATE seat SET owes_since = ?, deadline = ?, remind_at = ?, "
                "version = version + 1 WHERE id = ?",
                now, now + timedelta(days=3), now + timedelta(days=2), other[0])
            # Whether the turn mail waits (its seat looked lately, its player takes pushes):
            # pbem asks in one statement, whose answer brings the writes' before it.
            sql("SELECT (SELECT seen_at FROM presence WHERE match_id = ? AND seat = ?), "
                "(SELECT id FROM push_subscription WHERE player_id = ? LIMIT 1) "
                "FROM MATCH WHERE id = ?", match_id, other[1], other[2], match_id).fetchone()
            if guard.rowcount != 1:
                abort(409)
            sql("INSERT INTO outbox_message (match_id, seat, to_address, template, params, "
                "status, attempts, version, next_attempt_at, created_at, ply) "
                "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
                match_id, other[1], emails[other[2]], "your_turn", "{}", "pending", 0, 0,
                now, now, ply + 1)
            sql("INSERT INTO change_log (match_id, version, kind, seat, actor, channel, "
                "payload, at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                match_id, version + 1, "move", number, "player", "web", '{"ply": 1}', now)
        return redirect(f"/play/{token}", 303)

    # The same reads as pbem's play page read again, written by hand: the seat its link
    # opens with the match's seat rows, their match and players (every column, as pbem reads
    # them); then the reads that need only the seat: its notes and conditional tree, the
    # players' ratings, the match's tournament, the players' chat (its latest 31 lines, less
    # those of players the reader blocked). On PostgreSQL the last four go in one pipeline,
    # as pbem sends them ahead: two waits. Answered with a few of the values read, as JSON:
    # no record, no page, no session.
    @app.route("/page/<token>")
    def page(token):
        return jsonify(_page(token, first=False))

    # The first read of a match version (what the opponent meets after a move): the same
    # reads as the page read again, with the visit noted (in a transaction, as pbem notes
    # it) and what a new version derives from: its draw offers, its latest page of moves
    # and its open rulings. Answered as JSON.
    @app.route("/page/<token>/first")
    def first_page(token):
        return jsonify(_page(token, first=True))

    # The API's first read of a match version: the seat's table, then the version's draw
    # offers, its latest page of moves and its open rulings.
    @app.route("/api/<token>/first")
    def first_api(token):
        opened = _table(token)[0]
        _looked(opened, datetime.now(timezone.utc).replace(tzinfo=None))
        return jsonify(_version_reads(opened))

    # The seat looks at its match (pbem: core/presence, one upsert at most every 15 s).
    def _looked(opened, now):
        if isinstance(db, peewee.MySQLDatabase):
            upsert = ("INSERT INTO presence (match_id, seat, seen_at) VALUES (?, ?, ?) "
                      "ON DUPLICATE KEY UPDATE seen_at = GREATEST(seen_at, VALUES(seen_at))")
        else:
            upsert = ("INSERT INTO presence (match_id, seat, seen_at) VALUES (?, ?, ?) "
                      "ON CONFLICT (match_id, seat) DO UPDATE SET seen_at = excluded.seen_at "
                      "WHERE presence.seen_at < excluded.seen_at")
        with db.atomic():
            sql(upsert, opened["match_id"], opened["seat"], now)

    def _version_reads(opened):
        match_id, ply = opened["match_id"], opened["ply"]
        offers = sql("SELECT id, match_id, seat, ply, status, accepted_by, answered_by, how, "
                     "offered_at, answered_at FROM draw_offer WHERE match_id = ? "
                     "ORDER BY id DESC", match_id).fetchall()
        moves = sql("SELECT ply, seat, text, visible_to, events, note, created_at FROM move "
                    "WHERE match_id = ? AND ply >= ? AND ply <= ? ORDER BY ply",
                    match_id, max(1, ply - 9), ply).fetchall()
        rulings = sql("SELECT id, match_id, seat, cause, status, opened_at, ruling, reason, "
                      "ruled_by, ruled_at FROM adjudication WHERE match_id = ? AND status = ? "
                      "ORDER BY ruled_at", match_id, "ruled").fetchall()
        # What the seat may do about a takeback (pbem: core/takebacks, once a version): the
        # match's takeback rows, whether it is a tournament's, and, if it is not, its last move
        # (pbem stops at the first reason to refuse, as here).
        takebacks = sql("SELECT kind, seat, payload FROM change_log WHERE match_id = ? AND "
                        "kind IN (?, ?, ?) ORDER BY version DESC", match_id, "takeback-request",
                        "takeback-accept", "takeback-decline").fetchall()
        paired = sql("SELECT EXISTS (SELECT 1 FROM pairing WHERE match_id = ?)",
                     match_id).fetchone()[0]
        last = None if paired else sql(
            "SELECT id, seat, text FROM move WHERE match_id = ? AND ply = ? LIMIT 1",
            match_id, ply).fetchone()
        return {"offers": len(offers), "moves": [row[2] for row in moves],
                "rulings": len(rulings), "takebacks": len(takebacks), "paired": bool(paired),
                "last": last[2] if last else None}

    def _table(token):
        digest = hashlib.sha256(token.encode()).hexdigest()
        table_read = sql("SELECT seat.*, MATCH.*, player.* FROM seat "
                         "JOIN MATCH ON seat.match_id = MATCH.id "
                         "JOIN player ON seat.player_id = player.id "
                         "WHERE seat.match_id IN (SELECT match_id FROM seat WHERE token_hash = ?) "
                         "ORDER BY seat.seat", digest)
        names = [column[0] for column in table_read.description]
        table = table_read.fetchall()
        # The seat's own columns come first: the first of each name is the seat's.
        at = {name: names.index(name) for name in
              ("id", "match_id", "seat", "player_id", "token_hash", "game")}
        opened = next((row for row in table if row[at["token_hash"]] == digest), None)
        if opened is None:
            abort(404)
        # The match's own columns follow the seat's: its ply is the first after them.
        return ({"id": opened[at["id"]], "match_id": opened[at["match_id"]],
                 "seat": opened[at["seat"]], "player_id": opened[at["player_id"]],
                 "game": opened[at["game"]], "ply": opened[names.index("ply")]},
                table, at)

    def _page(token, first):
        opened, table, at = _table(token)
        match_id, player_id = opened["match_id"], opened["player_id"]
        players = sorted({row[at["player_id"]] for row in table})  # as pbem asks for them
        # On SQLite and MariaDB pbem notes the visit and reads the version before the page's
        # own reads; on PostgreSQL it sends those four ahead first.
        version = _first_reads(opened) if first and not AHEAD else None
        with pipeline():
            private_read = sql(
                "SELECT conditional_tree.ply, conditional_tree.tree, conditional_tree.version, "
                "seat_note.text, EXISTS (SELECT chat_mute.id FROM chat_mute "
                "WHERE chat_mute.match_id = seat.match_id "
                "AND chat_mute.player_id = seat.player_id) "
                "FROM seat LEFT JOIN conditional_tree ON conditional_tree.match_id = "
                "seat.match_id AND conditional_tree.seat = seat.seat "
                "LEFT JOIN seat_note ON seat_note.seat_id = seat.id WHERE seat.id = ? LIMIT 1",
                opened["id"])
            ratings_read = sql("SELECT * FROM rating WHERE game = ? AND player_id IN ("
                               + ", ".join("?" for _ in players) + ")",
                               opened["game"], *players)
            tournament_read = sql(
                "SELECT tournament.id, tournament.name, tournament_round.number FROM pairing "
                "JOIN tournament ON pairing.tournament_id = tournament.id "
                "JOIN tournament_round ON pairing.round_id = tournament_round.id "
                "WHERE pairing.match_id = ? LIMIT 1", match_id)
            chat_read = sql(
                "SELECT chat_message.id, chat_message.seat, chat_message.text, "
                "chat_message.created_at, chat_message.ply, chat_message.author_id, "
                "player.name, player.email FROM chat_message "
                "JOIN player ON chat_message.author_id = player.id "
                "WHERE chat_message.match_id = ? AND chat_message.room = ? "
                "AND chat_message.hidden_at IS NULL AND chat_message.author_id NOT IN "
                "(SELECT blocked_id FROM player_block WHERE player_id = ?) "
                "ORDER BY chat_message.id DESC LIMIT 31", match_id, "players", player_id)
        # Leaving the pipeline waited once for the four answers, as pbem's page does.
        private = private_read.fetchone()
        ratings = ratings_read.fetchall()
        tournament = tournament_read.fetchone()
        chat = chat_read.fetchall()
        if first and AHEAD:
            version = _first_reads(opened)
        return {"seat": opened["seat"], "seats": len(table),
                "notes": private is not None and private[3] is not None,
                "ratings": len(ratings), "tournament": tournament is not None,
                "chat": len(chat), **(version or {})}

    def _first_reads(opened):
        now = datetime.now(timezone.utc).replace(tzinfo=None)
        _looked(opened, now)
        with db.atomic():
            sql("UPDATE seat SET last_seen_at = ? WHERE id = ? AND "
                "(last_seen_at IS NULL OR last_seen_at <= ?)",
                now, opened["id"], now - timedelta(minutes=5))
        return _version_reads(opened)
""")


# The door hands every change to its settlers, as pbem's own start-ups install them.
settlers.install()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--requests", type=int, default=200)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        # Fresh matches for both apps' posted moves (pbem's and the bare app's own).
        fixtures = _build(url, 2 * args.rounds * args.requests,
                          firsts=args.rounds * args.requests)
        bare_file = Path(folder) / "bare_app.py"
        bare_file.write_text(BARE_APP)
        env = {**os.environ, "PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": SECRET,
               "PBEM_BASE_URL": "http://127.0.0.1", "PBEM_INSTANCE_PATH": folder,
               "PYTHONPATH": f"{folder}:{ROOT}"}
        scheme, rest = url.split(":", 1)
        # The baseline keeps its connection as pbem does; the old one opens one per request.
        bares = {BASE: (url, "1"),
                 OLD_BASE: (scheme.removesuffix("+pool") + ":" + rest, "0")}
        # Both apps' mails go to one loopback SMTP server of its own process.
        smtp_port = _free_port()
        sink = subprocess.Popen([sys.executable, "-m", "aiosmtpd", "-n", "-l",
                                 f"127.0.0.1:{smtp_port}", "-c", "aiosmtpd.handlers.Sink"])
        servers = {"pbem": _serve("pbem.web:create_app()", env)}
        for name, (bare_url, keep) in bares.items():
            servers[name] = _serve("bare_app:app", {**env, "BARE_DATABASE_URL": bare_url,
                                                    "BARE_KEEP": keep})
        try:
            ports = {name: port for name, (_, port) in servers.items()}
            workers = {name: _worker_pid(process.pid) for name, (process, _) in servers.items()}
            mail = Mail(load_settings({
                "database_url": url, "secret_key": SECRET, "base_url": "http://127.0.0.1",
                "instance_path": folder, "smtp_host": "127.0.0.1", "smtp_port": smtp_port,
                "mail_from": "pbem <pbem@example.org>"}, environ={}))
            _report(*_measure(fixtures, ports, workers, args.rounds, args.requests, mail),
                    scheme, args)
        finally:
            sink.terminate()
            sink.wait()
            for process, _ in servers.values():
                process.terminate()
                process.wait()


def _build(url: str, posts: int, firsts: int = 0) -> dict[str, object]:
    """A match at ply 10, one at ply 500, `posts` fresh matches for the POST endpoint, and
    `firsts` more at ply 10 for each first-read endpoint."""
    bind_database(url)
    database.connect(reuse_if_open=True)
    drop_everything()
    migrate()
    short = _played(10, seed=1)
    long = _played(500, seed=2)
    # Played alike (the same seed), but each a match of its own: nothing read of one is kept
    # for another.
    played = {kind: [_played(10, seed=1)[0] for _ in range(firsts)]
              for kind in ("play", "api", BARE_FIRST, BARE_API_FIRST)}
    fresh = [create_match(GAME, PLAYERS, {}, SECRET, NOW, seed=3) for _ in range(posts)]
    # A whole move's matches: its mover's link and the opponent's (whose first read follows).
    wholes = [create_match(GAME, PLAYERS, {}, SECRET, NOW, seed=3).tokens
              for _ in range(2 * firsts)]
    rules = get_rules(GAME)
    first_state = rules.new_game(2, {}, 3)
    seat = min(rules.to_move(first_state))
    # Every mail queued so far counts as sent: a whole move sends only its own.
    database.execute_sql("UPDATE outbox_message SET status = 'sent'")
    first_move = rules.format_move(first_state, rules.legal_moves(first_state, seat)[0])
    # A signed-in player with a few matches, as most have (the bench's two players have
    # thousands): their session, for `GET me`.
    for seed in range(3):
        create_match(GAME, READER, {}, SECRET, NOW, seed=seed)
    reader = Player.get(Player.email == READER[0])
    session = sessions.start(SECRET, SessionKind.PLAYER, utcnow(),
                             sessions.SessionPolicy.from_days(14, 90), player=reader)
    # And a personal API token of theirs, for `GET api me` (a client polling its matches).
    _, token = api_tokens.create(SECRET, reader, "bench", utcnow())
    if url.startswith("postgres"):
        # The statistics autovacuum keeps on a live server: without them, PostgreSQL plans a
        # player's reads for tables it still counts as nearly empty (a full scan of the seats
        # for `GET me`, `GET api me`), which no server that has run a while does.
        database.execute_sql("ANALYZE")
    database.close()
    return {"short": short, "long": long, "move": first_move, "firsts": played,
            "fresh": [created.tokens[seat] for created in fresh], "row": short[1],
            "wholes": [(tokens[seat], tokens[1 - seat]) for tokens in wholes],
            "session": session, "api_token": token}


def _played(plies: int, seed: int) -> tuple[str, int]:
    """A match with `plies` moves made (restarting when one ends); its first seat's token."""
    rules = get_rules(GAME)
    while True:
        created = create_match(GAME, PLAYERS, {}, SECRET, NOW, seed=seed,
                               time_control="365d")
        match_id = created.match.id
        state = rules.new_game(2, {}, seed)
        ply = 0
        while ply < plies and rules.outcome(state) is None:
            seat = min(rules.to_move(state))
            moves = rules.legal_moves(state, seat)
            move = moves[(ply * 7919 + seed) % len(moves)]
            text = rules.format_move(state, move)
            submit_move(match_id, seat, text, ply, NOW + timedelta(minutes=ply))
            state = rules.apply_move(state, seat, move).state
            ply += 1
        if ply == plies:
            return created.tokens[0], match_id
        seed += 1000


def _serve(target: str, env: dict[str, str]) -> tuple[subprocess.Popen[bytes], int]:
    port = _free_port()
    process = subprocess.Popen(
        [sys.executable, "-m", "gunicorn", "--workers", "1", "--bind", f"127.0.0.1:{port}",
         "--log-level", "warning", target], env=env)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
            return process, port
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"gunicorn did not start for {target}")


class Mail:
    """A whole move's last step, in this process (as a `pbem worker` would run it): pbem's
    outbox sending the move's turn mail, or the bare app's: the mail's row read by hand, a
    short plain mail written with the standard library, sent with `smtplib` and recorded as
    sent. Both to the same SMTP server; the CPU this process spends on it is counted."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.composer = Composer(settings)
        self.sender = SMTPSender(settings)
        self.cpu: dict[str, float] = {}

    def clear(self) -> None:
        """Every mail queued counts as sent (a posted move's line queues them unsent)."""
        database.connect(reuse_if_open=True)
        with database.atomic():
            database.execute_sql("UPDATE outbox_message SET status = 'sent' "
                                 "WHERE status = 'pending'")

    def pbem(self, line: str) -> None:
        started = time.process_time()
        database.connect(reuse_if_open=True)
        report = deliver_due(self.settings, self.sender, self.composer, utcnow())
        self.cpu[line] = self.cpu.get(line, 0.0) + time.process_time() - started
        if report.sent != 1:
            raise SystemExit(f"the outbox sent {report.sent} mails, not the move's one")

    def bare(self, line: str) -> None:
        started = time.process_time()
        database.connect(reuse_if_open=True)
        param = database.param
        row = database.execute_sql(
            "SELECT id, to_address, match_id FROM outbox_message WHERE status = 'pending' "
            "ORDER BY id LIMIT 1".replace("?", param)).fetchone()
        mail = EmailMessage()
        mail["From"] = self.settings.mail_from
        mail["To"] = row[1]
        mail["Subject"] = f"Your turn, match #{row[2]}"
        mail["Date"] = formatdate(localtime=False)
        mail["Message-ID"] = make_msgid(domain="example.org")
        mail.set_content(f"It is your turn in match #{row[2]}.\n")
        with smtplib.SMTP(self.settings.smtp_host, self.settings.smtp_port) as smtp:
            smtp.send_message(mail)
        with database.atomic():
            database.execute_sql(
                "UPDATE outbox_message SET status = 'sent', sent_at = ?, attempts = attempts + 1 "
                "WHERE id = ?".replace("?", param), (utcnow().replace(microsecond=0), row[0]))
        self.cpu[line] = self.cpu.get(line, 0.0) + time.process_time() - started


def _measure(fixtures: dict[str, object], ports: dict[str, int], workers: dict[str, int],
             rounds: int, count: int, mail: Mail
             ) -> tuple[dict[str, list[float]], dict[str, list[float]]]:
    """Each endpoint's rate per round, and its server CPU seconds per request per round
    (with a whole move's mail, the CPU this process spent sending it)."""
    pbem = ports["pbem"]
    short_token, _ = fixtures["short"]  # type: ignore[misc]
    long_token, _ = fixtures["long"]  # type: ignore[misc]
    tokens = fixtures["fresh"]
    fresh = iter(tokens[::2])  # type: ignore[index]
    bare_fresh = iter(tokens[1::2])  # type: ignore[index]
    firsts = {kind: iter(tokens)
              for kind, tokens in fixtures["firsts"].items()}  # type: ignore[attr-defined]
    wholes = iter(fixtures["wholes"][::2])  # type: ignore[index]
    bare_wholes = iter(fixtures["wholes"][1::2])  # type: ignore[index]
    form = urllib.parse.urlencode({"move": fixtures["move"], "ply": 0})
    signed_in = {"Cookie": f"pbem_player={fixtures['session']}"}
    bearer = {"Authorization": f"Bearer {fixtures['api_token']}"}

    def post_move() -> None:
        _request(pbem, "POST", f"/play/{next(fresh)}", form, expect=303)

    def bare_move() -> None:
        _request(ports[BASE], "POST", f"/move/{next(bare_fresh)}", form, expect=303)

    def whole_move() -> None:
        mover, opponent = next(wholes)
        _request(pbem, "POST", f"/play/{mover}", form, expect=303)
        _request(pbem, "GET", f"/play/{opponent}")
        mail.pbem("whole move")

    def bare_whole() -> None:
        mover, opponent = next(bare_wholes)
        _request(ports[BASE], "POST", f"/move/{mover}", form, expect=303)
        _request(ports[BASE], "GET", f"/page/{opponent}/first")
        mail.bare(BARE_WHOLE)

    endpoints: dict[str, Callable[[], None]] = {
        name: functools.partial(_request, port, "GET", f"/row/{fixtures['row']}")
        for name, port in ports.items() if name.startswith("bare")}
    server_of = {name: name for name in endpoints}
    endpoints[BARE_MOVE] = bare_move
    endpoints[BARE_PAGE] = functools.partial(_request, ports[BASE], "GET", f"/page/{short_token}")
    endpoints[BARE_PAGE_500] = functools.partial(_request, ports[BASE], "GET",
                                                 f"/page/{long_token}")
    endpoints[BARE_FIRST] = lambda: _request(ports[BASE], "GET",
                                             f"/page/{next(firsts[BARE_FIRST])}/first")
    endpoints[BARE_API_FIRST] = lambda: _request(ports[BASE], "GET",
                                                 f"/api/{next(firsts[BARE_API_FIRST])}/first")
    endpoints[BARE_WHOLE] = bare_whole
    for name in (BARE_MOVE, BARE_PAGE, BARE_PAGE_500, BARE_FIRST, BARE_API_FIRST, BARE_WHOLE):
        server_of[name] = BASE
    endpoints |= {
        "POST move": post_move,
        "GET play": lambda: _request(pbem, "GET", f"/play/{short_token}"),
        "GET play@500": lambda: _request(pbem, "GET", f"/play/{long_token}"),
        "GET api": lambda: _request(pbem, "GET", f"/api/play/{short_token}"),
        "GET home, in": lambda: _request(pbem, "GET", "/", headers=signed_in),
        "GET me": lambda: _request(pbem, "GET", "/me", headers=signed_in),
        "GET api me": lambda: _request(pbem, "GET", "/api/me", headers=bearer),
        "GET public": lambda: _request(pbem, "GET", f"/matches/{fixtures['row']}"),
        "GET poll": lambda: _request(pbem, "GET", f"/matches/{fixtures['row']}/ply"),
        "GET play, 1st": lambda: _request(pbem, "GET", f"/play/{next(firsts['play'])}"),
        "GET api, 1st": lambda: _request(pbem, "GET", f"/api/play/{next(firsts['api'])}"),
        "whole move": whole_move,
    }
    server_of |= {name: "pbem" for name in endpoints if not name.startswith("bare")}
    wholes_lines = ("whole move", BARE_WHOLE)
    for name, call in endpoints.items():  # warm up every code path once
        if name in wholes_lines:
            mail.clear()
        call()
    rates: dict[str, list[float]] = {name: [] for name in endpoints}
    cpu: dict[str, list[float]] = {name: [] for name in endpoints}
    for _ in range(rounds):
        for name, call in endpoints.items():
            if name in wholes_lines:
                mail.clear()
            worker = workers[server_of[name]]
            used = _cpu_seconds(worker)
            mailed = mail.cpu.get(name, 0.0)
            started = time.perf_counter()
            for _ in range(count - 1):
                call()
            rates[name].append((count - 1) / (time.perf_counter() - started))
            cpu[name].append((_cpu_seconds(worker) - used + mail.cpu.get(name, 0.0) - mailed)
                             / (count - 1))
    return rates, cpu


def _worker_pid(master: int) -> int:
    """gunicorn's (one) worker process: the master's child, where requests are served."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise SystemExit(f"gunicorn {master} started no worker")


def _cpu_seconds(pid: int) -> float:
    """User + system CPU time of a process so far (Linux /proc; clock ticks to seconds)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def _request(port: int, method: str, path: str, body: str | None = None,
             expect: int = 200, headers: dict[str, str] | None = None) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
    headers = dict(headers or {})
    if body:
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    connection.request(method, path, body=body, headers=headers)
    response = connection.getresponse()
    response.read()
    connection.close()
    if response.status != expect:
        raise SystemExit(f"{method} {path} answered {response.status}, not {expect}")


def _report(rates: dict[str, list[float]], cpu: dict[str, list[float]], backend: str,
            args: argparse.Namespace) -> None:
    print(f"{backend}: {args.rounds} interleaved rounds of {args.requests} sequential "
          "requests, one gunicorn sync worker per app")
    bases = [name for name in rates if name.startswith("bare")]
    for base in bases:
        what = base if base in BASELINE.values() else base + " row read"
        print(f"  {what + ':':38} {statistics.median(rates[base]):7.0f} req/s   "
              f"cpu {statistics.median(cpu[base]) * 1000:.2f} ms/req")

    def ratio(name: str, base: str) -> tuple[float, float, float, float]:
        """Median rate ratio with its spread over rounds, and the median CPU ratio."""
        ratios = [value / rate for value, rate in zip(rates[name], rates[base], strict=True)]
        cpu_ratios = [mine / theirs for mine, theirs in zip(cpu[name], cpu[base], strict=True)
                      if theirs > 0]
        return (statistics.median(ratios), min(ratios), max(ratios),
                statistics.median(cpu_ratios) if cpu_ratios else float("nan"))

    for name, values in rates.items():
        if name in bases:
            continue
        # A posted move is measured against the bare app's posted move (the same writes), a
        # play page read again against the bare page on the same match (the same reads), the
        # rest against the bare row read (an API read is one read; a first read of a page
        # also notes the visit and reads what a new match version derives from).
        base = BASELINE.get(name, BASE)
        median, low, high, cpu_ratio = ratio(name, base)
        others = [f"÷ {other} {ratio(name, other)[0]:.2f}"
                  for other in (BASE, OLD_BASE) if other != base]
        print(f"  {name:14} {statistics.median(values):7.0f} req/s   "
              f"÷ {base} {median:.2f} (spread {low:.2f} to {high:.2f})   "
              f"cpu {statistics.median(cpu[name]) * 1000:.2f} ms/req "
              f"({cpu_ratio:.1f}x {base})   [{'; '.join(others)}]")
    deep = [long / short for long, short in
            zip(rates["GET play"], rates["GET play@500"], strict=True)]
    print(f"  play page at ply 500 ÷ at ply 10 (time): {statistics.median(deep):.2f} "
          f"(spread {min(deep):.2f} to {max(deep):.2f})")


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


if __name__ == "__main__":
    main()
