"""``ledger.kept_cursor``: the hot statements' one cursor per connection behaves as Django's own.

Kept, it spares psycopg building its adaptation state again on every statement; it must still
be logged where Django logs queries (the query budgets count it), raise Django's errors, and
follow the connection when Django opens a new one.
"""

from __future__ import annotations

import pytest
from django.db import ProgrammingError, connection, transaction
from django.test.utils import CaptureQueriesContext

from ledger.kept_cursor import kept_cursor

pytestmark = pytest.mark.django_db


def test_the_same_psycopg_cursor_serves_every_statement_on_a_connection() -> None:
    first, second = kept_cursor(), kept_cursor()
    assert first.cursor is second.cursor
    first.execute("SELECT %s::int", [1])
    assert first.fetchone() == (1,)
    second.execute("SELECT %s::text", ["two"])
    assert second.fetchone() == ("two",)


def test_its_statements_are_logged_where_djangos_are() -> None:
    with CaptureQueriesContext(connection) as queries:
        cursor = kept_cursor()
        cursor.execute("SELECT %s::int + 1", [41])
        assert cursor.fetchone() == (42,)
    assert [q["sql"] for q in queries.captured_queries] == ["SELECT 41::int + 1"]


def test_a_failing_statement_raises_djangos_error_and_the_cursor_serves_on() -> None:
    with pytest.raises(ProgrammingError), transaction.atomic():
        kept_cursor().execute("SELECT no_such_column FROM ledger_account")
    cursor = kept_cursor()
    cursor.execute("SELECT 7")
    assert cursor.fetchone() == (7,)


@pytest.mark.django_db(transaction=True)
def test_a_new_connection_gets_a_new_cursor() -> None:
    before = kept_cursor().cursor
    connection.close()
    after = kept_cursor()
    assert after.cursor is not before
    assert before.connection.closed  # the old connection went with it
    after.execute("SELECT 1")
    assert after.fetchone() == (1,)
