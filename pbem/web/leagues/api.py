"""The leagues' and ladders' JSON API: list and read (public); create, join, leave, challenge
and accept (a personal token with the `play` scope). Errors are problem+json; a refused
request changes nothing."""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, jsonify
from werkzeug.wrappers import Response

from pbem.core.accounts.api_tokens import Scope
from pbem.core.leagues import describe, ladders, seasons
from pbem.errors import InvalidRequestError
from pbem.i18n import _
from pbem.web.accounts.auth import scope_required, signed_in_player
from pbem.web.site.clock import now
from pbem.web.site.inputs import json_object, json_whole

bp = Blueprint("api_leagues", __name__, url_prefix="/api")

COMMON = ("name", "game", "options", "clock", "on_timeout", "rated")
LEAGUE_FIELDS = (*COMMON, "division_size", "table_size", "tables_per_division", "promote",
                 "relegate", "season_days", "break_days", "start_days")
LADDER_FIELDS = (*COMMON, "challenge_range", "incoming_limit", "accept_days")


@bp.get("/leagues")
def leagues() -> Response:
    return jsonify({"leagues": [describe.describe_league(league, detail=False)
                                for league in describe.league_listing()]})


@bp.post("/leagues")
@scope_required(Scope.PLAY)
def create_league() -> tuple[Response, int]:
    body = json_object(LEAGUE_FIELDS, ("name", "game"))
    return jsonify(describe.describe_league(
        seasons.create_league(signed_in_player(), body, now()))), 201


@bp.get("/leagues/<int:league_id>")
def league(league_id: int) -> Response:
    return jsonify(describe.describe_league(seasons.get_league(league_id)))


@bp.post("/leagues/<int:league_id>/join")
@scope_required(Scope.PLAY)
def join_league(league_id: int) -> Response:
    seasons.join(league_id, signed_in_player(), now())
    return jsonify(describe.describe_league(seasons.get_league(league_id)))


@bp.post("/leagues/<int:league_id>/leave")
@scope_required(Scope.PLAY)
def leave_league(league_id: int) -> Response:
    seasons.leave(league_id, signed_in_player(), now())
    return jsonify(describe.describe_league(seasons.get_league(league_id)))


@bp.get("/ladders")
def ladder_list() -> Response:
    return jsonify({"ladders": [describe.describe_ladder(ladder, detail=False)
                                for ladder in describe.ladder_listing()]})


@bp.post("/ladders")
@scope_required(Scope.PLAY)
def create_ladder() -> tuple[Response, int]:
    body = json_object(LADDER_FIELDS, ("name", "game"))
    return jsonify(describe.describe_ladder(
        ladders.create_ladder(signed_in_player(), body, now()))), 201


@bp.get("/ladders/<int:ladder_id>")
def ladder(ladder_id: int) -> Response:
    return jsonify(describe.describe_ladder(ladders.get_ladder(ladder_id)))


@bp.post("/ladders/<int:ladder_id>/join")
@scope_required(Scope.PLAY)
def join_ladder(ladder_id: int) -> Response:
    ladders.join(ladder_id, signed_in_player(), now())
    return jsonify(describe.describe_ladder(ladders.get_ladder(ladder_id)))


@bp.post("/ladders/<int:ladder_id>/leave")
@scope_required(Scope.PLAY)
def leave_ladder(ladder_id: int) -> Response:
    ladders.leave(ladder_id, signed_in_player(), now())
    return jsonify(describe.describe_ladder(ladders.get_ladder(ladder_id)))


@bp.post("/ladders/<int:ladder_id>/challenge")
@scope_required(Scope.PLAY)
def challenge(ladder_id: int) -> tuple[Response, int]:
    body = json_object(("place", "player"), ())
    if ("place" in body) == ("player" in body):
        raise InvalidRequestError(_('Name a "place" (a number) or a "player" (a name).'))
    made = ladders.challenge(ladder_id, signed_in_player(), body, now())
    found = describe.describe_ladder(ladders.get_ladder(ladder_id))
    return jsonify({**found, "challenge": made.id}), 201


@bp.post("/ladders/<int:ladder_id>/accept")
@scope_required(Scope.PLAY)
def accept(ladder_id: int) -> Response:
    body = json_object(("challenge",), ("challenge",))
    number = json_whole(body["challenge"])  # 7.0 is JSON's 7
    if number is None or not 0 < number < 2**31:
        raise InvalidRequestError(_('"%(field)s" is a whole number.', field="challenge"))
    match = ladders.accept(number, signed_in_player(), current_app.config[
        "PBEM_SETTINGS"].secret_key, now(), ladder_id=ladder_id)
    return jsonify({**describe.describe_ladder(ladders.get_ladder(ladder_id)), "match": match})


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)


