"""A primary lost under load: nothing accepted is lost, no move is made twice, every mail goes.

    python bench/failover.py [--minutes 3] [--json] [--asynchronous] [--keep]

From the PostgreSQL binaries on this machine (`/usr/lib/postgresql/*/bin`) it starts a primary
and a streaming standby on loopback (`initdb`, `pg_basebackup -R`; synchronous, with
`synchronous_commit = on`, unless `--asynchronous`), two gunicorn web servers and two
`pbem worker` processes, all on one multi-host URL
(`postgresql+pool://…@127.0.0.1:55700,127.0.0.1:55701/pbem?target_session_attrs=read-write`),
and a local SMTP sink (aiosmtpd). Then it drives load for `--minutes`: players move over HTTP
(`POST /api/play/<token>`) and by mail (`POST /inbound/mime`), the computer answers in its own
matches, and every move's "your turn" mail goes out. Mid-load it SIGKILLs a web worker process,
SIGKILLs a `pbem worker`, and then shuts the primary down at once (`pg_ctl -m immediate`) and
promotes the standby. When the load stops and the outbox has drained, it checks the whole
history on the new primary:

- `accepted`: moves answered 2xx (over HTTP, or `"action": "moved"` for a mail);
- `lost`: accepted moves that are not in the database (at the ply they were made at);
- `duplicated_moves`: plies or change-log versions written twice;
- `illegal_matches`: matches whose moves, replayed from their seed, do not reach their state;
- `missing_mails`: mails queued that never reached the sink (or are still not sent);
- `duplicate_mails`: mails the sink received more than once (a SIGKILLed worker may send the
  one in flight again: at most one per kill);
- `outage_seconds`: the longest time without an accepted move;
- `errors_5xx`: answers of 500 and above, except a 503 with `Retry-After` ("try again");
  `unavailable_503` counts those, `connection_errors` the requests a killed web process
  dropped (the client, as a load balancer would, tries the other server).

It prints one line per phase, then the figures (`--json`: one JSON object). Run it as root
(PostgreSQL's servers then run as the `postgres` user) or as a user who may run `initdb`.
Ports: PostgreSQL 55700-55701, web 5710-5711, SMTP 5720.
"""

from __future__ import annotations

import argparse
import glob
import itertools
import json
import os
import random
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import requests
from aiosmtpd.controller import Controller

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

PRIMARY_PORT, STANDBY_PORT = 55700, 55701
WEB_PORTS = (5710, 5711)
SMTP_PORT = 5720
SECRET = secrets.token_urlsafe(32)
INBOUND_SECRET = "inbound-bench-secret"
REPLY = "play@pbem.test"
URL = (f"postgresql+pool://postgres@127.0.0.1:{PRIMARY_PORT},127.0.0.1:{STANDBY_PORT}/pbem"
       "?target_session_attrs=read-write")
HUMAN_MATCHES = 40
COMPUTER_MATCHES = 8
DRIVERS = 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--minutes", type=float, default=3.0)
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument("--asynchronous", action="store_true",
                        help="asynchronous streaming replication (no synchronous standby)")
    parser.add_argument("--lag", type=float, default=0.0,
                        help="seconds the standby stops receiving just before the primary is "
                             "lost (a slow network): the window asynchronous replication loses")
    parser.add_argument("--keep", action="store_true", help="keep the folder and its logs")
    args = parser.parse_args()
    result = run(args.minutes, synchronous=not args.asynchronous, keep=args.keep,
                 say=(lambda _text: None) if args.json else print, lag=args.lag)
    print(json.dumps(result, indent=None if args.json else 2))


