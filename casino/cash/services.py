"""Writes of cash compliance: every cash transaction with a player goes through ``record_cash``.

Cage buy-ins and cash-outs (``casino.services``), cash buy-ins at a table and markers redeemed
in cash call it inside their money transaction, before the ledger posts, so one rule adds up a
player's cash in and cash out per gaming day (31 CFR 1021.313), writes the multiple-transaction
log and refuses a transaction that needs identification first.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.action_log import record_action
from casino.cash.errors import IdentificationRequired
from casino.cash.models import (
    KIND_DIRECTION,
    CashDay,
    CashDirection,
    CashKind,
    CashRefusal,
    CashTransaction,
    Identification,
)
from casino.errors import ValidationFailed
from casino.models import Player, User
from casino.money import format_dollars
from ledger.gaming_day import gaming_day_for
from ledger.models import Transfer

DIRECTION_WORDS = {CashDirection.IN: "cash in", CashDirection.OUT: "cash out"}
KIND_WORDS = {
    CashKind.CAGE_BUY_IN: "buy-in",
    CashKind.TABLE_BUY_IN: "cash buy-in",
    CashKind.MARKER_REDEMPTION: "marker redemption",
    CashKind.CAGE_CASH_OUT: "cash-out",
}


def mtl_line() -> int:
    """The multiple-transaction log's line in cents ($3,000.00 unless set)."""
    return int(settings.MTL_THRESHOLD)


def ctr_line() -> int:
    """The currency transaction report's line in cents ($10,000.00 unless set)."""
    return int(settings.CTR_THRESHOLD)


def lock_cash_day(*, player_id: int, day: dt.date) -> CashDay:
    """The player's day-totals row, made if need be, locked for the rest of the transaction.

    ``ON CONFLICT DO NOTHING`` waits for a concurrent transaction that is inserting the same row,
    then the row lock queues every other cash transaction of the player that day behind this one.
    """
    CashDay.objects.bulk_create([CashDay(player_id=player_id, gaming_day=day)], ignore_conflicts=True)
    return CashDay.objects.select_for_update().get(player_id=player_id, gaming_day=day)


def has_identification(*, player_id: int) -> bool:
    return Identification.objects.filter(player_id=player_id).exists()


def record_cash(
    *,
    player: Player,
    direction: str,
    kind: str,
    amount: int,
    where: str,
    by: User,
    table_id: int | None = None,
    transfer: Transfer | None = None,
    at: dt.datetime | None = None,
) -> CashTransaction:
    """Add one cash transaction to the player's day; refuse it if it needs identification first.

    Call it inside the transaction that moves the money, *before* the ledger posts, in the floor's
    lock order: the table (if any) first, then this (the player's day-totals row), then the ledger
    accounts, which ``post_transfer`` locks. Then pass the posted transfer to ``link_transfer``
    (or pass ``transfer`` here if it was posted already). Arguments:

    - ``direction``: ``"in"`` or ``"out"``; ``kind``: ``cage_buy_in``, ``table_buy_in``,
      ``marker_redemption`` (in) or ``cage_cash_out`` (out).
    - ``amount``: cents, more than 0; ``where``: words for a person ("Cage", a table's name);
      ``table_id``: the table's id when at a table; ``by``: the staff member; ``at``: now unless
      given (its gaming day is the transaction's).

    Raises ``IdentificationRequired`` (409 ``identification_required``) when the transaction takes
    the day's total in its direction past ``CTR_THRESHOLD`` and no identification is on file; the
    caller's transaction then rolls back, and the layer that answers the person writes the
    refusal with ``note_refusal``. A transaction of ``MTL_THRESHOLD`` or more, or one that takes
    its direction's total past that line, is a line of the multiple-transaction log.
    """
    if KIND_DIRECTION.get(CashKind(kind)) != direction:
        raise ValueError(f"A {kind} is not cash {direction}.")
    if amount <= 0:
        raise ValidationFailed("A cash amount must be more than $0.00.", fields={"amount": amount})
    at = at or timezone.now()
    day = gaming_day_for(at)
    totals = lock_cash_day(player_id=player.pk, day=day)
    field = "cash_in" if direction == CashDirection.IN else "cash_out"
    before: int = getattr(totals, field)
    after = before + amount
    if after > ctr_line() and not has_identification(player_id=player.pk):
        raise _identification_required(
            player=player, direction=direction, kind=kind, amount=amount, before=before,
            where=where, by=by, table_id=table_id, at=at, day=day,
        )  # fmt: skip
    setattr(totals, field, after)
    totals.save(update_fields=[field])
    return CashTransaction.objects.create(
        player=player,
        gaming_day=day,
        direction=direction,
        kind=kind,
        amount=amount,
        where=where[:120],
        table_id=table_id,
        by=by,
        at=at,
        transfer=transfer,
        mtl=amount >= mtl_line() or before <= mtl_line() < after,
    )


