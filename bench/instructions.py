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
- `GET play`: the play page read again on one match;
- `whole move`: a move end to end: the POST, the opponent's first read of the new version,
  and the outbox sending the opponent's turn mail over SMTP (to a loopback aiosmtpd sink in
  a process of its own, not counted);
- `bare …`: each one's baseline, bench/web.py's bare app doing the same I/O (`bare page,
  1st`, `bare api, 1st`, `bare move`, `bare page`, `bare whole move`, whose mail is written
  with the standard library and sent with `smtplib`); a kind's count is printed as the
  share of it its baseline costs (the ratio bench/web.py's rates would show if instructions
  were time), when both are counted in the run.

The matches are built natively, as bench/web.py builds them, in one SQLite file. Then, for
each kind, a process runs under callgrind on a fresh copy of that file: it makes both apps
(pbem's and bench/web.py's bare app, in process through their test clients), a few warm-up
requests of every kind counted in the run, and `--requests` requests of its kind; one more
process makes the warm-up requests alone. The difference, divided by the requests, is a request's
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
KINDS = ("GET play, 1st", "POST move", "GET api, 1st", "GET api", "GET play", "whole move",
         "bare page, 1st", "bare move", "bare api, 1st", "bare page", "bare whole move")
# Each kind's baseline in bench/web.py's bare app, doing the same I/O.
BASELINES = {"GET play, 1st": "bare page, 1st", "POST move": "bare move",
             "GET api, 1st": "bare api, 1st", "GET play": "bare page",
             "whole move": "bare whole move"}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--requests", type=int, default=40)
    parser.add_argument("--kinds", nargs="+", default=list(KINDS), choices=KINDS)
    parser.add_argument("--child", help=argparse.SUPPRESS)  # a fixture file: run requests
    parser.add_argument("--kind", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        _requests(Path(args.child), args.kind, args.requests, args.kinds)
        return
    with tempfile.TemporaryDirectory(prefix="pbem-instructions-") as folder:
        fixture = _build(Path(folder), args.requests)
        sink = subprocess.Popen([sys.executable, "-m", "aiosmtpd", "-n", "-l",
                                 f"127.0.0.1:{_smtp_port(fixture)}", "-c",
                                 "aiosmtpd.handlers.Sink"])
        try:
            alone = _counted(fixture, None, 0, args.kinds)
            print(f"{'request':<16} instructions a request  ({args.requests} requests, "
                  f"{WARM_UP} warm-up of each kind: {alone / 1e6:.0f} M)")
            counts: dict[str, float] = {}
            for kind in args.kinds:
                counts[kind] = (_counted(fixture, kind, args.requests, args.kinds) - alone
                                ) / args.requests
                base = BASELINES.get(kind)
                beside = (f"   {counts[base] / counts[kind]:.2f} of {base}'s"
                          if base in counts else "")
                print(f"{kind:<16} {counts[kind] / 1e6:8.2f} M{beside}", flush=True)
        finally:
            sink.terminate()
            sink.wait()


def _build(folder: Path, requests: int) -> Path:
    """The matches, built natively in a SQLite file; their tokens beside it, as JSON."""
    sys.path.insert(0, str(ROOT / "bench"))
    # bench/web.py builds the matches its timed runs read.
    from web import SECRET
    from web import _build as build

    database = folder / "pbem.sqlite3"
    fixtures = build(f"sqlite:///{database}", posts=2 * (requests + WARM_UP),
                     firsts=requests + WARM_UP)
    from web import BARE_APP, _free_port
    (folder / "bare_app.py").write_text(BARE_APP)
    (folder / "fixtures.json").write_text(json.dumps({**fixtures, "secret": SECRET,
                                                      "smtp_port": _free_port()}))
    return database


def _smtp_port(fixture: Path) -> int:
    return int(json.loads(fixture.with_name("fixtures.json").read_text())["smtp_port"])


def _counted(fixture: Path, kind: str | None, requests: int, kinds: list[str]) -> int:
    """The instructions a process under callgrind counted, making `requests` of `kind`
    after the warm-up, on a fresh copy of the fixture."""
    copy = fixture.with_name("run.sqlite3")
    shutil.copyfile(fixture, copy)
    out = fixture.with_name("callgrind.out")
    command = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
               sys.executable, __file__, "--child", str(copy),
               "--kind", kind or "", "--requests", str(requests), "--kinds", *kinds]
    env = {**os.environ, "PYTHONHASHSEED": "0", "PYTHONPATH": f"{fixture.parent}:{ROOT}",
           "BARE_DATABASE_URL": f"sqlite:///{copy}", "BARE_KEEP": "1"}
    subprocess.run(command, check=True, env=env, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    found = re.search(r"^(?:summary|totals): (\d+)", out.read_text(), re.MULTILINE)
    if found is None:
        raise SystemExit(f"no total in {out}")
    return int(found.group(1))


def _requests(database: Path, kind: str, requests: int, kinds: list[str]) -> None:
    """The child's work: the app on `database`, the warm-up, then the requests counted."""
    # The bare app first: its peewee database is peewee's own, as in its own process
    # (pbem registers its database classes for the same URL schemes).
    import bare_app  # type: ignore[import-not-found]
    sys.path.insert(0, str(ROOT))
    sys.path.insert(0, str(ROOT / "bench"))
    from web import Mail

    from pbem.config import load_settings
    from pbem.core import settlers
    from pbem.web import create_app

    fixtures = json.loads(database.with_name("fixtures.json").read_text())
    settings = load_settings({
        "database_url": f"sqlite:///{database}", "secret_key": fixtures["secret"],
        "base_url": "http://127.0.0.1", "instance_path": str(database.parent / "instance"),
        "smtp_host": "127.0.0.1", "smtp_port": fixtures["smtp_port"],
        "mail_from": "pbem <pbem@example.org>"}, environ={})
    settlers.install()
    client = create_app(settings).test_client()
    mail = Mail(settings)
    made = _endpoints(client, bare_app.app.test_client(), fixtures, mail)
    for _ in range(WARM_UP):
        for made_kind in kinds:  # the kinds counted in this run, each warmed alike
            if "whole" in made_kind:
                mail.clear()
            made[made_kind]()
    mail.clear()
    for _ in range(requests):
        made[kind]()


def _endpoints(client: Any, bare: Any, fixtures: dict[str, Any],
               mail: Any) -> dict[str, Callable[[], None]]:
    """Each kind's next request, checked for the answer it must get."""
    short_token = fixtures["short"][0]
    fresh = iter(fixtures["fresh"][::2])
    bare_fresh = iter(fixtures["fresh"][1::2])
    wholes = iter(fixtures["wholes"][::2])
    bare_wholes = iter(fixtures["wholes"][1::2])
    firsts = {kind: iter(tokens) for kind, tokens in fixtures["firsts"].items()}
    form = urllib.parse.urlencode({"move": fixtures["move"], "ply": 0})

    posted = {"data": form, "content_type": "application/x-www-form-urlencoded"}

    def request(method: str, path: str, tokens: Any = None, expect: int = 200,
                app: Any = client, tail: str = "", **options: Any) -> Callable[[], None]:
        def make() -> None:
            where = (path if tokens is None else path + next(tokens)) + tail
            answer = app.open(where, method=method, **options)
            if answer.status_code != expect:
                raise SystemExit(f"{method} {where}: {answer.status_code}, not {expect}")
        return make

    def whole(app: Any, post: str, read: str, tail: str, send: Any,
              pairs: Any) -> Callable[[], None]:
        def make() -> None:
            mover, opponent = next(pairs)
            request("POST", post + mover, expect=303, app=app, **posted)()
            request("GET", read + opponent + tail, app=app)()
            send()
        return make

    return {
        "GET play, 1st": request("GET", "/play/", firsts["play"]),
        "POST move": request("POST", "/play/", fresh, expect=303, **posted),
        "GET api, 1st": request("GET", "/api/play/", firsts["api"]),
        "GET api": request("GET", f"/api/play/{short_token}"),
        "GET play": request("GET", f"/play/{short_token}"),
        "whole move": whole(client, "/play/", "/play/", "", lambda: mail.pbem("whole"),
                            wholes),
        "bare page, 1st": request("GET", "/page/", firsts["bare page, 1st"], app=bare,
                                  tail="/first"),
        "bare move": request("POST", "/move/", bare_fresh, expect=303, app=bare, **posted),
        "bare api, 1st": request("GET", "/api/", firsts["bare api, 1st"], app=bare,
                                 tail="/first"),
        "bare page": request("GET", f"/page/{short_token}", app=bare),
        "bare whole move": whole(bare, "/move/", "/page/", "/first",
                                 lambda: mail.bare("bare whole"), bare_wholes),
    }

if __name__ == "__main__":
    main()
