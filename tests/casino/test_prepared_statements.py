"""Statements bound and prepared on the server (``DB_PREPARE_THRESHOLD``, casino/settings/base.py).

A tap's few statements are the same on every tap; prepared, PostgreSQL parses and plans each
once per connection instead of on every run (bench/README.md has what it was worth). Only
psycopg's public options do it: ``prepare_threshold`` for every statement, and ``prepare=True``
for the ledger's posting call (tests/ledger/test_one_round_trip.py). After a rollback psycopg
deallocates them all, as it always does, and prepares them again as they run.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest
from django.conf import settings
from django.db import connection

from tables.models import Table
from tests.factories import ApiFloor

ROOT = Path(__file__).resolve().parents[2]


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


# What identifies each statement of a bet in its server-side text.
HOT_STATEMENTS = {
    "the token's read": "FROM casino_apitoken AS t JOIN casino_user",
    "the table's lock": "FOR UPDATE OF t",
    "the round's lock": "jsonb_agg(a.payload ORDER BY a.seq)",
    "the ledger's call": "ledger_post_transfer(",
    "the write": "WITH action AS",
}


def test_a_bets_statements_are_prepared_after_three_bets(system_accounts: None) -> None:
    """A player's first bet at a table rolls back once (its layout is opened, the bet runs
    again), so psycopg deallocates everything; three bets later every statement of a bet is
    prepared, by the public ``prepare_threshold`` alone."""
    floor = ApiFloor()
    table = floor.open_table(game="faro", min_bet=500, max_bet=50_000, inventory=1_000_000)
    player = floor.new_player(buy_in=100_000)
    floor.seat(int(table["id"]), player)
    round_ = floor.start_round(int(table["id"]), "manual")
    for rank in ("A", "2", "3", "4"):
        round_ = floor.act(
            int(round_["id"]),
            {"type": "bet", "player": player, "ranks": [rank], "amount": 500, "version": round_["version"]},
        )

    prepared = _prepared_here()
    missing = {name for name, text in HOT_STATEMENTS.items() if not any(text in sql for sql in prepared)}
    assert missing == set()


def _private_psycopg_uses(path: Path) -> list[str]:
    """Imports of psycopg's underscore modules, and reads of ``_prepared``, in one source file."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(), str(path))):
        names = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module:
            names = [node.module]
        found += [f"{path.name}: import {name}" for name in names if name.startswith("psycopg._")]
        if isinstance(node, ast.Attribute) and node.attr == "_prepared":
            found.append(f"{path.name}:{node.lineno}: ._prepared")
    return found


@pytest.mark.parametrize("package", ["casino", "ledger", "tables", "bench"])
def test_no_code_reaches_into_psycopgs_private_names(package: str) -> None:
    uses = [use for path in sorted((ROOT / package).rglob("*.py")) for use in _private_psycopg_uses(path)]
    assert uses == []
