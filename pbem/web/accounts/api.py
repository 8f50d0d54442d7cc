"""The players' JSON API, modelled on lichess's challenge API: who am I, challenges, seeks
and rematches, authenticated by personal tokens (`Authorization: Bearer …`).

Only Bearer tokens count here (never a browser cookie), so these routes need no CSRF token.
Each route needs one scope of the token (`read`, `play` or `account`: see
`pbem.core.accounts.api_tokens`). Errors are problem+json: 401 no or bad token, 403 a scope the
token lacks, 403/404 someone else's challenge, 400 or 422 a
bad body (with a message), 409 a challenge or seek that moved on. A refused request changes
nothing.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.wrappers import Response

from pbem import i18n
from pbem.core.accounts import players
from pbem.core.accounts.api_tokens import Scope
from pbem.core.accounts.models import Player
from pbem.core.computer.opponents import ComputerRequest, play_computer
from pbem.core.db.pipeline import read_ahead
from pbem.core.feeds.links import links_ahead
from pbem.core.lobby import challenges, seeks
from pbem.core.lobby.challenges import ChallengeRequest
from pbem.core.mailout import links
from pbem.core.mailout.preferences import update_preferences
from pbem.core.matches.seat_links import token_for
from pbem.core.records import home as home_page
from pbem.errors import InvalidRequestError, UnprocessableError
from pbem.i18n import N_, _
from pbem.web.accounts.auth import scope_required, signed_in_player, token_may
from pbem.web.follow.feeds import feed_links
from pbem.web.site.clock import now
from pbem.web.site.inputs import json_object, json_whole, known_fields
from pbem.web.site.security import private

bp = Blueprint("api_players", __name__, url_prefix="/api")

CHALLENGE_FIELDS: dict[str, type] = {"game": str, "opponents": list, "options": dict,
                                     "clock": str, "on_timeout": str, "seat_order": str,
                                     "rated": bool, "computers": list}
COMPUTER_FIELDS: dict[str, type] = {"game": str, "level": int, "options": dict, "clock": str,
                                    "seat": object, "players": int}
SETTINGS_FIELDS = ("mail_pref", "digest_hour", "timezone", "language")
SEEK_FIELDS: dict[str, type] = {"game": str, "options": dict, "clock": str, "players": int,
                                "on_timeout": str, "rated": bool, "rating_min": int,
                                "rating_max": int, "computers": list}


@bp.get("/me")
@scope_required(Scope.READ)
def me() -> Response:
    player = _player()
    settings = current_app.config["PBEM_SETTINGS"]
    matches = []
    # A seat link is a key to the seat: only a token that may play sees them.
    with_links = token_may(Scope.PLAY)
    # The four lists need only the player: on PostgreSQL a polling client waits for them
    # once, not four times (each challenge listed still reads its own invites).
    with read_ahead(*home_page.my_matches_ahead(player),
                    *challenges.received_and_sent_ahead(player), *links_ahead(player.id)):
        feeds = feed_links(player.id)
        for row in home_page.my_matches(player, now()):
            entry = {
                "id": row["id"], "game": row["game"], "status": row["status"],
                "your_turn": row["your_turn"],
                "deadline": row["deadline"]["at"] if row["deadline"] else None,
            }
            if with_links:
                token = token_for(settings.secret_key, row["seat"])
                # The token alone too, for a client that calls /api/play/<token> next.
                entry |= {"link": f"{settings.base_url}/play/{token}", "token": token}
            matches.append(entry)
        received = [challenges.describe(c, player) for c in challenges.received(player)]
        sent = [challenges.describe(c, player) for c in challenges.sent(player)]
    return private(jsonify({
        "email": player.email, "name": player.name, "matches": matches,
        "challenges": {"received": received, "sent": sent},
        "calendar_url": links.calendar_url(settings.base_url, settings.secret_key, player),
        "feeds": feeds,
    }))


@bp.put("/me/settings")
@scope_required(Scope.ACCOUNT)
def mail_settings() -> Response:
    """Mail preferences: `{"mail_pref": "each"|"turns"|"digest"|"off", "digest_hour": 0-23,
    "timezone": "Europe/Paris" or null, "language": "en"|"de"|"ja" or null}`; fields left
    out keep their value."""
    body = request.get_json(silent=True) if request.is_json else None
    if not isinstance(body, dict):
        raise InvalidRequestError(_('send a JSON object with Content-Type: application/json, '
                                    'like {"mail_pref": "digest", "digest_hour": 8}'))
    known_fields(body, SETTINGS_FIELDS)
    if not isinstance(body.get("mail_pref", ""), str):
        raise InvalidRequestError(_('"mail_pref" must be one of "each", "turns", "digest", '
                                    '"off"'))
    player = _player()
    hour = json_whole(body.get("digest_hour", player.digest_hour))
    if hour is None:
        raise InvalidRequestError(_('"digest_hour" must be a whole number from 0 to 23'))
    zone = body.get("timezone", player.timezone)
    if zone is not None and not isinstance(zone, str):
        raise InvalidRequestError(_('"timezone" must be a zone name like "Europe/Paris" or '
                                    'null'))
    language = body.get("language", player.language)
    if language is not None and not isinstance(language, str):
        raise InvalidRequestError(_('"language" must be a language code like "de" or null'))
    if language is not None and language not in i18n.LANGUAGES:
        raise UnprocessableError(_('"language" must be one of %(codes)s or null',
                                   codes=", ".join(i18n.LANGUAGES)))
    updated = update_preferences(player.id, body.get("mail_pref", player.mail_pref), hour,
                                 zone, now())
    players.set_language(updated, language)
    return private(jsonify({"mail_pref": updated.mail_pref,
                            "digest_hour": updated.digest_hour,
                            "timezone": updated.timezone,
                            "language": updated.language,
                            "next_digest_at": updated.digest_due_at.isoformat() + "Z"
                            if updated.digest_due_at else None}))


@bp.post("/challenges")
@scope_required(Scope.PLAY)
def create_challenge() -> tuple[Response, int]:
    settings = current_app.config["PBEM_SETTINGS"]
    body = _body(CHALLENGE_FIELDS, required=("game", "opponents"))
    opponents = body["opponents"]
    if not opponents or not all(isinstance(item, str) for item in opponents):
        raise InvalidRequestError(_('"opponents" must be a list of email addresses'))
    challenge = challenges.create_challenge(settings, _player(), ChallengeRequest(
        game=body["game"], opponents=opponents, options=body.get("options", {}),
        clock=body.get("clock", settings.default_time_control),
        on_timeout=body.get("on_timeout", settings.default_on_timeout),
        seat_order=body.get("seat_order", "random"), rated=body.get("rated", True),
        computers=body.get("computers")), now())
    return private(jsonify({"id": challenge.id, "status": challenge.status})), 201


@bp.post("/challenges/computer")
@scope_required(Scope.PLAY)
def play_the_computer() -> tuple[Response, int]:
    """A match against the computer, started at once: `{"game", "level": 1-5, "options",
    "clock", "seat": 0|1|…|"random", "players": 3|4 (Mimic Taking)}`. Answers the match and
    the caller's seat link; the computer moves in the worker within seconds."""
    settings = current_app.config["PBEM_SETTINGS"]
    body = _body(COMPUTER_FIELDS, required=("game", "level"))
    seat = body.get("seat", "random")
    if json_whole(seat) is not None:
        seat = json_whole(seat)
    elif seat != "random":
        raise InvalidRequestError(_('"seat" must be a seat number (0 moves first) or '
                                    '"random"'))
    played = play_computer(_player(), ComputerRequest(
        game=body["game"], level=body["level"], options=body.get("options", {}),
        clock=body.get("clock", settings.default_time_control), seat=seat,
        players=body.get("players")), settings.secret_key, now())
    return private(jsonify({"match": {
        "id": played.match.id, "seat": played.seat,
        "link": f"{settings.base_url}/play/{played.token}", "token": played.token}})), 201


