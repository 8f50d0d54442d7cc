"""The installable app: the web app manifest, the service worker (`/sw.js`, at the site's root
so it may look after every page) and the page it shows when the network is gone (`/offline`).

The service worker (`pbem/web/static/sw.js`) keeps a move posted while offline and sends it
again when the network is back, with an idempotency key: the server makes a move sent twice
with one key once (`submit_move`'s `idempotency_key`, the door's action key, unique per match
even when two copies race), and answers the copy "already made".
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from flask import Blueprint, Flask, current_app, jsonify, render_template, send_from_directory
from werkzeug.wrappers import Response

from pbem.errors import InvalidRequestError
from pbem.i18n import _

bp = Blueprint("offline", __name__)
_KEY = re.compile(r"[A-Za-z0-9_-]{1,64}")


def idempotency_key(fields: Mapping[str, Any]) -> str | None:
    """A request's `idempotency_key` (a form's field or a JSON member), if it sent one."""
    key = fields.get("idempotency_key")
    if key is None or key == "":
        return None
    if not isinstance(key, str) or not _KEY.fullmatch(key):
        raise InvalidRequestError(_('"idempotency_key" must be 1 to 64 letters, digits, '
                                    '"-" or "_"'))
    return key


@bp.get("/sw.js")
def service_worker() -> Response:
    response = send_from_directory(current_app.static_folder or "", "sw.js", max_age=0)
    response.headers["Content-Type"] = "text/javascript; charset=utf-8"
    response.headers["Cache-Control"] = "no-cache"  # a new release's worker is seen at once
    return response


@bp.get("/manifest.webmanifest")
def manifest() -> Response:
    response = jsonify({
        "name": "pbem", "short_name": "pbem",
        "description": _("Correspondence games: your matches, your turn."),
        "start_url": "/me", "scope": "/", "display": "standalone",
        "background_color": "#ffffff", "theme_color": "#1d4e89",
        "icons": [{"src": "/static/icon.svg", "sizes": "any", "type": "image/svg+xml"}],
    })
    response.headers["Content-Type"] = "application/manifest+json"
    return response


@bp.get("/offline")
def offline() -> str:
    return render_template("follow/offline.html")


def init_app(app: Flask) -> None:
    app.register_blueprint(bp)
