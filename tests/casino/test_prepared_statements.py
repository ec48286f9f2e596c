"""Statements bound and prepared on the server (``DB_PREPARE_THRESHOLD``, casino/settings/base.py).

A tap's few statements are the same on every tap; prepared, PostgreSQL parses and plans each
once per connection instead of on every run (bench/README.md has what it was worth). They stay
prepared over a rollback (``casino.prepared_statements``): a refused tap no longer costs the
next taps a parse and a plan of every statement.
"""

from __future__ import annotations

from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import DataError, NotSupportedError, connection, transaction

from casino.prepared_statements import KeptOverRollbacks, keep_over_rollbacks
from tables.models import Table


def _prepared_here() -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute("SELECT statement FROM pg_prepared_statements")
        return {row[0] for row in cursor.fetchall()}


def test_a_statement_run_more_than_twice_on_a_connection_is_prepared_on_the_server(db: None) -> None:
    assert settings.DATABASES["default"]["OPTIONS"].get("prepare_threshold") == 2
    marker = "tables_table"
    before = {sql for sql in _prepared_here() if marker in sql}
    for name in ("none such 1", "none such 2", "none such 3"):  # the same statement, other values
        assert not Table.objects.filter(name=name).exists()
    prepared = {sql for sql in _prepared_here() if marker in sql} - before
    assert len(prepared) == 1, prepared
    (statement,) = prepared
    assert "$1" in statement  # bound on the server: the values are not in the text
    assert "none such" not in statement


# --------------------------------------------------------------------------- over a rollback
# casino.prepared_statements: psycopg forgets a connection's prepared statements after a rollback;
# PostgreSQL keeps them, and so does the service now.

LOOKUP = "SELECT id FROM tables_table WHERE name = %s"


def _prepare_lookup() -> str:
    """Run ``LOOKUP`` until it is prepared; the server's name for it."""
    for n in range(3):
        with connection.cursor() as cursor:
            cursor.execute(LOOKUP, [f"none such {n}"])
            assert cursor.fetchone() is None
    return _server_name_of_lookup()


def _server_name_of_lookup() -> str:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT name FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%tables_table WHERE name = $1%"],
        )
        names = [row[0] for row in cursor.fetchall()]
    assert len(names) == 1, names
    return str(names[0])


def _psycopg_names() -> set[bytes]:
    return set(connection.connection._prepared._names.values())


class Refused(Exception):
    pass


def test_the_connection_has_the_keeping_prepare_manager(db: None) -> None:
    connection.ensure_connection()
    assert isinstance(connection.connection._prepared, KeptOverRollbacks)
    assert connection.connection.prepare_threshold == 2  # the setting still reaches psycopg


def test_a_prepared_statement_is_kept_after_a_savepoint_rolls_back(db: None) -> None:
    """The test's own transaction makes every atomic block a savepoint: ROLLBACK TO SAVEPOINT."""
    name = _prepare_lookup()
    try:
        with transaction.atomic():
            Table.objects.filter(name="x").update(name="y")
            raise Refused
    except Refused:
        pass
    assert name.encode() in _psycopg_names()
    with connection.cursor() as cursor:  # runs the prepared statement, prepares no new one
        cursor.execute(LOOKUP, ["none such 9"])
    assert _server_name_of_lookup() == name


def test_a_prepared_statement_is_kept_after_a_transaction_rolls_back(transactional_db: None) -> None:
    name = _prepare_lookup()
    try:
        with transaction.atomic():  # outermost: BEGIN … ROLLBACK through psycopg's rollback()
            Table.objects.filter(name="x").update(name="y")
            raise Refused
    except Refused:
        pass
    # a statement that fails aborts the transaction on the server
    with (
        pytest.raises(DataError, match="division by zero"),
        transaction.atomic(),
        connection.cursor() as cursor,
    ):
        cursor.execute("SELECT 1 / 0")
    assert name.encode() in _psycopg_names()
    with connection.cursor() as cursor:
        cursor.execute(LOOKUP, ["none such 9"])
    assert _server_name_of_lookup() == name


def test_ddl_still_forgets_every_prepared_statement(db: None) -> None:
    """psycopg's guard against a changed schema stays: after DROP (or ALTER) it deallocates all."""
    _prepare_lookup()
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMPORARY TABLE ck_prepared_probe (n int)")
        cursor.execute("DROP TABLE ck_prepared_probe")
    assert _psycopg_names() == set()
    with connection.cursor() as cursor:  # DEALLOCATE ALL went out before this statement
        cursor.execute("SELECT count(*) FROM pg_prepared_statements")
        assert cursor.fetchone() == (0,)


def test_a_psycopg_whose_prepare_manager_moved_is_left_alone(caplog: Any) -> None:
    class Raw:
        _prepared = object()

    class Wrapper:
        vendor = "postgresql"
        connection = Raw()

    keep_over_rollbacks(sender=None, connection=Wrapper())
    assert type(Wrapper.connection._prepared) is object
    assert "prepare manager has changed" in caplog.text


def test_a_statement_refused_for_a_stale_plan_is_prepared_afresh(transactional_db: None) -> None:
    """Another session changes the type of a column a prepared statement returns (a migration
    beside the running workers): PostgreSQL refuses the statement once, and the connection then
    prepares it afresh instead of being refused until it closes."""
    settings_dict = connection.settings_dict
    other = psycopg.connect(
        dbname=settings_dict["NAME"],
        user=settings_dict["USER"] or None,
        host=settings_dict["HOST"] or None,
        port=settings_dict["PORT"] or None,
        autocommit=True,
    )
    probe = "SELECT n FROM ck_stale_plan_probe"
    try:
        other.execute("CREATE TABLE ck_stale_plan_probe (n integer)")
        for _ in range(3):  # prepared from the third run
            with connection.cursor() as cursor:
                cursor.execute(probe)
        other.execute("ALTER TABLE ck_stale_plan_probe ALTER COLUMN n TYPE bigint")
        refused = pytest.raises(NotSupportedError, match="cached plan must not change result type")
        with refused, connection.cursor() as cursor:
            cursor.execute(probe)
        for _ in range(3):  # unprepared, then prepared again: each run succeeds
            with connection.cursor() as cursor:
                cursor.execute(probe)
                assert cursor.fetchall() == []
    finally:
        other.execute("DROP TABLE IF EXISTS ck_stale_plan_probe")
        other.close()
