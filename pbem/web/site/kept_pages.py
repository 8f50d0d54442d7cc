"""Whole pages kept for their inputs: a page read again with nothing of it changed is sent as
the bytes it was last time, without assembling it again.

The fragments (fragments.py) and the version memos keep a page's parts; what remained of a
play page read again (a reload, a second tab, a client polling the HTML) was Jinja putting
those parts together with the page's frame, and encoding the 50 KB: a third of its time.

A page is kept for its key, which holds everything its HTML follows from:
- the template, the language, the reader's time zone and the mount point (as a fragment's),
  and the address read (the language switch posts back to it);
- whether an admin is signed in (the menu links the console);
- the database's generation (core/db/generation.py), as the version memos' keys hold it: a
  database restored under the process never serves a page kept from the one before;
- the SHA-256 of the pickled inputs, as a fragment's key (values, types and order);
- `derived_from`, a value standing for the inputs passed as `derived`, which are made from
  the hashed inputs and the language but are too large to hash on each read (the play page's
  board, click data and version parts come from its record, each made once per match
  version and seat by a VersionMemo, whose version and seat the page passes: a second guard).
  The play page passes its record so too, and among the hashed inputs the record as
  `seat.record_key` gives it: its board, moves and legal moves (two thirds of its bytes) by
  their digest, made once per match version, seat, language and page of moves.

What a page reads of the request besides its inputs is fixed by when one is kept at all: a
page read (GET or HEAD) with no query, by a reader not signed in as a player (whose page
carries a sign-out form with a CSRF token new every second), with no message waiting (a page
shows and so clears them); and a page whose rendering showed a CSRF token or changed the
session is not kept (a read from the kept pages would skip that). tests/web/site/
test_kept_pages.py reads every kept template (the page, what it extends, imports and
includes, not its fragments, which have their own check) and refuses any other read of the
request.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping
from typing import Any

from flask import Flask, current_app, g, render_template, request, session
from flask.globals import request_ctx

from pbem import i18n
from pbem.core.db import generation
from pbem.latest import Kept
from pbem.web.accounts.auth import current_admin, current_player, quietly
from pbem.web.site.csrf import FIELD as CSRF_FIELD
from pbem.web.site.fragments import refuse_functions, value_key

# Pages kept per worker, and the largest kept (bytes): a play page is about 50 KB, the
# largest boards make it about 110 KB. A page is read again unchanged soon or not at all (a
# reload, a second tab): the few latest suffice, and a worker serving a thousand matches
# keeps 256 KiB of them at most (bench/memory.py).
KEPT = 8
LARGEST = 128 * 1024
BUDGET = 256 * 1024  # bytes, all kept pages together
# The templates kept pages are rendered from (the static check reads these).
KEPT_TEMPLATES = ("play/play.html",)
# What a kept template may read of the request beyond its inputs and the fragments' pure
# helpers, and why its page still follows from the key (the static check holds templates to
# this list).
REQUEST_READS = {
    "fragment": "a fragment's HTML follows from its inputs (fragments.py has its own check)",
    "current_player": "a page is kept only when no player is signed in",
    "csrf_token": "a page that shows one is not kept",
    "current_admin": "whether an admin is signed in is in the key (only that is read)",
    "page_flashes": "a page is kept only when no message waits",
    "section_flashes": "a page is kept only when no message waits",
    "config": "the app's settings, the same for every request",
    "page_poll_seconds": "a setting, the same for every request",
    "request": "only its address (REQUEST_ATTRIBUTES), which is in the key",
}
# The request's attributes a kept template may read: its address without a query (a page
# with a query is never kept), and the values routed from it.
REQUEST_ATTRIBUTES = frozenset({"path", "full_path", "view_args"})


class KeptPages(Kept[bytes]):
    """The pages rendered lately, the least used dropped first. Safe for threads, as
    `Latest` is: a page rendered twice at once is kept once, and both are equal."""

    def __init__(self, size: int = KEPT, budget: int = BUDGET) -> None:
        super().__init__(size, budget)

    def render(self, template: str, derived_from: Hashable, derived: Mapping[str, Any],
               **inputs: Any) -> bytes:
        """`template` rendered with `inputs` and `derived` as `render_template` renders it,
        in UTF-8: the bytes kept for the same key if any, else rendered (and kept when the
        request allows)."""
        if template not in KEPT_TEMPLATES:
            raise ValueError(f"{template!r} is not checked as a kept page (KEPT_TEMPLATES)")
        refuse_functions(f"kept page {template!r}", inputs)
        era = generation.current()
        if era is None or not _keepable():
            return render_template(template, **derived, **inputs).encode()
        # Asked as the templates ask (a database that cannot be read, or a standby that
        # cannot note a session's use, shows no one signed in).
        key = (template, era, derived_from, i18n.current(), i18n.zone_name(),
               request.script_root, request.path, quietly(current_admin)() is not None,
               value_key(inputs))
        # Rendering that left a mark on the request (a CSRF token shown, the session changed)
        # made a page for this request alone.
        return self.made(
            key, lambda: render_template(template, **derived, **inputs).encode(),
            lambda made: len(made) <= LARGEST and not session.modified and CSRF_FIELD not in g)


def _keepable() -> bool:
    """Whether this request's page follows from its key alone (see the module's text)."""
    return (request.method in ("GET", "HEAD") and not request.query_string
            and "_flashes" not in session and not request_ctx.flashes
            and not session.modified and quietly(current_player)() is None)


def page_keeper() -> KeptPages:
    """The app's kept pages."""
    pages: KeptPages = current_app.extensions["pbem_kept_pages"]
    return pages


def init_app(app: Flask) -> None:
    # Unlike the version memos (core/db/memo.py), kept pages need not be forgotten when the
    # database is bound again or restored: a page's key holds the database's generation, its
    # seat's secret address and its whole record (its largest parts by their digest). The
    # few kept under an older generation are pushed out by the next ones kept.
    app.extensions["pbem_kept_pages"] = KeptPages()
