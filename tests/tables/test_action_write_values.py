"""A tap writes its action and settlements from plain values (``casino.rows.plain_values``), not
instances: the values must be the ones ``Model.save`` would send for the same instance."""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.utils import timezone

from casino.rows import db_values, plain_values
from tables import sql
from tables.models import RoundAction, RoundSettlement


def _comparable(values: list[Any]) -> list[Any]:
    """JSON goes to psycopg wrapped in an adapter with no equality of its own: its type and value."""
    return [(type(v).__name__, v.obj) if hasattr(v, "obj") else v for v in values]


def test_an_actions_values_are_what_save_would_send(monkeypatch: pytest.MonkeyPatch) -> None:
    moment = dt.datetime(2026, 3, 4, 5, 6, 7, tzinfo=dt.UTC)
    monkeypatch.setattr(timezone, "now", lambda: moment)  # what auto_now_add stamps
    payload = {"type": "bet", "player": 7, "ranks": ["Q"], "amount": 500, "limits": {"min_bet": 100}}
    action = RoundAction(round_id=11, seq=4, payload=payload, actor_id=3, transfer_id=99)
    plain = {"round_id": 11, "seq": 4, "payload": payload, "actor_id": 3, "at": moment, "transfer_id": 99}
    expected = _comparable(db_values(sql.ACTION_FIELDS, action, adding=True))
    assert _comparable(plain_values(sql.ACTION_FIELDS, plain)) == expected
    payload_at = [f.attname for f in sql.ACTION_FIELDS].index("payload")
    assert expected[payload_at][1] == payload  # adapted for psycopg, as save() adapts it


def test_a_settlements_values_are_what_save_would_send_its_left_out_fields_defaulted() -> None:
    row = {
        "round_id": 11,
        "transfer_id": 99,
        "kind": "bet",
        "from_account": "wallet:7",
        "to_account": "layout:2:7",
        "amount": 500,
        "player_id": 7,
    }
    expected = db_values(sql.SETTLEMENT_FIELDS, RoundSettlement(**row), adding=True)
    assert plain_values(sql.SETTLEMENT_FIELDS, row) == expected
    voided_at = [f.attname for f in sql.SETTLEMENT_FIELDS].index("voided_by_id")  # not in row: defaulted
    assert plain_values(sql.SETTLEMENT_FIELDS, row)[voided_at] is None
