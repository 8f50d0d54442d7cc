"""The audit log: every admin action and every automatic policy action, filterable by who,
what, match and dates, and exportable as CSV."""

from __future__ import annotations

from datetime import datetime, timedelta

from flask import make_response, render_template, request
from werkzeug.wrappers import Response

from pbem.core.admin import audit
from pbem.i18n import _
from pbem.web.admin.access import admin_required, bp
from pbem.web.site.inputs import whole_number


@bp.get("/audit")
@admin_required
def audit_log() -> tuple[str, int]:
    filters, error = _filters()
    entries = [] if error else audit.search(filters)
    return render_template("admin/audit.html", entries=entries, filters=filters, error=error,
                           actions=audit.actions(), args=request.args), 422 if error else 200


@bp.get("/audit.csv")
@admin_required
def audit_csv() -> Response:
    filters, error = _filters()
    if error:
        response = make_response(error + "\n", 422)
        response.mimetype = "text/plain"
        return response
    response = make_response(audit.to_csv(audit.search(filters, limit=None)))
    response.mimetype = "text/csv"
    response.headers["Content-Disposition"] = 'attachment; filename="pbem-audit.csv"'
    return response


def _filters() -> tuple[audit.AuditFilter, str | None]:
    args = request.args
    match_text = (args.get("match") or "").strip().lstrip("#")
    match_id = whole_number(match_text) if match_text else None
    if match_text and match_id is None:
        return audit.AuditFilter(), _("%(text)r is not a match number.", text=match_text)
    try:
        since = _day(args.get("since"))
        until = _day(args.get("until"))
    except ValueError:
        return audit.AuditFilter(), _("Dates are written YYYY-MM-DD.")
    return audit.AuditFilter((args.get("actor") or "").strip()[:254],
                             (args.get("action") or "").strip()[:40], match_id, since,
                             until + timedelta(days=1) if until else None), None


def _day(text: str | None) -> datetime | None:
    text = (text or "").strip()
    return datetime.strptime(text, "%Y-%m-%d") if text else None
