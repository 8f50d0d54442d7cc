"""Template helpers shared by the web pages and the mail composer: register them on any Jinja
environment with `register(env)`. The boards (SVG for pages, HTML tables for email) are drawn
by `pbem.boards`.
"""

from __future__ import annotations

from collections.abc import Iterable

import jinja2
from markupsafe import Markup, escape

from pbem import boards


def options(values: Iterable[str]) -> Markup:
    """`<option>`s of a list whose label is its value (the legal moves: up to hundreds of
    them, built here rather than by a template loop)."""
    return Markup("".join(f'<option value="{text}">{text}</option>'
                          for text in map(escape, values)))


def register(env: jinja2.Environment) -> jinja2.Environment:
    env.globals["options"] = options
    return boards.install(env)