def run(minutes: float, synchronous: bool = True, keep: bool = False,
        say: Any = print, lag: float = 0.0) -> dict[str, Any]:
    folder = Path(tempfile.mkdtemp(prefix="pbem-failover-"))
    folder.chmod(0o777)  # the postgres user writes its clusters here
    cluster = Cluster(folder, synchronous)
    sink = Sink()
    processes = Processes(folder)
    controller = Controller(sink, hostname="127.0.0.1", port=SMTP_PORT)
    try:
        say(f"PostgreSQL {cluster.version}: primary :{PRIMARY_PORT}, "
            f"{'synchronous' if synchronous else 'asynchronous'} standby :{STANDBY_PORT}")
        cluster.start()
        controller.start()
        processes.init()
        plan = make_matches()
        processes.start_web()
        processes.start_workers()
        say(f"{len(plan)} matches; load for {minutes} min")
        load = Load(plan)
        history = chaos(load, processes, cluster, minutes * 60, say, lag)
        say("load stopped; waiting for the outbox to drain")
        drained = wait_for_quiet(180)
        processes.stop()
        result = check(load, sink, drained)
        result.update(history, replication="synchronous" if synchronous else "asynchronous",
                      synchronous_commit="on", minutes=minutes, standby_lag_seconds=lag,
                      commit=_commit())
        return result
    finally:
        processes.stop()
        controller.stop()
        cluster.stop()
        if keep:
            say(f"kept {folder}")
        else:
            shutil.rmtree(folder, ignore_errors=True)


# --- PostgreSQL ------------------------------------------------------------------------------

class Cluster:
    """A primary and a streaming standby made with the machine's own binaries."""

    def __init__(self, folder: Path, synchronous: bool) -> None:
        found = sorted(glob.glob("/usr/lib/postgresql/*/bin/initdb"),
                       key=lambda path: int(path.split("/")[4]))
        if not found:
            raise SystemExit("no PostgreSQL binaries in /usr/lib/postgresql/*/bin")
        self.bin = Path(found[-1]).parent
        self.version = self.bin.parent.name
        self.primary, self.standby = folder / "primary", folder / "standby"
        self.folder = folder
        self.synchronous = synchronous

    def start(self) -> None:
        self._as_postgres("initdb", "-D", self.primary, "-U", "postgres", "-A", "trust",
                          "--no-sync")
        _append(self.primary / "postgresql.conf", {
            "port": PRIMARY_PORT, "listen_addresses": "'127.0.0.1'",
            "unix_socket_directories": f"'{self.folder}'", "wal_level": "replica",
            "max_wal_senders": 5, "hot_standby": "on", "synchronous_commit": "on",
            "max_connections": 200,
            "fsync": "on", "wal_keep_size": "'256MB'"})
        with (self.primary / "pg_hba.conf").open("a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 trust\n")
        self._pg_ctl(self.primary, "start")
        self._as_postgres(self.bin / "createdb", "-h", "127.0.0.1", "-p", PRIMARY_PORT,
                          "-U", "postgres", "pbem")
        self._as_postgres("pg_basebackup", "-h", "127.0.0.1", "-p", PRIMARY_PORT, "-U",
                          "postgres", "-D", self.standby, "-R", "-X", "stream",
                          "--no-sync")
        _append(self.standby / "postgresql.conf", {
            "port": STANDBY_PORT, "cluster_name": "'standby1'"})
        self._pg_ctl(self.standby, "start")
        if self.synchronous:
            # Only now: a commit on the primary waits for the standby from here on (the
            # standby, made from the primary before, does not carry the setting).
            self._psql("ALTER SYSTEM SET synchronous_standby_names = 'standby1'")
            self._psql("SELECT pg_reload_conf()")
            self._wait_for_sync()

    def kill_primary(self, lag: float = 0.0) -> None:
        """As a machine lost: no checkpoint, no goodbye to the standby. With `lag`, the
        primary's WAL sender is stopped that long first, as behind a slow network (stopping
        the standby's receiver would not do: the primary's WAL waits in the loopback socket's
        buffer and is read after)."""
        sender = 0
        if lag:
            sender = int(self._psql("SELECT pid FROM pg_stat_replication").strip() or 0)
            if sender:
                os.kill(sender, signal.SIGSTOP)
                time.sleep(lag)
        self._pg_ctl(self.primary, "stop", "-m", "immediate")

    def promote(self) -> None:
        self._pg_ctl(self.standby, "promote")

    def stop(self) -> None:
        for data in (self.primary, self.standby):
            if (data / "postmaster.pid").exists():
                self._pg_ctl(data, "stop", "-m", "immediate", check=False)

    def _wait_for_sync(self) -> None:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if self._psql("SELECT sync_state FROM pg_stat_replication").strip() == "sync":
                return
            time.sleep(0.2)
        raise SystemExit("the standby never became synchronous")

    def _psql(self, sql: str) -> str:
        return self._as_postgres("psql", "-h", "127.0.0.1", "-p", PRIMARY_PORT, "-U",
                                 "postgres", "-tAc", sql, capture=True)

    def _pg_ctl(self, data: Path, *command: Any, check: bool = True) -> None:
        self._as_postgres("pg_ctl", "-D", data, "-w", "-t", "60", "-l", f"{data}.log",
                          *command, check=check)

    def _as_postgres(self, program: Any, *arguments: Any, check: bool = True,
                     capture: bool = False) -> str:
        command = [str(self.bin / program) if not Path(str(program)).is_absolute()
                   else str(program), *map(str, arguments)]
        if os.geteuid() == 0:  # PostgreSQL refuses to run as root
            command = ["runuser", "-u", "postgres", "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, check=False,
                              cwd=self.folder)
        if check and done.returncode != 0:
            raise SystemExit(f"{' '.join(command)} failed: {done.stderr.strip()}")
        return done.stdout


