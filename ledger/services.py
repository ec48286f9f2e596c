"""Writes to the ledger. ``post_transfer`` is the only code that creates entries or moves balances."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, IntegrityError, connection, transaction
from django.utils import timezone

from ledger import sql
from ledger.errors import (
    AlreadyReversed,
    GamingDayClosed,
    HoldExceeded,
    HoldNotPending,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidTransfer,
    LedgerError,
    UnknownAccount,
    in_dollars,
)
from ledger.gaming_day import gaming_day_for
from ledger.kept_cursor import kept_cursor
from ledger.locks import lock_accounts_by_code, lock_accounts_of_holds, lock_holds
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


# The refusals ledger_post_transfer raises (migration 0010), by SQLSTATE.
_REFUSALS: dict[str, type[LedgerError]] = {
    "CK001": InsufficientFunds,
    "CK002": IdempotencyConflict,
    "CK003": UnknownAccount,
    "CK004": HoldNotPending,
    "CK005": HoldExceeded,
    "CK006": InvalidTransfer,
}

_TRANSFER_FIELDS = tuple(field.attname for field in Transfer._meta.concrete_fields)


def post_transfer(
    *,
    key: str,
    kind: str,
    legs: Sequence[Leg],
    memo: str = "",
    meta: Mapping[str, Any] | None = None,
    at: dt.datetime | None = None,
    reverses: Transfer | None = None,
    savepoint: bool = True,
) -> Transfer:
    """Move chips between accounts, all legs or none.

    Locks every touched account (pk order) and hold, refuses overdrafts of non-negative
    accounts with ``InsufficientFunds``, writes the transfer and its entries, and updates
    the stored balances. The same ``key`` with the same content returns the first transfer
    and moves nothing; with different content it raises ``IdempotencyConflict``.

    The work is one call of the database function ``ledger_post_transfer`` (migration 0010): one
    round trip. Outside a transaction that statement is its own transaction; inside one, it runs
    in a savepoint, so a refusal leaves the caller's transaction usable. ``savepoint=False`` is for a
    caller that rolls its whole transaction back on any refusal anyway (a round action): it
    spares two statements, and a refusal then leaves that transaction usable only for a rollback.
    """
    _check_legs(legs)
    meta = dict(meta or {})
    reverses_id = reverses.pk if reverses else None
    fingerprint = _fingerprint(kind, legs, meta, reverses_id)
    memo = memo[:300]
    now = at or timezone.now()
    day = gaming_day_for(now)
    params: list[Any] = [key, kind, memo, now, day, json.dumps(meta, default=str), fingerprint, reverses_id]
    params += [
        _text_array([leg.debit for leg in legs]),
        _text_array([leg.credit for leg in legs]),
        _int_array([leg.amount for leg in legs]),
        _int_array([leg.hold_id for leg in legs]),
    ]
    if connection.get_autocommit():  # the statement is its own transaction: committed on return
        transfer_id, replayed = _call_post(params, day)
        if not replayed:
            _count(kind, len(legs))
    else:
        with transaction.atomic(savepoint=savepoint):
            transfer_id, replayed = _call_post(params, day)
        if not replayed:
            transaction.on_commit(lambda: _count(kind, len(legs)))
    if replayed:
        return Transfer.objects.get(pk=transfer_id)
    # Built like a row read from the database (positional, the cheap path of Model.__init__).
    stored = {
        "id": transfer_id,
        "key": key,
        "kind": kind,
        "memo": memo,
        "created_at": now,
        "gaming_day": day,
        "meta": meta,
        "fingerprint": fingerprint,
        "reverses_id": reverses_id,
    }
    transfer = Transfer.from_db("default", _TRANSFER_FIELDS, tuple(stored[name] for name in _TRANSFER_FIELDS))
    if reverses is not None:
        transfer.reverses = reverses
    return transfer


def _text_array(values: Sequence[str]) -> str:
    """A PostgreSQL array literal of strings, every element quoted: under cProfile, psycopg's
    general list adapter took about a third of a transfer's client CPU."""
    return "{" + ",".join('"' + v.replace("\\", "\\\\").replace('"', '\\"') + '"' for v in values) + "}"


