"""Credit lines, markers and their redemption: chips on credit at the table, paid back at the cage.

Every step is one balanced ledger transfer. A marker moves the chips from the table's tray to the
player's wallet and, in the same transfer, books the debt on the player's markers receivable
(``tables.accounts.open_receivable``) against the house's credit extended (``MARKER_CREDIT``). A
redemption takes the debt off again, with chips from the wallet back to the cage or with cash.
So a credit line's ``outstanding`` is read off the ledger, never counted beside it.

Locks follow the floor's one order (tables.locks): the table, then the credit line row, then the
table's drop box, the slip counter or the marker (and, for cash, the player's day of cash:
``casino.cash``), then ledger accounts (``post_transfer`` locks those last). The credit line's
row serialises every marker drawn on it and every payment: no two markers can both fit under
the last dollar of a line.
"""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.utils import timezone

from casino.action_log import record_action
from casino.cash.models import CashDirection, CashKind
from casino.cash.services import link_transfer, record_cash
from casino.errors import Conflict, NotFound, SeparationOfDuties, ValidationFailed
from casino.models import Player, User
from casino.money import format_dollars
from casino.permissions import require
from ledger.errors import InsufficientFunds
from ledger.models import Account
from ledger.services import Leg, post_transfer
from tables.accounts import (
    CAGE,
    MARKER_CREDIT,
    open_marker_credit,
    open_receivable,
    receivable_code,
    tray_code,
)
from tables.amounts import check_cents
from tables.credit.models import CreditLine, Marker, MarkerRedemption, RedemptionMethod
from tables.drop.services import box_at_table
from tables.games.input_checks import is_int
from tables.locks import lock_table
from tables.models import TableSession, TableStatus
from tables.slips.models import SlipKind
from tables.slips.services import issue_slip

MARKER_TRANSFER = "marker"  # tray → wallet, and marker credit → the player's receivable
REDEMPTION_TRANSFER = "marker_redemption"  # receivable → marker credit (and wallet → cage for chips)
CASH_WHERE = "Cage"  # where a marker is paid, in the cash log's words


def find_player(player_id: Any) -> Player:
    """The player a body names (400 for a value that is not an id, 404 for no such player)."""
    if not is_int(player_id):
        raise ValidationFailed("player must be a player id.", fields={"player": "must be an integer"})
    player = Player.objects.select_related("user", "wallet").filter(pk=player_id).first()
    if player is None:
        raise NotFound("No such player.", fields={"player": player_id})
    return player


def lock_credit_line(*, player_id: int) -> CreditLine | None:
    """The player's credit line, its row locked (None: no line). After the table, before the ledger.

    The receivable is not joined here: a row read beside a locked one keeps the snapshot from
    before the wait, so a marker that waited for the line would see what was owed before the
    marker it waited for. ``owed_on`` reads it afresh, after the lock."""
    return CreditLine.objects.select_for_update(of=("self",)).filter(player_id=player_id).first()


def owed_on(line: CreditLine) -> int:
    """What the player owes now: the receivable's balance, read after the line's lock (every
    change to it holds that lock)."""
    return int(Account.objects.values_list("balance", flat=True).get(pk=line.receivable_id))


@transaction.atomic
def set_credit_line(*, actor: User, player: Player, limit: Any) -> CreditLine:
    """An admin sets (or changes) a player's credit line after the cage's credit check. Lowering it
    below what the player owes is allowed: they draw nothing more until they pay."""
    require(actor, "credit.set")
    limit = check_cents(limit, field="limit", allow_zero=True)
    line = lock_credit_line(player_id=player.pk)
    before = None if line is None else line.limit
    now = timezone.now()
    if line is None:
        receivable = open_receivable(player_id=player.pk, player_name=player.name)
        line = CreditLine.objects.create(
            player=player, limit=limit, receivable=receivable, set_by=actor, set_at=now
        )
    else:
        line.limit, line.set_by, line.set_at = limit, actor, now
        line.save(update_fields=["limit", "set_by", "set_at"])
    record_action(
        actor=actor,
        action="credit_line.set",
        obj=line,
        data={"player": player.pk, "before": before, "limit": limit},
    )
    return line


def available_on(line: CreditLine, owed: int) -> int:
    """What the player may still draw: the limit less what the ledger says they owe (never below 0)."""
    return max(line.limit - owed, 0)


