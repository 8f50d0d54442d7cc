"""`GET /api/matches`: the archive as JSON, a keyset page at a time.

Query: game, player (display name), status (live, finished, aborted), result (win, loss,
draw; win and loss with a player are that player's), limit (1-100, default 50) and cursor
(the `next` of the previous page). A malformed filter or limit is a 400 problem+json
saying why; a cursor this archive never gave out, or a filter that cannot apply, a 422.
"""

from __future__ import annotations

from typing import Any

from flask import Blueprint, Flask, jsonify, request, url_for
from werkzeug.wrappers import Response

from pbem.core.records.archive import PAGE_SIZE, Filters, list_matches
from pbem.errors import InvalidRequestError
from pbem.i18n import _
from pbem.web.site.inputs import whole_number

bp = Blueprint("archive_api", __name__, url_prefix="/api")


@bp.get("/matches")
def matches() -> Response:
    filters = Filters.parse(request.args)
    raw_limit = request.args.get("limit", "")
    limit = whole_number(raw_limit) if raw_limit else PAGE_SIZE
    if limit is None:
        raise InvalidRequestError(_("limit must be a whole number, not %(given)r",
                                    given=raw_limit[:20]))
    page = list_matches(filters, request.args.get("cursor") or None, limit)
    for row in page.rows:
        row["url"] = url_for("matches.show", match_id=row["id"])
        row["record"] = url_for("archive.record_json", match_id=row["id"])
    next_url = None
    if page.next_cursor:
        query: dict[str, Any] = {**filters.as_args(), "cursor": page.next_cursor}
        if raw_limit:
            query["limit"] = raw_limit
        next_url = url_for("archive_api.matches", **query)
    return jsonify({"filters": filters.as_args(), "matches": page.rows,
                    "next": page.next_cursor, "next_url": next_url})


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
