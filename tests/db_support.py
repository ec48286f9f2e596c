"""Database helpers the test packages share."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from django.db import connection
from django.db.backends.signals import connection_created

NO_FSYNC_WAIT = "SET synchronous_commit TO off"


def _no_fsync_wait(sender: Any, connection: Any, **kwargs: Any) -> None:
    with connection.cursor() as cursor:
        cursor.execute(NO_FSYNC_WAIT)


@contextmanager
def fast_commits_on_every_connection() -> Iterator[None]:
    """Commits skip the fsync wait, on this connection and every new one (a simulated night
    commits thousands of times; test data only). Durability is all this changes: every
    statement still runs, triggers and constraints too."""
    connection_created.connect(_no_fsync_wait)
    with connection.cursor() as cursor:
        cursor.execute(NO_FSYNC_WAIT)
    try:
        yield
    finally:
        connection_created.disconnect(_no_fsync_wait)