@transaction.atomic
def issue_marker(*, actor: User, table_id: int, player_id: Any, amount: Any) -> Marker:
    """A pit boss issues a marker at an open table: the player draws chips from the tray on credit.

    Refused (409 ``credit_limit``) beyond what the line has available, and (403) to the person who
    set the line. The slip waits for the table's dealer's signature."""
    table = lock_table(table_id=table_id)
    require(actor, "marker.issue", table=table)
    cents = check_cents(amount, field="amount")
    player = find_player(player_id)
    session = TableSession.objects.filter(table=table, closed_at__isnull=True).first()
    if table.status != TableStatus.OPEN or session is None:
        raise Conflict(f"{table.name} is closed; a marker is issued at an open table.", code="table_closed")
    line = lock_credit_line(player_id=player.pk)
    if line is None:
        raise Conflict(
            f"{player.name} has no credit line; an admin sets one after the cage's credit check.",
            code="credit_limit",
            fields={"amount": cents, "available": 0},
        )
    if line.set_by_id == actor.pk:
        raise SeparationOfDuties(
            f"You set {player.name}'s credit line; another pit boss must issue the marker (25 CFR 543.15)."
        )
    owed = owed_on(line)
    available = available_on(line, owed)
    if cents > available:
        raise Conflict(
            f"{player.name} has {format_dollars(available)} of credit available "
            f"({format_dollars(line.limit)} line, {format_dollars(owed)} owed); "
            f"a marker of {format_dollars(cents)} is over it by {format_dollars(cents - available)}. "
            "Nothing moved.",
            code="credit_limit",
            fields={"amount": cents, "available": available},
        )
    box = box_at_table(table)  # the marker goes into the table's drop box; the count lists it
    slip = issue_slip(
        kind=SlipKind.MARKER,
        requested_by=actor,
        amount=cents,
        table=table,
        session=session,
        reason=player.name[:300],  # whose marker it is, in words on every list and print
    )
    open_marker_credit()
    try:
        transfer = post_transfer(
            key=f"slip:{slip.pk}:{MARKER_TRANSFER}",
            kind=MARKER_TRANSFER,
            legs=[
                Leg(debit=tray_code(table.pk), credit=player.wallet.code, amount=cents),
                Leg(debit=MARKER_CREDIT, credit=receivable_code(player.pk), amount=cents),
            ],
            memo=f"Marker {slip.number}: {player.name} at {table.name}",
            meta={
                "table": table.pk,
                "player": player.pk,
                "slip": slip.pk,
                "number": slip.number,
                "by": actor.pk,
            },
        )
    except InsufficientFunds as error:
        raise InsufficientFunds(
            f"{table.name}'s tray has {format_dollars(int(error.fields.get('available', 0)))}; a marker of "
            f"{format_dollars(cents)} needs a fill first. Nothing moved.",
            fields=error.fields,
        ) from error
    slip.issue_transfer, slip.drop_box = transfer, box
    slip.save(update_fields=["issue_transfer", "drop_box"])
    marker = Marker.objects.create(
        slip=slip,
        credit_line=line,
        player=player,
        amount=cents,
        outstanding=cents,
        issued_by=actor,
        transfer=transfer,
        at=transfer.created_at,
    )
    record_action(
        actor=actor,
        action="marker.issued",
        obj=slip,
        data={"number": slip.number, "player": player.pk, "amount": cents, "table": table.pk},
    )
    return marker


def _check_method(method: Any) -> str:
    if method not in RedemptionMethod.values:
        raise ValidationFailed(
            "method must be cash or chips.",
            fields={"method": "one of: " + ", ".join(RedemptionMethod.values)},
        )
    return str(method)


@transaction.atomic
def redeem_marker(*, actor: User, marker_id: int, amount: Any, method: Any) -> Marker:
    """A cashier takes a payment against a marker, in cash or in the player's chips; a part
    payment leaves the rest outstanding. Cash counts as the player's cash in for Title 31."""
    require(actor, "marker.redeem")
    found = Marker.objects.filter(slip_id=marker_id).values_list("credit_line_id", flat=True).first()
    if found is None:
        raise NotFound("No such marker.")
    cents = check_cents(amount, field="amount")
    how = _check_method(method)
    # The line's row first: it serialises the payments with the markers drawn on it.
    CreditLine.objects.select_for_update(of=("self",)).filter(pk=found).values_list("pk", flat=True).get()
    marker = (
        Marker.objects.select_for_update(of=("self",))
        .select_related("slip", "player__user", "player__wallet")
        .get(slip_id=marker_id)
    )
    player, number = marker.player, marker.slip.number
    if marker.outstanding == 0:
        raise Conflict(f"Marker {number} is paid in full.", code="marker_paid")
    if cents > marker.outstanding:
        raise Conflict(
            f"Marker {number} has {format_dollars(marker.outstanding)} outstanding; "
            f"a payment of {format_dollars(cents)} is more than that. Nothing moved.",
            code="over_outstanding",
            fields={"amount": cents, "outstanding": marker.outstanding},
        )
    legs = [Leg(debit=receivable_code(player.pk), credit=MARKER_CREDIT, amount=cents)]
    if how == RedemptionMethod.CHIPS:
        legs.insert(0, Leg(debit=player.wallet.code, credit=CAGE, amount=cents))
    paid = MarkerRedemption.objects.filter(marker=marker).count() + 1
    # Cash is the player's cash in for Title 31: the day's totals row is locked before the ledger's
    # accounts, and a payment that needs identification first is refused before anything moves.
    cash_line = (
        record_cash(
            player=player,
            direction=CashDirection.IN,
            kind=CashKind.MARKER_REDEMPTION,
            amount=cents,
            where=CASH_WHERE,
            by=actor,
        )
        if how == RedemptionMethod.CASH
        else None
    )
    try:
        transfer = post_transfer(
            key=f"slip:{marker.slip_id}:{REDEMPTION_TRANSFER}:{paid}",
            kind=REDEMPTION_TRANSFER,
            legs=legs,
            memo=f"Marker {number} paid in {how} by {player.name}",
            meta={
                "player": player.pk,
                "slip": marker.slip_id,
                "number": number,
                "method": how,
                "by": actor.pk,
            },
            at=cash_line.at if cash_line is not None else None,  # the cash line's moment and day
        )
    except InsufficientFunds as error:
        available = int(error.fields.get("available", 0))
        raise InsufficientFunds(
            f"{player.name} has {format_dollars(available)} in chips; paying {format_dollars(cents)} of "
            f"marker {number} in chips needs {format_dollars(cents - available)} more. Nothing moved.",
            fields=error.fields,
        ) from error
    redemption = MarkerRedemption.objects.create(
        marker=marker, amount=cents, method=how, transfer=transfer, by=actor, at=transfer.created_at
    )
    marker.outstanding -= cents
    marker.save(update_fields=["outstanding"])
    if cash_line is not None:
        link_transfer(cash=cash_line, transfer=transfer)
    record_action(
        actor=actor,
        action="marker.redeemed",
        obj=marker.slip,
        data={"number": number, "amount": cents, "method": how, "redemption": redemption.pk},
    )
    return marker
