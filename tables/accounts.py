"""Ledger account codes for the floor, in one place so every service names them alike."""

from __future__ import annotations

from ledger.models import Account, AccountKind, AccountPurpose
from ledger.services import open_account

OVER_SHORT = "over_short"


def tray_code(table_id: int) -> str:
    return f"tray:{table_id}"


def layout_code(table_id: int, player_id: int) -> str:
    return f"layout:{table_id}:{player_id}"


def pot_code(table_id: int, name: str) -> str:
    return f"pot:{table_id}:{name}"


def open_layout(*, table_id: int, player_id: int, holder: str) -> Account:
    """A player's chips on one table's layout: theirs, but in play (API.md ``in_play``)."""
    return open_account(
        code=layout_code(table_id, player_id),
        kind=AccountKind.LIABILITY,
        purpose=AccountPurpose.LAYOUT,
        holder=holder,
        name=f"Layout of player {player_id} at table {table_id}",
    )


def open_pot(*, table_id: int, name: str) -> Account:
    """A pot is owed to players, never house money."""
    return open_account(
        code=pot_code(table_id, name),
        kind=AccountKind.LIABILITY,
        purpose=AccountPurpose.POT,
        name=f"Pot {name} at table {table_id}",
    )


def open_over_short() -> Account:
    """Count variances land here, so the tray's ledger balance always equals the last count."""
    return open_account(
        code=OVER_SHORT,
        kind=AccountKind.EXPENSE,
        purpose=AccountPurpose.SUSPENSE,
        name="Count over/short",
        must_not_go_negative=False,
    )