def _append(conf: Path, settings: dict[str, Any]) -> None:
    with conf.open("a") as out:
        for name, value in settings.items():
            out.write(f"{name} = {value}\n")


# --- pbem's processes ------------------------------------------------------------------------

class Processes:
    """`pbem init`, two gunicorn servers (two workers each) and two `pbem worker`s."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.web: list[subprocess.Popen[bytes]] = []
        self.workers: list[subprocess.Popen[bytes]] = []
        self.env = {**os.environ, "PYTHONPATH": str(ROOT), "PBEM_DATABASE_URL": URL,
                    "PBEM_SECRET_KEY": SECRET, "PBEM_BASE_URL": "http://pbem.test",
                    "PBEM_MAIL_FROM": "pbem <pbem@pbem.test>", "PBEM_SMTP_HOST": "127.0.0.1",
                    "PBEM_SMTP_PORT": str(SMTP_PORT), "PBEM_REPLY_ADDRESS": REPLY,
                    "PBEM_INBOUND_SECRET": INBOUND_SECRET,
                    "PBEM_INSTANCE_PATH": str(folder / "instance"),
                    "PBEM_OUTBOX_INTERVAL_SECONDS": "1", "PBEM_OUTBOX_LEASE_SECONDS": "10",
                    "PBEM_COMPUTER_INTERVAL_SECONDS": "1", "PBEM_COMPUTER_LEASE_SECONDS": "10"}
        self.env.pop("PBEM_CONFIG", None)

    def init(self) -> None:
        done = subprocess.run([sys.executable, "-m", "pbem.cli", "init"], env=self.env,
                              capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise SystemExit(f"pbem init failed: {done.stderr.strip()}")

    def start_web(self) -> None:
        for port in WEB_PORTS:
            log = (self.folder / f"web-{port}.log").open("wb")
            self.web.append(subprocess.Popen(
                [sys.executable, "-m", "gunicorn", "--workers", "2", "--timeout", "60",
                 "--bind", f"127.0.0.1:{port}", "--no-control-socket",
                 "pbem.web:create_app()"],
                env=self.env, stdout=log, stderr=log))
        for port in WEB_PORTS:
            _wait_until(lambda port=port: _answers(port), 60, f"web server :{port}")

    def start_workers(self) -> None:
        for number in range(2):
            log = (self.folder / f"worker-{number}.log").open("wb")
            self.workers.append(subprocess.Popen(
                [sys.executable, "-m", "pbem.cli", "worker"], env=self.env, stdout=log,
                stderr=log))

    def kill_a_web_worker(self) -> int:
        """SIGKILL one of the first server's worker processes (its master starts another)."""
        children = _children(self.web[0].pid)
        os.kill(children[0], signal.SIGKILL)
        return children[0]

    def kill_a_worker(self) -> int:
        os.kill(self.workers[0].pid, signal.SIGKILL)
        self.workers[0].wait()
        return self.workers[0].pid

    def stop(self) -> None:
        for process in [*self.workers, *self.web]:
            if process.poll() is None:
                process.send_signal(signal.SIGTERM)
        for process in [*self.workers, *self.web]:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                process.kill()
        self.workers, self.web = [], []


