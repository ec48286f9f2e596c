"""Prometheus metrics: HTTP latency, refused actions, Celery task durations, queue depth.

Under gunicorn with several workers set ``PROMETHEUS_MULTIPROC_DIR`` (an empty directory);
``/metrics`` then aggregates every worker's samples.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import redis
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import REGISTRY, Collector

HTTP_LATENCY = Histogram(
    "casekeeper_http_request_duration_seconds",
    "HTTP request latency",
    ["method", "route", "status"],
    buckets=(0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5),
)
API_ERRORS = Counter("casekeeper_api_errors_total", "Error responses by code", ["code", "status"])
REFUSED_ACTIONS = Counter("casekeeper_refused_actions_total", "Round actions refused, by code", ["code"])
TASK_DURATION = Histogram(
    "casekeeper_task_duration_seconds",
    "Celery task run time",
    ["task", "state"],
    buckets=(0.01, 0.05, 0.1, 0.5, 1, 5, 10, 30, 60, 120, 300),
)
QUEUES = ("celery",)


class QueueDepthCollector(Collector):
    """Reads the broker's queue lengths at scrape time (Redis lists named after queues)."""

    def collect(self) -> Iterator[GaugeMetricFamily]:
        gauge = GaugeMetricFamily(
            "casekeeper_celery_queue_depth", "Tasks waiting in a queue", labels=["queue"]
        )
        try:
            client = redis.Redis.from_url(
                settings.CELERY_BROKER_URL, socket_connect_timeout=1, socket_timeout=1
            )
            for queue in QUEUES:
                gauge.add_metric([queue], float(client.llen(queue)))
        except redis.RedisError:
            pass
        yield gauge


_queue_collector = QueueDepthCollector()


def _registry() -> CollectorRegistry:
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        registry = CollectorRegistry()
        MultiProcessCollector(registry)
        registry.register(_queue_collector)
        return registry
    if _queue_collector not in REGISTRY._collector_to_names:
        REGISTRY.register(_queue_collector)
    return REGISTRY


def metrics_view(request: HttpRequest) -> HttpResponse:
    return HttpResponse(generate_latest(_registry()), content_type=CONTENT_TYPE_LATEST)


class MetricsMiddleware:
    def __init__(self, get_response: Callable[[HttpRequest], HttpResponse]) -> None:
        self.get_response = get_response

    def __call__(self, request: HttpRequest) -> HttpResponse:
        started = time.perf_counter()
        response = self.get_response(request)
        match = getattr(request, "resolver_match", None)
        route = match.route if match is not None else "unmatched"
        HTTP_LATENCY.labels(request.method or "", route, str(response.status_code)).observe(
            time.perf_counter() - started
        )
        return response
