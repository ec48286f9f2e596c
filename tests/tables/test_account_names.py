"""Issue 44 item 16: a refusal names an account as people say it, never by ids.

The ledger's refusals name an account by its name ("… has $0.00 available; this transfer
needs $20.00 more."), on the API and on the screens alike. A layout read "Layout of player 9
at table 2"; it reads "Wyatt Earp's layout at Faro 1", and a pot "A♥ pot at Newmarket 1".
"""

from __future__ import annotations

import importlib

import pytest
from django.apps import apps

from ledger.errors import InsufficientFunds
from ledger.models import Account, AccountKind, AccountPurpose
from ledger.services import Leg, open_account, post_transfer
from tables.accounts import layout_code, open_layout, open_pot, pot_code
from tests.factories import PlayerFactory, TableFactory

pytestmark = pytest.mark.django_db

POTS = {
    "main": "Pot at Newmarket 1",
    "farm": "Farm at Newmarket 1",
    "side": "Side pot at Newmarket 1",
    "AH": "A♥ pot at Newmarket 1",
    "10S": "10♠ pot at Newmarket 1",
}


def test_layouts_and_pots_are_named_by_their_players_and_tables(system_accounts: None) -> None:
    table = TableFactory(name="Faro 1")
    wyatt = PlayerFactory(name="Wyatt Earp")
    layout = open_layout(table_id=table.pk, player_id=wyatt.pk, holder=f"user:{wyatt.user_id}")
    assert layout.name == "Wyatt Earp's layout at Faro 1"

    card_room = TableFactory(name="Newmarket 1", game="newmarket", min_bet=100, ante=100)
    assert {name: open_pot(table_id=card_room.pk, name=name).name for name in POTS} == POTS


def test_a_refusal_names_the_short_layout_or_pot_in_words(system_accounts: None) -> None:
    table = TableFactory(name="Faro 1")
    wyatt = PlayerFactory(name="Wyatt Earp")
    layout = open_layout(table_id=table.pk, player_id=wyatt.pk, holder=f"user:{wyatt.user_id}")
    pot = open_pot(table_id=table.pk, name="AH")

    refusals = []
    for account in (layout, pot):
        with pytest.raises(InsufficientFunds) as caught:
            post_transfer(key=f"short-{account.code}", kind="test", legs=[Leg(account.code, "cage", 2_000)])
        refusals.append(caught.value.message)

    assert refusals == [
        "Wyatt Earp's layout at Faro 1 has $0.00 available; this transfer needs $20.00 more.",
        "A♥ pot at Faro 1 has $0.00 available; this transfer needs $20.00 more.",
    ]


def test_layouts_and_pots_opened_before_are_renamed_in_words(system_accounts: None) -> None:
    """Migration tables 0013: an account keeps the name it was opened with, so the old ones
    are renamed; an account it cannot place keeps its name."""
    table = TableFactory(name="Faro 1")
    wyatt = PlayerFactory(name="Wyatt Earp")
    old = {
        layout_code(table.pk, wyatt.pk): (
            AccountPurpose.LAYOUT,
            f"Layout of player {wyatt.pk} at table {table.pk}",
        ),
        pot_code(table.pk, "side"): (AccountPurpose.POT, f"Pot side at table {table.pk}"),
        layout_code(table.pk + 1_000, wyatt.pk): (AccountPurpose.LAYOUT, "Layout of a table long gone"),
    }
    for code, (purpose, name) in old.items():
        open_account(code=code, kind=AccountKind.LIABILITY, purpose=purpose, name=name)

    migration = importlib.import_module("tables.migrations.0013_layout_and_pot_names_in_words")
    migration.name_in_words(apps, None)

    assert dict(Account.objects.filter(code__in=old).values_list("code", "name")) == {
        layout_code(table.pk, wyatt.pk): "Wyatt Earp's layout at Faro 1",
        pot_code(table.pk, "side"): "Side pot at Faro 1",
        layout_code(table.pk + 1_000, wyatt.pk): "Layout of a table long gone",
    }
