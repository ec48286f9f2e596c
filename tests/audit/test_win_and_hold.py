"""Issue 47, done when: one table through days with known figures, win as the regulator reads it.

A Faro table plays three gaming days, everything through the API but the fill and the credit
(their slips' services, as tests/audit/test_fills_and_credits_audit.py drives them):

* 20 February: opener $1,000.00; a cash buy-in of $100.00; a $20.00 bet lost; closer $920.00;
  the box counted $100.00. Win $20.00.
* 10 March: opener $920.00; a fill of $300.00, a credit of $100.00; cash buy-ins of $200.00 and
  $150.00; a $10.00 bet lost; closer $780.00; the box counted $350.00. Win $10.00, as the ledger.
* 11 March: opener $780.00; a cash buy-in of $500.00; a $50.00 bet lost; closer counted $325.00
  (the tray held $330.00: $5.00 short); the box counted $490.00 ($10.00 short). Win $35.00 against
  the ledger's $50.00: the $15.00 is the two count variances, line by line.

Month to date on 11 March is the two March days; year to date adds February.
"""

from __future__ import annotations

import datetime as dt
import itertools
from typing import Any

import pytest
import time_machine

from casino.models import Role, User
from tables.api.win_views import WinOutputSerializer
from tables.slips.services import sign_slip
from tables.slips.transit import approve_transit_slip, request_transit_slip
from tests.audit.drop_days import cash_buy_in, count_box, evening, lose_a_bet, signed_in_again
from tests.factories import ApiFloor, staff

pytestmark = pytest.mark.django_db

FEB_20, MAR_10, MAR_11 = dt.date(2026, 2, 20), dt.date(2026, 3, 10), dt.date(2026, 3, 11)
FIGURES = ("drop", "fills", "credits", "opener", "closer", "win", "electronic_win", "difference")


def _transit(
    table: int, kind: str, amount: int, *, asker: User, approver: User, receivers: list[User]
) -> None:
    slip = request_transit_slip(actor=asker, table_id=table, kind=kind, amount=amount)
    approve_transit_slip(actor=approver, table_id=table, slip_id=slip.pk, kind=kind, password_confirmed=True)
    for signer in receivers:
        sign_slip(actor=signer, slip_id=slip.pk)


@pytest.fixture
def three_days(system_accounts: None) -> dict[str, Any]:
    floor = ApiFloor()
    team = [staff(Role.COUNT_TEAM), staff(Role.COUNT_TEAM)]
    releaser = staff(Role.PIT_BOSS)
    with time_machine.travel(evening(FEB_20), tick=True):
        table = int(floor.open_table(game="faro", min_bet=100, max_bet=10_000, inventory=100_000)["id"])
        ann, bea = floor.new_player(buy_in=0), floor.new_player(buy_in=0)
        floor.seat(table, ann, 1)
        floor.seat(table, bea, 2)
        cash_buy_in(floor, table, bea, 10_000)
        lose_a_bet(floor, table, bea, 2_000)
        floor.close_table(table, 92_000)
        count_box(floor, team, table, {"10000": 1})
    with time_machine.travel(evening(MAR_10), tick=True):
        signed_in_again(floor)
        floor.post(floor.dealer, f"tables/{table}/open", {"opening_inventory": 92_000}, 201)
        floor.seat(table, ann, 1)
        _transit(
            table,
            "fill",
            30_000,
            asker=floor.dealer,
            approver=floor.cashier,
            receivers=[floor.dealer, floor.pit_boss],
        )
        _transit(table, "credit", 10_000, asker=floor.dealer, approver=releaser, receivers=[])
        cash_buy_in(floor, table, ann, 20_000)
        cash_buy_in(floor, table, ann, 15_000)
        lose_a_bet(floor, table, ann, 1_000)
        floor.close_table(table, 78_000)
        count_box(floor, team, table, {"10000": 3, "5000": 1})
    with time_machine.travel(evening(MAR_11), tick=True):
        signed_in_again(floor)
        floor.post(floor.dealer, f"tables/{table}/open", {"opening_inventory": 78_000}, 201)
        floor.seat(table, ann, 1)
        cash_buy_in(floor, table, ann, 50_000)
        lose_a_bet(floor, table, ann, 5_000)
        assert floor.tray(table) == 33_000
        floor.close_table(table, 32_500)  # $5.00 short of the tray
        count_box(floor, team, table, {"10000": 4, "5000": 1, "2000": 2})  # $490.00 of $500.00
    signed_in_again(floor)
    return {"floor": floor, "table": table}


