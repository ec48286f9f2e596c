"""A Redis of the test's own, for outages: the shared Redis (127.0.0.1:6379) is never stopped.

``PrivateRedis`` runs ``redis-server`` on a free port (no persistence) and can be stopped,
started, paused (SIGSTOP: it holds every connection and answers nothing, as a hung host or a
partition would) and resumed. ``celery_broker(url)`` points this process's Celery app at it
(the result backend stays on the shared Redis) and back again.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import redis

from casino.celery import app as celery_app
from casino.task_sending import forget_send_pools
from tests import stages
from tests.celery_support import forget_broker_pools, forget_routes


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


class PrivateRedis:
    """One ``redis-server`` of the test's own (see the module docstring)."""

    def __init__(self, directory: Path) -> None:
        stages.require("outage", "a Redis of its own")
        self.directory = directory
        self.port = free_port()
        self.url = f"redis://127.0.0.1:{self.port}/0"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self, timeout: float = 20.0) -> None:
        assert self.process is None, "already running"
        self.process = subprocess.Popen(
            [
                "redis-server",
                "--port",
                str(self.port),
                "--bind",
                "127.0.0.1",
                "--save",
                "",
                "--appendonly",
                "no",
            ],
            cwd=self.directory,
            stdout=subprocess.DEVNULL,
            start_new_session=True,
        )
        client = redis.Redis(port=self.port, socket_timeout=2)
        deadline = time.monotonic() + timeout
        try:
            while True:
                try:
                    if client.ping():
                        return
                except redis.RedisError:
                    if time.monotonic() > deadline or self.process.poll() is not None:
                        raise
                    time.sleep(0.05)
        finally:
            client.close()

    def stop(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(self.process.pid, signal.SIGCONT)  # a paused server cannot act on SIGTERM
            self.process.terminate()
        try:
            self.process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=10)
        self.process = None

    def answers(self) -> bool:
        client = redis.Redis(port=self.port, socket_connect_timeout=0.5, socket_timeout=0.5)
        try:
            return bool(client.ping())
        except redis.RedisError:
            return False
        finally:
            client.close()

    def pause(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGSTOP)

    def resume(self) -> None:
        assert self.process is not None
        os.kill(self.process.pid, signal.SIGCONT)


@contextlib.contextmanager
def private_redis(directory: Path) -> Iterator[PrivateRedis]:
    """A ``PrivateRedis`` (not started yet), stopped at the end whatever state it is in."""
    server = PrivateRedis(directory)
    try:
        yield server
    finally:
        server.stop()


def _forget_connections() -> None:
    forget_broker_pools()
    forget_send_pools()
    forget_routes()


@contextlib.contextmanager
def celery_broker(url: str) -> Iterator[None]:
    """Send (and run test workers) through the broker at ``url`` until the block ends."""
    old = celery_app.conf.broker_url
    celery_app.conf.broker_url = url
    _forget_connections()
    try:
        yield
    finally:
        celery_app.conf.broker_url = old
        _forget_connections()