@bp.get("/challenges/<int:challenge_id>")
@scope_required(Scope.READ)
def show_challenge(challenge_id: int) -> Response:
    player = _player()
    return private(jsonify(_challenge_json(challenges.visible_challenge(challenge_id, player),
                                           player)))


@bp.post("/challenges/<int:challenge_id>/accept")
@scope_required(Scope.PLAY)
def accept(challenge_id: int) -> Response:
    invite = challenges.invite_of(challenge_id, _player())
    answer = challenges.accept(current_app.config["PBEM_SETTINGS"], invite.id, now())
    return private(jsonify(_challenge_json(answer.challenge, _player())))


@bp.post("/challenges/<int:challenge_id>/decline")
@scope_required(Scope.PLAY)
def decline(challenge_id: int) -> Response:
    invite = challenges.invite_of(challenge_id, _player())
    answer = challenges.decline(invite.id, now())
    return private(jsonify(_challenge_json(answer.challenge, _player())))


@bp.post("/challenges/<int:challenge_id>/cancel")
@scope_required(Scope.PLAY)
def cancel(challenge_id: int) -> Response:
    answer = challenges.cancel(challenge_id, _player(), now())
    return private(jsonify(_challenge_json(answer.challenge, _player())))


@bp.get("/seeks")
@scope_required(Scope.READ)
def list_seeks() -> Response:
    player = _player()
    listed = seeks.open_seeks(viewer=player)
    return private(jsonify({"seeks": [seeks.describe(s, player) for s in listed]}))


