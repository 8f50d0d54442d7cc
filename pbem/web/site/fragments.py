"""Page parts rendered once for their inputs: `{{ fragment("play/_head.html", title=…, …) }}`.

A fragment is a template rendered with nothing but the values passed to it, plus the helpers
in `PURE_GLOBALS` and `PURE_FILTERS`, whose answers follow from the language, the reader's time
zone and where the app is mounted. So its HTML is a function of those inputs and those three
settings, and the next page that passes equal inputs gets the same HTML back without rendering
it. A page read again (a reload, a polling client) repeats most of its parts: its header, its
clocks, the chat as last read. Rendering them was most of such a page's cost.

What makes it exact:
- inputs are keyed by their pickled bytes (by those bytes' SHA-256), which differ whenever
  the values, their types or their order differ (Markup is not str, 1 is not True); a
  function, which would pickle as its name, is refused;
- a fragment's template sees its inputs and the environment's globals, and the test over
  every fragment template (tests/web/site/test_fragments.py) refuses any global, filter, test
  or address not in `PURE_GLOBALS` / `PURE_FILTERS` (the builtin filters but `random`, the
  builtin tests, `url_for` of a named endpoint without `_external`): nothing else of the
  request reaches the HTML. A fragment that needs something of the request (a flash, a CSRF
  token) takes it as an input.
"""

from __future__ import annotations

import hashlib
import pickle
from typing import Any

from flask import Flask, current_app, request
from markupsafe import Markup

from pbem import i18n
from pbem.latest import Kept

# What a fragment may call besides its inputs: translations, number formatting, the
# addresses (keyed by the mount point), the lists' and boards' builders. Each answer depends
# only on its arguments, the language and the time zone, which the key holds.
PURE_GLOBALS = frozenset({
    "_", "gettext", "ngettext", "pgettext", "url_for", "options", "move_rows",
    "current_language", "languages", "format_number", "range", "loop", "true", "false",
    "none", "True", "False", "None", "dict", "cycler", "joiner", "namespace",
    # A game's text mode commands and their help: the game's and the language's alone.
    "text_mode_help",
})
# Jinja's built-in filters are pure; these are pbem's (reading the language and time zone).
PURE_FILTERS = frozenset({"utc", "day", "vacation_days", "timeout_words", "only",
                          "player_name", "points"})

# Rendered parts kept per worker, the largest kept (characters), and what all kept may weigh
# together (bytes): a header or a page of short chat messages is a few thousand.
KEPT = 256
LARGEST = 16_384
BUDGET = 256 * 1024


class Fragments(Kept[Markup]):
    """The fragments rendered lately, the least used dropped first. Safe for threads: a
    fragment rendered twice at once is kept once, and both are equal.

    Only a page read (GET) keeps what it renders: a refused form's page shows what its
    sender typed, which no other page shows again. A fragment larger than `LARGEST` is
    rendered every time, and all kept weigh at most `BUDGET` bytes whatever players write."""

    def __init__(self, size: int = KEPT, budget: int = BUDGET) -> None:
        super().__init__(size, budget)

    def __call__(self, name: str, **inputs: Any) -> Markup:
        refuse_functions(f"fragment {name!r}", inputs)
        key = (name, i18n.current(), i18n.zone_name(), request.script_root, value_key(inputs))
        return self.made(
            key, lambda: Markup(current_app.jinja_env.get_template(name).render(inputs)),
            lambda made: request.method in ("GET", "HEAD") and len(made) <= LARGEST)


def value_key(value: Any) -> bytes:
    """The SHA-256 of `value`'s pickled bytes: equal for equal values of equal types in the
    same order, so what is made from the value alone can be kept by it (fragments, kept pages
    and kept JSON answers)."""
    return hashlib.sha256(pickle.dumps(value, pickle.HIGHEST_PROTOCOL)).digest()


def refuse_functions(what: str, inputs: dict[str, Any]) -> None:
    """TypeError for a function among a template's inputs: it pickles as its name, so its
    answer would not be in a key made by `value_key`."""
    if any(callable(value) for value in inputs.values()):
        raise TypeError(f"{what} takes values, not functions: call it first")


def only(record: dict[str, Any], *names: str) -> dict[str, Any]:
    """`record|only("title", "ply")`: the named items of a record, in that order, to pass to a
    fragment (a record's large parts, its view and move list, would make a long key)."""
    return {name: record[name] for name in names}


def init_app(app: Flask) -> None:
    app.jinja_env.globals["fragment"] = Fragments()
    app.jinja_env.filters["only"] = only
