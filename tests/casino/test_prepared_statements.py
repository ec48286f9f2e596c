"""Statements bound and prepared on the server (``DB_PREPARE_THRESHOLD``, casino/settings/base.py).

A tap's few statements are the same on every tap; prepared, PostgreSQL parses and plans each
once per connection instead of on every run (bench/README.md has what it was worth).
"""

from __future__ import annotations

from django.conf import settings
from django.db import connection

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
