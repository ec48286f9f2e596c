"""Cash at the table and the count: a cash buy-in puts chips in a player's wallet and the cash in
the table's drop box; the count team removes a box (a new one goes to the table at once) and
counts it into a drop slip, which a second member and then a cashier sign (tables.slips.flows).

Locks follow the floor's one order (tables.locks): the table, then its drop box, then slips,
then ledger accounts (``post_transfer`` locks those last). The ledger's side (docs/ledger.md):

- a cash buy-in is one transfer of two legs: the chips from the tray to the wallet, and the
  cash from the house's "cash taken at the tables" into the box's drop account;
- the count moves the box's recorded cash from its drop account to the count room;
- the cashier's signature takes the counted cash from the count room into the cage, a
  variance to over/short (``tables.slips.effects.receive_drop``).
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.db.models import Max
from django.utils import timezone

from casino.action_log import record_action
from casino.errors import Conflict, NotFound, ValidationFailed
from casino.models import Player, User
from casino.money import format_dollars
from casino.permissions import require
from ledger.errors import InsufficientFunds
from ledger.gaming_day import gaming_day_for
from ledger.models import Transfer
from ledger.services import Leg, post_transfer
from tables.accounts import (
    COUNT_ROOM,
    TABLE_CASH,
    drop_code,
    open_count_room,
    open_drop,
    open_table_cash,
)
from tables.drop.currency import currency_amount, parse_currency
from tables.drop.models import DropBox, DropBoxStatus, drop_box_number
from tables.locks import lock_table
from tables.models import Table, TableStatus
from tables.slips.models import Slip, SlipKind, SlipStatus
from tables.slips.services import issue_slip

CASH_BUY_IN = "cash_buy_in"  # the transfer's kind
DROP_COUNT = "drop_count"  # drop box → count room, at the count
SEAL_MAX = DropBox._meta.get_field("seal").max_length or 40


@dataclass(frozen=True, slots=True)
class CashBuyIn:
    transfer: Transfer
    box: DropBox  # as it stands after the buy-in (``recorded`` includes it)
    player: Player
    amount: int


def place_box(table: Table) -> DropBox:
    """A new, empty box at ``table`` (locked by the caller), with its drop account."""
    last = DropBox.objects.filter(table=table).aggregate(last=Max("sequence"))["last"] or 0
    box = DropBox.objects.create(
        table=table,
        sequence=last + 1,
        number=drop_box_number(table.pk, last + 1),
        gaming_day=gaming_day_for(timezone.now()),
    )
    open_drop(box_id=box.pk, number=box.number, table=table.name)
    return box


def box_at_table(table: Table) -> DropBox:
    """The box at ``table`` (locked by the caller), its row locked; one is placed if there is none."""
    box = DropBox.objects.select_for_update().filter(table=table, status=DropBoxStatus.AT_TABLE).first()
    return box if box is not None else place_box(table)


@transaction.atomic
def cash_buy_in(
    *, actor: User, table_id: int, player_id: int, amount: int, key: str | None = None
) -> CashBuyIn:
    """A player buys chips with cash at an open table from its assigned dealer: the chips leave
    the tray for the player's wallet and the cash is recorded into the table's drop box.

    The one place a cash buy-in at a table happens (the API and the dealer's console call it),
    so a check on a player's cash for the day belongs here."""
    table = lock_table(table_id=table_id)
    require(actor, "table.cash_buy_in", table=table)
    if table.status != TableStatus.OPEN:
        raise Conflict(f"{table.name} is not open: chips are sold at an open table.", code="table_closed")
    if isinstance(amount, bool) or not isinstance(amount, int) or amount <= 0:
        raise ValidationFailed(
            "A cash buy-in is a positive amount.", fields={"amount": "must be more than 0"}
        )
    player = Player.objects.select_related("wallet", "user").filter(pk=player_id).first()
    if player is None:
        raise NotFound("No such player.", fields={"player": player_id})
    box = box_at_table(table)
    open_table_cash()
    try:
        transfer = post_transfer(
            key=key or f"{CASH_BUY_IN}:{secrets.token_hex(16)}",
            kind=CASH_BUY_IN,
            legs=[
                Leg(debit=table.tray.code, credit=player.wallet.code, amount=amount),
                Leg(debit=TABLE_CASH, credit=drop_code(box.pk), amount=amount),
            ],
            memo=f"Cash buy-in by {player.name} at {table.name} (drop box {box.number})",
            meta={"table": table.pk, "player": player.pk, "drop_box": box.pk, "staff": actor.pk},
        )
    except InsufficientFunds as error:
        if error.fields.get("account") != table.tray.code:
            raise
        available = int(error.fields.get("available", 0))
        raise InsufficientFunds(
            f"The tray of {table.name} has {format_dollars(available)}; a cash buy-in of "
            f"{format_dollars(amount)} needs {format_dollars(amount - available)} more. Nothing moved.",
            fields={**error.fields, "what": "cash buy-in"},
        ) from error
    box.recorded += amount
    box.save(update_fields=["recorded"])
    record_action(
        actor=actor,
        action="drop.cash_buy_in",
        obj=transfer,
        data={"player": player.pk, "amount": amount, "table": table.pk, "drop_box": box.pk},
    )
    return CashBuyIn(transfer=transfer, box=box, player=player, amount=amount)


def lock_box(*, box_id: int) -> DropBox:
    """The box, its row locked after its table's (404 when there is none)."""
    found = list(DropBox.objects.filter(pk=box_id).values_list("table_id", flat=True))
    if not found:
        raise NotFound("No such drop box.")
    lock_table(table_id=found[0])
    return DropBox.objects.select_for_update(of=("self",)).select_related("table").get(pk=box_id)


def _check_seal(seal: Any) -> str:
    text = seal.strip() if isinstance(seal, str) else ""
    if not text or len(text) > SEAL_MAX or not text.isprintable():
        raise ValidationFailed(
            f"Write the seal number the box was locked with (1 to {SEAL_MAX} characters).",
            fields={"seal": "required"},
        )
    return text


@transaction.atomic
def remove_box(*, actor: User, box_id: int, seal: Any) -> DropBox:
    """The count team takes a box from its table under ``seal``; the next box goes to the table
    at once, so play goes on. The removed box waits for the count."""
    require(actor, "drop.remove")
    seal = _check_seal(seal)
    box = lock_box(box_id=box_id)
    if box.status != DropBoxStatus.AT_TABLE:
        raise Conflict(
            f"Drop box {box.number} was already removed from {box.table.name}.", code="drop_box_removed"
        )
    box.status = DropBoxStatus.REMOVED
    box.seal = seal
    box.removed_by = actor
    box.removed_at = timezone.now()
    box.save(update_fields=["status", "seal", "removed_by", "removed_at"])
    following = place_box(box.table)
    record_action(
        actor=actor,
        action="drop.remove",
        obj=box,
        data={"number": box.number, "seal": seal, "recorded": box.recorded, "next": following.number},
    )
    return box


def _markers_in(box: DropBox, raw: Any) -> list[Slip]:
    """The marker slips listed, each one in ``box`` (400 otherwise), in the order listed."""
    if raw is None:
        return []
    if not isinstance(raw, list) or any(isinstance(i, bool) or not isinstance(i, int) for i in raw):
        raise ValidationFailed(
            "markers is a list of marker slip ids.", fields={"markers": "must be a list of ids"}
        )
    if len(set(raw)) != len(raw):
        raise ValidationFailed("A marker is listed once.", fields={"markers": "listed twice"})
    found = {
        slip.pk: slip
        for slip in Slip.objects.select_for_update().filter(pk__in=raw, kind=SlipKind.MARKER, drop_box=box)
    }
    missing = [i for i in raw if i not in found]
    if missing:
        raise ValidationFailed(
            f"Not a marker in drop box {box.number}: {', '.join(str(i) for i in missing)}.",
            fields={"markers": {str(i): "not a marker in this box" for i in missing}},
        )
    return [found[i] for i in raw]


def _count_words(markers: Sequence[Slip], box: DropBox) -> str:
    """The drop slip's note: the markers the count found in the box, and any it did not."""
    if not markers and not box.slips.filter(kind=SlipKind.MARKER).exists():
        return "No markers in the box."
    listed = {m.pk for m in markers}
    absent = box.slips.filter(kind=SlipKind.MARKER).exclude(pk__in=listed).exclude(status=SlipStatus.VOID)
    words = f"Markers counted: {', '.join(m.number for m in markers) or 'none'}."
    missing = ", ".join(absent.values_list("number", flat=True))
    return (f"{words} Not found: {missing}." if missing else words)[:300]


def _to_count_room(box: DropBox, actor: User) -> Transfer | None:
    """The box's recorded cash from its drop account into the count room (None: it recorded none)."""
    if box.recorded == 0:
        return None
    open_count_room()
    return post_transfer(
        key=f"{DROP_COUNT}:{box.pk}",
        kind=DROP_COUNT,
        legs=[Leg(debit=drop_code(box.pk), credit=COUNT_ROOM, amount=box.recorded)],
        memo=f"Drop box {box.number} from {box.table.name} counted",
        meta={"table": box.table_id, "drop_box": box.pk, "by": actor.pk},
    )


@transaction.atomic
def count_box(*, actor: User, box_id: int, currency: Any, markers: Any = None) -> Slip:
    """The count of a removed box: a drop slip (amount = the bills counted, expected = what was
    recorded into it), the markers listed checked to be the box's, and the recorded cash moved
    into the count room. The slip waits for a second count team member, then a cashier."""
    require(actor, "drop.count")
    bills = parse_currency(currency)
    box = lock_box(box_id=box_id)
    if box.status == DropBoxStatus.AT_TABLE:
        raise Conflict(
            f"Drop box {box.number} is still at {box.table.name}: remove it under seal first.",
            code="drop_box_at_table",
        )
    if box.status == DropBoxStatus.COUNTED:
        raise Conflict(f"Drop box {box.number} is already counted.", code="drop_box_counted")
    found = _markers_in(box, markers)
    counted = currency_amount(bills)
    slip = issue_slip(
        kind=SlipKind.DROP,
        requested_by=actor,
        amount=counted,
        table=box.table,
        count=bills,
        expected=box.recorded,
        reason=_count_words(found, box),
    )
    box.count_transfer = _to_count_room(box, actor)
    box.status = DropBoxStatus.COUNTED
    box.counted = counted
    box.counted_by = actor
    box.counted_at = timezone.now()
    box.slip = slip
    box.save(update_fields=["count_transfer", "status", "counted", "counted_by", "counted_at", "slip"])
    record_action(
        actor=actor,
        action="drop.count",
        obj=box,
        data={
            "number": box.number,
            "slip": slip.number,
            "counted": counted,
            "markers": [m.pk for m in found],
        },
    )
    return slip
