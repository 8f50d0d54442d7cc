"""The Flask application: `create_app()` is what gunicorn serves (`pbem.web:create_app()`)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import flask.templating
from flask import Flask, request, url_for
from flask.sessions import SecureCookieSessionInterface
from itsdangerous import URLSafeTimedSerializer
from jinja2 import FileSystemLoader, StrictUndefined
from werkzeug.datastructures import ImmutableMultiDict

from pbem import templating
from pbem.clock import Clock, clock_for
from pbem.config import Settings, load_settings
from pbem.core import settlers
from pbem.core.db.connection import bind_database, release
from pbem.keys import Purpose, purpose_key
from pbem.latest import Latest
from pbem.paths import TEMPLATES
from pbem.web import admin, ratings
from pbem.web.accounts import api as api_players
from pbem.web.accounts import auth, me, signin
from pbem.web.flask_reach import SessionJSON
from pbem.web.follow import feeds, offline, presence, push
from pbem.web.games import rules as games
from pbem.web.leagues import api as leagues_api
from pbem.web.leagues import pages as leagues
from pbem.web.lobby import challenges, computer, seeks
from pbem.web.mail import preferences as mailprefs
from pbem.web.matches import analysis, api, fairplay, lifecycle, takebacks, talk, text_mode
from pbem.web.matches import public as matches
from pbem.web.matches import seat as play
from pbem.web.records import api as archive_api
from pbem.web.records import pages as archive
from pbem.web.site import (
    assets,
    csrf,
    errors,
    flashes,
    fragments,
    health,
    inputs,
    kept_answers,
    kept_pages,
    language,
    openapi,
    security,
    steps,
)
from pbem.web.site.errors import connect_or_unavailable
from pbem.web.tournaments import api as tournaments_api
from pbem.web.tournaments import pages as tournaments


def _remembering_url_for() -> Callable[..., str]:
    """`url_for` for one app's templates, remembering the addresses it built: an address
    depends only on where the app is mounted, the endpoint and its arguments, and building
    one costs as much as rendering a dozen values (a play page links seven). The latest few
    hundred are kept, the least used dropped first, so the menu's, the stylesheet's and the
    scripts' stay, and a page's own links are built once for its reads; a worker serving a
    thousand matches does not keep every match's. Only plain arguments are keyed: one that
    asks for more (`_external`, `_anchor`…) or is no string or number is built each time."""
    recent: Latest[str] = Latest(_RECENT_ADDRESSES)

    def remembered(endpoint: str, **values: Any) -> str:
        if any(name[0] == "_" or type(value) not in (str, int)
               for name, value in values.items()):
            return url_for(endpoint, **values)
        # In the order given (query arguments follow it), each with its type: True is 1 as a
        # key, but not in an address.
        key = (request.script_root, endpoint,
               *((name, type(value), value) for name, value in values.items()))
        found = recent.used(key)
        if found is None:
            found = recent.keep(key, url_for(endpoint, **values))
        return found
    return remembered


_RECENT_ADDRESSES = 512


class _Environment(templating.QuickLookups, flask.templating.Environment):
    """Flask's Jinja environment with pbem's quicker lookups (see `QuickLookups`)."""


class _Sessions(SecureCookieSessionInterface):
    """Flask's signed-cookie sessions, with the signer made once per key rather than on every
    request (making one runs a trial serialisation, a few percent of a small request's cost),
    and values tagged by their type at once (`SessionJSON`)."""

    serializer = SessionJSON()

    def __init__(self) -> None:
        self._made: tuple[tuple[Any, ...], URLSafeTimedSerializer | None] | None = None

    def get_signing_serializer(self, app: Flask) -> URLSafeTimedSerializer | None:
        key = (app.secret_key, tuple(app.config["SECRET_KEY_FALLBACKS"] or ()), self.salt)
        made = self._made
        if made is None or made[0] != key:
            made = self._made = (key, super().get_signing_serializer(app))
        return made[1]


class _QuickMultiDict(ImmutableMultiDict[str, Any]):
    """Werkzeug's read-only query, form and cookie dicts, answering `get` for a missing key
    without raising: werkzeug's `get` raises and catches a BadRequestKeyError (an HTTP error,
    costly to make), and most requests ask for a few cookies and arguments they lack (the
    session's, the language's, `?before=`)."""

    def get(self, key: Any, default: Any = None, type: Any = None) -> Any:  # type: ignore[override]
        if not dict.__contains__(self, key):
            return default
        return super().get(key, default, type)


class _Request(flask.Request):
    parameter_storage_class = _QuickMultiDict
    dict_storage_class = _QuickMultiDict


class _App(Flask):
    jinja_environment = _Environment
    request_class = _Request


def create_app(settings: Settings | None = None,
               extra_template_dirs: tuple[str, ...] = (), clock: Clock | None = None) -> Flask:
    """The app. `extra_template_dirs` and `clock` are for tests (test games, injected time);
    without a clock it reads the install's (`pbem.clock.clock_for`)."""
    settings = settings or load_settings()
    app = _App(__name__, template_folder=str(TEMPLATES))
    app.session_interface = _Sessions()
    inputs.init_converters(app)
    _configure(app, settings, extra_template_dirs, clock or clock_for(settings))
    _set_up_templates(app, settings, extra_template_dirs)
    bind_database(settings.database_url)
    settlers.install(settings.notify_away_seconds)  # what every change to a match sets going
    if settings.trusted_proxies > 0:
        from werkzeug.middleware.proxy_fix import ProxyFix

        app.wsgi_app = ProxyFix(app.wsgi_app, x_for=settings.trusted_proxies,  # type: ignore[method-assign]
                                x_proto=settings.trusted_proxies)
    inputs.init_app(app)
    _connect_each_request(app)
    _add_features(app, settings)
    return app


