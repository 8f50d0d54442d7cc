"""The metrics in Prometheus's text format (imported only when /admin/metrics is asked for)."""

from __future__ import annotations

from collections.abc import Iterator

from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.registry import Collector

from pbem.core.admin.operations import Sample


def exposition(samples: list[Sample]) -> tuple[bytes, str]:
    """The samples as Prometheus text, and its content type."""
    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Snapshot(samples))
    return generate_latest(registry), CONTENT_TYPE_LATEST


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