def link_transfer(*, cash: CashTransaction, transfer: Transfer) -> CashTransaction:
    """The ledger transfer that moved ``cash``'s money, posted after ``record_cash``."""
    cash.transfer = transfer
    cash.save(update_fields=["transfer"])
    return cash


def _identification_required(
    *,
    player: Player,
    direction: str,
    kind: str,
    amount: int,
    before: int,
    where: str,
    by: User,
    table_id: int | None,
    at: dt.datetime,
    day: dt.date,
) -> IdentificationRequired:
    words = DIRECTION_WORDS[CashDirection(direction)]
    message = (
        f"{player.name}'s {words} today would be {format_dollars(before + amount)} with this "
        f"{KIND_WORDS[CashKind(kind)]} of {format_dollars(amount)} (already {format_dollars(before)}), "
        f"past the {format_dollars(ctr_line())} reporting line, and no identification is on file: "
        f"record {player.name}'s identification first. Nothing moved."
    )
    fields = {
        "player": player.pk,
        "amount": amount,
        "day_total": before,
        "would_be": before + amount,
        "ctr_threshold": ctr_line(),
        "direction": direction,
    }
    refusal = {
        "player_id": player.pk,
        "gaming_day": day,
        "direction": direction,
        "kind": kind,
        "amount": amount,
        "day_total": before,
        "where": where[:120],
        "table_id": table_id,
        "by_id": by.pk,
        "at": at,
    }
    return IdentificationRequired(message, fields=fields, refusal=refusal)


def note_refusal(error: IdentificationRequired) -> CashRefusal | None:
    """Write a refused transaction down, once, after its own transaction rolled back.

    The API's exception handler and the screens' tap handler call it when they answer the person;
    they run outside the refused transaction, so the row outlives it. Idempotent per error.
    """
    if error.noted:
        return None
    with transaction.atomic():
        refusal = CashRefusal.objects.create(**error.refusal)
    error.noted = True
    return refusal


@transaction.atomic
def record_identification(
    *,
    actor: User,
    player: Player,
    kind: str,
    number: str,
    name: str,
    birth_date: dt.date,
    address: str,
    issued_by: str = "",
) -> Identification:
    """The cage or the pit examined the player's ID: on file from now on, for every CTR of theirs."""
    values: dict[str, Any] = {"number": number, "name": name, "address": address}
    empty = {key: "required" for key, value in values.items() if not str(value).strip()}
    if empty:
        raise ValidationFailed(
            "Identification needs its number, the name on it and an address.", fields=empty
        )
    if birth_date >= timezone.localdate():
        raise ValidationFailed(
            "The date of birth must be in the past.", fields={"birth_date": "in the future"}
        )
    identification = Identification.objects.create(
        player=player,
        kind=kind,
        number=number.strip(),
        issued_by=issued_by.strip(),
        name=name.strip(),
        birth_date=birth_date,
        address=address.strip(),
        recorded_by=actor,
    )
    record_action(
        actor=actor, action="cash.identification_recorded", obj=identification, data={"player": player.pk}
    )
    return identification
