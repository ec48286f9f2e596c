"""Gaming days with a drop, played through the API in the past (``time_machine``) for the audit's
win-and-hold tests: cash bought in at a Faro table, a bet lost, the table closed on its count,
the box removed and counted by two count team members and taken in by the cashier."""

from __future__ import annotations

import datetime as dt
from typing import Any

import time_machine

from casino.models import Role, User
from ledger.gaming_day import gaming_day_bounds
from tables.drop.models import DropBox, DropBoxStatus
from tables.slips.services import sign_slip
from tests.factories import ApiFloor, staff

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")


def evening(day: dt.date) -> dt.datetime:
    return gaming_day_bounds(day)[0] + dt.timedelta(hours=14)


def signed_in_again(floor: ApiFloor) -> None:
    """Tokens last ``TOKEN_TTL_HOURS``: on another day (the clock moved) everyone signs in anew."""
    floor._clients.clear()


def lose_a_bet(floor: ApiFloor, table: int, player: int, amount: int) -> None:
    """A manual Faro deal: the player's bet on the nine loses on the first turn, then the deck is
    keyed out with nothing else on the layout."""
    round_id = floor.start_round(table, "manual")["id"]
    floor.act(round_id, {"type": "soda", "card": "3D"})
    floor.act(round_id, {"type": "bet", "player": player, "ranks": ["9"], "amount": amount})
    floor.act(round_id, {"type": "turn", "cards": ["9S", "KH"]})
    state = floor.round(round_id)["state"]
    out = {state["soda"]} | {t[k] for t in state["turns"] for k in ("banker", "player")}
    rest = [rank + suit for suit in "SHDC" for rank in RANKS if rank + suit not in out]
    for i in range(0, len(rest) - 3, 2):
        floor.act(round_id, {"type": "turn", "cards": rest[i : i + 2]})
    floor.act(round_id, {"type": "last_turn", "cards": rest[-3:]})


def cash_buy_in(floor: ApiFloor, table: int, player: int, amount: int) -> None:
    floor.post(floor.dealer, f"tables/{table}/cash-buy-ins", {"player": player, "amount": amount}, 201)


def count_box(floor: ApiFloor, team: list[User], table: int, bills: dict[str, int]) -> None:
    """The count team removes the table's box under seal and counts it; a second member signs,
    then the cashier takes the cash into the cage."""
    box = DropBox.objects.get(table_id=table, status=DropBoxStatus.AT_TABLE)
    floor.post(team[0], f"drop-boxes/{box.pk}/remove", {"seal": f"S-{box.pk}"}, 200)
    slip = floor.post(team[0], f"drop-boxes/{box.pk}/count", {"currency": bills}, 200)
    sign_slip(actor=team[1], slip_id=slip["id"])
    sign_slip(actor=floor.cashier, slip_id=slip["id"])


def short_drop_day(day: dt.date) -> dict[str, Any]:
    """Faro: opener $1,000.00; cash buy-ins of $500.00 and $200.00; a $10.00 bet lost; closer
    $310.00; the box counted $400.00 of the $700.00 recorded. Win −$290.00 on a drop of $400.00,
    the ledger's $10.00: a hold no Faro game gives."""
    floor = ApiFloor()
    team = [staff(Role.COUNT_TEAM, name="Cora Count"), staff(Role.COUNT_TEAM, name="Cole Count")]
    with time_machine.travel(evening(day), tick=True):
        table = floor.open_table(game="faro", min_bet=100, max_bet=10_000, inventory=100_000)
        table_id = int(table["id"])
        ann, bea = floor.new_player(buy_in=0), floor.new_player(buy_in=0)
        floor.seat(table_id, ann, 1)
        floor.seat(table_id, bea, 2)
        cash_buy_in(floor, table_id, ann, 50_000)
        cash_buy_in(floor, table_id, bea, 20_000)
        lose_a_bet(floor, table_id, ann, 1_000)
        floor.close_table(table_id, 31_000)
        count_box(floor, team, table_id, {"10000": 4})
    signed_in_again(floor)
    return {"floor": floor, "table": table_id, "name": table["name"], "team": team}
