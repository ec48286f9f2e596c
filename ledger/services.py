"""Writes to the ledger. ``post_transfer`` is the only code that creates entries or moves balances."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import defaultdict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import IntegrityError, connection, transaction
from django.utils import timezone

from ledger.errors import (
    AlreadyReversed,
    GamingDayClosed,
    HoldExceeded,
    HoldNotPending,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidTransfer,
    UnknownAccount,
)
from ledger.gaming_day import gaming_day_for
from ledger.locks import lock_accounts, lock_accounts_by_code, lock_holds
from ledger.metrics import TRANSFER_LEGS, TRANSFERS
from ledger.models import (
    Account,
    AccountKind,
    AccountPurpose,
    ClosedGamingDay,
    Entry,
    Hold,
    HoldStatus,
    Transfer,
)

MAX_AMOUNT = 10**15  # cents; far above any real chip movement, far below BIGINT's limit


@dataclass(frozen=True, slots=True)
class Leg:
    """``amount`` cents from ``debit`` (payer code) to ``credit`` (payee code).

    With ``hold_id`` the payment is captured from that pending hold on the payer.
    """

    debit: str
    credit: str
    amount: int
    hold_id: int | None = None


def open_account(
    *,
    code: str,
    kind: str,
    purpose: str,
    name: str = "",
    holder: str = "",
    must_not_go_negative: bool = True,
) -> Account:
    """Create an account, or return it if it exists (accounts are opened lazily and concurrently)."""
    account, _ = Account.objects.get_or_create(
        code=code,
        defaults={
            "kind": kind,
            "purpose": purpose,
            "name": name or code,
            "holder": holder,
            "must_not_go_negative": must_not_go_negative,
        },
    )
    return account


def ensure_system_accounts() -> None:
    """The house's own accounts (also made by a data migration; tests that flush need them again).

    The cage issues chips, so it alone may go negative.
    """
    open_account(
        code="cage",
        kind=AccountKind.ASSET,
        purpose=AccountPurpose.CAGE,
        name="Cage",
        must_not_go_negative=False,
    )
    open_account(
        code="rake", kind=AccountKind.REVENUE, purpose=AccountPurpose.RAKE_REVENUE, name="Rake revenue"
    )


def _fingerprint(kind: str, legs: Sequence[Leg], meta: Mapping[str, Any], reverses: int | None) -> str:
    payload = {
        "kind": kind,
        "legs": [[leg.debit, leg.credit, leg.amount, leg.hold_id] for leg in legs],
        "meta": meta,
        "reverses": reverses,
    }
    return hashlib.sha256(json.dumps(payload, sort_keys=True, default=str).encode()).hexdigest()


def _check_legs(legs: Sequence[Leg]) -> None:
    if not legs:
        raise InvalidTransfer("A transfer needs at least one leg.")
    for leg in legs:
        if isinstance(leg.amount, bool) or not isinstance(leg.amount, int):
            raise InvalidTransfer("Amounts are whole cents.", fields={"amount": "must be an integer"})
        if leg.amount <= 0 or leg.amount > MAX_AMOUNT:
            raise InvalidTransfer(
                f"Each leg moves between 1 and {MAX_AMOUNT} cents.", fields={"amount": leg.amount}
            )
        if leg.debit == leg.credit:
            raise InvalidTransfer(f"A leg cannot move chips from {leg.debit} to itself.")


def _existing(key: str, fingerprint: str) -> Transfer | None:
    found = Transfer.objects.filter(key=key).first()
    if found is not None and found.fingerprint != fingerprint:
        raise IdempotencyConflict(f"Key {key!r} was already used for a different transfer.")
    return found


@transaction.atomic
def post_transfer(
    *,
    key: str,
    kind: str,
    legs: Sequence[Leg],
    memo: str = "",
    meta: Mapping[str, Any] | None = None,
    at: dt.datetime | None = None,
    reverses: Transfer | None = None,
) -> Transfer:
    """Move chips between accounts, all legs or none.

    Locks every touched account (pk order) and hold, refuses overdrafts of non-negative
    accounts with ``InsufficientFunds``, writes the transfer and its entries, and updates
    the stored balances. The same ``key`` with the same content returns the first transfer
    and moves nothing; with different content it raises ``IdempotencyConflict``.
    """
    _check_legs(legs)
    meta = dict(meta or {})
    fingerprint = _fingerprint(kind, legs, meta, reverses.pk if reverses else None)
    codes = {leg.debit for leg in legs} | {leg.credit for leg in legs}
    by_code = lock_accounts_by_code(codes=codes)  # resolves and locks in one query, pk order
    if missing := codes - by_code.keys():
        raise UnknownAccount(f"No such account: {', '.join(sorted(missing))}.")
    hold_ids = {leg.hold_id for leg in legs if leg.hold_id is not None}
    holds = lock_holds(ids=hold_ids) if hold_ids else {}
    now = at or timezone.now()
    day = gaming_day_for(now)
    # The key is claimed before anything is checked: a replay returns the first transfer even
    # if the payer could no longer afford it. Same-key retries lock the same accounts, so a
    # twin has committed by now; a twin on other accounts makes the INSERT wait, then skip.
    transfer_id = _claim_key(
        key=key,
        kind=kind,
        memo=memo[:300],
        now=now,
        day=day,
        meta=meta,
        fingerprint=fingerprint,
        reverses=reverses,
    )
    if transfer_id is None:
        found = _existing(key, fingerprint)
        if found is None:  # the twin rolled back after we waited: nothing was posted under the key
            raise IdempotencyConflict(f"Key {key!r} is being used by another transfer right now; retry.")
        return found

    accounts = {account.pk: account for account in by_code.values()}
    deltas: dict[int, int] = defaultdict(int)
    debits: dict[int, int] = defaultdict(int)
    captured: dict[int, int] = defaultdict(int)  # account pk -> cents taken from its holds
    hold_use: dict[int, int] = defaultdict(int)
    for leg in legs:
        payer, payee = by_code[leg.debit], by_code[leg.credit]
        deltas[payer.pk] -= leg.amount
        deltas[payee.pk] += leg.amount
        debits[payer.pk] += leg.amount
        if leg.hold_id is not None:
            hold = holds.get(leg.hold_id)
            if hold is None or hold.account_id != payer.pk:
                raise InvalidTransfer(f"Hold {leg.hold_id} does not reserve funds on {leg.debit}.")
            if hold.status != HoldStatus.PENDING:
                raise HoldNotPending(f"Hold {hold.key} is {hold.status}; it can no longer pay.")
            hold_use[hold.pk] += leg.amount
            if hold_use[hold.pk] > hold.amount - hold.captured:
                raise HoldExceeded(
                    f"Hold {hold.key} has {hold.amount - hold.captured} cents left, not {hold_use[hold.pk]}."
                )
            captured[payer.pk] += leg.amount

    for pk, delta in deltas.items():
        account = accounts[pk]
        # A transfer's legs are simultaneous: an account may pay on what it receives in the
        # same transfer (a pot filled and won by one action). What must hold is the result:
        # the new balance still covers what stays reserved by holds.
        still_held = account.held - captured[pk]
        if account.must_not_go_negative and account.balance + delta < still_held:
            short = still_held - (account.balance + delta)
            raise InsufficientFunds(
                f"{account.name or account.code} has {account.available} cents available; "
                f"this transfer needs {short} cents more.",
                fields={
                    "account": account.code,
                    "available": account.available,
                    "needed": account.available + short,
                },
            )

    # Credits are entered before debits, so each account's balance_after chain never dips
    # below zero inside a transfer that the net rule above allowed (paid on what it received).
    running = {pk: account.balance for pk, account in accounts.items()}
    credits: list[Entry] = []
    debits_out: list[Entry] = []
    for index, leg in enumerate(legs):
        payee = by_code[leg.credit]
        running[payee.pk] += leg.amount
        credits.append(
            Entry(
                transfer_id=transfer_id,
                account_id=payee.pk,
                leg=index,
                amount=leg.amount,
                balance_after=running[payee.pk],
                created_at=now,
            )
        )
    for index, leg in enumerate(legs):
        payer = by_code[leg.debit]
        running[payer.pk] -= leg.amount
        debits_out.append(
            Entry(
                transfer_id=transfer_id,
                account_id=payer.pk,
                leg=index,
                amount=-leg.amount,
                balance_after=running[payer.pk],
                hold_id=leg.hold_id,
                created_at=now,
            )
        )
    entries = credits + debits_out
    Entry.objects.bulk_create(entries)
    _apply_balances(deltas=deltas, debits=debits, captured=captured)
    for hold_pk, used in hold_use.items():
        Hold.objects.filter(pk=hold_pk).update(captured=holds[hold_pk].captured + used)
    transaction.on_commit(lambda: _count(kind, len(legs)))
    transfer = Transfer(
        pk=transfer_id,
        key=key,
        kind=kind,
        memo=memo[:300],
        created_at=now,
        gaming_day=day,
        meta=meta,
        fingerprint=fingerprint,
        reverses=reverses,
    )
    transfer._state.adding = False
    transfer._state.db = "default"
    return transfer


def _claim_key(
    *,
    key: str,
    kind: str,
    memo: str,
    now: dt.datetime,
    day: dt.date,
    meta: Mapping[str, Any],
    fingerprint: str,
    reverses: Transfer | None,
) -> int | None:
    """Insert the transfer row, or return None if its key is taken (one round trip either way)."""
    try:
        with connection.cursor() as cursor:
            cursor.execute(
                """
                INSERT INTO ledger_transfer
                       (key, kind, memo, created_at, gaming_day, meta, fingerprint, reverses_id)
                VALUES (%s, %s, %s, %s, %s, %s::jsonb, %s, %s)
                ON CONFLICT (key) DO NOTHING
                RETURNING id
                """,
                [
                    key,
                    kind,
                    memo,
                    now,
                    day,
                    json.dumps(meta, default=str),
                    fingerprint,
                    reverses.pk if reverses else None,
                ],
            )
            row = cursor.fetchone()
    except IntegrityError as error:
        if "gaming_day_closed" in str(error):
            raise GamingDayClosed(f"Gaming day {day} is closed; no transfer may be dated into it.") from error
        raise
    return int(row[0]) if row else None


def _count(kind: str, legs: int) -> None:
    TRANSFERS.labels(kind).inc()
    TRANSFER_LEGS.inc(legs)


def _apply_balances(*, deltas: dict[int, int], debits: dict[int, int], captured: dict[int, int]) -> None:
    """One UPDATE for all touched accounts: the hot path of every chip movement."""
    rows = [(pk, delta, debits[pk], delta + debits[pk], captured[pk]) for pk, delta in deltas.items()]
    values = ", ".join(["(%s::bigint, %s::bigint, %s::bigint, %s::bigint, %s::bigint)"] * len(rows))
    params = [value for row in rows for value in row]
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            UPDATE ledger_account AS a
               SET balance = a.balance + v.delta,
                   debits_posted = a.debits_posted + v.debits,
                   credits_posted = a.credits_posted + v.credits,
                   held = a.held - v.captured,
                   version = a.version + 1
              FROM (VALUES {values}) AS v(id, delta, debits, credits, captured)
             WHERE a.id = v.id
            """,
            params,
        )