def _win(floor: ApiFloor, day: dt.date, by: str = "table") -> dict[str, Any]:
    auditor = staff(Role.AUDITOR)
    body = floor.get(auditor, f"gaming-days/{day.isoformat()}/win?by={by}")
    assert WinOutputSerializer(data=body).is_valid()
    return body


def _figures(row: dict[str, Any]) -> tuple[int, ...]:
    return tuple(row[k] for k in FIGURES)


def test_the_days_win_row_is_the_formula_to_the_cent(three_days: dict[str, Any]) -> None:
    floor, table = three_days["floor"], three_days["table"]

    day = _win(floor, MAR_10)
    (row,) = day["rows"]
    assert row["key"] == str(table)
    # drop, fills, credits, opener, closer, win, electronic win, difference
    assert _figures(row) == (35_000, 30_000, 10_000, 92_000, 78_000, 1_000, 1_000, 0)
    assert row["win"] == row["drop"] - row["fills"] + row["credits"] + (row["closer"] - row["opener"])
    assert row["hold"] == round(1_000 / 35_000, 4)
    assert row["explanation"] == []
    assert row["counted"]

    short = _win(floor, MAR_11)
    (row,) = short["rows"]
    assert _figures(row) == (49_000, 0, 0, 78_000, 32_500, 3_500, 5_000, -1_500)
    assert row["hold"] == round(3_500 / 49_000, 4)
    lines = {line["code"]: line["amount"] for line in row["explanation"]}
    assert lines == {"tray_count_variance": -500, "drop_count_variance": -1_000}
    assert sum(lines.values()) == row["difference"]
    assert _figures(short["totals"]) == _figures(row)


def test_month_and_year_to_date_add_the_days_up(three_days: dict[str, Any]) -> None:
    floor = three_days["floor"]
    days = {day: _win(floor, day)["totals"] for day in (FEB_20, MAR_10, MAR_11)}
    assert _figures(days[FEB_20]) == (10_000, 0, 0, 100_000, 92_000, 2_000, 2_000, 0)

    body = _win(floor, MAR_11)
    month = tuple(a + b for a, b in zip(_figures(days[MAR_10]), _figures(days[MAR_11]), strict=True))
    year = tuple(a + b for a, b in zip(month, _figures(days[FEB_20]), strict=True))
    assert (
        _figures(body["month_to_date"])
        == month
        == (84_000, 30_000, 10_000, 170_000, 110_500, 4_500, 6_000, -1_500)
    )
    assert _figures(body["year_to_date"]) == year
    assert body["month_to_date"]["hold"] == round(4_500 / 84_000, 4)
    # The first of the month: month to date is that day alone; February is still in the year.
    assert _figures(_win(floor, MAR_10)["month_to_date"]) == _figures(days[MAR_10])


def test_by_game_and_by_shift_add_up_to_the_day(three_days: dict[str, Any]) -> None:
    floor = three_days["floor"]
    total = _figures(_win(floor, MAR_11)["totals"])
    (faro,) = _win(floor, MAR_11, "game")["rows"]
    assert (faro["key"], faro["label"]) == ("faro", "Faro")
    assert _figures(faro) == total

    shifts = _win(floor, MAR_11, "shift")["rows"]
    assert [s["key"] for s in shifts] == ["Day", "Swing", "Graveyard"]
    summed = tuple(sum(s[k] for s in shifts) for k in FIGURES if k not in ("opener", "closer"))
    assert summed == tuple(v for k, v in zip(FIGURES, total, strict=True) if k not in ("opener", "closer"))
    # Every shift's win is its own formula, and the shifts' openers and closers chain.
    for before, after in itertools.pairwise(shifts):
        assert before["closer"] == after["opener"]
    assert shifts[0]["opener"] == 78_000
    assert shifts[-1]["closer"] == 32_500
    # The play was dealt at 20:00, in the swing shift (14:00 to 22:00 from a 06:00 rollover).
    assert shifts[1]["drop"] == 49_000
    assert shifts[1]["electronic_win"] == 5_000


def test_only_the_pit_and_the_auditors_read_it_and_a_bad_grouping_is_a_400(
    three_days: dict[str, Any],
) -> None:
    floor = three_days["floor"]
    response = floor.client(floor.dealer).get(f"/api/v1/gaming-days/{MAR_11}/win")
    assert response.status_code == 403
    response = floor.client(floor.pit_boss).get(f"/api/v1/gaming-days/{MAR_11}/win?by=dealer")
    assert response.status_code == 400
    assert response.json()["error"]["fields"] == {"by": "dealer"}
    assert "table, game, shift" in response.json()["error"]["message"]
    response = floor.client(floor.pit_boss).get("/api/v1/gaming-days/2026-13-01/win")
    assert response.status_code == 400
