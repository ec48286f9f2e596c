"""Prometheus metrics: HTTP latency, refused actions, Celery task durations, queue depth.

Under gunicorn with several workers set ``PROMETHEUS_MULTIPROC_DIR`` (an empty directory);
``/metrics`` then aggregates every worker's samples. It answers only the monitoring system:
a bearer of ``METRICS_TOKEN``, or a client (``casino.client_address``, so never someone
outside merely because our proxy forwarded them) at one of ``METRICS_ALLOWED_ADDRESSES``.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterator

import redis
from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.crypto import constant_time_compare
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Counter, Histogram, generate_latest
from prometheus_client.core import GaugeMetricFamily
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import REGISTRY, Collector

from casino.client_address import client_address, is_among, networks_of

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


def may_read_metrics(request: HttpRequest) -> bool:
    """The bearer of ``METRICS_TOKEN`` (if one is set), or a client at an allowed address."""
    token = settings.METRICS_TOKEN
    offered = request.headers.get("Authorization", "")
    if token and constant_time_compare(offered, f"Bearer {token}"):
        return True
    return is_among(client_address(request), networks_of(settings.METRICS_ALLOWED_ADDRESSES))


REFUSAL = "Metrics are served only to the monitoring system (METRICS_TOKEN or METRICS_ALLOWED_ADDRESSES).\n"


def metrics_view(request: HttpRequest) -> HttpResponse:
    if not may_read_metrics(request):
        return HttpResponse(REFUSAL, status=403, content_type="text/plain; charset=utf-8")
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
