"""`GET /healthz` for load balancers: JSON, 200 when the database answers and the worker
ticked recently, else 503 with the problems listed. No login: it shows no data."""

from __future__ import annotations

from flask import Blueprint, Flask, current_app, jsonify
from werkzeug.wrappers import Response

from pbem.core.admin.operations import health
from pbem.web.site.clock import now

bp = Blueprint("health", __name__)


@bp.get("/healthz")
def healthz() -> Response:
    settings = current_app.config["PBEM_SETTINGS"]
    result = health(now(), settings.health_max_heartbeat_seconds)
    response = jsonify(result.as_json())
    response.status_code = 200 if result.ok else 503
    response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
