"""What a finished step of a slip does to the chips (the ledger), by kind and step; and what a
void does to chips a slip left in transit.

Counts move nothing when signed (the count itself was recorded when the slip was written).
Fills and credits travel through the ledger's one "Chips in transit" account
(``tables.accounts.TRANSIT``): the first step takes the chips from where they were into transit
(``issue_transfer``), the last step puts them where they go (``receipt_transfer``), and a void
while they travel sends them back (``return_transfer``). So the chips are never the cage's and
the tray's at once, and every step is one balanced transfer: the trial balance holds throughout.

Each effect runs inside the transaction of ``sign_slip`` with the table and the slip locked;
``post_transfer`` then locks the accounts, last (tables.locks' order). A void's effect
(``ON_VOID``, by kind) runs inside the void's transaction, the same locks held, before the slip
is marked void: it sees the status the slip had (``pending``: nothing has moved; ``issued``: the
chips are in transit). Counts have none: a void count moved no chips.
"""

from __future__ import annotations

from collections.abc import Callable

from casino.models import User
from ledger.models import Transfer
from ledger.services import Leg, post_transfer
from tables.accounts import CAGE, COUNT_ROOM, OVER_SHORT, TRANSIT, open_over_short, open_transit, tray_code
from tables.slips.models import Slip, SlipKind

Effect = Callable[[Slip, User], None]

# Transfer kinds. The two that touch the tray keep the one-step flow's names, ``fill`` and
# ``credit``: the tray's postings by kind are still its fills and credits (the audit reads them).
FILL_ISSUE = "fill_issue"  # cage → transit: the cage issues a fill
FILL = "fill"  # transit → tray: the table's dealer and a pit boss sign for it
CREDIT = "credit"  # tray → transit: the pit releases a credit
CREDIT_RECEIPT = "credit_receipt"  # transit → cage: the cashier signs for it
FILL_RETURN = "fill_return"  # transit → cage: a fill voided in transit
CREDIT_RETURN = "credit_return"  # transit → tray: a credit voided in transit
DROP_RECEIPT = "drop_receipt"  # count room → cage: the cashier takes a drop box's counted cash


def _move(slip: Slip, actor: User, *, kind: str, payer: str, payee: str, memo: str) -> Transfer:
    open_transit()
    return post_transfer(
        key=f"slip:{slip.pk}:{kind}",
        kind=kind,
        legs=[Leg(debit=payer, credit=payee, amount=slip.amount)],
        memo=f"{memo} ({slip.number})",
        meta={"table": slip.table_id, "slip": slip.pk, "number": slip.number, "by": actor.pk},
    )


def _table_name(slip: Slip) -> str:
    return slip.table.name if slip.table is not None else "no table"


def issue_fill(slip: Slip, actor: User) -> None:
    slip.issue_transfer = _move(
        slip, actor, kind=FILL_ISSUE, payer=CAGE, payee=TRANSIT, memo=f"Fill issued for {_table_name(slip)}"
    )


def receive_fill(slip: Slip, actor: User) -> None:
    slip.receipt_transfer = _move(
        slip,
        actor,
        kind=FILL,
        payer=TRANSIT,
        payee=tray_code(_table_id(slip)),
        memo=f"Fill received at {_table_name(slip)}",
    )


def release_credit(slip: Slip, actor: User) -> None:
    slip.issue_transfer = _move(
        slip,
        actor,
        kind=CREDIT,
        payer=tray_code(_table_id(slip)),
        payee=TRANSIT,
        memo=f"Credit released from {_table_name(slip)}",
    )


def receive_credit(slip: Slip, actor: User) -> None:
    slip.receipt_transfer = _move(
        slip,
        actor,
        kind=CREDIT_RECEIPT,
        payer=TRANSIT,
        payee=CAGE,
        memo=f"Credit from {_table_name(slip)} received at the cage",
    )


def receive_drop(slip: Slip, actor: User) -> None:
    """The cashier signs a drop slip: the counted cash goes from the count room into the cage.

    The count room holds what the box recorded (moved there at the count); the cage takes what
    was counted. The difference is the count's variance, booked to over/short as a tray count's
    is: cash over comes from it, cash short goes to it. So the count room is left with nothing."""
    recorded, counted = slip.expected or 0, slip.amount
    legs = []
    if min(recorded, counted):
        legs.append(Leg(debit=COUNT_ROOM, credit=CAGE, amount=min(recorded, counted)))
    if counted > recorded:
        legs.append(Leg(debit=OVER_SHORT, credit=CAGE, amount=counted - recorded))
    elif recorded > counted:
        legs.append(Leg(debit=COUNT_ROOM, credit=OVER_SHORT, amount=recorded - counted))
    if not legs:  # an empty box, counted empty: nothing to take in
        return
    open_over_short()
    slip.receipt_transfer = post_transfer(
        key=f"slip:{slip.pk}:{DROP_RECEIPT}",
        kind=DROP_RECEIPT,
        legs=legs,
        memo=f"Drop from {_table_name(slip)} taken into the cage ({slip.number})",
        meta={"table": slip.table_id, "slip": slip.pk, "number": slip.number, "by": actor.pk},
    )


def return_fill(slip: Slip, actor: User) -> None:
    """A fill voided in transit: the chips go back to the cage."""
    if _in_transit(slip):
        slip.return_transfer = _move(
            slip, actor, kind=FILL_RETURN, payer=TRANSIT, payee=CAGE, memo="Void fill returned to the cage"
        )


def return_credit(slip: Slip, actor: User) -> None:
    """A credit voided in transit: the chips go back to the tray they left."""
    if _in_transit(slip):
        slip.return_transfer = _move(
            slip,
            actor,
            kind=CREDIT_RETURN,
            payer=TRANSIT,
            payee=tray_code(_table_id(slip)),
            memo=f"Void credit returned to {_table_name(slip)}",
        )


def _in_transit(slip: Slip) -> bool:
    return slip.issue_transfer_id is not None and slip.receipt_transfer_id is None


def _table_id(slip: Slip) -> int:
    if slip.table_id is None:
        raise ValueError(f"slip {slip.number} has no table for its chips")
    return slip.table_id


EFFECTS: dict[tuple[str, int], Effect] = {
    (SlipKind.FILL, 0): issue_fill,
    (SlipKind.FILL, 1): receive_fill,
    (SlipKind.CREDIT, 0): release_credit,
    (SlipKind.CREDIT, 1): receive_credit,
    # A drop slip's first step (a second count team member) moves nothing: the count did.
    (SlipKind.DROP, 1): receive_drop,
}

# What a void does, by kind: chips a slip left in transit go back where they came from.
ON_VOID: dict[str, Effect] = {
    SlipKind.FILL: return_fill,
    SlipKind.CREDIT: return_credit,
}


def after_step(*, slip: Slip, index: int, actor: User) -> None:
    effect = EFFECTS.get((slip.kind, index))
    if effect is not None:
        effect(slip, actor)


def before_void(*, slip: Slip, actor: User) -> None:
    effect = ON_VOID.get(slip.kind)
    if effect is not None:
        effect(slip, actor)