@transaction.atomic
def reverse_transfer(*, transfer: Transfer, key: str | None = None, memo: str = "") -> Transfer:
    """Correct a mistake with the mirror transfer; the original is never edited."""
    if Transfer.objects.filter(reverses=transfer).exists():
        raise AlreadyReversed(f"Transfer {transfer.pk} has already been reversed.")
    originals = transfer.entries.select_related("account").order_by("leg", "amount")
    legs_by_index: dict[int, dict[str, str | int]] = defaultdict(dict)
    for entry in originals:
        side = "debit" if entry.amount < 0 else "credit"
        legs_by_index[entry.leg][side] = entry.account.code
        legs_by_index[entry.leg]["amount"] = abs(entry.amount)
    legs = [
        Leg(debit=str(leg["credit"]), credit=str(leg["debit"]), amount=int(leg["amount"]))
        for _, leg in sorted(legs_by_index.items())
    ]
    try:
        with transaction.atomic():
            return post_transfer(
                key=key or f"reversal:{transfer.key}",
                kind="reversal",
                legs=legs,
                memo=memo or f"Reversal of transfer {transfer.pk}",
                meta={**transfer.meta, "reverses": transfer.pk},
                reverses=transfer,
            )
    except IntegrityError as error:
        raise AlreadyReversed(f"Transfer {transfer.pk} has already been reversed.") from error