def _configure(app: Flask, settings: Settings, extra_template_dirs: tuple[str, ...],
               clock: Clock) -> None:
    app.config.update(
        PBEM_SETTINGS=settings,
        # Cookies and CSRF tokens get their own keys, so nothing signed for a browser can be
        # replayed as a seat link (or the other way round).
        SECRET_KEY=purpose_key(settings.secret_key, Purpose.SESSION),
        CSRF_SECRET_KEY=purpose_key(settings.secret_key, Purpose.CSRF),
        MAX_CONTENT_LENGTH=settings.max_request_bytes,
        SESSION_COOKIE_HTTPONLY=True,
        SESSION_COOKIE_SAMESITE="Lax",
        SESSION_COOKIE_SECURE=not settings.development,
        # An admin may keep a ruling form open a long time before submitting it.
        CSRF_TIME_LIMIT=24 * 3600,
        PBEM_EXTRA_TEMPLATE_DIRS=extra_template_dirs,
        PBEM_CLOCK=clock,
    )
    # JSON answers keep the order the code builds (records read top-down: match, seat, clocks),
    # and skip sorting every key of a record, most of `jsonify`'s cost on the API.
    app.json.sort_keys = False  # type: ignore[attr-defined]


def _set_up_templates(app: Flask, settings: Settings,
                      extra_template_dirs: tuple[str, ...]) -> None:
    if extra_template_dirs:
        app.jinja_loader = FileSystemLoader([str(TEMPLATES), *extra_template_dirs])
    # A missing variable is a bug to see in tests, never a silently blank board.
    app.jinja_env.undefined = StrictUndefined
    templating.register(app.jinja_env)
    app.jinja_env.globals["url_for"] = _remembering_url_for()
    app.jinja_env.globals["page_poll_seconds"] = settings.page_poll_seconds


def _connect_each_request(app: Flask) -> None:
    @steps.before_request(app)
    def _connect() -> None:
        # Static files need no database, so the stylesheet still loads on the 503 page.
        # /healthz reports a database outage itself, as JSON.
        if request.endpoint not in ("static", "health.healthz"):
            connect_or_unavailable()

    @steps.teardown_request(app)
    def _close(_exc: BaseException | None) -> None:
        # `pbem serve` runs each request on a thread of its own (PBEM_THREAD_PER_REQUEST).
        release(thread_ends=app.config.get("PBEM_THREAD_PER_REQUEST", False))


def _add_features(app: Flask, settings: Settings) -> None:
    for module in (games, play, text_mode, lifecycle, matches, archive, api, archive_api,
                   api_players, admin, auth, signin, me, challenges, computer, seeks, mailprefs,
                   health,
                   security, errors, openapi, ratings, talk, tournaments_api, tournaments,
                   leagues_api, leagues,
                   language, flashes, fragments, kept_pages,
                   kept_answers, assets, fairplay, analysis, presence, feeds, push,
                   offline, takebacks):
        module.init_app(app)
    # The development mailbox and the inbound mail endpoint exist only when configured; only
    # then are they imported, with the mail pipeline they drive (a web worker's memory is
    # kept to what it serves).
    if settings.development:
        from pbem.web.mail import devmail

        devmail.init_app(app)
    if settings.inbound_secret:
        from pbem.web.mail import inbound

        inbound.init_app(app)
    # A seat's private link is its credential (a cross-site page cannot know it), as is a mail
    # preferences or unsubscribe link (RFC 8058 forbids asking for more), and the API
    # takes JSON only, so CSRF tokens guard the admin's cookie-authenticated forms.
    # The players' API authenticates by Bearer token only, never by cookie (see auth.py), the
    # inbound endpoint with a bearer secret, and one-click unsubscribe (RFC 8058) by its link.
    # Text mode's forms act for a seat as its link does, like the play page's ("textmode").
    # The language switch picks the language the pages and mails speak (a signed-in player's
    # setting too): harmless if forged, and pressed on seat pages that carry no session, so
    # it needs no token either.
    csrf.init_app(app, exempt_blueprints=frozenset({
        "play", "textmode", "lifecycle", "api", "api_players", "api_tournaments", "api_leagues",
        "devmail", "inbound", "mailprefs", "seat_talk", "talk_api", "language", "fairplay",
        "api_analysis", "push_api", "push_seat", "takebacks"}))
