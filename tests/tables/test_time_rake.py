"""The time rake (GAMES.md "Pots are owed to players": ``{"kind": "time", …}``).

Each seated player pays ``amount`` at the start of every ``minutes`` period, the first at
sit-down, into house rake revenue; a wallet that cannot cover a period pays what it has
available (never from a round's reserve hold, never below zero). Charged by
``tables.rake.charge_time_rake(now=…)``, here with moments in the future. Tables and
rounds go through the HTTP API; the summary at closing shows the rake.
"""

from __future__ import annotations

import datetime as dt

from django.utils import timezone

from ledger.models import Account, AccountKind
from tables.rake import charge_time_rake
from tests.factories import ApiFloor, table_money

RAKE = {"kind": "time", "amount": 50, "minutes": 30}
TRAY = 10_000


def test_time_rake_per_seated_player_per_period_paid_in_part_from_what_is_available(floor: ApiFloor) -> None:
    table = floor.open_table(
        game="stakes",
        min_bet=100,
        max_bet=1_000,
        ante=100,
        rules={"variant": "page_one", "rake": RAKE},
        inventory=TRAY,
    )
    tid = table["id"]
    assert table["rules"]["rake"] == RAKE
    p1, p2, p3, p4 = players = [floor.new_player(buy_in=amount) for amount in (5_000, 3_100, 120, 1_000)]
    for seat, player in enumerate(players, start=1):
        floor.seat(tid, player, seat)
    start = table_money(tid, players)
    sat = timezone.now()

    # At sit-down each seated player owes the first period: 50 each.
    charge_time_rake(now=sat)
    money = table_money(tid, players)
    assert [money[f"wallet:{p}"] for p in players] == [4_950, 3_050, 70, 950]
    assert money["rake"] == 200

    # A stakes round holds a reserve of 30 chips (3 000): p3 (70) and p4 (950) are not dealt in;
    # p2 has 50 available beside its hold.
    round_ = floor.start_round(tid, "manual")
    assert round_["players"] == [p2, p1]  # p1 deals: p2 is on its left
    assert floor.balance(p2)["available"] == 50
    floor.expect(floor.client(floor.dealer).delete(f"/api/v1/tables/{tid}/seats/{p4}"), 204)  # p4 leaves

    # 75 minutes on, periods 2 and 3 are due for everyone still seated:
    # p1 pays 100; p2 pays 50 then nothing (its reserve is not touched); p3 pays 50 then the
    # 20 it has left. p4 has left and pays nothing more.
    charge_time_rake(now=sat + dt.timedelta(minutes=75))
    money = table_money(tid, players)
    assert [money[f"wallet:{p}"] for p in players] == [4_850, 3_000, 0, 950]
    assert money["rake"] == 200 + 100 + 50 + 70
    held = floor.balance(p2)
    assert (held["available"], held["in_play"]) == (0, 3_000)
    assert floor.balance(p3)["total"] == 0
    # A period is charged once, however often the schedule runs.
    charge_time_rake(now=sat + dt.timedelta(minutes=75))
    assert table_money(tid, players) == money

    rows = floor.get(floor.cashier, f"players/{p3}/transactions")["results"]
    assert [(row["kind"], row["amount"], row["table"]) for row in rows] == [
        ("rake", -20, tid),
        ("rake", -50, tid),
        ("rake", -50, tid),
        ("buy_in", 120, None),
    ]

    # The round settles as usual (p2 wins one stake from p1); chips are conserved with the rake.
    round_ = floor.act(round_["id"], {"type": "result", "winner": p2})
    money = table_money(tid, players)
    assert [money[f"wallet:{p}"] for p in players] == [4_750, 3_100, 0, 950]
    assert sum(money.values()) == sum(start.values())
    assert Account.objects.get(code="rake").kind == AccountKind.REVENUE  # house revenue, not a pot

    summary = floor.close_table(tid, TRAY)
    assert summary["rake"] == 420  # 4 x 50, then 100 + 50 + 70
    assert (summary["pot_splits"], summary["win"], summary["variance"]) == ([], 0, 0)
    # A closed table charges no more periods.
    charge_time_rake(now=sat + dt.timedelta(minutes=200))
    assert table_money(tid, players) == money


def test_time_rake_on_a_pot_game_never_touches_a_live_rounds_reserve(floor: ApiFloor) -> None:
    rules = {"rake": {"kind": "time", "amount": 75, "minutes": 60}}
    table = floor.open_table(
        game="fan_tan", min_bet=100, max_bet=1_000, ante=100, rules=rules, inventory=TRAY
    )
    tid = table["id"]
    players = [floor.new_player(buy_in=amount) for amount in (3_200, 3_200, 3_300)]
    for player in players:
        floor.seat(tid, player)
    sat = timezone.now()
    start = table_money(tid, players)
    # Reserves: p2 (18 cards) 100 + 3 000; p3 and p1 200 + 3 000. p1 and p3 have nothing
    # available beside them; p2 has 100.
    round_ = floor.start_round(tid, "manual")
    p1, p2, p3 = players
    assert round_["players"] == [p2, p3, p1]
    assert [floor.balance(p)["available"] for p in players] == [0, 100, 100]
    # Period 1 (75 each) and, 61 minutes on, period 2: only what is available pays.
    charge_time_rake(now=sat + dt.timedelta(minutes=61))
    assert [floor.balance(p)["available"] for p in players] == [0, 0, 0]
    assert [floor.balance(p)["in_play"] for p in players] == [3_000, 3_000, 3_000]
    money = table_money(tid, players)
    assert money["rake"] == 200  # p2 75 + 25, p3 75 + 25
    assert money["pot:main"] == 500
    assert sum(money.values()) == sum(start.values())