def _children(pid: int) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if int(fields[1]) == pid:
                found.append(int(entry.name))
    return sorted(found)


def _answers(port: int) -> bool:
    try:
        return requests.get(f"http://127.0.0.1:{port}/games", timeout=5).status_code == 200
    except requests.RequestException:
        return False


def _wait_until(condition: Any, seconds: float, what: str) -> None:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            raise SystemExit(f"timed out waiting for {what}")
        time.sleep(0.2)


# --- the matches and the load ----------------------------------------------------------------

@dataclass
class Seat:
    match: int
    seat: int
    token: str
    email: str
    reply: str | None  # by mail when set, else over HTTP


@dataclass
class Planned:
    match: int
    seats: list[Seat]  # the people's seats (a computer match has one)


def make_matches() -> list[Planned]:
    from pbem.clock import utcnow
    from pbem.config import load_settings
    from pbem.core import settlers
    from pbem.core.db.connection import bind_database, database
    from pbem.core.matches.creation import create_match
    from pbem.core.matches.models import Seat as SeatRow
    from pbem.mail.addresses import reply_address

    settings = load_settings({"database_url": URL, "secret_key": SECRET,
                              "reply_address": REPLY, "base_url": "http://pbem.test"},
                             environ={})
    bind_database(URL)
    settlers.install()
    plan = []
    with database.connection_context():
        for number in range(HUMAN_MATCHES + COMPUTER_MATCHES):
            computer = number >= HUMAN_MATCHES
            emails = [f"p{number}a@pbem.test"] if computer else [
                f"p{number}a@pbem.test", f"p{number}b@pbem.test"]
            created = create_match("mimic", emails, {}, SECRET, utcnow(), time_control="30d",
                                   computers={1: 1} if computer else None)
            seats = []
            for seat, email in enumerate(emails):
                # Every other match's second seat moves by mail.
                by_mail = not computer and seat == 1 and number % 2 == 0
                row = SeatRow.get(SeatRow.match == created.match.id, SeatRow.seat == seat)
                seats.append(Seat(created.match.id, seat, created.tokens[seat], email,
                                  reply_address(settings, row) if by_mail else None))
            plan.append(Planned(created.match.id, seats))
    return plan


