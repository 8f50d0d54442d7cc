"""The tournaments' JSON API: list and read (public), create, join, leave, start and withdraw
(a personal token with the `play` scope). Errors are problem+json; a refused request changes
nothing."""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.wrappers import Response

from pbem.core.accounts.api_tokens import Scope
from pbem.core.tournaments import running, service, table
from pbem.core.tournaments.service import Organising
from pbem.errors import InvalidRequestError
from pbem.i18n import _
from pbem.web.accounts.auth import scope_required, signed_in_player
from pbem.web.site.clock import now
from pbem.web.site.inputs import json_object

bp = Blueprint("api_tournaments", __name__, url_prefix="/api/tournaments")

FIELDS = ("name", "game", "options", "clock", "on_timeout", "format", "rounds", "min_players",
          "max_players", "rated", "starts_at", "invitation_only", "invited", "round_days",
          "max_replays")
STATUSES = ("open", "running", "finished", "cancelled")


@bp.get("")
def index() -> Response:
    status = request.args.get("status") or None
    if status is not None and status not in STATUSES:
        raise InvalidRequestError(_('"status" is one of: %(known)s.', known=", ".join(STATUSES)))
    return jsonify({"tournaments": [table.describe(t, detail=False)
                                    for t in table.listing(status)]})


@bp.post("")
@scope_required(Scope.PLAY)
def create() -> tuple[Response, int]:
    body = json_object(FIELDS, ("name", "game", "format"))
    tournament = service.create_tournament(signed_in_player(), body, now())
    return jsonify(table.describe(tournament)), 201


@bp.get("/<int:tournament_id>")
def show(tournament_id: int) -> Response:
    return jsonify(table.describe(service.get_tournament(tournament_id)))


@bp.post("/<int:tournament_id>/join")
@scope_required(Scope.PLAY)
def join(tournament_id: int) -> Response:
    return jsonify(table.describe(service.join(tournament_id, signed_in_player(), now())))


@bp.post("/<int:tournament_id>/leave")
@scope_required(Scope.PLAY)
def leave(tournament_id: int) -> Response:
    return jsonify(table.describe(service.leave(tournament_id, signed_in_player(), now())))


@bp.post("/<int:tournament_id>/start")
@scope_required(Scope.PLAY)
def start(tournament_id: int) -> Response:
    settings = current_app.config["PBEM_SETTINGS"]
    started = running.start(tournament_id, Organising(signed_in_player()),
                            settings.secret_key, now())
    return jsonify(table.describe(started))


@bp.post("/<int:tournament_id>/withdraw")
@scope_required(Scope.PLAY)
def withdraw(tournament_id: int) -> Response:
    forfeited = service.withdraw(tournament_id, signed_in_player(), now())
    found = table.describe(service.get_tournament(tournament_id))
    return jsonify({**found, "forfeited": forfeited})


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
