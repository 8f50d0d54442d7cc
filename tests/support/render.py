"""Render game partials without a Flask app, the way the mail composer does."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import jinja2

from pbem.templating import register

TEMPLATES = Path(__file__).resolve().parents[2] / "templates"
SUPPORT_TEMPLATES = Path(__file__).resolve().parent / "templates"


def template_env() -> jinja2.Environment:
    return register(jinja2.Environment(
        loader=jinja2.FileSystemLoader([str(TEMPLATES), str(SUPPORT_TEMPLATES)]),
        autoescape=True,
        undefined=jinja2.StrictUndefined,
    ))


def render(name: str, **context: Any) -> str:
    return template_env().get_template(name).render(**context)


def rendered(message: Any) -> dict[str, Any]:
    """The template context an outbox row renders with (rows store no rendered copy)."""
    from pbem.core.mailout.contexts import RenderCache, context_for

    return context_for(message, RenderCache())
