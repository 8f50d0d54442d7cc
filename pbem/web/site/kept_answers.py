"""JSON answers kept by their value, with an ETag: a client polling a seat's record
(`GET /api/play/<token>`) gets the same bytes without their being encoded again, and a
client that sends the ETag back (`If-None-Match`) gets 304 with no body at all.

The key is the SHA-256 of the value's pickled bytes, which differ whenever its values, their
types or their order differ (as a fragment's key, fragments.py), or of a smaller value equal
exactly when it is (a seat's record: its largest parts by their digest, and the rest): equal
keys mean equal values, and so the same JSON. The value is still built on every read (it
holds what changes with time, a clock's words); only its encoding is kept. The ETag is that
key, so it changes whenever the answer does, in whatever language it is given.
"""

from __future__ import annotations

from typing import Any

from flask import Flask, current_app, request
from werkzeug.wrappers import Response

from pbem.latest import Kept
from pbem.web.site.fragments import value_key

# Answers kept per worker, and the largest kept (bytes): a seat's record is a few KB, the
# largest boards' views make it tens.
KEPT = 16
LARGEST = 64 * 1024
BUDGET = 128 * 1024  # bytes, all kept answers together


class KeptAnswers(Kept[bytes]):
    """The JSON answers encoded lately, the least used dropped first. Safe for threads, as
    `Latest` is."""

    def __init__(self, size: int = KEPT, budget: int = BUDGET) -> None:
        super().__init__(size, budget)

    def answer(self, value: Any, follows_from: Any = None) -> Response:
        """`value` as JSON (as `jsonify` writes it), with its ETag; 304 when the request's
        `If-None-Match` holds that tag. Keyed by `value`, or by `follows_from` when given: a
        smaller value that is equal exactly when `value` is (a seat's record by its largest
        parts' digest and the rest, `seat.record_key`)."""
        key = value_key(value if follows_from is None else follows_from)
        body = self.made(key, lambda: (current_app.json.dumps(value) + "\n").encode(),
                         lambda body: len(body) <= LARGEST)
        response: Response = current_app.response_class(body, mimetype="application/json")
        response.set_etag(key[:16].hex())
        return response.make_conditional(request)


def kept_answer(value: Any, follows_from: Any = None) -> Response:
    """`value` answered through the app's kept answers (`KeptAnswers.answer`)."""
    answers: KeptAnswers = current_app.extensions["pbem_kept_answers"]
    return answers.answer(value, follows_from)


def init_app(app: Flask) -> None:
    app.extensions["pbem_kept_answers"] = KeptAnswers()
