"""The drop in a simulated night: players buy chips with cash at the tables, and after the tables
close the count team removes every box that took cash, counts it and has it signed through
(a second count team member, then the cashier), as ``tables.drop.services`` does for people.

Nobody types a password in a simulated night: the signatures say so.
"""

from __future__ import annotations

import random

from casino.errors import DomainError
from casino.models import Player, User
from ledger.errors import LedgerError
from tables.drop.currency import bill_values
from tables.drop.models import DropBox, DropBoxStatus
from tables.drop.services import cash_buy_in, count_box, remove_box
from tables.models import Table
from tables.slips.services import sign_slip

# A player sitting down buys chips with cash at the table this often (else only at the cage).
CASH_BUY_IN_RATE = 0.35
CASH_BUY_INS = (10_000, 20_000, 30_000, 50_000, 100_000)  # cents: whole bills


def bills_for(amount: int) -> dict[str, int]:
    """The fewest bills that make ``amount`` (cents, a multiple of the smallest bill)."""
    bills: dict[str, int] = {}
    left = amount
    for value in sorted(bill_values(), reverse=True):
        pieces, left = divmod(left, value)
        if pieces:
            bills[str(value)] = pieces
    if left:
        raise ValueError(f"{amount} cents is not a whole number of bills")
    return bills


def maybe_cash_buy_in(*, rng: random.Random, table: Table, dealer: User, player: Player) -> int:
    """Sometimes a player sitting down buys chips with cash at the table; the cents bought (0:
    none, or the tray could not sell them)."""
    if rng.random() >= CASH_BUY_IN_RATE:
        return 0
    amount = rng.choice(CASH_BUY_INS)
    try:
        cash_buy_in(actor=dealer, table_id=table.pk, player_id=player.pk, amount=amount)
    except (DomainError, LedgerError):
        return 0  # the tray is short of chips: the player buys at the cage next time
    return amount


def count_the_drop(
    *, tables: list[Table], team: tuple[User, User], cashier: User, errors: dict[int, int] | None = None
) -> list[DropBox]:
    """Remove and count each table's box that took cash; ``errors`` (table → cents) makes a
    count that much off what was recorded (a bill miscounted). The counted boxes."""
    counted = []
    boxes = DropBox.objects.filter(table__in=tables, status=DropBoxStatus.AT_TABLE, recorded__gt=0).order_by(
        "table__name"
    )
    for box in boxes:
        remove_box(actor=team[0], box_id=box.pk, seal=f"SIM-{box.number}")
        found = max(box.recorded + (errors or {}).get(box.table_id, 0), 0)
        slip = count_box(actor=team[0], box_id=box.pk, currency=bills_for(found))
        sign_slip(actor=team[1], slip_id=slip.pk, password_confirmed=False)
        sign_slip(actor=cashier, slip_id=slip.pk, password_confirmed=False)
        box.refresh_from_db()
        counted.append(box)
    return counted
