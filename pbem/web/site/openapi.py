"""Serves the JSON API's OpenAPI 3.1 description (`api_description.py`) at
`/api/openapi.json`, and browsable at `/api/docs` (drawn by the server from the same document,
with no third-party assets).

The description is imported on the first request for it, not at startup: it is a large tree
of data that most web workers never serve, and a worker's memory is kept lean (a worker that
serves it pays once).
"""

from __future__ import annotations

from flask import Blueprint, Flask, Response, current_app, jsonify, render_template

from pbem.i18n import _

bp = Blueprint("openapi", __name__)


@bp.get("/api/openapi.json")
def openapi_json() -> Response:
    from pbem.web.site.api_description import document

    return jsonify(document(current_app.config["PBEM_SETTINGS"].base_url))


@bp.get("/api/docs")
def docs() -> str:
    from pbem.web.site.api_description import document

    described = document(current_app.config["PBEM_SETTINGS"].base_url)
    # The document stays English (it is what clients read); the page shows its sentences in
    # the reader's language where the catalogs have them.
    return render_template("site/api_docs.html", doc=described, doc_text=_doc_text)


def _doc_text(text: str | None) -> str | None:
    return _(text) if text else text


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