def _int_array(values: Sequence[int | None]) -> str:
    return "{" + ",".join("NULL" if v is None else str(int(v)) for v in values) + "}"


def _call_post(params: list[Any], day: dt.date) -> tuple[int, bool]:
    """Run the posting function; its refusals come back as the ledger's domain errors."""
    try:
        row = _execute_post(params)
    except DatabaseError as error:
        cause = error.__cause__
        refusal = _REFUSALS.get(getattr(cause, "sqlstate", None) or "")
        if refusal is not None:
            diag = cause.diag  # type: ignore[union-attr]
            fields = json.loads(diag.message_detail) if diag.message_detail else None
            message = diag.message_primary or refusal.code
            if refusal is InsufficientFunds:  # a cashier or a dealer reads it: dollars
                message = in_dollars(message)
            raise refusal(message, fields=fields) from error
        if "gaming_day_closed" in str(error):
            raise GamingDayClosed(f"Gaming day {day} is closed; no transfer may be dated into it.") from error
        raise
    return int(row[0]), bool(row[1])


def _execute_post(params: list[Any]) -> Any:
    """One call of the posting function, bound on the server through Django's cursor (so it is
    logged and counted like any statement) and prepared there from its first run on a connection
    (``_prepare_at_once``), not only from its ``DB_PREPARE_THRESHOLD``-th as other statements are:
    psycopg forgets a connection's prepared statements at every rollback."""
    cursor = kept_cursor()
    with connection.execute_wrapper(_prepare_at_once):
        cursor.execute(sql.POST_TRANSFER, params)
    return cursor.fetchone()


def _prepare_at_once(execute: Any, query: str, params: Any, many: bool, context: dict[str, Any]) -> Any:
    """Django execute wrapper: the statement goes to psycopg with its public ``prepare=True``
    (ignored, as every preparing is, where ``DB_PREPARE_THRESHOLD`` is empty). It stands in for
    Django's own last step, so it checks the transaction and wraps errors as that step does."""
    db = context["connection"]
    db.validate_no_broken_transaction()
    with db.wrap_database_errors:
        return context["cursor"].cursor.execute(query, params, prepare=True)


_TRANSFERS_BY_KIND: dict[str, Any] = {}  # the counter's child per kind: labels() takes a lock each call


def _count(kind: str, legs: int) -> None:
    counter = _TRANSFERS_BY_KIND.get(kind)
    if counter is None:
        counter = _TRANSFERS_BY_KIND[kind] = TRANSFERS.labels(kind)
    counter.inc()
    TRANSFER_LEGS.inc(legs)


def _mirror_legs(entries: Iterable[Entry]) -> list[Leg]:
    """A transfer's legs turned round, in leg order, from its entries (their accounts loaded)."""
    legs_by_index: dict[int, dict[str, str | int]] = defaultdict(dict)
    for entry in sorted(entries, key=lambda e: (e.leg, e.amount)):
        side = "debit" if entry.amount < 0 else "credit"
        legs_by_index[entry.leg][side] = entry.account.code
        legs_by_index[entry.leg]["amount"] = abs(entry.amount)
    return [
        Leg(debit=str(leg["credit"]), credit=str(leg["debit"]), amount=int(leg["amount"]))
        for _, leg in sorted(legs_by_index.items())
    ]


def _post_reversal(transfer: Transfer, legs: Sequence[Leg], key: str, memo: str) -> Transfer:
    try:
        with transaction.atomic():
            return post_transfer(
                key=key,
                kind="reversal",
                legs=legs,
                memo=memo,
                meta={**transfer.meta, "reverses": transfer.pk},
                reverses=transfer,
            )
    except IntegrityError as error:
        raise AlreadyReversed(f"Transfer {transfer.pk} has already been reversed.") from error


@transaction.atomic
def reverse_transfer(*, transfer: Transfer, key: str | None = None, memo: str = "") -> Transfer:
    """Correct a mistake with the mirror transfer; the original is never edited."""
    if Transfer.objects.filter(reverses=transfer).exists():
        raise AlreadyReversed(f"Transfer {transfer.pk} has already been reversed.")
    legs = _mirror_legs(transfer.entries.select_related("account"))
    return _post_reversal(
        transfer, legs, key or f"reversal:{transfer.key}", memo or f"Reversal of transfer {transfer.pk}"
    )


