"""Analysis after the game, on the web: the finished match page's button and the API's
`POST`/`GET /api/matches/<id>/analysis` (`core/computer/analysis.py` does the work; the
worker computes it, so a request only queues it)."""

from __future__ import annotations

from flask import Blueprint, Flask, jsonify, request
from werkzeug.wrappers import Response

from pbem.core.computer.analysis import analysis_of, describe, request_analysis
from pbem.core.matches.creation import get_match
from pbem.errors import ConflictError
from pbem.i18n import _
from pbem.web.site.clock import now
from pbem.web.site.flashes import redirect_with

api_bp = Blueprint("api_analysis", __name__, url_prefix="/api")
bp = Blueprint("analysis", __name__)


# One rule for both methods: with two rules on one path, werkzeug answers a GET whose id is
# too large for the `int` converter with 405 (the POST rule's method) instead of 404.
@api_bp.route("/matches/<int:match_id>/analysis", methods=["GET", "POST"])
def analysis(match_id: int) -> tuple[Response, int]:
    if request.method == "POST":
        asked = request_analysis(match_id, now())
        return jsonify(describe(asked, match_id)), 200 if asked.status == "done" else 202
    get_match(match_id)  # 404 for a match that does not exist
    return jsonify(describe(analysis_of(match_id), match_id)), 200


@bp.post("/matches/<int:match_id>/analysis")
def ask_on_page(match_id: int) -> Response:
    try:
        request_analysis(match_id, now())
    except ConflictError as refused:
        return redirect_with(str(refused), "matches.show", category="error",
                             section="computer-analysis", match_id=match_id)
    return redirect_with(_("The computer is analysing this match; reload the page in a few "
                           "minutes to see its analysis."), "matches.show",
                         section="computer-analysis", match_id=match_id)


def init_app(app: Flask) -> None:
    app.register_blueprint(api_bp)
    app.register_blueprint(bp)
