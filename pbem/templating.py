"""Template helpers shared by the web pages and the mail composer: register them on any Jinja
environment with `register(env)`. The boards (SVG for pages, HTML tables for email) are drawn
by `pbem.boards`.
"""

from __future__ import annotations

import jinja2

from pbem import boards


def register(env: jinja2.Environment) -> jinja2.Environment:
    return boards.install(env)
