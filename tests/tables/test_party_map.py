"""Engine party ↔ ledger code (tables.accounts.PartyMap): every kind, both ways."""

from __future__ import annotations

import pytest

from casino.models import Player
from tables.accounts import (
    BANK,
    LAYOUT,
    POT,
    RAKE,
    WALLET,
    PartyMap,
    layout_code,
    pot_code,
    pot_name,
    read_code,
    tray_code,
)
from tables.games import base

TABLE = 5
WALLETS = {12: "wallet:user:40", 13: "wallet:user:41"}
PARTIES = [
    base.wallet(12),
    base.wallet(13),
    base.BANK,
    base.RAKE,
    base.layout(12),
    base.pot("main"),
    base.pot("farm"),
    base.pot("10H"),
]


@pytest.mark.parametrize("party", PARTIES)
def test_every_party_kind_goes_to_its_code_and_back(party: str) -> None:
    parties = PartyMap(TABLE, WALLETS)
    assert parties.party(parties.code(party)) == party


def test_the_codes_are_the_ledger_accounts_of_that_table() -> None:
    parties = PartyMap(TABLE, WALLETS)
    assert [parties.code(p) for p in PARTIES] == [
        "wallet:user:40",
        "wallet:user:41",
        tray_code(TABLE),
        RAKE,
        layout_code(TABLE, 12),
        pot_code(TABLE, "main"),
        pot_code(TABLE, "farm"),
        pot_code(TABLE, "10H"),
    ]
    assert len(set(parties.code(p) for p in PARTIES)) == len(PARTIES)


def test_codes_read_without_a_table() -> None:
    assert read_code(tray_code(TABLE)) == (BANK, TABLE, "")
    assert read_code(layout_code(TABLE, 12)) == (LAYOUT, TABLE, "12")
    assert read_code(pot_code(TABLE, "AH")) == (POT, TABLE, "AH")
    assert read_code(RAKE) == (base.RAKE, None, "")
    assert read_code("wallet:user:40") == (WALLET, None, "user:40")
    assert read_code("over_short") == ("over_short", None, "")
    assert pot_name(pot_code(TABLE, "side")) == "side"


def test_a_code_the_map_cannot_place_comes_back_unchanged() -> None:
    """Another table's accounts, or a wallet it was not given: a comparison shows them."""
    parties = PartyMap(TABLE, WALLETS)
    for code in (tray_code(6), layout_code(6, 12), pot_code(6, "main"), "wallet:user:99", "cage"):
        assert parties.party(code) == code
    assert parties.player_of("wallet:user:41") == 13
    assert parties.player_of("wallet:user:99") is None


def test_an_unknown_party_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown party"):
        PartyMap(TABLE, WALLETS).code("stranger:1")


@pytest.mark.django_db
def test_a_map_reads_the_wallets_among_the_codes(player: Player, other_player: Player) -> None:
    parties = PartyMap.of_codes(TABLE, [player.wallet.code, tray_code(TABLE), RAKE])

    assert parties.party(player.wallet.code) == base.wallet(player.pk)
    assert parties.code(base.wallet(player.pk)) == player.wallet.code
    assert parties.player_of(other_player.wallet.code) is None  # not among the codes
