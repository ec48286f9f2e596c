"""The cage: buy-ins and cash-outs move chips between the cage and a player's wallet."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.models import ActionLog, Player, User
from casino.services import buy_in
from ledger.models import Account, AccountKind, AccountPurpose, Entry, Transfer
from ledger.services import Leg, hold, open_account, post_transfer
from tables.accounts import layout_code, open_layout
from tables.models import Table

Login = Callable[[Any], APIClient]


def _balance(player: Player) -> int:
    return Account.objects.get(pk=player.wallet_id).balance


def _cage_side(transfer: Transfer) -> int:
    """What the transfer did to the cage (whose balance other test sessions move too)."""
    return sum(transfer.entries.filter(account__code="cage").values_list("amount", flat=True))


@pytest.mark.django_db
def test_buy_in_issues_chips_from_the_cage(login: Login, cashier: User, player: Player) -> None:
    response = login(cashier).post(
        "/api/v1/cage/buy-ins", {"player": player.pk, "amount": 25_000}, format="json"
    )

    assert response.status_code == 201
    transfer = Transfer.objects.get(pk=response.json()["transfer_id"])
    assert response.json() == {"transfer_id": transfer.pk, "balance": 25_000}
    assert transfer.kind == "buy_in"
    assert transfer.meta == {"player": player.pk, "staff": cashier.pk}
    assert _balance(player) == 25_000
    assert _cage_side(transfer) == -25_000
    assert sorted(transfer.entries.values_list("amount", flat=True)) == [-25_000, 25_000]
    log = ActionLog.objects.get(action="cage.buy_in", object_id=str(transfer.pk))
    assert (log.actor, log.object_type, log.object_id) == (cashier, "transfer", str(transfer.pk))
    assert log.data == {"player": player.pk, "amount": 25_000}


@pytest.mark.django_db
@pytest.mark.parametrize(("bought", "out"), [(25_000, 10_000), (7_500, 7_500)], ids=["part", "everything"])
def test_cash_out_returns_chips_to_the_cage(
    login: Login, cashier: User, player: Player, bought: int, out: int
) -> None:
    buy_in(actor=cashier, player=player, amount=bought)

    response = login(cashier).post(
        "/api/v1/cage/cash-outs", {"player": player.pk, "amount": out}, format="json"
    )

    assert response.status_code == 201
    assert response.json()["balance"] == bought - out
    assert _balance(player) == bought - out
    transfer = Transfer.objects.get(pk=response.json()["transfer_id"])
    assert transfer.kind == "cash_out"
    assert _cage_side(transfer) == out
    assert ActionLog.objects.filter(
        action="cage.cash_out", actor=cashier, object_id=str(transfer.pk)
    ).exists()


@pytest.mark.django_db
def test_cash_out_beyond_available_moves_nothing(login: Login, cashier: User, player: Player) -> None:
    buy_in(actor=cashier, player=player, amount=5_000)
    entries = Entry.objects.filter(account_id=player.wallet_id).count()

    response = login(cashier).post(
        "/api/v1/cage/cash-outs", {"player": player.pk, "amount": 5_001}, format="json"
    )

    assert response.status_code == 409
    error = response.json()["error"]
    assert error["code"] == "insufficient_funds"
    assert error["fields"]["available"] == 5_000
    assert error["message"] == (
        f"{player.name} has $50.00 available; a cash-out of $50.01 needs $0.01 more. Nothing moved."
    )
    assert _balance(player) == 5_000
    assert Entry.objects.filter(account_id=player.wallet_id).count() == entries
    assert not Transfer.objects.filter(kind="cash_out", meta__player=player.pk).exists()
    assert not ActionLog.objects.filter(action="cage.cash_out", data__player=player.pk).exists()


@pytest.mark.django_db
def test_held_reserves_are_not_available(login: Login, cashier: User, player: Player) -> None:
    buy_in(actor=cashier, player=player, amount=10_000)
    hold(key=f"reserve:{player.pk}:round", account_code=player.wallet.code, amount=6_000)
    client = login(cashier)

    refused = client.post("/api/v1/cage/cash-outs", {"player": player.pk, "amount": 4_001}, format="json")
    balance = client.get(f"/api/v1/players/{player.pk}/balance").json()
    allowed = client.post("/api/v1/cage/cash-outs", {"player": player.pk, "amount": 4_000}, format="json")

    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "insufficient_funds"
    assert (balance["available"], balance["in_play"], balance["total"]) == (4_000, 6_000, 10_000)
    assert allowed.status_code == 201
    assert allowed.json()["balance"] == 0
    after = client.get(f"/api/v1/players/{player.pk}/balance").json()
    assert (after["available"], after["in_play"], after["total"]) == (0, 6_000, 6_000)


@pytest.mark.django_db
def test_balance_counts_layouts_and_holds_but_not_pots(
    login: Login, cashier: User, player: Player, other_player: Player, table: Table
) -> None:
    buy_in(actor=cashier, player=player, amount=20_000)
    buy_in(actor=cashier, player=other_player, amount=20_000)
    holder = f"user:{player.user_id}"
    open_layout(table_id=table.pk, player_id=player.pk, holder=holder)
    open_layout(table_id=table.pk, player_id=other_player.pk, holder=f"user:{other_player.user_id}")
    pot = open_account(code=f"pot:{table.pk}:main", kind=AccountKind.LIABILITY, purpose=AccountPurpose.POT)
    post_transfer(
        key=f"bet:{player.pk}",
        kind="bet",
        legs=[Leg(debit=player.wallet.code, credit=layout_code(table.pk, player.pk), amount=2_500)],
    )
    post_transfer(
        key=f"bet:{other_player.pk}",
        kind="bet",
        legs=[
            Leg(debit=other_player.wallet.code, credit=layout_code(table.pk, other_player.pk), amount=4_000)
        ],
    )
    post_transfer(
        key=f"ante:{player.pk}",
        kind="ante",
        legs=[Leg(debit=player.wallet.code, credit=pot.code, amount=1_000)],
    )
    hold(key=f"reserve:{player.pk}", account_code=player.wallet.code, amount=3_000)

    body = login(player.user).get("/api/v1/players/me/balance").json()

    # wallet 16_500 of which 3_000 held; 2_500 on the layout; the 1_000 ante belongs to the pot.
    assert body["available"] == 13_500
    assert body["in_play"] == 2_500 + 3_000
    assert body["total"] == body["available"] + body["in_play"] == 19_000


@pytest.mark.django_db
def test_unknown_player_is_404_and_moves_nothing(login: Login, cashier: User) -> None:
    response = login(cashier).post("/api/v1/cage/buy-ins", {"player": 987_654, "amount": 100}, format="json")

    assert response.status_code == 404
    assert response.json()["error"]["fields"] == {"player": 987_654}
    assert not Transfer.objects.filter(meta__player=987_654).exists()