@dataclass
class Load:
    plan: list[Planned]
    accepted: list[dict[str, Any]] = field(default_factory=list)
    answers: Counter[str] = field(default_factory=Counter)
    stop: threading.Event = field(default_factory=threading.Event)
    lock: threading.Lock = field(default_factory=threading.Lock)
    errors: list[str] = field(default_factory=list)
    next_server: int = 0

    def note(self, kind: str) -> None:
        with self.lock:
            self.answers[kind] += 1

    def drive(self, matches: list[Planned], seed: int) -> None:
        chooser = random.Random(seed)
        finished: set[int] = set()
        while not self.stop.is_set() and len(finished) < len(matches):
            for planned in matches:
                if planned.match in finished or self.stop.is_set():
                    continue
                if not self._step(planned, chooser):
                    finished.add(planned.match)
                time.sleep(0.05)

    def _step(self, planned: Planned, chooser: random.Random) -> bool:
        """One move in this match if one of its people is to move; False once it is over."""
        for seat in planned.seats:
            state = self._request("GET", f"/api/play/{seat.token}")
            if state is None or state.status_code != 200:
                return True
            body = state.json()
            if body["status"] != "active":
                return False
            if not body["your_turn"]:
                continue
            move = chooser.choice(body["legal_moves"])
            self._move(seat, body["ply"], move)
            return True
        return True

    def _move(self, seat: Seat, ply: int, move: str) -> None:
        if seat.reply is None:
            answer = self._request("POST", f"/api/play/{seat.token}",
                                   json={"move": move, "ply": ply})
            done = answer is not None and answer.status_code == 200
        else:
            mail = (f"From: {seat.email}\r\nTo: {seat.reply}\r\nSubject: my move\r\n"
                    f"Message-ID: <{uuid.uuid4()}@player.test>\r\n\r\n{move}\r\n").encode()
            answer = self._request("POST", "/inbound/mime", data=mail, headers={
                "Authorization": f"Bearer {INBOUND_SECRET}",
                "Content-Type": "message/rfc822"})
            done = (answer is not None and answer.status_code == 200
                    and answer.json().get("action") == "moved")
        if done:
            with self.lock:
                self.accepted.append({"match": seat.match, "ply": ply + 1, "seat": seat.seat,
                                      "text": move, "at": time.monotonic(),
                                      "via": "http" if seat.reply is None else "mail"})

    def _request(self, method: str, path: str, **send: Any) -> requests.Response | None:
        """Over either server, as a load balancer would: a dropped connection (a killed web
        process) is tried once on the other."""
        for _attempt in range(2):
            with self.lock:
                self.next_server ^= 1
                port = WEB_PORTS[self.next_server]
            try:
                answer = requests.request(method, f"http://127.0.0.1:{port}{path}",
                                          timeout=30, **send)
            except requests.RequestException:
                self.note("connection_errors")
                continue
            if answer.status_code == 503 and answer.headers.get("Retry-After"):
                self.note("unavailable_503")
            elif answer.status_code >= 500:
                self.note("errors_5xx")
                with self.lock:
                    self.errors.append(f"{method} {path} {answer.status_code} "
                                       f"{answer.text[:200]}")
            return answer
        return None


def chaos(load: Load, processes: Processes, cluster: Cluster, seconds: float,
          say: Any, lag: float = 0.0) -> dict[str, Any]:
    shares = [load.plan[number::DRIVERS] for number in range(DRIVERS)]
    drivers = [threading.Thread(target=load.drive, args=(share, number), daemon=True)
               for number, share in enumerate(shares)]
    started = time.monotonic()
    for driver in drivers:
        driver.start()
    events: dict[str, float] = {}

    def at(fraction: float) -> None:
        time.sleep(max(0.0, started + seconds * fraction - time.monotonic()))

    at(0.2)
    say(f"SIGKILL web worker {processes.kill_a_web_worker()}")
    events["web_killed"] = time.monotonic() - started
    at(0.35)
    say(f"SIGKILL pbem worker {processes.kill_a_worker()}")
    events["worker_killed"] = time.monotonic() - started
    at(0.5)
    killed = time.monotonic()
    cluster.kill_primary(lag)
    cluster.promote()
    events["primary_killed"] = killed - started
    say(f"primary stopped (immediate) and standby promoted in {time.monotonic() - killed:.1f} s")
    at(1.0)
    load.stop.set()
    for driver in drivers:
        driver.join(timeout=60)
    return {"events_seconds": {name: round(value, 1) for name, value in events.items()}}


