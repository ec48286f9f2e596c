"""The database itself refuses what the ledger forbids, whoever writes: raw SQL straight at the tables.

Each bad statement runs in a savepoint (``transaction.atomic()`` inside ``pytest.raises``) so the
test's own transaction survives to check that the row is unchanged afterwards. The zero-sum
triggers are deferred to commit: inside the test transaction ``SET CONSTRAINTS ALL IMMEDIATE``
fires them, and the ``transaction=True`` tests show them failing a real COMMIT.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import psycopg.errors
import pytest
from django.db import DatabaseError, IntegrityError, connection, transaction
from django.db.backends.utils import CursorWrapper

from ledger.models import Account, Entry, Hold, HoldStatus, Transfer
from ledger.services import Leg, close_gaming_day, hold, post_transfer, void_hold

pytestmark = pytest.mark.django_db

MakeWallet = Callable[..., Account]

OPEN_DAY = dt.date(2031, 1, 1)


@pytest.fixture
def cursor() -> Iterator[CursorWrapper]:
    with connection.cursor() as raw:
        yield raw


@pytest.fixture
def posted(make_wallet: MakeWallet) -> tuple[Transfer, Account, Account]:
    """A wallet of 100 that paid 40 to a table through the service."""
    wallet, table = make_wallet(100), make_wallet()
    transfer = post_transfer(key="posted", kind="bet", legs=[Leg(wallet.code, table.code, 40)])
    return transfer, wallet, table


def row(model: type[Any], pk: int) -> dict[str, Any]:
    return model.objects.filter(pk=pk).values().get()


def insert_transfer(cursor: CursorWrapper, *, key: str, day: dt.date = OPEN_DAY) -> int:
    cursor.execute(
        "INSERT INTO ledger_transfer (key, kind, memo, created_at, gaming_day, meta, fingerprint) "
        "VALUES (%s, 'raw', '', now(), %s, '{}'::jsonb, 'raw') RETURNING id",
        [key, day],
    )
    return cursor.fetchone()[0]


def insert_entry(
    cursor: CursorWrapper, *, transfer_id: int, account_id: int, amount: int, leg: int = 0
) -> None:
    cursor.execute(
        "INSERT INTO ledger_entry (transfer_id, account_id, leg, amount, balance_after, created_at) "
        "VALUES (%s, %s, %s, %s, 0, now())",
        [transfer_id, account_id, leg, amount],
    )


def check_deferred_now(cursor: CursorWrapper) -> None:
    """Fire the deferred zero-sum triggers as if the transaction were committing."""
    cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")


def write_raw(
    cursor: CursorWrapper,
    *,
    entries: Sequence[tuple[int, int]],
    key: str = "",
    transfer_id: int | None = None,
    leg: int = 0,
    check_now: bool = True,
) -> int:
    """Insert a transfer (or reuse ``transfer_id``) and its (account id, amount) entries by raw SQL."""
    if transfer_id is None:
        transfer_id = insert_transfer(cursor, key=key)
    for account_id, amount in entries:
        insert_entry(cursor, transfer_id=transfer_id, account_id=account_id, amount=amount, leg=leg)
    if check_now:
        check_deferred_now(cursor)
    return transfer_id


def commit_raw(*, key: str, entries: Sequence[tuple[int, int]]) -> int:
    """The same in a transaction of its own: the deferred triggers run at its COMMIT."""
    with transaction.atomic(), connection.cursor() as cursor:
        return write_raw(cursor, key=key, entries=entries, check_now=False)


def sqlstate(error: pytest.ExceptionInfo[DatabaseError]) -> str:
    cause = error.value.__cause__
    assert isinstance(cause, psycopg.errors.Error)
    return str(cause.sqlstate)


# --- transfers and entries are append-only --------------------------------------------------------


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_transfer SET memo = 'edited' WHERE id = %s",
        "UPDATE ledger_transfer SET gaming_day = gaming_day - 1 WHERE id = %s",
        "UPDATE ledger_transfer SET key = key WHERE id = %s",
    ],
)
def test_a_transfer_cannot_be_updated(
    cursor: CursorWrapper, posted: tuple[Transfer, Account, Account], sql: str
) -> None:
    transfer = posted[0]
    before = row(Transfer, transfer.pk)

    with pytest.raises(IntegrityError, match="ledger_append_only") as caught, transaction.atomic():
        cursor.execute(sql, [transfer.pk])

    assert isinstance(caught.value.__cause__, psycopg.errors.RestrictViolation)
    assert sqlstate(caught) == "23001"
    assert row(Transfer, transfer.pk) == before


def test_a_transfer_cannot_be_deleted(
    cursor: CursorWrapper, posted: tuple[Transfer, Account, Account]
) -> None:
    transfer = posted[0]
    before = row(Transfer, transfer.pk)
    entries = list(transfer.entries.values())

    # The row trigger fires before the foreign key from the entries is checked, so the
    # message shows it is the append-only rule that refuses.
    with pytest.raises(IntegrityError, match="ledger_append_only") as caught, transaction.atomic():
        cursor.execute("DELETE FROM ledger_transfer WHERE id = %s", [transfer.pk])

    assert sqlstate(caught) == "23001"
    assert row(Transfer, transfer.pk) == before
    assert list(transfer.entries.values()) == entries


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_entry SET amount = amount * 2 WHERE transfer_id = %s",
        "UPDATE ledger_entry SET balance_after = 0 WHERE transfer_id = %s",
        "UPDATE ledger_entry SET created_at = created_at - interval '1 day' WHERE transfer_id = %s",
        "DELETE FROM ledger_entry WHERE transfer_id = %s",
    ],
)
def test_entries_cannot_be_updated_or_deleted(
    cursor: CursorWrapper, posted: tuple[Transfer, Account, Account], sql: str
) -> None:
    transfer = posted[0]
    before = list(Entry.objects.filter(transfer=transfer).order_by("id").values())
    assert len(before) == 2

    with pytest.raises(IntegrityError, match="ledger_append_only") as caught, transaction.atomic():
        cursor.execute(sql, [transfer.pk])

    assert isinstance(caught.value.__cause__, psycopg.errors.RestrictViolation)
    assert list(Entry.objects.filter(transfer=transfer).order_by("id").values()) == before


# --- every transfer balances (deferred to commit) ----------------------------------------------------


def test_an_unbalanced_transfer_fails_when_constraints_are_checked(
    cursor: CursorWrapper, make_wallet: MakeWallet
) -> None:
    wallet, table = make_wallet(), make_wallet()

    with pytest.raises(IntegrityError, match="ledger_unbalanced") as caught, transaction.atomic():
        write_raw(cursor, key="raw-unbalanced", entries=[(wallet.pk, -90), (table.pk, 100)])

    assert isinstance(caught.value.__cause__, psycopg.errors.CheckViolation)
    assert "sum to 10" in str(caught.value)
    assert not Transfer.objects.filter(key="raw-unbalanced").exists()
    assert not Entry.objects.filter(account__in=[wallet, table]).exists()


def test_a_balanced_raw_transfer_passes_the_same_check(
    cursor: CursorWrapper, make_wallet: MakeWallet
) -> None:
    """The control for the test above: the trigger refuses imbalance, not raw inserts as such."""
    wallet, table = make_wallet(), make_wallet()

    with transaction.atomic():
        write_raw(cursor, key="raw-balanced", entries=[(wallet.pk, -100), (table.pk, 100)])

    assert Transfer.objects.get(key="raw-balanced").entries.count() == 2


@pytest.mark.parametrize("entries", [0, 1], ids=["no-entries", "one-entry"])
def test_a_transfer_needs_at_least_two_entries(
    cursor: CursorWrapper, make_wallet: MakeWallet, entries: int
) -> None:
    wallet = make_wallet()

    with pytest.raises(IntegrityError, match=f"has {entries} entries") as caught, transaction.atomic():
        write_raw(cursor, key="raw-lonely", entries=[(wallet.pk, 5)] * entries)

    assert sqlstate(caught) == "23514"
    assert not Transfer.objects.filter(key="raw-lonely").exists()


def test_entries_whose_sum_overflows_are_refused_not_wrapped(
    cursor: CursorWrapper, make_wallet: MakeWallet
) -> None:
    """Three entries that sum to 2**64 + 2 (nearly 0 if 64-bit arithmetic wrapped around)."""
    a, b, c = make_wallet(), make_wallet(), make_wallet()
    huge = 2**63 - 1

    with pytest.raises(DatabaseError, match=r"out of range|ledger_unbalanced"), transaction.atomic():
        write_raw(cursor, key="raw-overflow", entries=[(a.pk, huge), (b.pk, huge), (c.pk, 4)])

    assert not Transfer.objects.filter(key="raw-overflow").exists()


def test_an_entry_cannot_be_appended_to_a_posted_transfer(
    cursor: CursorWrapper, posted: tuple[Transfer, Account, Account]
) -> None:
    transfer, wallet, _ = posted
    before = list(transfer.entries.values())

    with pytest.raises(IntegrityError, match="ledger_unbalanced"), transaction.atomic():
        write_raw(cursor, transfer_id=transfer.pk, entries=[(wallet.pk, 7)], leg=1)

    assert list(transfer.entries.values()) == before


def test_an_entry_of_zero_is_refused(
    cursor: CursorWrapper, posted: tuple[Transfer, Account, Account]
) -> None:
    transfer, wallet, _ = posted

    with pytest.raises(IntegrityError, match="ledger_entry_amount_not_zero"), transaction.atomic():
        insert_entry(cursor, transfer_id=transfer.pk, account_id=wallet.pk, amount=0, leg=1)

    assert transfer.entries.count() == 2


@pytest.mark.django_db(transaction=True)
def test_the_zero_sum_triggers_run_at_commit(make_wallet: MakeWallet) -> None:
    """Real COMMITs (one flush for the three cases: flushes are the slow part of such tests)."""
    wallet, table = make_wallet(), make_wallet()

    # Every INSERT succeeds; only the COMMIT at the end of commit_raw runs the deferred trigger.
    with pytest.raises(IntegrityError, match="ledger_unbalanced") as caught:
        commit_raw(key="raw-commit-unbalanced", entries=[(wallet.pk, -50), (table.pk, 49)])
    assert isinstance(caught.value.__cause__, psycopg.errors.CheckViolation)
    assert not Transfer.objects.filter(key="raw-commit-unbalanced").exists()
    assert not Entry.objects.filter(account__in=[wallet, table]).exists()

    with pytest.raises(IntegrityError, match="has 0 entries"):
        commit_raw(key="raw-commit-empty", entries=[])
    assert not Transfer.objects.filter(key="raw-commit-empty").exists()

    transfer_id = commit_raw(key="raw-commit-balanced", entries=[(wallet.pk, -3), (table.pk, 3)])
    assert Transfer.objects.get(key="raw-commit-balanced").pk == transfer_id
    assert Entry.objects.filter(transfer_id=transfer_id).count() == 2


# --- account checks ------------------------------------------------------------------------------


def test_a_non_negative_account_cannot_go_below_zero(cursor: CursorWrapper, make_wallet: MakeWallet) -> None:
    wallet = make_wallet(100)
    before = row(Account, wallet.pk)

    with (
        pytest.raises(IntegrityError, match="ledger_account_balance_not_negative") as caught,
        transaction.atomic(),
    ):
        # Debits and balance move together, so only the sign rule is broken.
        cursor.execute(
            "UPDATE ledger_account SET balance = balance - 101, debits_posted = debits_posted + 101 "
            "WHERE id = %s",
            [wallet.pk],
        )

    assert isinstance(caught.value.__cause__, psycopg.errors.CheckViolation)
    assert row(Account, wallet.pk) == before


def test_the_cage_may_go_below_zero_in_sql_too(cursor: CursorWrapper, cage: Account) -> None:
    """The control for the test above: the sign rule binds only accounts that must not go negative."""
    start = row(Account, cage.pk)["balance"]
    taken = max(start, 0) + 1

    cursor.execute(
        "UPDATE ledger_account SET balance = balance - %s, debits_posted = debits_posted + %s WHERE id = %s",
        [taken, taken, cage.pk],
    )

    assert row(Account, cage.pk)["balance"] == start - taken < 0


def test_held_cannot_exceed_the_balance(cursor: CursorWrapper, make_wallet: MakeWallet) -> None:
    wallet = make_wallet(100)
    hold(key="h", account_code=wallet.code, amount=60)
    before = row(Account, wallet.pk)

    with pytest.raises(IntegrityError, match="ledger_account_holds_covered") as caught, transaction.atomic():
        cursor.execute("UPDATE ledger_account SET held = balance + 1 WHERE id = %s", [wallet.pk])

    assert sqlstate(caught) == "23514"
    assert row(Account, wallet.pk) == before


@pytest.mark.parametrize(
    ("sql", "constraint"),
    [
        ("UPDATE ledger_account SET balance = balance + 1 WHERE id = %s", "balance_is_credits_minus_debits"),
        ("UPDATE ledger_account SET held = -1 WHERE id = %s", "ledger_account_held_not_negative"),
        (
            "UPDATE ledger_account SET debits_posted = -1, balance = credits_posted + 1 WHERE id = %s",
            "ledger_account_totals_not_negative",
        ),
    ],
)
def test_account_totals_stay_consistent(
    cursor: CursorWrapper, make_wallet: MakeWallet, sql: str, constraint: str
) -> None:
    wallet = make_wallet(100)
    before = row(Account, wallet.pk)

    with pytest.raises(IntegrityError, match=constraint), transaction.atomic():
        cursor.execute(sql, [wallet.pk])

    assert row(Account, wallet.pk) == before


# --- keys, holds, closed days ----------------------------------------------------------------------


def test_a_transfer_key_is_unique(cursor: CursorWrapper, posted: tuple[Transfer, Account, Account]) -> None:
    transfer = posted[0]
    before = row(Transfer, transfer.pk)

    with pytest.raises(IntegrityError, match="key") as caught, transaction.atomic():
        insert_transfer(cursor, key=transfer.key)

    assert isinstance(caught.value.__cause__, psycopg.errors.UniqueViolation)
    assert Transfer.objects.filter(key=transfer.key).count() == 1
    assert row(Transfer, transfer.pk) == before


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_hold SET status = 'pending', resolved_at = NULL WHERE id = %s",
        "UPDATE ledger_hold SET captured = captured + 1 WHERE id = %s",
        "UPDATE ledger_hold SET memo = 'edited' WHERE id = %s",
        "DELETE FROM ledger_hold WHERE id = %s",
    ],
)
def test_a_resolved_hold_never_changes(cursor: CursorWrapper, make_wallet: MakeWallet, sql: str) -> None:
    wallet = make_wallet(100)
    reserved = hold(key="resolved", account_code=wallet.code, amount=30)
    void_hold(hold_id=reserved.pk)
    before = row(Hold, reserved.pk)
    assert before["status"] == HoldStatus.VOIDED

    with (
        pytest.raises(IntegrityError, match=r"ledger_hold_final|ledger_append_only") as caught,
        transaction.atomic(),
    ):
        cursor.execute(sql, [reserved.pk])

    assert isinstance(caught.value.__cause__, psycopg.errors.RestrictViolation)
    assert row(Hold, reserved.pk) == before


@pytest.mark.parametrize(
    "sql",
    [
        "UPDATE ledger_hold SET amount = amount + 1 WHERE id = %s",
        "UPDATE ledger_hold SET key = 'other' WHERE id = %s",
        "UPDATE ledger_hold SET captured = captured - 1 WHERE id = %s",
    ],
)
def test_a_pending_hold_keeps_its_amount_key_and_captures(
    cursor: CursorWrapper, make_wallet: MakeWallet, sql: str
) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="pending", account_code=wallet.code, amount=30)
    post_transfer(key="cap", kind="pot", legs=[Leg(wallet.code, pot.code, 10, hold_id=reserved.pk)])
    before = row(Hold, reserved.pk)

    with pytest.raises(IntegrityError, match="ledger_hold_final"), transaction.atomic():
        cursor.execute(sql, [reserved.pk])

    assert row(Hold, reserved.pk) == before


def test_a_transfer_cannot_be_inserted_into_a_closed_gaming_day(cursor: CursorWrapper) -> None:
    closed = dt.date(2030, 12, 31)
    close_gaming_day(day=closed)

    with pytest.raises(IntegrityError, match="gaming_day_closed") as caught, transaction.atomic():
        insert_transfer(cursor, key="raw-closed-day", day=closed)

    assert isinstance(caught.value.__cause__, psycopg.errors.CheckViolation)
    assert not Transfer.objects.filter(key="raw-closed-day").exists()
    assert not Transfer.objects.filter(gaming_day=closed).exists()