@transaction.atomic
def reverse_transfers(*, transfers: Sequence[Transfer], key_prefix: str, memo: str) -> list[Transfer]:
    """Undo several transfers together (a correction voiding several actions of a deal): one
    mirror transfer each, keyed ``key_prefix`` + the original's id, in an order their own legs
    cannot make fail. Returns the reversals in the order they were posted.

    Every account they touch is locked first, in pk order. They are undone newest first: the
    history walked backwards, each finds the chips where the transfer after it had them (a bet's
    return waits until the loss that emptied its layout is undone). When chips moved since by
    other hands (a player cashed out a win) and the newest cannot post yet, an older one that
    can goes first. If none can, the newest is refused, naming the short account, and nothing
    of this call stays posted.
    """
    if Transfer.objects.filter(reverses__in=list(transfers)).exists():
        raise AlreadyReversed("One of these transfers has already been reversed.")
    entries: dict[int, list[Entry]] = defaultdict(list)
    for entry in Entry.objects.filter(transfer__in=list(transfers)).select_related("account"):
        entries[entry.transfer_id].append(entry)
    legs = {transfer.pk: _mirror_legs(entries[transfer.pk]) for transfer in transfers}
    codes = {code for each in legs.values() for code in _net(each)}
    room = {  # what each guarded account may still pay: its balance less what its holds reserve
        code: account.balance - account.held
        for code, account in lock_accounts_by_code(codes=codes).items()
        if account.must_not_go_negative
    }
    waiting = sorted(transfers, key=lambda t: t.pk, reverse=True)
    reversals = []
    while waiting:
        transfer = next((t for t in waiting if _fits(legs[t.pk], room)), waiting[0])
        reversals.append(_post_reversal(transfer, legs[transfer.pk], f"{key_prefix}{transfer.pk}", memo))
        for code, change in _net(legs[transfer.pk]).items():
            if code in room:
                room[code] += change
        waiting.remove(transfer)
    return reversals


def _net(legs: Iterable[Leg]) -> dict[str, int]:
    """Each account's change from these simultaneous legs."""
    change: dict[str, int] = defaultdict(int)
    for leg in legs:
        change[leg.debit] -= leg.amount
        change[leg.credit] += leg.amount
    return change


def _fits(legs: Iterable[Leg], room: Mapping[str, int]) -> bool:
    """Whether every guarded account keeps what its holds reserve (``room``: balance less held)."""
    return all(room[code] + change >= 0 for code, change in _net(legs).items() if code in room)


@dataclass(frozen=True, slots=True)
class HoldRequest:
    """One reservation for ``hold_many``: ``amount`` cents of ``account_code`` under ``key``."""

    key: str
    account_code: str
    amount: int
    memo: str = ""
    meta: Mapping[str, Any] | None = None
    expires_at: dt.datetime | None = None


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
    request = HoldRequest(key, account_code, amount, memo=memo, meta=meta, expires_at=expires_at)
    return hold_many([request])[0]


def _shift_held(deltas: Mapping[int, int]) -> None:
    moved = {pk: delta for pk, delta in deltas.items() if delta}
    if moved:
        with connection.cursor() as cursor:
            cursor.execute(sql.SHIFT_HELD, [list(moved), list(moved.values())])


