"""A real streaming replica for tests: a primary and a replica of the test's own, Django on them.

The shared cluster (127.0.0.1:5432) cannot stream and is never reconfigured, so
``private_pair`` starts a primary and its replica with deploy/scripts/make-primary and
make-replica (``bench.postgres_pair``), gives the primary the test database's schema (a
``pg_dump --schema-only`` of it) in a template database, and stops both at the end. A test is
then put on them by ``django_on``: a fresh database made from the template (the replica replays
its creation), Django's ``default`` connection pointed at it on the primary and a ``replica``
connection at the same database on the replica, as ``REPLICA_DATABASE_URL`` would have it; at
the end Django is back on the test database and the fresh one is dropped.

The replica is stopped and paused by the tests, so they are ``outage`` tests (tests/stages.py).
"""

from __future__ import annotations

import contextlib
import subprocess
import uuid
from collections.abc import Iterator
from typing import Any

import psycopg
from django.conf import settings
from django.db import connections

from bench.postgres_pair import PostgresPair, server_programs
from casino import replica
from ledger.services import ensure_system_accounts
from tests import stages

TEMPLATE = "casekeeper_schema"


def _schema_of_test_database() -> bytes:
    """The test database's schema (tables, triggers, functions), as SQL."""
    s = connections["default"].settings_dict
    done = subprocess.run(
        [
            str(server_programs() / "pg_dump"),
            "--schema-only",
            "--no-owner",
            "--no-privileges",
            "-h",
            s["HOST"] or "127.0.0.1",
            "-p",
            str(s["PORT"] or 5432),
            "-U",
            s["USER"] or "root",
            s["NAME"],
        ],
        capture_output=True,
        timeout=120,
        check=True,
    )
    return done.stdout


@contextlib.contextmanager
def private_pair() -> Iterator[PostgresPair]:
    """A started primary and replica, the primary holding the test schema as ``TEMPLATE``, and
    Django's ``replica`` connection configured (a mirror of ``default`` to the test machinery:
    never created or flushed); a test module's fixture, so the alias is there before the test
    case's own set-up (its tests list it: ``django_db(databases=["default", "replica"])``)."""
    stages.require("outage", "a PostgreSQL primary and replica of its own")
    pair = PostgresPair()
    try:
        pair.start()
        schema = _schema_of_test_database()
        with psycopg.connect(pair.primary_url(), autocommit=True) as conn:
            conn.execute(f'CREATE DATABASE "{TEMPLATE}"'.encode())
        subprocess.run(
            ["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", pair.primary_url(TEMPLATE)],
            input=schema,
            capture_output=True,
            timeout=120,
            check=True,
        )
        alias = _point(pair.replica_port, TEMPLATE)
        alias["OPTIONS"] = {**alias["OPTIONS"], "connect_timeout": 1}
        alias["TEST"] = {**alias["TEST"], "NAME": None, "MIRROR": "default"}
        connections.settings[replica.REPLICA] = settings.DATABASES[replica.REPLICA] = alias
        yield pair
    finally:
        _forget_replica_connection()
        connections.settings.pop(replica.REPLICA, None)
        settings.DATABASES.pop(replica.REPLICA, None)
        replica.forget_standing()
        pair.stop()


def _forget_replica_connection() -> None:
    with contextlib.suppress(Exception):
        connections[replica.REPLICA].close()
    with contextlib.suppress(AttributeError):  # no connection made in this thread
        del connections[replica.REPLICA]


def _point(port: int, name: str) -> dict[str, Any]:
    base = connections["default"].settings_dict
    return {**base, "HOST": "127.0.0.1", "PORT": port, "NAME": name, "USER": "root", "PASSWORD": ""}


@contextlib.contextmanager
def django_on(pair: PostgresPair) -> Iterator[str]:
    """Django on a fresh database of ``pair`` (see the module docstring); yields its name."""
    name = f"t_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(pair.primary_url(), autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}" TEMPLATE "{TEMPLATE}"'.encode())
    pair.wait_for_replay()
    default = connections["default"]
    saved = dict(default.settings_dict)
    default.close()
    default.settings_dict.update(_point(pair.primary_port, name))
    _forget_replica_connection()
    connections.settings[replica.REPLICA]["NAME"] = name  # the dict every replica connection reads
    replica.forget_standing()
    try:
        ensure_system_accounts()  # as migration 0003 leaves them
        yield name
    finally:
        _forget_replica_connection()
        connections.settings[replica.REPLICA]["NAME"] = TEMPLATE
        default.close()
        default.settings_dict.clear()
        default.settings_dict.update(saved)
        replica.forget_standing()
        with contextlib.suppress(psycopg.Error), psycopg.connect(pair.primary_url(), autocommit=True) as conn:
            conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)'.encode())
