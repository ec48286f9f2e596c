"""Issue 21 item 10: the CSV says its unit, and the cash-flow line stops at the day's last data."""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

from tables.audit.charts import cash_flow, running_net
from tables.audit.render_csv import sections

START = dt.datetime(2026, 3, 2, 6, tzinfo=dt.timezone(dt.timedelta(hours=-8)))


def _hours(moved: dict[int, tuple[int, int]]) -> list[dict[str, Any]]:
    hours = []
    for i in range(24):
        cash_in, cash_out = moved.get(i, (0, 0))
        start = START + dt.timedelta(hours=i)
        hours.append(
            {"hour": start.strftime("%H:00"), "start": start.isoformat(), "cash_in": cash_in,
             "cash_out": cash_out, "fills": 0, "credits": 0}
        )  # fmt: skip
    return hours


def _report(**overrides: Any) -> dict[str, Any]:
    report: dict[str, Any] = {
        "gaming_day": "2026-03-02",
        "summary": {"tables": 1, "handle": 10_000, "cash_in": 25_000, "rounds": 3, "bets": 4},
        "findings": [],
        "variances": [],
        "tables": [],
        "dealers": [],
        "players": [{"id": 1, "name": "Kate Elder", "cash_in": 25_000, "cash_out": 1_500, "handle": 900}],
        "cash_flow": _hours({}),
        "cage": {"mtl": [], "ctr": []},
        "checks": [],
        "trial_balance": {
            "by_purpose": [{"purpose": "cage", "accounts": 1, "debits": 5, "credits": 7, "balance": -2}],
            "total_debits": 5,
            "total_credits": 7,
            "sum_of_balances": -2,
        },
        "corrections": [],
        "closed": {"at": (START + dt.timedelta(hours=24)).isoformat(), "by": "", "forced": False},
    }
    report.update(overrides)
    return report


def _header(files: dict[str, bytes], name: str) -> list[str]:
    return next(csv.reader(io.StringIO(files[name].decode())))


def test_csv_money_columns_are_named_in_cents_and_counts_are_not() -> None:
    files = sections(_report())
    summary = _header(files, "summary.csv")
    assert {"handle_cents", "house_win_cents", "cash_in_cents", "fills_cents", "theo_cents"} <= set(summary)
    assert {"tables", "rounds", "bets", "players"} <= set(summary)
    assert not {"handle", "cash_in", "fills"} & set(summary)
    tables = _header(files, "tables.csv")
    for column in (
        "opener_cents",
        "closer_cents",
        "win_cents",
        "ledger_win_cents",
        "variance_cents",
        "rake_cents",
    ):
        assert column in tables
    assert {"rounds", "bets", "sessions", "hold_pct", "theo_band_low_pct"} <= set(tables)
    assert {"debits_cents", "credits_cents", "balance_cents", "accounts"} <= set(
        _header(files, "trial_balance.csv")
    )
    assert "amount_cents" in _header(files, "findings.csv")
    assert "amount_reversed_cents" in _header(files, "corrections.csv")
    players = list(csv.DictReader(io.StringIO(files["players.csv"].decode())))
    assert (players[0]["cash_in_cents"], players[0]["cash_out_cents"], players[0]["handle_cents"]) == (
        "25000",
        "1500",
        "900",
    )


def test_the_cash_flow_line_stops_at_the_last_hour_with_data() -> None:
    report = _report(cash_flow=_hours({0: (50_000, 0), 3: (0, 20_000)}))
    assert running_net(report) == [50_000, 50_000, 50_000, 30_000]  # not on to 06:00 next morning
    assert cash_flow(report).startswith(b"\x89PNG")


def test_the_cash_flow_line_stops_at_an_early_close() -> None:
    closed = (START + dt.timedelta(hours=2, minutes=30)).isoformat()
    report = _report(
        cash_flow=_hours({0: (50_000, 0), 5: (10_000, 0)}), closed={"at": closed, "forced": True}
    )
    assert running_net(report) == [50_000, 50_000, 50_000]


def test_a_quiet_day_has_no_line() -> None:
    assert running_net(_report()) == []
    assert cash_flow(_report()).startswith(b"\x89PNG")
