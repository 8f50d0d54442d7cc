"""Security headers on every response: a strict CSP (no third-party assets, no inline script
or style), no framing, no MIME sniffing, and `Referrer-Policy: same-origin` so a private link in
the URL never leaks to another site (while same-site form posts keep their Referer).

Outside development, `Strict-Transport-Security` tells browsers to use HTTPS only for a year, so
a link opened on a hostile network cannot be downgraded to plain HTTP and read. Development runs
on plain http://127.0.0.1, where the header would only get in the way."""

from __future__ import annotations

from flask import Flask, Response, make_response
from werkzeug.wrappers import Response as AnyResponse

from pbem.web.site import steps

HEADERS = {
    "Content-Security-Policy": (
        "default-src 'self'; img-src 'self' data:; style-src 'self'; script-src 'self'; "
        "form-action 'self'; frame-ancestors 'none'; base-uri 'none'; object-src 'none'"
    ),
    "Referrer-Policy": "same-origin",
    "X-Content-Type-Options": "nosniff",
    "X-Frame-Options": "DENY",
    "Cross-Origin-Opener-Policy": "same-origin",
    "Permissions-Policy": "camera=(), microphone=(), geolocation=()",
}


HSTS = "max-age=31536000; includeSubDomains"


def private(answer: AnyResponse | str) -> Response:
    """An answer no cache may keep: it holds what only its reader may see (a seat's view, an
    account, a mail's preferences)."""
    response = make_response(answer)
    response.headers["Cache-Control"] = "no-store"
    return response


def init_app(app: Flask) -> None:
    headers = dict(HEADERS)
    if not app.config["PBEM_SETTINGS"].development:
        headers["Strict-Transport-Security"] = HSTS

    lowered = {name.lower(): (name, value) for name, value in headers.items()}

    @steps.after_request(app)
    def _add_headers(response: Response) -> Response:
        # Those a view set itself stay. (Not `setdefault` per header: werkzeug's lookup of a
        # missing header raises and catches an exception, one per header on every response.)
        present = {name.lower() for name, _value in response.headers}
        response.headers.extend([pair for name, pair in lowered.items() if name not in present])
        return response
