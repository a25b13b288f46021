"""/metrics in Prometheus text: what every web process and worker of this machine counted (request latency by
view, answers, the gate, model calls: prometheus_client's multiprocess directory), and what Redis says now (queue
depths, worker heartbeats). Only for a bearer of DESIREPATH_METRICS_TOKEN or an address in
DESIREPATH_METRICS_NETWORKS."""

from __future__ import annotations

import hmac
from collections.abc import Iterator

from django.conf import settings
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, generate_latest
from prometheus_client.core import GaugeMetricFamily, Metric
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector

from apps.core.http import client_in
from apps.core.workers import heartbeats, queue_depths, task_queues


class CeleryCollector(Collector):
    """Read at each scrape from Redis, in one round trip each (timeouts of a second): a scrape never waits on a
    worker's reply."""

    def collect(self) -> Iterator[Metric]:
        queues = task_queues()
        redis_up = GaugeMetricFamily("desirepath_redis_up", "Whether Redis answered this scrape (1) or not (0)")
        try:
            depths, seen = queue_depths(queues), heartbeats(queues)
        except Exception:  # noqa: BLE001 - Redis down is a value of the scrape, not its failure
            redis_up.add_metric([], 0)
            yield redis_up
            return
        redis_up.add_metric([], 1)
        yield redis_up
        depth = GaugeMetricFamily("desirepath_queue_depth", "Messages waiting in a Celery queue", labels=["queue"])
        heartbeat = GaugeMetricFamily(
            "desirepath_worker_heartbeat_timestamp_seconds",
            "When a worker consuming a queue last sent its heartbeat (seconds since the epoch)",
            labels=["queue", "worker"],
        )
        for queue in queues:
            depth.add_metric([queue], depths[queue])
            for worker, at in sorted(seen[queue].items()):
                heartbeat.add_metric([queue, worker], at)
        yield depth
        yield heartbeat


def _bearer_matches(request: HttpRequest, token: str) -> bool:
    scheme, _, given = str(request.META.get("HTTP_AUTHORIZATION", "")).partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(given.strip().encode(), token.encode())


def _refusal(request: HttpRequest) -> HttpResponse | None:
    token = settings.METRICS_TOKEN
    if (token and _bearer_matches(request, token)) or client_in(request, settings.METRICS_NETWORKS):
        return None
    if token:
        refused = JsonResponse({"detail": "Metrics need the metrics token: Authorization: Bearer <token>."}, status=401)
        refused["WWW-Authenticate"] = 'Bearer realm="metrics"'
        return refused
    detail = "Metrics are not open to this address: set DESIREPATH_METRICS_TOKEN or DESIREPATH_METRICS_NETWORKS."
    return JsonResponse({"detail": detail}, status=403)


@require_GET
def metrics(request: HttpRequest) -> HttpResponse:
    """Every series of this machine's processes, added up, and the Celery queues and workers as Redis has them."""
    refused = _refusal(request)
    if refused is not None:
        return refused
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=str(settings.METRICS_DIR))
    registry.register(CeleryCollector())
    return HttpResponse(generate_latest(registry), content_type=CONTENT_TYPE_LATEST)
