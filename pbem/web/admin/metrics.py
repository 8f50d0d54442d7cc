"""`GET /admin/metrics`: Prometheus text for operators. Open to a signed-in admin, or to a
scraper sending `Authorization: Bearer <metrics_token>` when that setting is set."""

from __future__ import annotations

import hmac

from flask import current_app, make_response, redirect, render_template, request, url_for
from werkzeug.wrappers import Response

from pbem.core.accounts.models import AdminRole
from pbem.core.admin.operations import metric_values
from pbem.web.admin.access import bp, current_staff
from pbem.web.site.clock import now


@bp.get("/metrics")
def metrics() -> Response | tuple[str, int]:
    if not _bearer_ok():
        staff = current_staff()
        if staff is None:
            if request.headers.get("Authorization"):
                return make_response("wrong or missing metrics token\n", 401)
            return redirect(url_for("admin.login", next=request.path))
        if staff.role != AdminRole.ADMIN:
            return render_template("admin/forbidden.html"), 403
    # Imported here, not at the top: prometheus_client is large, and only this page, which a
    # scraper reads once a minute, needs it; other web workers never load it.
    from pbem.web.admin.exposition import exposition

    body, content_type = exposition(metric_values(now()))
    response = make_response(body)
    response.headers["Content-Type"] = content_type
    response.headers["Cache-Control"] = "no-store"
    return response


def _bearer_ok() -> bool:
    token = current_app.config["PBEM_SETTINGS"].metrics_token
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return bool(token) and scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode())
