"""One cursor per database connection, kept for the statements every tap or balance read runs.

A new psycopg cursor builds its adaptation state (the dumpers of its parameters, the loaders of
its result's columns) again on its first statement; a kept one has them already, which spares a
measurable part of each hot statement's client CPU (``bench/run-rounds``). It sits at the bottom
layer so that the ledger, the casino domain and the tables may all use it.

Rules for callers: never close it (no ``with``), and fetch a statement's rows before anything
else runs a statement on it: the next statement replaces them.
"""

from __future__ import annotations

import threading
from typing import Any

from django.db import DEFAULT_DB_ALIAS, connections
from django.db.backends.utils import CursorWrapper

_kept = threading.local()  # Django's connections are per thread, so is the cursor kept on one


def kept_cursor() -> CursorWrapper:
    """A cursor on this thread's connection, wrapped as ``connection.cursor()`` wraps one (logged
    where queries are, its errors Django's): the same psycopg cursor while the connection is
    the same, a new one on a new connection."""
    db = connections[DEFAULT_DB_ALIAS]  # once: each attribute read through ``connection`` looks it up
    db.close_if_health_check_failed()
    db.ensure_connection()
    raw = db.connection
    held: tuple[Any, Any] | None = getattr(_kept, "cursor", None)
    if held is None or held[0] is not raw or held[1].closed:
        with db.wrap_database_errors:
            held = (raw, db.create_cursor())
        _kept.cursor = held
    db.validate_thread_sharing()
    return db.make_debug_cursor(held[1]) if db.queries_logged else db.make_cursor(held[1])
