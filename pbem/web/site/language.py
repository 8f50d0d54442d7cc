"""Which language a page speaks, and the switch at the foot of every page.

The language is, in order: the signed-in player's setting, the `pbem_lang` cookie the switch
sets, the browser's `Accept-Language`, English. It is decided the first time a page translates
a word (`pbem.i18n.decide_later`), so a request that shows no words never reads the player for
it. Flask-Babel reads the same choice (its `locale_selector`), and the templates translate
with `pbem.i18n`'s catalogs through Jinja's i18n extension (see `pbem.templating`).
"""

from __future__ import annotations

from flask import Blueprint, Flask, g, redirect, request
from flask_babel import Babel  # type: ignore[import-untyped]
from werkzeug.wrappers import Response

from pbem import i18n, templating
from pbem.core.accounts import players
from pbem.web.accounts.auth import current_player, safe_next
from pbem.web.site import steps

COOKIE = "pbem_lang"
bp = Blueprint("language", __name__)


def _decide() -> str:
    player = _player_quietly()
    if player is not None and player.language in i18n.LANGUAGES:
        return str(player.language)
    cookie = request.cookies.get(COOKIE)
    if cookie in i18n.LANGUAGES:
        return str(cookie)
    return i18n.best_match(list(request.accept_languages)) or i18n.DEFAULT


def _player_quietly() -> players.Player | None:
    # The API's players are read by token, pages' by cookie; a page drawn while the database
    # is down (the 503 page) still speaks, in the cookie's or the browser's language.
    try:
        return current_player()
    except Exception:
        return None


def _zone() -> str | None:
    player = _player_quietly()
    return player.timezone if player is not None else None


@bp.post("/language")
def switch() -> Response:
    """The switch's buttons: remember the choice (the player's setting when signed in, a
    cookie either way) and go back to the page it was pressed on."""
    code = request.form.get("language", "")
    target = safe_next(request.form.get("next"), "/")
    response = redirect(target, 303)
    if code not in i18n.LANGUAGES:
        return response
    player = _player_quietly()
    if player is not None:
        players.set_language(player, code)
    response.set_cookie(COOKIE, code, max_age=365 * 24 * 3600, samesite="Lax", httponly=True,
                        secure=request.is_secure)
    return response


def speak_now() -> None:
    """Let this request's words follow the reader's language from here on, if nothing did yet:
    an error raised by an earlier step (the database is down, a refused input) is shown in the
    reader's language too."""
    if "pbem_language_token" not in g:
        g.pbem_language_token = i18n.decide_later(_decide, _zone)


def init_app(app: Flask) -> None:
    Babel(app, locale_selector=i18n.current, timezone_selector=i18n.zone_name,
          default_translation_directories=str(i18n.CATALOGS))

    @steps.before_request(app)
    def _speak() -> None:
        speak_now()

    @steps.teardown_request(app)
    def _silence(_exc: BaseException | None) -> None:
        token = g.pop("pbem_language_token", None)
        if token is not None:
            i18n.restore(token)

    @steps.after_request(app)
    def _vary(response: Response) -> Response:
        # A page's words depend on the browser's languages and the switch's cookie.
        # (Looked for by iterating: werkzeug's lookup of a missing header raises inside.)
        if any(name.lower() == "vary" for name, _value in response.headers):
            response.vary.update(("Accept-Language", "Cookie"))
        else:
            response.headers["Vary"] = "Accept-Language, Cookie"
        return response

    # Flask-Babel installed its own gettext in the templates; use pbem.i18n's, which mails
    # and the rules share, so a word is translated one way everywhere.
    templating.install_i18n(app.jinja_env)
    app.register_blueprint(bp)
