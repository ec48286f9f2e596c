"""Markers paid in cash are cash in for Title 31 (31 CFR 1021.313; API.md "Credit and cash
compliance"): the one place a redemption reports its cash to the player's day of cash activity."""

from __future__ import annotations

from casino.models import Player, User
from ledger.models import Transfer

CASH_KIND = "marker_redemption"
WHERE = "cage"


def record_marker_cash(*, player: Player, amount: int, by: User, transfer: Transfer) -> None:
    """Record a marker paid in cash as the player's cash in at the cage, in the redemption's
    transaction. The cash log is casino.cash's (record_cash): until it is merged, nothing is kept here."""
    return None