@transaction.atomic(savepoint=False)
def hold_many(requests: Sequence[HoldRequest]) -> list[Hold]:
    """Several holds as one: the accounts locked in one statement (pk order), one INSERT, one UPDATE.

    A round's reserves (one hold per seated player) cost the same few statements for six
    players as for one. Each request is judged as ``hold`` judges it, in order: a key already
    used returns its hold (or is refused if it reserved something else), and any shortfall
    refuses the whole batch, nothing held. No savepoint of its own: inside a caller's
    transaction a refusal spoils it, so the caller rolls back whole (a round start does).
    """
    for request in requests:
        amount = request.amount
        if isinstance(amount, bool) or not isinstance(amount, int) or not 0 < amount <= MAX_AMOUNT:
            raise InvalidTransfer(
                "A hold reserves a positive whole number of cents.", fields={"amount": amount}
            )
    if not requests:
        return []
    accounts = lock_accounts_by_code(codes={r.account_code for r in requests})
    for request in requests:
        if request.account_code not in accounts:
            raise UnknownAccount(f"No such account: {request.account_code}.")
    # Same-key retries lock the same account, so a racing twin has committed by now.
    known = {h.key: h for h in Hold.objects.filter(key__in={r.key for r in requests})}
    held = {account.pk: account.held for account in accounts.values()}
    made: list[Hold] = []
    holds: list[Hold] = []
    for request in requests:
        account = accounts[request.account_code]
        existing = known.get(request.key)
        if existing is not None:
            if existing.amount != request.amount or existing.account_id != account.pk:
                raise IdempotencyConflict(f"Hold key {request.key!r} was already used for a different hold.")
            holds.append(existing)
            continue
        available = account.balance - held[account.pk]
        if account.must_not_go_negative and available < request.amount:
            raise InsufficientFunds(
                in_dollars(
                    f"{account.name or account.code} has {available} cents available, "
                    f"{request.amount} cents needed."
                ),
                fields={"account": account.code, "available": available, "needed": request.amount},
            )
        held[account.pk] += request.amount
        new = Hold(
            key=request.key,
            account=account,
            amount=request.amount,
            expires_at=request.expires_at,
            memo=request.memo[:300],
            meta=dict(request.meta or {}),
        )
        known[request.key] = new
        made.append(new)
        holds.append(new)
    Hold.objects.bulk_create(made)
    _shift_held({account.pk: held[account.pk] - account.held for account in accounts.values()})
    return holds


def _release(*, hold_ids: Sequence[int], status: str) -> list[Hold]:
    """Close pending holds as ``status``, giving back what each has not paid: four statements
    whatever their number (accounts then holds locked, in ledger.locks order, then two UPDATEs)."""
    if not hold_ids:
        return []
    accounts = lock_accounts_of_holds(hold_ids=hold_ids)
    locked = lock_holds(ids=hold_ids)
    for hold_id in hold_ids:
        if hold_id not in locked:
            raise Hold.DoesNotExist(f"No hold {hold_id}.")
        if locked[hold_id].status != HoldStatus.PENDING:
            raise HoldNotPending(f"Hold {locked[hold_id].key} is already {locked[hold_id].status}.")
    deltas = dict.fromkeys(accounts, 0)
    for reserve in locked.values():
        deltas[reserve.account_id] -= reserve.amount - reserve.captured
    _shift_held(deltas)
    moment = timezone.now()
    Hold.objects.filter(pk__in=list(locked)).update(status=status, resolved_at=moment)
    for reserve in locked.values():
        reserve.status, reserve.resolved_at = status, moment
    return [locked[hold_id] for hold_id in hold_ids]


@transaction.atomic
def void_hold(*, hold_id: int) -> Hold:
    """Release what is left of a hold; what it already paid stays paid."""
    return _release(hold_ids=[hold_id], status=HoldStatus.VOIDED)[0]


@transaction.atomic(savepoint=False)
def void_holds(*, hold_ids: Sequence[int]) -> list[Hold]:
    """``void_hold`` for several holds at once (a round's reserves when it settles); like
    ``hold_many``, no savepoint of its own."""
    return _release(hold_ids=list(dict.fromkeys(hold_ids)), status=HoldStatus.VOIDED)


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
    _release(hold_ids=[hold_id], status=HoldStatus.POSTED)
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
    _release(hold_ids=due, status=HoldStatus.EXPIRED)
    return len(due)


@transaction.atomic
def close_gaming_day(*, day: dt.date, closed_by: str = "") -> ClosedGamingDay:
    """After this no transfer can be dated into ``day`` (a trigger enforces it)."""
    closed, _ = ClosedGamingDay.objects.get_or_create(day=day, defaults={"closed_by": closed_by})
    return closed
