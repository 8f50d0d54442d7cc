"""Outbox throughput: mails/s sent by the worker's outbox ÷ a raw `smtplib` loop.

    python bench/outbox.py [--database-url URL] [--mails 300] [--rounds 5] [--game mimic]

Both sides send to the same loopback aiosmtpd server (run in its own process), the raw side
over one connection, the outbox over one per batch of 100. The outbox side claims, renders
(each seat's view, text and HTML parts, links) and records `--mails` queued "your turn"
mails, each about its own match of a real game played by the fewest players it allows (so
nothing is shared between the mails of a batch that real traffic would not share). The raw
side sends the same mails, built beforehand as `email` package objects
(`Composer.to_email`), with `smtplib.SMTP.send_message` in a loop, which flattens each one as
most programs send mail (the outbox writes the same bytes itself: `pbem/mail/wire.py`).
It also times a stricter raw loop: the same mails already written as bytes, sent with
`sendmail`, which does nothing but the SMTP conversation. Rounds alternate the sides, so the
machine's load affects them alike; the ratios of each round are printed, then the medians and
spreads. Target: ≥ 0.5.

    python bench/outbox.py --sustained 60 [--inflow 300] [--workers 1] [--database-url URL]

measures the worker as it runs: mails are queued at a steady `--inflow` per second (by a
process of its own, as web processes would, inserting a tenth of a second's worth at a time)
while the worker's outbox job ticks every `outbox_interval_seconds` at the default settings,
for `--sustained` seconds.
It prints the mails sent per second over the run, the backlog left at the end, the CPU per
mail, and, measured in the same run over the same mails, the raw `smtplib` loop's rate beside
it. Target: one worker keeps up with 300 mails/s (the backlog at the end under one second's
inflow: the last tick drained the outbox).
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import random
import secrets
import smtplib
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any, NamedTuple

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from pbem.config import load_settings
from pbem.core import settlers
from pbem.core.db.connection import bind_database, database
from pbem.core.db.migrations import migrate
from pbem.core.mailout.models import MessageStatus, OutboxMessage
from pbem.core.matches.creation import create_match
from pbem.core.matches.models import Match, Seat
from pbem.core.matches.play import submit_move
from pbem.core.schema import drop_everything
from pbem.games import get_rules
from pbem.mail.compose import Composer
from pbem.mail.outbox import deliver_due
from pbem.mail.senders import SMTPSender
from pbem.mail.wire import Outgoing
from pbem.worker import Worker

SECRET = secrets.token_urlsafe(32)
NOW = datetime(2026, 6, 1, 12, 0)


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def build(url: str, game: str, matches: int) -> list[int]:
    bind_database(url)
    database.connect(reuse_if_open=True)
    drop_everything()
    migrate()
    rules = get_rules(game)
    chooser = random.Random(7)
    # The fewest players the game allows (Mimic Taking needs three).
    players = min(rules.player_counts)
    ids = []
    for number in range(matches):
        addresses = [f"{chr(ord('a') + seat)}{number}@example.org" for seat in range(players)]
        match = create_match(game, addresses, {}, SECRET, NOW, seed=number).match
        for _ in range(6):
            match = Match.get_by_id(match.id)
            state = rules.load(match.state)
            seat = min(rules.to_move(state))
            move = chooser.choice(list(rules.legal_moves(state, seat)))
            submit_move(match.id, seat, rules.format_move(state, move), match.ply, NOW)
        ids.append(match.id)
    OutboxMessage.delete().execute()
    return ids


def queue(match_ids: list[int], count: int, round_number: int) -> None:
    rows = []
    for index in range(count):
        match = Match.get_by_id(match_ids[index % len(match_ids)])
        seat = Seat.get(Seat.match == match, Seat.seat == match.to_move[0])
        rows.append({"match": match.id, "seat": seat.seat, "ply": match.ply,
                     "to_address": f"p{index}@example.org", "template": "your_turn",
                     "params": {"d": 1780574400, "ev": 1},
                     "status": MessageStatus.PENDING, "next_attempt_at": NOW,
                     "created_at": NOW})
    with database.atomic():
        OutboxMessage.insert_many(rows).execute()


class Timed(NamedTuple):
    """A side's mails a second, and this process's CPU a mail (ms, all its threads)."""

    rate: float
    cpu_ms: float


def timed(send: Callable[[], None], count: int) -> Timed:
    cpu, started = time.process_time(), time.perf_counter()
    send()
    return Timed(count / (time.perf_counter() - started),
                 1000 * (time.process_time() - cpu) / count)


def time_outbox(settings: object, composer: Composer, count: int) -> Timed:
    sender = SMTPSender(settings)  # type: ignore[arg-type]

    def send() -> None:
        sent = 0
        while sent < count:
            report = deliver_due(settings, sender, composer, NOW)  # type: ignore[arg-type]
            if report.sent == 0:
                raise SystemExit(f"the outbox stopped after {sent} of {count} mails: {report}")
            sent += report.sent
    return timed(send, count)


def time_raw(host: str, port: int, messages: list[object]) -> Timed:
    def send() -> None:
        with smtplib.SMTP(host, port) as smtp:
            for message in messages:
                smtp.send_message(message)  # type: ignore[arg-type]
    return timed(send, len(messages))


# The door hands every change to its settlers, as pbem's own start-ups install them.
settlers.install()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--database-url")
    parser.add_argument("--mails", type=int, default=300)
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--game", default="mimic")
    parser.add_argument("--sustained", type=float, default=0,
                        help="seconds of steady inflow with the worker's own ticks")
    parser.add_argument("--inflow", type=int, default=300, help="mails queued per second")
    parser.add_argument("--workers", type=int, default=1,
                        help="with --sustained: worker processes sharing the outbox")
    args = parser.parse_args()
    host, port = "127.0.0.1", free_port()
    # The server runs in its own process: in this one, it would wait for the GIL while the
    # outbox renders, and the figure would measure that contention instead.
    server = subprocess.Popen([sys.executable, "-m", "aiosmtpd", "-n", "-l", f"{host}:{port}",
                               "-c", "aiosmtpd.handlers.Sink"])
    try:
        wait_for(host, port)
        if args.sustained:
            sustained(args, host, port, server.pid)
        else:
            run(args, host, port)
    finally:
        # Whatever failed, the server must not outlive us (it would hold `… | tail` open).
        server.terminate()
        server.wait()


def run(args: argparse.Namespace, host: str, port: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        settings = load_settings({"database_url": url, "secret_key": SECRET,
                                  "smtp_host": host, "smtp_port": port,
                                  "outbox_batch_size": 100, "instance_path": folder},
                                 environ={})
        match_ids = build(url, args.game, args.mails)
        composer = Composer(settings)
        # The raw loop sends messages exactly like the outbox's, built beforehand.
        queue(match_ids, args.mails, -1)
        rows = list(OutboxMessage.select().order_by(OutboxMessage.id))
        sample = [composer.to_email(m, NOW) for m in rows]
        # A stricter baseline too: the same mails already written out as bytes, sent with
        # `sendmail`, so the raw side does nothing but the SMTP conversation.
        flat = [composer.outgoing(m, NOW) for m in rows]
        OutboxMessage.delete().execute()
        size = sum(len(m.as_bytes()) for m in sample) // len(sample)
        print(f"{args.mails} mails of about {size:,} bytes ({args.game}), "
              f"{settings.outbox_batch_size} per batch, database {url.split(':')[0]}")
        ratios, strict, cpu = [], [], []
        for number in range(args.rounds):
            raw = time_raw(host, port, sample)
            raw_bytes = time_raw_bytes(host, port, flat)
            queue(match_ids, args.mails, number)
            ours = time_outbox(settings, composer, args.mails)
            ratios.append(ours.rate / raw.rate)
            strict.append(ours.rate / raw_bytes.rate)
            cpu.append((ours.cpu_ms, raw.cpu_ms, raw_bytes.cpu_ms))
            print(f"round {number + 1}: outbox {ours.rate:7.1f} mails/s "
                  f"({ours.cpu_ms:.2f} ms CPU a mail), raw smtplib {raw.rate:7.1f} mails/s "
                  f"({raw.cpu_ms:.2f} ms), ratio {ours.rate / raw.rate:.2f}; raw bytes "
                  f"{raw_bytes.rate:7.1f} mails/s ({raw_bytes.cpu_ms:.2f} ms), ratio "
                  f"{ours.rate / raw_bytes.rate:.2f}")
        print(f"outbox ÷ raw smtplib: median {statistics.median(ratios):.2f} "
              f"(spread {min(ratios):.2f} to {max(ratios):.2f} over {args.rounds} rounds; "
              f"target ≥ 0.5)")
        print(f"outbox ÷ raw smtplib sending bytes: median {statistics.median(strict):.2f} "
              f"(spread {min(strict):.2f} to {max(strict):.2f})")
        ours_cpu, raw_cpu, bytes_cpu = (statistics.median(side) for side in zip(*cpu, strict=True))
        print(f"CPU a mail in this process (medians): outbox {ours_cpu:.2f} ms, raw smtplib "
              f"{raw_cpu:.2f} ms, raw bytes {bytes_cpu:.2f} ms")


def sustained(args: argparse.Namespace, host: str, port: int, server: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        # The defaults (batch, interval, slice) except where the mail goes.
        settings = load_settings({"database_url": url, "secret_key": SECRET,
                                  "smtp_host": host, "smtp_port": port,
                                  "instance_path": folder}, environ={})
        match_ids = build(url, args.game, args.mails)
        composer = Composer(settings)
        queue(match_ids, args.mails, -1)
        rows = list(OutboxMessage.select().order_by(OutboxMessage.id))
        sample = [composer.to_email(m, NOW) for m in rows]
        template = [{key: row[key] for key in ("match", "seat", "ply", "template", "params")}
                    for row in OutboxMessage.select().dicts()]
        OutboxMessage.delete().execute()
        raw = time_raw(host, port, sample).rate
        print(f"steady inflow of {args.inflow} mails/s for {args.sustained:.0f} s, worker at "
              f"the defaults (batch {settings.outbox_batch_size}, a tick every "
              f"{settings.outbox_interval_seconds} s, slice {settings.outbox_slice_seconds} s), "
              f"database {url.split(':')[0]}")
        # Mail is queued by other processes (the web's, as moves come in), not by the
        # worker: the inflow runs in a process of its own, so it shares the machine's cores
        # with the worker as web processes would, but not the worker's interpreter lock.
        spawn = multiprocessing.get_context("spawn")
        queued, done = spawn.Value("i", 0), spawn.Event()
        producer = spawn.Process(target=inflow, args=(url, template, args.inflow, queued, done))
        producer.start()
        ready = time.monotonic() + 30
        while queued.value == 0 and time.monotonic() < ready:
            time.sleep(0.01)  # the inflow process is importing; the run starts with its first rows
        worker = Worker(settings, sender=SMTPSender(settings), clock=lambda: NOW)
        # `--workers N`: N - 1 more workers, each a process of its own, ticking alike.
        others_sent, finish = spawn.Value("i", 0), spawn.Event()
        others = [spawn.Process(target=tick_until, args=(settings, finish, others_sent))
                  for _ in range(args.workers - 1)]
        for other in others:
            other.start()
        cpu, started = time.process_time(), time.monotonic()
        inflow_cpu, server_cpu = process_cpu(producer.pid), process_cpu(server)
        machine = machine_cpu()
        sent, busy, ends = 0, 0.0, started + args.sustained
        next_tick = started
        while time.monotonic() < ends:
            time.sleep(max(0.0, next_tick - time.monotonic()))
            next_tick = max(next_tick + settings.outbox_interval_seconds, time.monotonic())
            tick = time.monotonic()
            sent += worker.send_outbox().sent
            busy += time.monotonic() - tick
        finish.set()  # the others end with their tick under way (as the first did, past `ends`)
        for other in others:
            other.join()
        inflow_cpu = process_cpu(producer.pid) - inflow_cpu
        server_cpu = process_cpu(server) - server_cpu
        busy_cores, all_cores = (now - then for now, then in zip(machine_cpu(), machine,
                                                                 strict=True))
        done.set()
        producer.join()
        elapsed, cpu = time.monotonic() - started, time.process_time() - cpu
        mine, sent = sent, sent + others_sent.value
        backlog = queued.value - sent
        # The loop ends after a tick, and a tick drains until nothing is due (or its slice
        # runs out): a worker that keeps up ends with only what came in after its last claim.
        # (Up to a whole tick's inflow left over would also pass a worker that falls behind
        # by a tick's worth over the run.)
        one_second = args.inflow
        print(f"queued {queued.value}, sent {sent} in {elapsed:.1f} s: {sent / elapsed:.1f} "
              f"mails/s sustained (inflow {queued.value / elapsed:.1f}/s); backlog at the end "
              f"{backlog} ({'kept up' if backlog <= one_second else 'fell behind'}: the bar "
              f"is one second's inflow, {one_second})")
        which = "the worker" if args.workers == 1 else f"the first of {args.workers} workers"
        print(f"{which} was busy {busy / elapsed:.0%} of the run, sending {mine / busy:.1f} "
              f"mails/s while busy; raw smtplib in the same run {raw:.1f} mails/s (its "
              f"rate while busy is {mine / busy / raw:.2f} of it)")
        print(f"CPU a mail: {1000 * cpu / max(mine, 1):.2f} ms in {which}, "
              f"{1000 * server_cpu / max(sent, 1):.2f} ms in the SMTP server, "
              f"{1000 * inflow_cpu / max(queued.value, 1):.2f} ms in the inflow process; the "
              f"machine's {os.cpu_count()} cores were {busy_cores / all_cores:.0%} busy (all "
              f"processes, the database server's too)")


def tick_until(settings: Any, finish: Any, sent: Any) -> None:
    """Another worker (`--workers`): ticks as the first does until the first one is done."""
    bind_database(settings.database_url)
    worker = Worker(settings, sender=SMTPSender(settings), clock=lambda: NOW)
    next_tick = time.time()
    while not finish.wait(max(0.0, next_tick - time.time())):
        next_tick = max(next_tick + settings.outbox_interval_seconds, time.time())
        done = worker.send_outbox().sent
        with sent.get_lock():
            sent.value += done


def inflow(url: str, template: list[dict[str, object]], rate: int, queued: Any,
           done: Any) -> None:
    """Queue `rate` mails a second, a tenth of a second's worth at a time, until `done`."""
    bind_database(url)
    step, started, number = 0.1, time.monotonic(), 0
    with database.connection_context():
        while not done.is_set():
            due = max(int((time.monotonic() - started) * rate) - number, 0)
            batch = [{**template[(number + i) % len(template)],
                      "to_address": f"p{number + i}@example.org",
                      "status": MessageStatus.PENDING, "next_attempt_at": NOW,
                      "created_at": NOW} for i in range(due)]
            if batch:
                with database.atomic():
                    OutboxMessage.insert_many(batch).execute()
                number += len(batch)
                queued.value = number
            time.sleep(step)


def process_cpu(pid: int | None) -> float:
    """CPU seconds (user and system) used so far by process `pid`."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def machine_cpu() -> tuple[float, float]:
    """The whole machine's CPU time so far: (busy, all), in clock ticks, from /proc/stat."""
    ticks = [int(field) for field in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    idle = ticks[3] + ticks[4]  # idle and iowait
    return float(sum(ticks) - idle), float(sum(ticks))


def time_raw_bytes(host: str, port: int, messages: list[Outgoing]) -> Timed:
    def send() -> None:
        with smtplib.SMTP(host, port) as smtp:
            for mail in messages:
                smtp.sendmail(mail.sender, [mail.recipient], mail.data)
    return timed(send, len(messages))

def wait_for(host: str, port: int) -> None:
    for _ in range(100):
        try:
            socket.create_connection((host, port), timeout=1).close()
            return
        except OSError:
            time.sleep(0.1)
    raise SystemExit(f"the SMTP server did not start on {host}:{port}")


if __name__ == "__main__":
    main()