@bp.post("/seeks")
@scope_required(Scope.PLAY)
def create_seek() -> tuple[Response, int]:
    settings = current_app.config["PBEM_SETTINGS"]
    body = _body(SEEK_FIELDS, required=("game", "players"))
    seek = seeks.create_seek(settings, _player(), body["game"], body.get("options", {}),
                             body.get("clock", settings.default_time_control), body["players"],
                             now(), on_timeout=body.get("on_timeout",
                                                        settings.default_on_timeout),
                             rated=body.get("rated", True), rating_min=body.get("rating_min"),
                             rating_max=body.get("rating_max"), computers=body.get("computers"))
    return private(jsonify({"id": seek.id})), 201


@bp.post("/seeks/<int:seek_id>/join")
@scope_required(Scope.PLAY)
def join_seek(seek_id: int) -> Response:
    seek = seeks.join(current_app.config["PBEM_SETTINGS"], seek_id, _player(), now())
    return private(jsonify(seeks.describe(seek, _player())))


@bp.post("/matches/<int:match_id>/rematch")
@scope_required(Scope.PLAY)
def rematch(match_id: int) -> tuple[Response, int]:
    challenge = challenges.rematch(current_app.config["PBEM_SETTINGS"], match_id, _player(),
                                   now())
    return private(jsonify(_challenge_json(challenge, _player()))), 201


def _challenge_json(challenge: Any, player: Player) -> dict[str, Any]:
    data = challenges.describe(challenge, player)
    if challenge.match_id is not None:
        settings = current_app.config["PBEM_SETTINGS"]
        seat = next((s for s in challenge.match.seat_rows() if s.player_id == player.id), None)
        data["match"] = {"id": challenge.match_id,
                         "link": f"{settings.base_url}/play/{token_for(settings.secret_key, seat)}"
                         if seat is not None else None}
    return data


def _body(fields: dict[str, type], required: tuple[str, ...]) -> dict[str, Any]:
    body = json_object(fields, required)
    for name, kind in fields.items():
        if name not in body or (body[name] is None and name in NULLABLE_FIELDS):
            continue
        if kind is int and json_whole(body[name]) is not None:
            body[name] = json_whole(body[name])
        # true and false are ints to Python: only a bool field takes them.
        if not isinstance(body[name], kind) or (kind is not bool
                                                and isinstance(body[name], bool)):
            raise InvalidRequestError(_('"%(name)s" must be a JSON %(kind)s', name=name,
                                        kind=_(_KIND_NAMES[kind])))
    return body


_KIND_NAMES = {str: N_("string"), list: N_("list"), dict: N_("object"),
               int: N_("whole number"), bool: N_("true or false"), object: N_("value")}
# Fields that may be null: a seek's open rating range ends.
NULLABLE_FIELDS = ("rating_min", "rating_max")


def _player() -> Player:
    return signed_in_player()


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
