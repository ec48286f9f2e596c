"""Hot reads cost a fixed number of queries, however many tables, seats and layouts exist."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.models import Player, User
from casino.services import buy_in
from ledger.services import Leg, post_transfer
from tables.accounts import layout_code, open_layout
from tables.services import seat_player
from tests.factories import PlayerFactory, TableFactory, open_table_for

Login = Callable[[Any], APIClient]

# The token lookup (with its user), the player (with user and wallet), the wallet with the layouts' sum.
BALANCE_QUERIES = 3
# The token lookup, the tables (with tray and dealer), their seats (with players), their open sessions.
TABLE_LIST_QUERIES = 4


def _floor(
    pit_boss: User, cashier: User, dealer: User, *, tables: int, seated_per_table: int, gambler: Player
) -> list[int]:
    """``tables`` open tables with players seated, and a bet of ``gambler`` on every layout."""
    made = []
    for _ in range(tables):
        table = TableFactory(actor=pit_boss, dealer=dealer)
        open_table_for(table)
        for _ in range(seated_per_table):
            seat_player(actor=pit_boss, table_id=table.pk, player_id=PlayerFactory(actor=cashier).pk)
        open_layout(table_id=table.pk, player_id=gambler.pk, holder=f"user:{gambler.user_id}")
        post_transfer(
            key=f"bet:{table.pk}",
            kind="bet",
            legs=[Leg(debit=gambler.wallet.code, credit=layout_code(table.pk, gambler.pk), amount=100)],
            meta={"table": table.pk},
        )
        made.append(table.pk)
    return made


@pytest.mark.parametrize("tables", [2, 10])
@pytest.mark.django_db
def test_balance_queries_do_not_grow_with_layouts(
    login: Login,
    pit_boss: User,
    cashier: User,
    dealer: User,
    player: Player,
    django_assert_num_queries: Any,
    tables: int,
) -> None:
    buy_in(actor=cashier, player=player, amount=50_000)
    _floor(pit_boss, cashier, dealer, tables=tables, seated_per_table=0, gambler=player)
    client = login(player.user)

    with django_assert_num_queries(BALANCE_QUERIES):
        response = client.get(f"/api/v1/players/{player.pk}/balance")

    assert response.json()["in_play"] == 100 * tables
    assert response.json()["available"] == 50_000 - 100 * tables


@pytest.mark.django_db
def test_balance_by_me_costs_the_same(
    login: Login, cashier: User, player: Player, django_assert_num_queries: Any
) -> None:
    buy_in(actor=cashier, player=player, amount=1_000)
    client = login(player.user)

    with django_assert_num_queries(BALANCE_QUERIES):
        assert client.get("/api/v1/players/me/balance").json()["available"] == 1_000


@pytest.mark.parametrize(("tables", "seated"), [(2, 1), (10, 2)])
@pytest.mark.django_db
def test_table_list_queries_do_not_grow_with_tables_or_seats(
    login: Login,
    pit_boss: User,
    cashier: User,
    dealer: User,
    player: Player,
    django_assert_num_queries: Any,
    tables: int,
    seated: int,
) -> None:
    buy_in(actor=cashier, player=player, amount=50_000)
    made = _floor(pit_boss, cashier, dealer, tables=tables, seated_per_table=seated, gambler=player)
    client = login(pit_boss)

    with django_assert_num_queries(TABLE_LIST_QUERIES):
        response = client.get("/api/v1/tables?limit=500")

    rows = [row for row in response.json()["results"] if row["id"] in made]
    assert len(rows) == tables
    assert all(len(row["seats"]) == seated and row["session"] is not None for row in rows)
    assert all(row["seats"][0]["name"] for row in rows)
