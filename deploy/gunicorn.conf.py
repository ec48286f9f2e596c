"""gunicorn settings: stateless workers (sessions, tokens and idempotency live in PostgreSQL)."""

import gc
import ipaddress
import os
from typing import Any

from prometheus_client import multiprocess

# Loopback by default: clients reach gunicorn only through the proxy in front (deploy/README.md);
# compose binds 0.0.0.0 inside the web container, which publishes no port.
bind = os.environ.get("GUNICORN_BIND", "127.0.0.1:8000")


def trusted_networks(proxies: str) -> str:
    """TRUSTED_PROXIES as gunicorn takes it: each entry as its network, as Django reads it
    (``10.20.0.5/16`` is 10.20.0.0/16; gunicorn would refuse to start on it as written)."""
    entries = [proxy.strip() for proxy in proxies.split(",") if proxy.strip()]
    return ",".join(str(ipaddress.ip_network(entry, strict=False)) for entry in entries)


# The proxies whose X-Forwarded-Proto gunicorn believes: the same list Django believes it and
# X-Forwarded-For from (TRUSTED_PROXIES, casino/client_address.py); empty trusts nobody.
forwarded_allow_ips = trusted_networks(os.environ.get("TRUSTED_PROXIES", ""))
workers = int(os.environ.get("GUNICORN_WORKERS", "4"))
threads = int(os.environ.get("GUNICORN_THREADS", "1"))
timeout = int(os.environ.get("GUNICORN_TIMEOUT", "30"))
# Django is imported once, in the master: a worker that dies (or is recycled by max_requests)
# is replaced by a fork that serves at once instead of after seconds of imports, so losing a
# worker under load does not leave the others queueing. Nothing opens a connection at import
# (database, Redis and broker connections are made lazily in each worker).
preload_app = True
# Python's cycle collector walks every object in its oldest generation on a full collection: in a
# worker that is everything Django and the project import (about 186,000 objects, some 80 ms a
# walk), plus what the first requests build and keep (compiled templates, lazy imports, URL and
# serializer caches: some 80,000 more), so a full collection stalls whichever request triggers it.
# The master imports the app with the collector off and freezes what it holds before each fork
# (gc.freeze: never walked again, and its pages stay shared with the workers); each worker
# freezes once more after its first requests, once their answers are sent (``post_request``).
gc.disable()
WARM_AFTER_REQUESTS = 500  # by then a worker has served every kind of request it usually gets
graceful_timeout = 20
max_requests = 5000
max_requests_jitter = 500
# gunicorn 27's control socket lives at one fixed path per host; several services (or the
# bench beside a dev server) would fight over it, and nothing here uses it.
control_socket_disable = True
accesslog = "-"
access_log_format = (
    '{"request_id":"%({x-request-id}o)s","method":"%(m)s","path":"%(U)s","status":%(s)s,"ms":%(M)s}'
)


def when_ready(server: Any) -> None:
    """Before the first fork: what Django loads on a process's first request (the URL
    configuration, the templates), so a worker answers its first request as fast as its next
    (``casino.preload``); ``pre_fork`` then freezes it with the rest."""
    from casino.preload import load_for_workers

    templates = load_for_workers()
    server.log.info("Imported the URL configuration and compiled %d templates for the workers", templates)


def pre_fork(server: Any, worker: Any) -> None:
    gc.freeze()


def post_fork(server: Any, worker: Any) -> None:
    worker.served = 0
    gc.enable()


def post_worker_init(worker: Any) -> None:
    """Before the worker's first request: its database connection (``casino.preload``)."""
    from casino.preload import connect_database

    connect_database()


def post_request(worker: Any, req: Any, environ: Any, resp: Any) -> None:
    """After the worker's warm-up request has been answered: collect once, then freeze what is
    left (its caches), so later full collections walk only what requests leave behind."""
    worker.served = getattr(worker, "served", 0) + 1
    if worker.served == WARM_AFTER_REQUESTS:
        gc.collect()
        gc.freeze()


def child_exit(server: Any, worker: Any) -> None:
    """Drop a dead worker's metric files so /metrics does not count it forever."""
    if os.environ.get("PROMETHEUS_MULTIPROC_DIR"):
        multiprocess.mark_process_dead(worker.pid)
