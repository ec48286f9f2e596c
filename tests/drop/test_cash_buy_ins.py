"""Cash at the table (API.md "The drop and the count"): ``POST /tables/{id}/cash-buy-ins``."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from django.db import connection
from rest_framework.test import APIClient

from casino.models import ActionLog, Player, Role, User
from ledger.models import Account, Entry, Transfer
from ledger.selectors import get_trial_balance
from tables.accounts import TABLE_CASH, drop_code
from tables.drop.models import DropBox
from tables.models import Table
from tests import factories

pytestmark = pytest.mark.django_db


def _url(table: Table) -> str:
    return f"/api/v1/tables/{table.pk}/cash-buy-ins"


def _balance(code: str) -> int:
    return Account.objects.get(code=code).balance


def test_a_cash_buy_in_moves_chips_to_the_player_and_records_the_cash_into_a_new_box(
    open_table: Table, dealer: User, player: Player, login: Any
) -> None:
    response = login(dealer).post(_url(open_table), {"player": player.pk, "amount": 50_000}, format="json")

    assert response.status_code == 201, response.content
    body = response.json()
    box = DropBox.objects.get(table=open_table)
    assert body == {"transfer_id": body["transfer_id"], "balance": 50_000, "drop_box": box.pk}
    assert (box.status, box.recorded, box.sequence, box.number) == (
        "at_table",
        50_000,
        1,
        f"BOX-{open_table.pk}-0001",
    )
    transfer = Transfer.objects.get(pk=body["transfer_id"])
    assert transfer.kind == "cash_buy_in"
    legs = sorted(
        (e.account.code, e.amount) for e in Entry.objects.filter(transfer=transfer).select_related("account")
    )
    assert legs == sorted(
        [
            (open_table.tray.code, -50_000),
            (player.wallet.code, 50_000),
            (TABLE_CASH, -50_000),
            (drop_code(box.pk), 50_000),
        ]
    )
    assert _balance(open_table.tray.code) == 50_000
    assert _balance(drop_code(box.pk)) == 50_000
    assert get_trial_balance().balanced
    assert ActionLog.objects.filter(action="drop.cash_buy_in", actor=dealer).count() == 1


def test_the_next_buy_in_goes_into_the_same_box(
    open_table: Table, dealer: User, player: Player, other_player: Player, login: Any
) -> None:
    client = login(dealer)
    first = client.post(_url(open_table), {"player": player.pk, "amount": 10_000}, format="json").json()
    second = client.post(_url(open_table), {"player": other_player.pk, "amount": 2_500}, format="json").json()

    assert first["drop_box"] == second["drop_box"]
    assert DropBox.objects.get(pk=first["drop_box"]).recorded == 12_500
    assert _balance(drop_code(first["drop_box"])) == 12_500


@pytest.mark.parametrize(
    ("body", "status", "code"),
    [
        ({"amount": 0}, 400, "invalid"),
        ({"amount": -500}, 400, "invalid"),
        ({"amount": "500"}, 400, "invalid"),
        ({"player": 0}, 400, "invalid"),
        ({"player": 987_654_321}, 404, "not_found"),
        ({"amount": 100_001}, 409, "insufficient_funds"),
    ],
    ids=["zero", "negative", "text", "bad id", "unknown player", "tray short"],
)
def test_a_refused_buy_in_says_why_and_moves_nothing(
    open_table: Table, dealer: User, player: Player, login: Any, body: dict[str, Any], status: int, code: str
) -> None:
    transfers = Transfer.objects.count()

    response = login(dealer).post(
        _url(open_table), {"player": player.pk, "amount": 5_000, **body}, format="json"
    )

    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert error["code"] == code
    assert error["message"]
    assert Transfer.objects.count() == transfers
    assert not DropBox.objects.filter(table=open_table, recorded__gt=0).exists()


def test_a_tray_too_short_says_so_in_dollars(
    open_table: Table, dealer: User, player: Player, login: Any
) -> None:
    response = login(dealer).post(_url(open_table), {"player": player.pk, "amount": 150_000}, format="json")

    assert response.status_code == 409
    message = response.json()["error"]["message"]
    assert "$1,000.00" in message
    assert "$500.00 more" in message
    assert "Nothing moved" in message


def test_a_closed_table_sells_no_chips(table: Table, dealer: User, player: Player, login: Any) -> None:
    response = login(dealer).post(_url(table), {"player": player.pk, "amount": 5_000}, format="json")

    assert response.status_code == 409
    assert response.json()["error"]["code"] == "table_closed"
    assert not DropBox.objects.exists()


@pytest.mark.parametrize("role", [Role.DEALER, Role.PIT_BOSS, Role.CASHIER, Role.COUNT_TEAM, Role.AUDITOR])
def test_only_the_tables_own_dealer_sells_chips_for_cash(
    open_table: Table, player: Player, login: Any, role: str
) -> None:
    response = login(factories.staff(role)).post(
        _url(open_table), {"player": player.pk, "amount": 5_000}, format="json"
    )

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "forbidden"
    assert not DropBox.objects.exists()


def test_a_retry_with_the_same_key_replays_and_moves_nothing(
    open_table: Table, dealer: User, player: Player, login: Any
) -> None:
    client = login(dealer)
    key = {"Idempotency-Key": "cash-7"}
    first = client.post(_url(open_table), {"player": player.pk, "amount": 5_000}, format="json", headers=key)
    again = client.post(_url(open_table), {"player": player.pk, "amount": 5_000}, format="json", headers=key)
    other = client.post(_url(open_table), {"player": player.pk, "amount": 6_000}, format="json", headers=key)

    assert (first.status_code, again.status_code, other.status_code) == (201, 201, 409)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert other.json()["error"]["code"] == "idempotency_conflict"
    assert DropBox.objects.get(table=open_table).recorded == 5_000
    assert Transfer.objects.filter(kind="cash_buy_in").count() == 1


@pytest.mark.django_db(transaction=True)
def test_concurrent_retries_of_one_buy_in_make_one_transfer() -> None:
    """Six clients send one cash buy-in with one key at once: one transfer, one box, recorded once."""
    from ledger.services import ensure_system_accounts

    ensure_system_accounts()
    dealer = factories.staff(Role.DEALER)
    table = factories.TableFactory(actor=factories.staff(Role.PIT_BOSS), dealer=dealer)
    factories.open_table_for(table, inventory=100_000)
    player = factories.PlayerFactory(actor=factories.staff(Role.CASHIER))
    token = factories.token_for(dealer)
    n = 6
    barrier = threading.Barrier(n)
    results: list[tuple[int, Any]] = []
    errors: list[BaseException] = []
    lock = threading.Lock()

    def retry() -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            barrier.wait(timeout=30)
            response = client.post(
                _url(table),
                {"player": player.pk, "amount": 7_500},
                format="json",
                headers={"Idempotency-Key": "k1"},
            )
            with lock:
                results.append((response.status_code, response.json()))
        except BaseException as error:
            with lock:
                errors.append(error)
        finally:
            connection.close()

    threads = [threading.Thread(target=retry) for _ in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert not errors
    assert [status for status, _ in results] == [201] * n
    assert len({body["transfer_id"] for _, body in results}) == 1
    assert Transfer.objects.filter(kind="cash_buy_in").count() == 1
    assert DropBox.objects.get(table=table).recorded == 7_500
    assert Account.objects.get(pk=player.wallet_id).balance == 7_500


@pytest.mark.django_db(transaction=True)
def test_concurrent_buy_ins_at_a_table_with_no_box_place_one_box() -> None:
    """Different buy-ins at once at a table with no box yet: one box takes them all."""
    from ledger.services import ensure_system_accounts

    ensure_system_accounts()
    dealer = factories.staff(Role.DEALER)
    table = factories.TableFactory(actor=factories.staff(Role.PIT_BOSS), dealer=dealer)
    factories.open_table_for(table, inventory=100_000)
    player = factories.PlayerFactory(actor=factories.staff(Role.CASHIER))
    token = factories.token_for(dealer)
    n = 5
    barrier = threading.Barrier(n)
    statuses: list[int] = []
    lock = threading.Lock()

    def buy(i: int) -> None:
        try:
            client = APIClient()
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
            barrier.wait(timeout=30)
            response = client.post(_url(table), {"player": player.pk, "amount": 1_000 + i}, format="json")
            with lock:
                statuses.append(response.status_code)
        finally:
            connection.close()

    threads = [threading.Thread(target=buy, args=(i,)) for i in range(n)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)

    assert statuses == [201] * n
    box = DropBox.objects.get(table=table)
    assert box.recorded == sum(1_000 + i for i in range(n))
    assert Account.objects.get(code=drop_code(box.pk)).balance == box.recorded
    assert get_trial_balance().balanced


def test_closing_the_table_reports_the_cash_recorded_into_its_box_as_the_drop(
    open_table: Table, dealer: User, player: Player, login: Any, counter: User
) -> None:
    """API.md: a session's ``drop`` is the cash recorded into the table's drop box, across a box
    removed mid-session and the one that replaced it."""
    client = login(dealer)
    first = client.post(_url(open_table), {"player": player.pk, "amount": 20_000}, format="json").json()
    removed = login(counter).post(
        f"/api/v1/drop-boxes/{first['drop_box']}/remove", {"seal": "S-1"}, format="json"
    )
    assert removed.status_code == 200, removed.content
    assert (
        client.post(_url(open_table), {"player": player.pk, "amount": 5_000}, format="json").status_code
        == 201
    )

    closed = client.post(
        f"/api/v1/tables/{open_table.pk}/close", {"closing_inventory": 75_000}, format="json"
    )

    assert closed.status_code == 200, closed.content
    assert closed.json()["drop"] == 25_000
