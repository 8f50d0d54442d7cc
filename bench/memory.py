"""Peak memory of one web worker next to a bare Flask + peewee app's, under gunicorn.

    python bench/memory.py [--database-url URL] [--rounds 3]

Each round serves pbem and the bare app of `bench/web.py` (one gunicorn sync worker each, as
the Procfile does), warms pbem's worker up on every kind of page (home, games, a game's rules,
the archive, a public match page now and at an earlier ply, its board image and records, a
seat's play page, a move posted, the API's match and seat reads) and the bare app on its one
endpoint, then reads each worker's peak resident memory (VmHWM in /proc) and prints the ratio.
The servers are restarted every round, alternating which starts first.
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
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        url = args.database_url or f"sqlite:///{folder}/bench.sqlite3"
        fixtures = _build(url, args.rounds + 1)
        (Path(folder) / "bare_app.py").write_text(BARE_APP)
        env = {**os.environ, "PBEM_DATABASE_URL": url, "PBEM_SECRET_KEY": SECRET,
               "PBEM_BASE_URL": "http://127.0.0.1", "PBEM_INSTANCE_PATH": folder,
               "BARE_DATABASE_URL": url, "PYTHONPATH": f"{folder}:{ROOT}"}
        fresh = iter(fixtures["fresh"])  # type: ignore[call-overload]
        pbem_peaks, bare_peaks = [], []
        for number in range(args.rounds):
            order = ["pbem", "bare"] if number % 2 == 0 else ["bare", "pbem"]
            for name in order:
                if name == "pbem":
                    pbem_peaks.append(_peak("pbem.web:create_app()", env,
                                            lambda port: _warm_pbem(port, fixtures,
                                                                    next(fresh))))
                else:
                    bare_peaks.append(_peak("bare_app:app", env, lambda port: _warm_bare(
                        port, fixtures["row"])))
        ratios = [mine / bare for mine, bare in zip(pbem_peaks, bare_peaks, strict=True)]
        print(f"{url.split(':', 1)[0]}: peak RSS of one gunicorn sync worker after a warm-up "
              f"of every page kind, {args.rounds} rounds")
        print(f"  bare app: {statistics.median(bare_peaks) / 1024:6.1f} MiB")
        print(f"  pbem:     {statistics.median(pbem_peaks) / 1024:6.1f} MiB   ÷ bare "
              f"{statistics.median(ratios):.2f} (spread {min(ratios):.2f} to {max(ratios):.2f})")


def _peak(target: str, env: dict[str, str], warm) -> int:  # type: ignore[no-untyped-def]
    process, port = _serve(target, env)
    try:
        warm(port)
        return _worker_peak_kib(process.pid)
    finally:
        process.terminate()
        process.wait()


def _warm_pbem(port: int, fixtures: dict[str, object], fresh_token: str) -> None:
    token, match_id = fixtures["short"]  # type: ignore[misc]
    long_token, long_id = fixtures["long"]  # type: ignore[misc]
    pages = ["/", "/games", "/games/mimic", "/matches", f"/matches/{long_id}",
             f"/matches/{long_id}?ply=250", f"/matches/{match_id}/board.svg",
             f"/matches/{match_id}/record.json", f"/matches/{match_id}/record.txt",
             f"/play/{token}", f"/play/{long_token}", f"/api/play/{token}",
             f"/api/matches/{match_id}"]
    for _ in range(3):
        for page in pages:
            _request(port, "GET", page)
    form = urllib.parse.urlencode({"move": fixtures["move"], "ply": 0})
    _request(port, "POST", f"/play/{fresh_token}", form, expect=303)


def _warm_bare(port: int, row: object) -> None:
    for _ in range(40):
        _request(port, "GET", f"/row/{row}")


def _worker_peak_kib(master: int) -> int:
    """VmHWM of the gunicorn master's (only) worker process."""
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline:
        children = Path(f"/proc/{master}/task/{master}/children").read_text().split()
        if children:
            status = Path(f"/proc/{children[0]}/status").read_text()
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    return int(line.split()[1])
        time.sleep(0.1)
    raise SystemExit("gunicorn has no worker process")


if __name__ == "__main__":
    main()
