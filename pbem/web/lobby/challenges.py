"""Challenges on the web: send one, see it, accept or decline (signed in, or by the emailed
invitation link, which signs the invitee in), cancel it, ask for a rematch, and "never email
me again". GET pages only show; every action is a CSRF-protected POST."""

from __future__ import annotations

import re
from datetime import timedelta
from typing import Any

from flask import Blueprint, Flask, current_app, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.core.accounts.models import SessionKind
from pbem.core.lobby import challenges
from pbem.core.lobby.challenges import ChallengeRequest
from pbem.core.lobby.models import Challenge, Invite
from pbem.core.mailout import accounts as account_mail
from pbem.core.matches.deadlines import TimeoutPolicy
from pbem.errors import PbemError
from pbem.games import REGISTRY
from pbem.games.base import RulesError
from pbem.i18n import _
from pbem.web.accounts.auth import current_player, player_required, sign_in, signed_in_player
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with

bp = Blueprint("challenges", __name__)
REPEAT_SIGN_IN = timedelta(minutes=10)


@bp.get("/challenges/new")
@player_required
def new() -> str:
    return _form_page({}, None)[0]


@bp.post("/challenges")
@player_required
def create() -> Response | tuple[str, int]:
    form = request.form
    try:
        request_ = ChallengeRequest(
            game=form.get("game", ""),
            opponents=[a for a in re.split(r"[\s,;]+", form.get("opponents", "")) if a],
            options=options_from_form(form, form.get("game", "")),
            clock=(form.get("clock") or "").strip() or _settings().default_time_control,
            on_timeout=form.get("on_timeout") or _settings().default_on_timeout,
            seat_order=form.get("seat_order") or "random",
            rated=form.get("rated") == "on", computers=form.get("computers", ""))
        challenge = challenges.create_challenge(_settings(), _player(), request_, now())
    except (PbemError, RulesError) as error:
        return _form_page(form, str(error),
                          422 if isinstance(error, RulesError) else error.status)
    return redirect_with(_("Challenge sent: your opponents have been emailed."), "challenges.show",
                         challenge_id=challenge.id)


@bp.get("/challenges/<int:challenge_id>")
@player_required
def show(challenge_id: int) -> str:
    player = _player()
    challenge = challenges.visible_challenge(challenge_id, player)
    invite = Invite.get_or_none(Invite.challenge == challenge, Invite.player == player)
    return render_template("challenges/show.html", c=challenges.describe(challenge, player),
                           invite=invite, mine=challenge.challenger_id == player.id,
                           expires_at=challenge.expires_at)


@bp.post("/challenges/<int:challenge_id>/accept")
@player_required
def accept(challenge_id: int) -> Response:
    invite = challenges.invite_of(challenge_id, _player())
    return _after(challenges.accept(_settings(), invite.id, now()).challenge, "accept")


@bp.post("/challenges/<int:challenge_id>/decline")
@player_required
def decline(challenge_id: int) -> Response:
    invite = challenges.invite_of(challenge_id, _player())
    return _after(challenges.decline(invite.id, now()).challenge, "decline")


@bp.post("/challenges/<int:challenge_id>/cancel")
@player_required
def cancel(challenge_id: int) -> Response:
    challenges.cancel(challenge_id, _player(), now())
    return redirect_with(_("Challenge cancelled."), "me.home")


@bp.post("/matches/<int:match_id>/rematch")
@player_required
def rematch(match_id: int) -> Response:
    challenge = challenges.rematch(_settings(), match_id, _player(), now())
    return redirect_with(_("Rematch offered: your opponents have been emailed."), "challenges.show",
                         challenge_id=challenge.id)


@bp.get("/invites/<token>")
def invitation(token: str) -> str:
    invite = challenges.invite_for_token(token)
    challenge = Challenge.get_by_id(invite.challenge_id)
    return render_template("challenges/invite.html", token=token, invite=invite,
                           c=challenges.describe(challenge), expires_at=challenge.expires_at)


@bp.post("/invites/<token>/accept")
def accept_by_link(token: str) -> Response:
    invite = challenges.invite_for_token(token)
    answer = challenges.accept(_settings(), invite.id, now())
    answered_at = Invite.get_by_id(invite.id).answered_at
    # The accept signs the invitee in; a repeat (a double click) does too, but only shortly
    # after, so an old invitation mail is not a lasting sign-in link.
    if not answer.already or (answered_at and now() - answered_at < REPEAT_SIGN_IN):
        _sign_in_as(invite)
    return _after(answer.challenge, "accept")


@bp.post("/invites/<token>/decline")
def decline_by_link(token: str) -> Response:
    invite = challenges.invite_for_token(token)
    challenges.decline(invite.id, now())
    return redirect_with(_("You declined the challenge; its sender has been told."),
                         "challenges.invitation", token=token)


@bp.get("/invites/<token>/never")
def never(token: str) -> str:
    invite = challenges.invite_for_token(token)
    return render_template("challenges/never.html", token=token, email=invite.player.email,
                           done=account_mail.is_suppressed(invite.player.email))


@bp.post("/invites/<token>/never")
def never_confirm(token: str) -> Response:
    invite = challenges.invite_for_token(token)
    account_mail.suppress(invite.player.email, now())
    return redirect(url_for("challenges.never", token=token), 303)


def options_from_form(form: Any, game: str) -> dict[str, Any]:
    """The chosen game's options from its form controls (`option.<slug>.<name>`; see
    templates/games/_option_controls.html). A check box left unticked is off; an empty box
    keeps the default. The values are checked by the game's own options when the match is
    made, so a bad one is refused with that option's message."""
    rules = REGISTRY.get(game)
    if rules is None:
        return {}  # the service refuses the unknown game, naming the known ones
    options: dict[str, Any] = {}
    for option in rules.options:
        field = f"option.{game}.{option.name}"
        if isinstance(option.default, bool):
            options[option.name] = form.get(field) == "on"
        elif (form.get(field) or "").strip():
            options[option.name] = form.get(field).strip()
    return options


def _after(challenge: Challenge, action: str) -> Response:
    if challenge.match_id is not None:
        return redirect_with(_("Everyone accepted: match %(match)s has started. Your link is "
                               "below and in your email.", match=challenge.match_id), "me.home")
    return redirect_with(_("You accepted. The match starts when every player has accepted.")
                         if action == "accept" else _("You declined the challenge."),
                         "challenges.show", challenge_id=challenge.id)


def _sign_in_as(invite: Invite) -> None:
    current = current_player()
    if current is None or current.id != invite.player_id:
        sign_in(SessionKind.PLAYER, player=invite.player)


def _form_page(form: Any, error: str | None, status: int | None = None
               ) -> tuple[str, int]:
    games = sorted(REGISTRY.values(), key=lambda rules: rules.title)
    return render_template("challenges/new.html", form=form, error=error, games=games,
                           policies=TimeoutPolicy.ALL,
                           default_clock=_settings().default_time_control,
                           default_on_timeout=_settings().default_on_timeout), (
        status or (400 if error else 200))


def _player():
    return signed_in_player()


def _settings():
    return current_app.config["PBEM_SETTINGS"]


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
