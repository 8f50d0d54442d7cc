"""`POST /inbound/mime`: the raw message as the body, for mail providers that forward inbound
mail over HTTP. `Authorization: Bearer <inbound_secret>`; without that setting the endpoint
does not exist (the app registers it only then).

Answers are JSON: 200 with what was done (handled, refused or ignored alike, so the provider
does not retry), 401 without the right secret, 413 over 1 MiB, 415 for a form body (curl's
default: the mail would be lost; send it raw as message/rfc822), 503 with `Retry-After` when
the database cannot be reached or is read-only (the provider should try again). Every error
is problem+json.
"""

from __future__ import annotations

import hmac
import logging

from flask import Blueprint, Flask, current_app, jsonify, request
from werkzeug.wrappers import Response

from pbem.mail.inbound import TEMPORARY_ERRORS, handle
from pbem.mail.inbound.reading import MAX_BYTES
from pbem.web.site.clock import now
from pbem.web.site.errors import problem

bp = Blueprint("inbound", __name__)
_FORM_TYPES = frozenset({"application/x-www-form-urlencoded", "multipart/form-data"})
log = logging.getLogger(__name__)


@bp.url_value_preprocessor
def _allow_a_whole_mail(endpoint: str | None, values: dict | None) -> None:
    # The app-wide request limit is for forms; a mail may be up to 1 MiB, and a larger one is
    # still read far enough to record and drop it. (This runs before any before_request.)
    request.max_content_length = 64 * MAX_BYTES


@bp.post("/inbound/mime")
def mime() -> Response:
    settings = current_app.config["PBEM_SETTINGS"]
    given = request.headers.get("Authorization", "")
    expected = f"Bearer {settings.inbound_secret}"
    if not hmac.compare_digest(given.encode(), expected.encode()):
        response = problem(401, "A valid `Authorization: Bearer …` header is required.")
        response.headers["WWW-Authenticate"] = 'Bearer realm="pbem inbound"'
        return response
    if request.mimetype in _FORM_TYPES:
        # A form body is parsed (and so consumed) before this view runs: the mail would be
        # lost. Refused, so the sender sends it again as it should.
        return problem(415, "Send the raw message as the body, with Content-Type: "
                            "message/rfc822 (not a form).")
    raw = request.stream.read(MAX_BYTES + 1)
    receipt = handle(raw, settings, "http", now())
    if receipt.action == "oversized":
        return problem(413, "The message is larger than 1 MiB; it was dropped.")
    return jsonify({"action": receipt.action, "detail": receipt.detail,
                    "answer": receipt.answer, "match": receipt.match_id, "seat": receipt.seat})


def _try_later(error: Exception) -> Response:
    # Also reached when the app cannot even open its database connection for the request.
    log.warning("inbound over HTTP: the database is unreachable (%s)", error)
    response = problem(503, "The message could not be handled now; send it again later.")
    response.headers["Retry-After"] = "60"
    return response


for _error in TEMPORARY_ERRORS:
    bp.register_error_handler(_error, _try_later)  # type: ignore[arg-type]


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
