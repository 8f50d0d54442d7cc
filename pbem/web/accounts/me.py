"""The signed-in player's home (`/me`: matches, challenges, seeks, every seat link) and
settings (display name, time zone, the board's confirmation step, sessions, personal API
tokens)."""

from __future__ import annotations

from functools import cache
from zoneinfo import available_timezones

from flask import (
    Blueprint,
    Flask,
    current_app,
    flash,
    make_response,
    redirect,
    render_template,
    request,
    url_for,
)
from werkzeug.wrappers import Response

from pbem.core.accounts import api_tokens, players, sessions
from pbem.core.accounts.models import Player, SessionKind
from pbem.core.conversation.personal import blocked_players
from pbem.core.db.pipeline import read_ahead
from pbem.core.lobby import challenges, seeks
from pbem.core.mailout import accounts as account_mail
from pbem.core.mailout import links
from pbem.core.matches.seat_links import token_for
from pbem.core.records import home as home_page
from pbem.core.tournaments import table as tournament_table
from pbem.errors import PbemError
from pbem.i18n import N_, _
from pbem.web.accounts.auth import current_session, player_required, signed_in_player
from pbem.web.follow.feeds import feed_links, follow_ahead
from pbem.web.follow.push import push_context
from pbem.web.lobby.computer import form_context as computer_form_context
from pbem.web.matches.seat import SUBMIT_WITHOUT_CONFIRM
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with
from pbem.web.site.inputs import tick_box

bp = Blueprint("me", __name__, url_prefix="/me")

# Stored statuses (of matches and challenges) as the home page words them: the values stay
# English in the database and the API, and are translated where shown (`status_word`).
STATUS_WORDS: dict[str, str] = {
    "active": N_("active"), "finished": N_("finished"), "aborted": N_("aborted"),
    "pending": N_("pending"), "started": N_("started"), "declined": N_("declined"),
    "cancelled": N_("cancelled"), "expired": N_("expired"),
}
# The play page's check box label (pbem/web/matches/seat.py), shown here too.
_SHOWN_HERE = (N_("Submit moves without confirming"),)


def status_word(status: str) -> str:
    """A stored status in the reader's language ("pending", "ausstehend")."""
    return _(STATUS_WORDS[status]) if status in STATUS_WORDS else status


@bp.get("")
@player_required
def home() -> str:
    player = _player()
    secret = current_app.config["PBEM_SETTINGS"].secret_key
    # The page's six lists need only the player: on PostgreSQL it waits for them once
    # (each challenge or seek shown still reads its own invites or entries).
    with read_ahead(*home_page.my_matches_ahead(player),
                    *challenges.received_and_sent_ahead(player), seeks.seeks_of_ahead(player),
                    tournament_table.of_player_ahead(player), *follow_ahead(player.id)):
        matches = home_page.my_matches(player, now())
        for row in matches:
            row["link"] = url_for("play.show", token=token_for(secret, row["seat"]))
        return render_template(
            "me/home.html", player=player, matches=matches,
            mail_preferences=url_for("mailprefs.show",
                                     token=links.preferences_token(secret, player.id)),
            received=[challenges.describe(c, player) for c in challenges.received(player)],
            sent=[challenges.describe(c, player) for c in challenges.sent(player)],
            seeks=[seeks.describe(s, player) for s in seeks.seeks_of(player)],
            tournaments=tournament_table.of_player(player), feeds=feed_links(player.id),
            push=push_context(player),
            status_word=status_word, **computer_form_context())


@bp.get("/settings")
@player_required
def settings() -> Response:
    return _settings_page()


@bp.post("/settings")
@player_required
def save_settings() -> Response:
    player = _player()
    try:
        players.update_settings(
            player, request.form.get("name", ""), request.form.get("timezone", ""),
            submit_without_confirm=tick_box(request.form, "submit_without_confirm",
                                            SUBMIT_WITHOUT_CONFIRM), now=now())
        # Empty: the browser's language on pages, English in mail.
        players.set_language(player, request.form.get("language") or None)
        players.set_takebacks(player, request.form.get("takebacks") or player.takebacks)
    except PbemError as error:
        # Shown again as typed, so a refused time zone is corrected rather than retyped.
        return _settings_page(error=str(error), status=error.status,
                              typed={name: request.form.get(name, "")
                                     for name in ("name", "timezone", "language")})
    return redirect_with(_("Settings saved."), "me.settings")


@bp.post("/sessions/<int:session_id>/revoke")
@player_required
def revoke_session(session_id: int) -> Response:
    if sessions.revoke_player_session(_player(), session_id):
        flash(_("That session is signed out."), "ok")
    return redirect(url_for("me.settings"), 303)


@bp.post("/tokens")
@player_required
def create_token() -> Response:
    secret = current_app.config["PBEM_SETTINGS"].secret_key
    try:
        row, token = api_tokens.create(secret, _player(), request.form.get("name", ""), now(),
                                       scopes=request.form.getlist("scope"))
    except PbemError as error:
        return _settings_page(error=str(error), status=error.status)
    # Shown once, on this answer only (never stored, never in a cookie or flash message).
    return _settings_page(new_token=(row.name, token), status=201)


@bp.post("/tokens/<int:token_id>/revoke")
@player_required
def revoke_token(token_id: int) -> Response:
    api_tokens.revoke(_player(), token_id)
    return redirect_with(_("The token is revoked: it no longer works."), "me.settings")


@bp.post("/seats/<int:match_id>/<int:seat>/reissue")
@player_required
def reissue(match_id: int, seat: int) -> Response | str:
    """Replacing a link asks first: the old one stops working at once, in every mail that
    carries it."""
    settings = current_app.config["PBEM_SETTINGS"]
    if request.form.get("confirm") != "yes":
        account_mail.check_own_seat(match_id, seat, _player())
        return render_template("me/confirm_reissue.html", match_id=match_id, seat=seat)
    account_mail.reissue_seat_link(settings.secret_key, match_id, seat, now(), player=_player())
    return redirect_with(_("Your old link to match %(id)s no longer works; the new one is below "
                           "and on its way by email.", id=match_id), "me.home")


def _player() -> Player:
    return signed_in_player()


def _settings_page(error: str | None = None, status: int = 200,
                   new_token: tuple[str, str] | None = None,
                   typed: dict[str, str] | None = None) -> Response:
    player = _player()
    current = current_session(SessionKind.PLAYER)
    secret = current_app.config["PBEM_SETTINGS"].secret_key
    response = make_response(render_template(
        "me/settings.html", player=player, error=error, new_token=new_token,
        typed=typed or {"name": player.name or "", "timezone": player.timezone or "",
                        "language": player.language or ""},
        # The same signed page every mail links to: preferences and the calendar feed.
        mail_preferences=url_for("mailprefs.show",
                                 token=links.preferences_token(secret, player.id)),
        submit_label=_(SUBMIT_WITHOUT_CONFIRM),
        sessions=sessions.player_sessions(player),
        current_session_id=current.id if current is not None else None,
        tokens=api_tokens.tokens_of(player),
        blocked=blocked_players(player),
        timezones=_zones()), status)
    response.headers["Cache-Control"] = "no-store"
    return response


@cache
def _zones() -> list[str]:
    return sorted(zone for zone in available_timezones() if "/" in zone
                  and not zone.startswith(("Etc/", "SystemV/", "posix/", "right/")))


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