@transaction.atomic
def hold(
    *,
    key: str,
    account_code: str,
    amount: int,
    expires_at: dt.datetime | None = None,
    memo: str = "",
    meta: Mapping[str, Any] | None = None,
) -> Hold:
    """Reserve funds: they stay in the balance but are no longer available."""
    if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_AMOUNT:
        raise InvalidTransfer("A hold reserves a positive whole number of cents.", fields={"amount": amount})
    account_pk = Account.objects.filter(code=account_code).values_list("pk", flat=True).first()
    if account_pk is None:
        raise UnknownAccount(f"No such account: {account_code}.")
    account = lock_accounts(ids=[account_pk])[account_pk]
    # Same-key retries lock the same account, so a racing twin has committed by now.
    existing = Hold.objects.filter(key=key).first()
    if existing is not None:
        if existing.amount != amount or existing.account_id != account_pk:
            raise IdempotencyConflict(f"Hold key {key!r} was already used for a different hold.")
        return existing
    if account.must_not_go_negative and account.available < amount:
        raise InsufficientFunds(
            f"{account.name or account.code} has {account.available} cents available, {amount} needed.",
            fields={"account": account.code, "available": account.available, "needed": amount},
        )
    created = Hold.objects.create(
        key=key, account=account, amount=amount, expires_at=expires_at, memo=memo[:300], meta=dict(meta or {})
    )
    Account.objects.filter(pk=account.pk).update(held=account.held + amount, version=account.version + 1)
    return created


