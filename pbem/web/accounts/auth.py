"""Who is signed in: players (emailed sign-in links, then a server-side session, or a Bearer
API token) and admins (password, then a server-side session).

Other blueprints use `current_player()`, `player_required` (alias `login_required`),
and `current_admin()` (the admin pages guard themselves: `pbem.web.admin.access`). The
sign-in pages themselves are in `signin.py`.

Each kind has its own cookie holding only a random session id (see `pbem.core.accounts.sessions`);
Flask's own signed cookie keeps nothing but flash messages and the CSRF token. Under `/api/`
only Bearer tokens count, so the CSRF-exempt API can never act on a browser's cookie; outside
it only the cookie counts, so a token never opens a page. A token's scopes (`read`, `play`,
`account`) limit the API views it opens: see `scope_required`.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

import peewee
from flask import Flask, current_app, g, redirect, request, url_for
from werkzeug.wrappers import Response

from pbem.core.accounts import api_tokens, sessions
from pbem.core.accounts.models import Admin, Player, Session, SessionKind
from pbem.core.db.connection import UNAVAILABLE
from pbem.errors import PbemError
from pbem.i18n import _
from pbem.web.site import steps
from pbem.web.site.clock import now

COOKIES: dict[str, str] = {SessionKind.PLAYER: "pbem_player", SessionKind.ADMIN: "pbem_admin"}


class SignInRequiredError(PbemError):
    status = 401


class ScopeError(PbemError):
    status = 403


def current_player() -> Player | None:
    """The signed-in player: under /api/ by Bearer token only, elsewhere by session cookie
    only (a token never opens an HTML page, so a leaked token cannot read the pages' seat
    links or act through their forms)."""
    if "pbem_player" not in g:
        player = None
        g.pbem_token_scopes = frozenset()
        if request.path.startswith("/api/"):
            bearer = _bearer()
            row = api_tokens.token_for(_secret(), bearer, now()) if bearer else None
            if row is not None:
                player = row.player
                g.pbem_token_scopes = api_tokens.scopes_of(row)
        else:
            session = current_session(SessionKind.PLAYER)
            player = session.player if session is not None else None
        g.pbem_player = player
    return g.pbem_player


def token_may(scope: str) -> bool:
    """Whether this API request's token has `scope`."""
    current_player()
    return scope in g.pbem_token_scopes


def scope_required(scope: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """An API view a signed-in token may use only with `scope` (403 problem+json without)."""
    def decorate(view: Callable[..., Any]) -> Callable[..., Any]:
        @player_required
        @wraps(view)
        def wrapped(*args: Any, **kwargs: Any) -> Any:
            if not token_may(scope):
                held = ", ".join(sorted(g.pbem_token_scopes)) or _("none")
                raise ScopeError(_("This token may not do that: it needs the %(scope)r scope "
                                   "and has %(held)s. Make a token with that scope on your "
                                   "settings page (or `pbem player token EMAIL --scopes ...`).",
                                   scope=str(scope), held=held))
            return view(*args, **kwargs)
        return wrapped
    return decorate


def signed_in_player() -> Player:
    """The signed-in player, for views behind `player_required`; a view reached without one
    answers 401 rather than failing on a missing player."""
    player = current_player()
    if player is None:
        raise SignInRequiredError(_("Sign in first: this page is for a signed-in player."))
    return player


def current_admin() -> Admin | None:
    session = current_session(SessionKind.ADMIN)
    return session.admin if session is not None else None


def current_session(kind: str) -> Session | None:
    cache = f"pbem_session_{kind}"
    if cache not in g:
        cookie = request.cookies.get(COOKIES[kind])
        # No cookie, no session (most pages are read signed out: a seat's link, spectators).
        setattr(g, cache, sessions.find(_secret(), cookie, kind, now(), _policy())
                if cookie else None)
    return getattr(g, cache)


def player_required(view: Callable[..., Any]) -> Callable[..., Any]:
    """Pages: send a stranger to the sign-in page and back. API: 401 problem+json."""
    @wraps(view)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        if current_player() is None:
            if request.path.startswith("/api/"):
                if request.headers.get("Authorization", "").lower().startswith("bearer "):
                    # One was sent: say what is wrong with it, not that none came.
                    raise SignInRequiredError(_(
                        "This API token is not valid: it was revoked or mistyped. Make a new "
                        "one on your settings page, or with `pbem player token EMAIL`."))
                raise SignInRequiredError(_(
                    "Send a personal API token: Authorization: Bearer <token> (make one on "
                    "your settings page, or with `pbem player token EMAIL`)."))
            return redirect(url_for("signin.form", next=request.full_path.rstrip("?")))
        return view(*args, **kwargs)
    return wrapped


login_required = player_required


def sign_in(kind: str, player: Player | None = None, admin: Admin | None = None) -> None:
    """Start a session for this browser (ending the one it had of that kind)."""
    sessions.end(_secret(), request.cookies.get(COOKIES[kind]))
    session_id = sessions.start(_secret(), kind, now(), _policy(), player=player, admin=admin,
                                user_agent=request.headers.get("User-Agent", ""))
    g.setdefault("pbem_cookies", {})[COOKIES[kind]] = session_id
    g.pop(f"pbem_session_{kind}", None)
    g.pop("pbem_player", None)


def sign_out(kind: str) -> None:
    sessions.end(_secret(), request.cookies.get(COOKIES[kind]))
    g.setdefault("pbem_cookies", {})[COOKIES[kind]] = None


def safe_next(target: str | None, default: str) -> str:
    """Only ever send a browser on to a page of this site."""
    if target and target.startswith("/") and not target.startswith("//") and "\\" not in target:
        return target
    return default


def quietly(find: Callable[[], Any]) -> Callable[[], Any]:
    """For templates (and what decides as they do): an error page drawn while the database is
    down, or a page read from a read-only standby where finding a session cannot note its
    use, shows no one signed in instead of failing again."""
    def safe() -> Any:
        try:
            return find()
        except (peewee.DatabaseError, *UNAVAILABLE):
            return None
    return safe


def _bearer() -> str | None:
    header = request.headers.get("Authorization", "")
    if not header:
        return None
    scheme, _space, token = header.partition(" ")
    return token.strip() if scheme.lower() == "bearer" else ""


def _secret() -> str:
    return current_app.config["PBEM_SETTINGS"].secret_key


def _policy() -> sessions.SessionPolicy:
    settings = current_app.config["PBEM_SETTINGS"]
    return sessions.SessionPolicy.from_days(settings.session_idle_days, settings.session_max_days)


def init_app(app: Flask) -> None:
    app.context_processor(lambda: {"current_player": quietly(current_player),
                                   "current_admin": quietly(current_admin)})

    @steps.after_request(app)
    def _set_cookies(response: Response) -> Response:
        settings = app.config["PBEM_SETTINGS"]
        for name, value in g.get("pbem_cookies", {}).items():
            if value is None:
                response.delete_cookie(name, httponly=True, samesite="Lax",
                                       secure=not settings.development)
            else:
                response.set_cookie(name, value, max_age=settings.session_max_days * 86_400,
                                    httponly=True, samesite="Lax",
                                    secure=not settings.development)
        if g.get("pbem_cookies") or request.cookies.get(COOKIES[SessionKind.PLAYER]):
            # A signed-in page is private to its reader.
            response.headers.setdefault("Cache-Control", "no-store")
        return response
