"""Instructions a request costs in process, counted with valgrind's callgrind.

    python bench/instructions.py [--requests 40] [--kinds "GET play, 1st" "POST move" ...]

Timing on a shared machine spreads by a quarter from run to run; counted instructions repeat
to about 0.1 %, so a change of 1 % shows. The requests go through Flask's test client (no
server, no sockets), on SQLite:

- `GET play, 1st`: a seat's play page at ply 10, each request on a match of its own: the
  first read of a position, what a player's page does after every move (nothing derived
  from that match version is kept yet);
- `POST move`: a move through the web form, each in a fresh match of its own;
- `GET api, 1st`: `GET /api/play/<token>` at ply 10, each on a match of its own;
- `GET api`: the same API read again on one match (what a polling client asks);
- `GET play`: the play page read again on one match.

The matches are built natively, as bench/web.py builds them, in one SQLite file. Then, for
each kind, a process runs under callgrind on a fresh copy of that file: it makes the app, a
few warm-up requests of every kind, and `--requests` requests of its kind; one more process
makes the warm-up requests alone. The difference, divided by the requests, is a request's
cost: importing, making the app and the warm-up are counted in both and cancel out.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import urllib.parse
from collections.abc import Callable
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
WARM_UP = 3
KINDS = ("GET play, 1st", "POST move", "GET api, 1st", "GET api", "GET play")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--child", help=argparse.SUPPRESS)  # a fixture file: run requests
    parser.add_argument("--kind", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _requests(Path(args.child), args.kind, args.requests)
        return
    with tempfile.TemporaryDirectory(prefix="pbem-instructions-") as folder:
        fixture = _build(Path(folder), args.requests)
        alone = _counted(fixture, None, 0)
        print(f"{'request':<16} instructions a request  ({args.requests} requests, "
              f"{WARM_UP} warm-up of each kind: {alone / 1e6:.0f} M)")
        for kind in args.kinds:
            total = _counted(fixture, kind, args.requests)
            print(f"{kind:<16} {(total - alone) / args.requests / 1e6:8.2f} M", flush=True)


def _build(folder: Path, requests: int) -> Path:
    """The matches, built natively in a SQLite file; their tokens beside it, as JSON."""
    sys.path.insert(0, str(ROOT / "bench"))
    # bench/web.py builds the matches its timed runs read.
    from web import SECRET
    from web import _build as build

    database = folder / "pbem.sqlite3"
    fixtures = build(f"sqlite:///{database}", posts=requests + WARM_UP,
                     firsts=requests + WARM_UP)
    (folder / "fixtures.json").write_text(json.dumps({**fixtures, "secret": SECRET}))
    return database


def _counted(fixture: Path, kind: str | None, requests: int) -> int:
    """The instructions a process under callgrind counted, making `requests` of `kind`
    after the warm-up, on a fresh copy of the fixture."""
    copy = fixture.with_name("run.sqlite3")
    shutil.copyfile(fixture, copy)
    out = fixture.with_name("callgrind.out")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               sys.executable, __file__, "--child", str(copy),
               "--kind", kind or "", "--requests", str(requests)]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": str(ROOT)}
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    if found is None:
        raise SystemExit(f"no total in {out}")
    return int(found.group(1))


def _requests(database: Path, kind: str, requests: int) -> None:
    """The child's work: the app on `database`, the warm-up, then the requests counted."""
    sys.path.insert(0, str(ROOT))
    from pbem.config import load_settings
    from pbem.web import create_app

    fixtures = json.loads(database.with_name("fixtures.json").read_text())
    settings = load_settings({
        "database_url": f"sqlite:///{database}", "secret_key": fixtures["secret"],
        "base_url": "http://127.0.0.1", "instance_path": str(database.parent / "instance"),
        "mail_from": "pbem <pbem@example.org>"}, environ={})
    client = create_app(settings).test_client()
    made = _endpoints(client, fixtures)
    for _ in range(WARM_UP):
        for make in made.values():
            make()
    for _ in range(requests):
        made[kind]()


def _endpoints(client: Any, fixtures: dict[str, Any]) -> dict[str, Callable[[], None]]:
    """Each kind's next request, checked for the answer it must get."""
    short_token = fixtures["short"][0]
    fresh = iter(fixtures["fresh"])
    firsts = {kind: iter(tokens) for kind, tokens in fixtures["firsts"].items()}
    form = urllib.parse.urlencode({"move": fixtures["move"], "ply": 0})

    def request(method: str, path: str, tokens: Any = None, expect: int = 200,
                **options: Any) -> Callable[[], None]:
        def make() -> None:
            where = path if tokens is None else path + next(tokens)
            answer = client.open(where, method=method, **options)
            if answer.status_code != expect:
                raise SystemExit(f"{method} {where}: {answer.status_code}, not {expect}")
        return make

    return {
        "GET play, 1st": request("GET", "/play/", firsts["play"]),
        "POST move": request("POST", "/play/", fresh, expect=303, data=form,
                             content_type="application/x-www-form-urlencoded"),
        "GET api, 1st": request("GET", "/api/play/", firsts["api"]),
        "GET api": request("GET", f"/api/play/{short_token}"),
        "GET play": request("GET", f"/play/{short_token}"),
    }

if __name__ == "__main__":
    main()