def _release(*, hold_id: int, status: str) -> Hold:
    current = Hold.objects.select_related("account").get(pk=hold_id)
    account = lock_accounts(ids=[current.account_id])[current.account_id]
    locked = lock_holds(ids=[hold_id])[hold_id]
    if locked.status != HoldStatus.PENDING:
        raise HoldNotPending(f"Hold {locked.key} is already {locked.status}.")
    remaining = locked.amount - locked.captured
    Account.objects.filter(pk=account.pk).update(held=account.held - remaining, version=account.version + 1)
    locked.status = status
    locked.resolved_at = timezone.now()
    locked.save(update_fields=["status", "resolved_at"])
    return locked


@transaction.atomic
def void_hold(*, hold_id: int) -> Hold:
    """Release what is left of a hold; what it already paid stays paid."""
    return _release(hold_id=hold_id, status=HoldStatus.VOIDED)


@transaction.atomic
def post_hold(
    *,
    hold_id: int,
    key: str,
    kind: str,
    credit: str,
    amount: int | None = None,
    memo: str = "",
    meta: Mapping[str, Any] | None = None,
) -> Transfer | None:
    """Capture ``amount`` (default: all that is left) to ``credit`` and close the hold, releasing the rest."""
    if amount is not None and (isinstance(amount, bool) or not isinstance(amount, int) or amount < 0):
        # Otherwise a negative amount skips the capture below and closes the hold as "posted".
        raise InvalidTransfer(
            "A hold posts a whole, non-negative number of cents.", fields={"amount": amount}
        )
    current = Hold.objects.select_related("account").get(pk=hold_id)
    left = current.amount - current.captured
    to_take = left if amount is None else amount
    transfer = None
    if to_take > 0:
        transfer = post_transfer(
            key=key,
            kind=kind,
            legs=[Leg(debit=current.account.code, credit=credit, amount=to_take, hold_id=hold_id)],
            memo=memo,
            meta=meta,
        )
    _release(hold_id=hold_id, status=HoldStatus.POSTED)
    return transfer


@transaction.atomic
def expire_holds(*, now: dt.datetime | None = None) -> int:
    """Release every pending hold past its expiry; returns how many were released."""
    moment = now or timezone.now()
    due = list(
        Hold.objects.filter(status=HoldStatus.PENDING, expires_at__lte=moment)
        .order_by("pk")
        .values_list("pk", flat=True)
    )
    for hold_id in due:
        _release(hold_id=hold_id, status=HoldStatus.EXPIRED)
    return len(due)


@transaction.atomic
def close_gaming_day(*, day: dt.date, closed_by: str = "") -> ClosedGamingDay:
    """After this no transfer can be dated into ``day`` (a trigger enforces it)."""
    closed, _ = ClosedGamingDay.objects.get_or_create(day=day, defaults={"closed_by": closed_by})
    return closed
