"""Console fixtures: a small floor made through the services (people, chips, a Faro table)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest
from django.test import Client

from casino.models import Player, Role, User
from casino.services import buy_in, create_player
from ledger.services import ensure_system_accounts
from tables.models import Table
from tables.services import assign_dealer, create_table, open_table
from tests import factories

PASSWORD = factories.PASSWORD


@dataclass
class Floor:
    dealer: User
    other_dealer: User
    pit_boss: User
    cashier: User
    auditor: User
    kate: Player
    wyatt: Player
    faro: Table

    def open_faro(self, inventory: int = 1_000_000) -> None:
        open_table(actor=self.dealer, table_id=self.faro.pk, opening_inventory=inventory)
        self.faro.refresh_from_db()


def build_floor(prefix: str = "c", *, more_tables: bool = False) -> Floor:
    """Staff, two funded players and a closed Faro table ($5-$500) assigned to ``dealer``.

    ``more_tables`` adds a Farmer table and a card-room table for the other dealer, so the pit
    view has a floor to show.
    """
    ensure_system_accounts()
    dealer = factories.staff(Role.DEALER, username=f"{prefix}dealer", name="Dana Dealer")
    other_dealer = factories.staff(Role.DEALER, username=f"{prefix}dealer2", name="Dion Dealer")
    pit_boss = factories.staff(Role.PIT_BOSS, username=f"{prefix}pitboss", name="Pat Pitboss")
    cashier = factories.staff(Role.CASHIER, username=f"{prefix}cashier", name="Cass Cashier")
    auditor = factories.staff(Role.AUDITOR, username=f"{prefix}auditor", name="Audrey Auditor")
    players = []
    for name in ("Kate Elder", "Wyatt Earp"):
        username = f"{prefix}{name.lower().replace(' ', '.')}"
        player = create_player(actor=cashier, username=username, password=PASSWORD, name=name)
        buy_in(actor=cashier, player=player, amount=200_000)
        players.append(player)
    faro = create_table(actor=pit_boss, name=f"Faro {prefix}", game="faro", min_bet=500, max_bet=50_000)
    faro = assign_dealer(actor=pit_boss, table_id=faro.pk, dealer_id=dealer.pk)
    if more_tables:
        farmer = create_table(
            actor=pit_boss, name=f"Farmer {prefix}", game="farmer", min_bet=100, max_bet=5_000, ante=500
        )
        assign_dealer(actor=pit_boss, table_id=farmer.pk, dealer_id=other_dealer.pk)
        room = create_table(
            actor=pit_boss,
            name=f"Card room {prefix}",
            game="stakes",
            min_bet=100,
            max_bet=5_000,
            ante=200,
            rules={"variant": "gops"},
        )
        assign_dealer(actor=pit_boss, table_id=room.pk, dealer_id=other_dealer.pk)
        open_table(actor=other_dealer, table_id=room.pk, opening_inventory=50_000)
    return Floor(dealer, other_dealer, pit_boss, cashier, auditor, players[0], players[1], faro)


@pytest.fixture
def floor(db: None) -> Floor:
    return build_floor()


@pytest.fixture
def as_user() -> Any:
    """A Django test client signed in (session) as the given user."""

    def _as(user: User) -> Client:
        client = Client()
        client.force_login(user)
        return client

    return _as


@pytest.fixture
def world(transactional_db: None) -> Floor:
    """The browser tests' floor: the Faro table, a Farmer table and a card-room table."""
    return build_floor(prefix="b", more_tables=True)