def wait_for_quiet(seconds: float) -> bool:
    """Until every queued mail is sent and no computer move is due (True), or `seconds`."""
    from pbem.core.db.connection import bind_database, database
    from pbem.core.mailout.models import MessageStatus, OutboxMessage
    from pbem.core.matches.models import ComputerJob

    bind_database(URL)
    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        try:
            with database.connection_context():
                unsent = OutboxMessage.select().where(
                    OutboxMessage.status != MessageStatus.SENT).count()
                jobs = ComputerJob.select().count()
        except Exception:  # the pool's connection to the old primary: try again
            database.close()
            time.sleep(1)
            continue
        if unsent == 0 and jobs == 0:
            return True
        time.sleep(1)
    return False


# --- the check -------------------------------------------------------------------------------

def check(load: Load, sink: Sink, drained: bool) -> dict[str, Any]:
    from pbem.core.db.connection import bind_database, database
    from pbem.core.mailout.models import MessageStatus, OutboxMessage
    from pbem.core.mailout.notify import message_key
    from pbem.core.matches.models import ChangeLog, Match, Move
    from pbem.games import get_rules

    bind_database(URL)
    with database.connection_context():
        moves = {(m.match_id, m.ply): m for m in Move.select()}
        lost = [a for a in load.accepted if (a["match"], a["ply"]) not in moves
                or moves[(a["match"], a["ply"])].text != a["text"]]
        per_ply = Counter((m.match_id, m.ply) for m in Move.select(Move.match, Move.ply))
        per_version = Counter((c.match_id, c.version)
                              for c in ChangeLog.select(ChangeLog.match, ChangeLog.version))
        duplicated = (sum(n - 1 for n in per_ply.values() if n > 1)
                      + sum(n - 1 for n in per_version.values() if n > 1))
        illegal = 0
        for match in Match.select():
            rules = get_rules(match.game)
            state = rules.new_game(2, match.options, match.seed)
            try:
                for move in sorted((m for (mid, _), m in moves.items() if mid == match.id),
                                   key=lambda m: m.ply):
                    state = rules.apply_move(state, move.seat,
                                             rules.parse_move(state, move.seat, move.text)).state
                illegal += rules.dump(state) != match.state
            except Exception:
                illegal += 1
        rows = list(OutboxMessage.select())
        keys = {row.id: message_key(row, row.match) for row in rows}
        unsent = sum(row.status != MessageStatus.SENT for row in rows)
        computer_moves = Move.select().join(Match).where(Match.has_computer == True,  # noqa: E712
                                                         Move.seat == 1).count()
    received = Counter(key.strip("<>").split("@")[0] for key in sink.ids)
    missing = unsent + sum(1 for row in rows if row.status == MessageStatus.SENT
                           and received[keys[row.id]] == 0)
    times = sorted(a["at"] for a in load.accepted)
    gaps = [later - earlier for earlier, later in itertools.pairwise(times)]
    return {"accepted": len(load.accepted), "lost": len(lost),
            "duplicated_moves": duplicated, "duplicate_mails": sum(
                n - 1 for n in received.values() if n > 1),
            "missing_mails": missing, "outage_seconds": round(max(gaps, default=0.0), 1),
            "errors_5xx": load.answers["errors_5xx"], "illegal_matches": illegal,
            "unavailable_503": load.answers["unavailable_503"],
            "connection_errors": load.answers["connection_errors"],
            "accepted_by_mail": sum(a["via"] == "mail" for a in load.accepted),
            "computer_moves": computer_moves, "mails_sent": len(received),
            "outbox_drained": drained, "lost_moves": lost[:20], "errors": load.errors[:10]}


class Sink:
    """The SMTP server every mail goes to: it keeps each mail's Message-ID."""

    def __init__(self) -> None:
        self.ids: list[str] = []
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        content = envelope.original_content or envelope.content
        for line in content.split(b"\r\n"):
            if line.lower().startswith(b"message-id:"):
                with self.lock:
                    self.ids.append(line.split(b":", 1)[1].strip().decode())
                break
        return "250 OK"


def _commit() -> str:
    done = subprocess.run(["git", "-C", str(ROOT), "rev-parse", "HEAD"], capture_output=True,
                          text=True, check=False)
    return done.stdout.strip()


if __name__ == "__main__":
    main()
