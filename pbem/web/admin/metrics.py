"""`GET /admin/metrics`: Prometheus text for operators. Open to a signed-in admin, or to a
scraper sending `Authorization: Bearer <metrics_token>` when that setting is set."""

from __future__ import annotations

import hmac
from collections.abc import Iterator

from flask import current_app, make_response, redirect, render_template, request, url_for
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector
from werkzeug.wrappers import Response

from pbem.core.accounts.models import AdminRole
from pbem.core.admin.operations import Sample, metric_values
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
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Snapshot(metric_values(now())))
    response = make_response(generate_latest(registry))
    response.headers["Content-Type"] = CONTENT_TYPE_LATEST
    response.headers["Cache-Control"] = "no-store"
    return response


def _bearer_ok() -> bool:
    token = current_app.config["PBEM_SETTINGS"].metrics_token
    scheme, _, given = request.headers.get("Authorization", "").partition(" ")
    return bool(token) and scheme.lower() == "bearer" and hmac.compare_digest(
        given.strip().encode(), token.encode())


class _Snapshot(Collector):
    """The values read for this one request, as gauges (the database holds the truth, so
    every web process reports the same numbers)."""

    def __init__(self, samples: list[Sample]) -> None:
        self.samples = samples

    def collect(self) -> Iterator[GaugeMetricFamily]:
        families: dict[str, GaugeMetricFamily] = {}
        for sample in self.samples:
            names = [name for name, _ in sample.labels]
            family = families.get(sample.name)
            if family is None:
                family = families[sample.name] = GaugeMetricFamily(sample.name, sample.help,
                                                                   labels=names)
            family.add_metric([value for _, value in sample.labels], sample.value)
        yield from families.values()
