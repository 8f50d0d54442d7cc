"""Every error gets a clear answer: an HTML page, or problem+json under /api/. Never a 500 for
bad input; the service layer's messages are written to be shown as they are."""

from __future__ import annotations

import logging
import math
import re

import peewee
from flask import Flask, Response, jsonify, make_response, render_template, request
from flask_wtf.csrf import CSRFError
from werkzeug.exceptions import HTTPException, MethodNotAllowed

from pbem.core.db.connection import UNAVAILABLE, database, is_read_only, unavailable_reason
from pbem.errors import PbemError, UnavailableError
from pbem.games.base import RulesError

log = logging.getLogger(__name__)

TITLES = {400: "Bad request", 401: "Sign-in required", 403: "Forbidden", 404: "Not found",
          405: "Method not allowed",
          409: "Conflict", 413: "Request too large", 415: "Unsupported media type",
          422: "Refused", 429: "Too many requests", 500: "Server error",
          503: "Temporarily unavailable"}
UNAVAILABLE_DETAIL = ("The game server cannot reach its database just now. Nothing was "
                      "changed; please try again in a few minutes.")
RETRY_AFTER_SECONDS = 60


def connect_or_unavailable() -> None:
    """Open the request's database connection, or raise UnavailableError (a 503 page)."""
    try:
        database.connect(reuse_if_open=True)
    except UNAVAILABLE as error:
        log.error("database unavailable on %s %s: %s", request.method, request.path,
                  unavailable_reason(error))
        raise UnavailableError(UNAVAILABLE_DETAIL) from None


def problem(status: int, detail: str) -> Response:
    response = jsonify({"type": "about:blank", "title": TITLES.get(status, "Error"),
                        "status": status, "detail": detail})
    response.status_code = status
    response.mimetype = "application/problem+json"
    return response


# JSON answered outside /api/ (the downloadable record, the waiting page's poll): its errors
# are problem+json too, so a script reading it never gets an HTML page.
_JSON_PATHS = re.compile(r"^/matches/[^/]+/(?:record\.json|ply)$")


def wants_problem() -> bool:
    return (request.path.startswith(("/api/", "/inbound/"))
            or bool(_JSON_PATHS.match(request.path)))


def error_response(status: int, detail: str) -> Response | tuple[str, int]:
    if wants_problem():
        return problem(status, detail)
    return render_template("errors/error.html", status=status,
                           title=TITLES.get(status, "Error"), detail=detail), status


def init_app(app: Flask) -> None:
    @app.errorhandler(PbemError)
    def _service_error(error: PbemError):
        response = make_response(error_response(error.status, str(error)))
        if error.status == 503:
            response.headers["Retry-After"] = str(RETRY_AFTER_SECONDS)
        wait = getattr(error, "retry_after", None)  # a rate limit (accounts/limits.py) says
        if error.status == 429 and wait is not None:
            response.headers["Retry-After"] = str(max(1, math.ceil(wait.total_seconds())))
        return response

    def _database_gone(error: Exception):
        # The server went away mid-request (the transaction, if any, was not committed).
        log.error("database error on %s %s: %s", request.method, request.path,
                  unavailable_reason(error))
        return _service_error(UnavailableError(UNAVAILABLE_DETAIL))

    for kind in UNAVAILABLE:
        app.register_error_handler(kind, _database_gone)

    @app.errorhandler(peewee.DatabaseError)
    def _database_refused(error: peewee.DatabaseError):
        # A read-only database (a standby after a failover) refuses writes: try again later.
        if is_read_only(error):
            return _database_gone(error)
        return _unexpected(error)

    @app.errorhandler(RulesError)
    def _rules_error(error: RulesError):
        return error_response(422, str(error))

    @app.errorhandler(CSRFError)
    def _csrf_error(error: CSRFError):
        return error_response(400, "This form has expired or did not come from this site. "
                                   "Go back, reload the page and try again.")

    @app.errorhandler(HTTPException)
    def _http_error(error: HTTPException):
        status = error.code or 500
        detail = {
            404: "There is nothing at this address.",
            413: "That request is too large.",
        }.get(status, error.description or TITLES.get(status, "Error"))
        response = make_response(error_response(status, detail))
        if isinstance(error, MethodNotAllowed) and error.valid_methods:
            # RFC 9110: a 405 names the methods the address does take.
            response.headers["Allow"] = ", ".join(sorted(error.valid_methods))
        return response

    def _unexpected(error: Exception):
        log.exception("unhandled error on %s %s", request.method, request.path)
        return error_response(500, "Something went wrong on our side. Nothing was changed; "
                                   "please try again in a moment.")

    app.register_error_handler(Exception, _unexpected)
