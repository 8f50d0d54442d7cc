"""Mail preferences without signing in: every mail carries a signed link to them, a one-click
unsubscribe link (RFC 8058), and the preferences page shows the player's secret calendar feed.

The link itself is the credential (like a seat link), so these forms need no cookie and no
CSRF token. GET never changes anything: the unsubscribe GET only asks to confirm, because mail
scanners open links; the one-click POST a mail client sends is idempotent.
"""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, make_response, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.core.accounts.models import Player
from pbem.core.mailout import links
from pbem.core.mailout.calendar import calendar_for
from pbem.core.mailout.preferences import (
    ChatMail,
    MailPreference,
    revoke_calendar,
    unsubscribe,
    update_preferences,
)
from pbem.core.tournaments.table import round_deadlines
from pbem.errors import PbemError
from pbem.i18n import _
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with
from pbem.web.site.security import private

bp = Blueprint("mailprefs", __name__)

@bp.get("/mail/preferences/<token>")
def show(token: str) -> Response:
    return _page(links.player_for_preferences(_secret(), token), token)


@bp.post("/mail/preferences/<token>")
def save(token: str) -> Response:
    player = links.player_for_preferences(_secret(), token)
    form = request.form
    try:
        update_preferences(player.id, form.get("mail_pref", ""), form.get("digest_hour"),
                           form.get("timezone"), now(), chat_mail=form.get("chat_mail"))
    except PbemError as error:
        return _page(player, token, error=str(error), status=error.status)
    return redirect_with(_("Mail preferences saved."), "mailprefs.show", token=token)


@bp.post("/mail/preferences/<token>/calendar")
def new_calendar_link(token: str) -> Response:
    player = links.player_for_preferences(_secret(), token)
    revoke_calendar(player.id)
    return redirect_with(_("Your calendar link was replaced: the old one no longer works."),
                         "mailprefs.show", token=token)


@bp.get("/mail/unsubscribe/<token>")
def confirm_unsubscribe(token: str) -> Response:
    player = links.player_for_unsubscribe(_secret(), token)
    return private(render_template("mailprefs/unsubscribe.html", player=player, done=False,
                                   preferences_url=_preferences_url(player)))


@bp.post("/mail/unsubscribe/<token>")
def one_click_unsubscribe(token: str) -> Response:
    """RFC 8058: the body is `List-Unsubscribe=One-Click`; no cookie, no CSRF token."""
    player = unsubscribe(links.player_for_unsubscribe(_secret(), token).id)
    return private(render_template("mailprefs/unsubscribe.html", player=player, done=True,
                                   preferences_url=_preferences_url(player)))


@bp.get("/calendar/<token>.ics")
def calendar(token: str) -> Response:
    player = links.player_for_calendar(_secret(), token)
    settings = current_app.config["PBEM_SETTINGS"]
    body = calendar_for(player, settings.base_url, settings.mail_domain, now(),
                        more=round_deadlines(player, now()))
    response = make_response(body)
    response.headers["Content-Type"] = "text/calendar; charset=utf-8"
    response.headers["Cache-Control"] = "private, max-age=300"
    return response


def _page(player: Player, token: str, error: str | None = None, status: int = 200) -> Response:
    settings = current_app.config["PBEM_SETTINGS"]
    calendar_url = links.calendar_url(settings.base_url, settings.secret_key, player)
    return private(make_response(render_template(
        "mailprefs/preferences.html", player=player, token=token, error=error,
        choices={key: str(label) for key, label in MailPreference.LABELS.items()},
        chat_choices={key: str(label) for key, label in ChatMail.LABELS.items()},
        calendar_url=calendar_url), status))


def _preferences_url(player: Player) -> str:
    return url_for("mailprefs.show", token=links.preferences_token(_secret(), player.id))


def _secret() -> str:
    return current_app.config["PBEM_SETTINGS"].secret_key


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
