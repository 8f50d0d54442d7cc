"""Messages after a form, shown where the reader is.

A form on a long page (the play page's vacation, conditional moves, chat and notes) comes
back to its own section (`…#vacation`), and a message at the top of the page would be out of
sight there. `flash_in(section, …)` flashes a message for that section; the section's
template shows it with `section_flashes(section)`. The page's top shows every other message,
and a section's message too when the page did not show that section (it may have gone since:
a match that ended has no vacation form), so no message is ever lost.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, flash, get_flashed_messages, redirect, request, session, url_for
from werkzeug.wrappers import Response

from pbem.web.site import steps

_SEPARATOR = "@"
# The messages a session keeps waiting, the latest: a client that posts form after form
# without following the redirects (a script, a cookie jar) never reads them, and their cookie
# grew by a message a post until browsers refused it (4 KB), with the session's CSRF token.
WAITING = 8
# Where a request keeps the sections that showed their messages (the request's own, not the
# app context's, which tests and CLI code may keep across requests).
_SHOWN = "pbem.flash_sections_shown"


def flash_in(section: str, message: str, category: str = "ok") -> None:
    flash(message, f"{category}{_SEPARATOR}{section}")


def redirect_with(message: str, endpoint: str, /, *, category: str = "ok",
                  section: str | None = None, **values: Any) -> Response:
    """After a form: flash `message` and send the reader to `endpoint` (See Other, so a
    reload does not post again); with `section`, to that section of the page, where the
    message is shown."""
    if section is None:
        flash(message, category)
        return redirect(url_for(endpoint, **values), 303)
    flash_in(section, message, category)
    return redirect(url_for(endpoint, **values) + "#" + section, 303)


def section_flashes(section: str) -> list[tuple[str, str]]:
    """The messages for `section` (category, text), marked as shown."""
    shown: set[str] = request.environ.setdefault(_SHOWN, set())
    shown.add(section)
    return [(category, message) for category, message, where in _flashes()
            if where == section]


def page_flashes() -> list[tuple[str, str]]:
    """The messages no section showed (call it after the page's content is rendered)."""
    shown: set[str] = request.environ.get(_SHOWN, set())
    return [(category, message) for category, message, where in _flashes()
            if where not in shown]


def _flashes() -> list[tuple[str, str, str]]:
    """Each message as (category, text, section; "" for the page's top)."""
    found: list[tuple[str, str]] = get_flashed_messages(with_categories=True)  # type: ignore[assignment]
    return [(category.partition(_SEPARATOR)[0], message, category.partition(_SEPARATOR)[2])
            for category, message in found]


def init_app(app: Flask) -> None:
    app.jinja_env.globals.update(section_flashes=section_flashes, page_flashes=page_flashes)

    @steps.after_request(app)
    def _keep_the_latest(response: Response) -> Response:
        # Only a request that changed the session can have added one (reading the session
        # on every request would mark every answer as varying by its cookie).
        if session.modified:
            waiting = session.get("_flashes")
            if waiting and len(waiting) > WAITING:
                session["_flashes"] = waiting[-WAITING:]
        return response
