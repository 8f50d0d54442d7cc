"""Peak memory of one web worker next to a bare Flask + peewee app's, under gunicorn.

    python bench/memory.py [--database-url URL] [--rounds 3] [--requests 10000]

Each round serves pbem and the bare app of `bench/web.py` (one gunicorn sync worker each, as
the Procfile does, the bare app keeping its connection as pbem does). pbem's worker gets
`--requests` mixed requests, round after round of every kind of page (home, games, a game's
rules, the archive, a public match page now and at an earlier ply, its board image and
records, a seat's play page, the API's match and seat reads) with a move posted in each; the
bare app as many requests to its one endpoint. Then each worker's peak resident memory
(VmHWM in /proc) is read and the ratio printed, with pbem's resident memory after the first
round of pages and at the end, so growth under load shows apart from the warm-up. The servers
are restarted every round, alternating which starts first.

With `--matches N` (default 1,000) the requests are spread over N matches at ply 10, as a live
server's are: request i reads match i mod N, each match in turn through each of its pages
(its seat's play page, the API's seat and match reads, its public page now and at an earlier
ply, its board image and records), so every kept value a worker holds (the version memos,
fragments, kept pages and answers) meets N keys, and a move is posted every 14 requests;
the bare app's requests go as many times to its page and row read, spread over the same
matches. pbem's resident memory is sampled every tenth of the requests, so whether it is
flat over the last half shows (`--matches 1`: every request on one match, as before).
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import urllib.parse
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from web import BARE_APP, ROOT, SECRET, _build, _request, _serve


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--database-url")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--requests", type=int, default=10_000)
    parser.add_argument("--matches", type=int, default=1_000)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        per_round = -(-args.requests // (len(PAGES) + 1))  # a move posted in each round
        fixtures = _build(url, args.rounds * per_round)
        if args.matches > 1:
            fixtures["many"] = _many(url, args.matches)
        (Path(folder) / "bare_app.py").write_text(BARE_APP)
        env = {**os.environ, "PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": SECRET,
               "PBEM_BASE_URL": "http://127.0.0.1", "PBEM_INSTANCE_PATH": folder,
               "BARE_DATABASE_URL": url, "BARE_KEEP": "1", "PYTHONPATH": f"{folder}:{ROOT}"}
        fresh = iter(fixtures["fresh"])  # type: ignore[call-overload]
        pbem_peaks, bare_peaks, warmed, ended = [], [], [], []
        for number in range(args.rounds):
            order = ["pbem", "bare"] if number % 2 == 0 else ["bare", "pbem"]
            for name in order:
                if name == "pbem":
                    peak, (after_warmup, at_end) = _peak(
                        "pbem.web:create_app()", env,
                        lambda port, worker: _load_pbem(port, worker, fixtures, fresh,
                                                        per_round) if args.matches <= 1
                        else _load_many(port, worker, fixtures, fresh, args.requests))
                    pbem_peaks.append(peak)
                    warmed.append(after_warmup)
                    ended.append(at_end)
                else:
                    peak, _ = _peak("bare_app:app", env, lambda port, worker: _load_bare(
                        port, fixtures, args.requests, args.matches))
                    bare_peaks.append(peak)
        ratios = [mine / bare for mine, bare in zip(pbem_peaks, bare_peaks, strict=True)]
        print(f"{url.split(':', 1)[0]}: peak RSS of one gunicorn sync worker after "
              f"{args.requests:,} mixed requests, {args.rounds} rounds")
        print(f"  bare app: {statistics.median(bare_peaks) / 1024:6.1f} MiB")
        print(f"  pbem:     {statistics.median(pbem_peaks) / 1024:6.1f} MiB   ÷ bare "
              f"{statistics.median(ratios):.2f} (spread {min(ratios):.2f} to {max(ratios):.2f})")
        if args.matches <= 1:
            print(f"  pbem's resident memory after one round of every page: "
                  f"{statistics.median(warmed) / 1024:.1f} MiB; after all requests: "
                  f"{statistics.median(ended) / 1024:.1f} MiB")
            return
        for number, samples in enumerate(ended):  # type: ignore[arg-type]
            half = samples[len(samples) // 2 - 1]
            print(f"  round {number + 1}, pbem's resident memory each tenth of the requests "
                  f"(MiB): {' '.join(f'{kib / 1024:.1f}' for kib in samples)}; "
                  f"at the end ÷ at half way {samples[-1] / half:.3f}")


PAGES = ["/", "/games", "/games/mimic", "/matches", "/matches/{long_id}",
         "/matches/{long_id}?ply=250", "/matches/{match_id}/board.svg",
         "/matches/{match_id}/record.json", "/matches/{match_id}/record.txt",
         "/play/{token}", "/play/{long_token}", "/api/play/{token}",
         "/api/matches/{match_id}"]


def _peak(target: str, env: dict[str, str], load) -> tuple[int, object]:  # type: ignore[no-untyped-def]
    process, port = _serve(target, env)
    try:
        worker = _worker(process.pid)
        seen = load(port, worker)
        return _status_kib(worker, "VmHWM"), seen
    finally:
        process.terminate()
        process.wait()


def _load_pbem(port: int, worker: int, fixtures: dict[str, object], fresh,  # type: ignore[no-untyped-def]
               rounds: int) -> tuple[int, int]:
    token, match_id = fixtures["short"]  # type: ignore[misc]
    long_token, long_id = fixtures["long"]  # type: ignore[misc]
    pages = [page.format(token=token, match_id=match_id, long_token=long_token,
                         long_id=long_id) for page in PAGES]
    form = urllib.parse.urlencode({"move": fixtures["move"], "ply": 0})
    after_warmup = 0
    for number in range(rounds):
        for page in pages:
            _request(port, "GET", page)
        _request(port, "POST", f"/play/{next(fresh)}", form, expect=303)
        if number == 0:
            after_warmup = _status_kib(worker, "VmRSS")
    return after_warmup, _status_kib(worker, "VmRSS")


def _load_bare(port: int, fixtures: dict[str, object], count: int, matches: int) -> None:
    many = fixtures.get("many") or [fixtures["short"]]
    for number in range(count):
        token, match_id = many[number % len(many)]  # type: ignore[index]
        if matches > 1 and number // len(many) % 2 == 0:
            _request(port, "GET", f"/page/{token}")
        else:
            _request(port, "GET", f"/row/{match_id}")


# A match's own pages, each read in turn over the matches.
MATCH_PAGES = ["/play/{token}", "/api/play/{token}", "/matches/{match_id}",
               "/matches/{match_id}?ply=5", "/matches/{match_id}/board.svg",
               "/matches/{match_id}/record.json", "/matches/{match_id}/record.txt",
               "/api/matches/{match_id}"]


def _many(url: str, matches: int) -> list[tuple[str, int]]:
    """`matches` matches at ply 10 (their first seat's link and id)."""
    from web import _played

    from pbem.core.db.connection import database
    database.connect(reuse_if_open=True)
    made = [_played(10, seed=1) for _ in range(matches)]
    database.close()
    return made


def _load_many(port: int, worker: int, fixtures: dict[str, object], fresh,  # type: ignore[no-untyped-def]
               count: int) -> tuple[int, list[int]]:
    many: list[tuple[str, int]] = fixtures["many"]  # type: ignore[assignment]
    form = urllib.parse.urlencode({"move": fixtures["move"], "ply": 0})
    samples = []
    for number in range(count):
        token, match_id = many[number % len(many)]
        if number % 14 == 13:
            _request(port, "POST", f"/play/{next(fresh)}", form, expect=303)
        else:
            page = MATCH_PAGES[number // len(many) % len(MATCH_PAGES)]
            _request(port, "GET", page.format(token=token, match_id=match_id))
        if (number + 1) % (count // 10) == 0:
            samples.append(_status_kib(worker, "VmRSS"))
    return samples[0], samples


def _worker(master: int) -> int:
    """The gunicorn master's (only) worker process."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            return int(children[0])
        time.sleep(0.1)
    raise SystemExit("gunicorn has no worker process")


def _status_kib(pid: int, field: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1])
    raise SystemExit(f"no {field} for process {pid}")


if __name__ == "__main__":
    main()
