"""Selectors: balances from stored columns (now) or balance_after (as of), statements, trial balance."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

import pytest
from django.db import connection
from pytest_django import DjangoAssertNumQueries

from ledger.errors import UnknownAccount
from ledger.models import Account, AccountKind, AccountPurpose
from ledger.selectors import (
    TrialBalanceRow,
    get_account,
    get_balance,
    get_trial_balance,
    list_statement,
)
from ledger.services import Leg, open_account, post_transfer
from ledger.sql import BALANCE_AS_OF

pytestmark = pytest.mark.django_db

MakeWallet = Callable[..., Account]

T0 = dt.datetime(2031, 3, 4, 18, 0, tzinfo=dt.UTC)


def at(minutes: int) -> dt.datetime:
    return T0 + dt.timedelta(minutes=minutes)


@pytest.fixture
def history(make_wallet: MakeWallet) -> tuple[Account, Account]:
    """A wallet and a table with four dated movements, ten minutes apart.

    The chips come from a bank of the test's own rather than the shared cage, so the rows
    checked below hold only these movements.
    """
    open_account(
        code="h-bank", kind=AccountKind.ASSET, purpose=AccountPurpose.HOUSE_BANK, must_not_go_negative=False
    )
    wallet, table = make_wallet(), make_wallet()
    post_transfer(key="h-buy", kind="buy_in", legs=[Leg("h-bank", wallet.code, 500)], at=at(0))
    post_transfer(key="h-bet", kind="bet", legs=[Leg(wallet.code, table.code, 120)], at=at(10))
    post_transfer(key="h-win", kind="win", legs=[Leg(table.code, wallet.code, 40)], at=at(20))
    post_transfer(key="h-bet2", kind="bet", legs=[Leg(wallet.code, table.code, 300)], at=at(30))
    return wallet, table


def test_get_account_and_unknown_accounts(make_wallet: MakeWallet) -> None:
    wallet = make_wallet(10)

    assert get_account(code=wallet.code).pk == wallet.pk
    with pytest.raises(UnknownAccount):
        get_account(code="nobody")
    with pytest.raises(UnknownAccount):
        get_balance(code="nobody")


def test_balance_now_is_the_stored_column_in_one_query(
    history: tuple[Account, Account], django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    wallet, table = history

    with django_assert_num_queries(1):
        assert get_balance(code=wallet.code) == 120
    assert get_balance(code=table.code) == 380


@pytest.mark.parametrize(
    ("moment", "wallet_balance", "table_balance"),
    [
        (at(-1), 0, 0),
        (at(0), 500, 0),
        (at(5), 500, 0),
        (at(10), 380, 120),
        (at(19), 380, 120),
        (at(20), 420, 80),
        (at(30), 120, 380),
        (at(60 * 24 * 400), 120, 380),
    ],
)
def test_balance_as_of_a_moment_comes_from_balance_after(
    history: tuple[Account, Account],
    django_assert_num_queries: DjangoAssertNumQueries,
    moment: dt.datetime,
    wallet_balance: int,
    table_balance: int,
) -> None:
    wallet, table = history

    with django_assert_num_queries(1):
        assert get_balance(code=wallet.code, as_of=moment) == wallet_balance
    assert get_balance(code=table.code, as_of=moment) == table_balance


def test_balance_as_of_breaks_ties_at_one_instant_by_entry_order(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(), make_wallet()
    post_transfer(key="tie-1", kind="buy_in", legs=[Leg("cage", wallet.code, 100)], at=at(0))
    post_transfer(key="tie-2", kind="bet", legs=[Leg(wallet.code, table.code, 30)], at=at(0))

    assert get_balance(code=wallet.code, as_of=at(0)) == 70


def test_statement_lists_entries_newest_first_with_their_transfers(
    history: tuple[Account, Account], django_assert_num_queries: DjangoAssertNumQueries
) -> None:
    wallet, _ = history

    with django_assert_num_queries(1):
        rows = [
            (e.transfer.key, e.amount, e.balance_after, e.created_at)
            for e in list_statement(code=wallet.code)
        ]

    assert rows == [
        ("h-bet2", -300, 120, at(30)),
        ("h-win", 40, 420, at(20)),
        ("h-bet", -120, 380, at(10)),
        ("h-buy", 500, 500, at(0)),
    ]
    assert list(list_statement(code="nobody")) == []


def row_for(rows: list[TrialBalanceRow], code: str) -> TrialBalanceRow:
    return next(row for row in rows if row.account == code)


def test_trial_balance_now_has_equal_totals(history: tuple[Account, Account]) -> None:
    wallet, table = history

    trial = get_trial_balance()

    assert row_for(trial.rows, wallet.code) == TrialBalanceRow(
        wallet.code, "liability", "wallet", 420, 540, 120
    )
    assert row_for(trial.rows, table.code) == TrialBalanceRow(table.code, "liability", "wallet", 40, 420, 380)
    assert row_for(trial.rows, "h-bank") == TrialBalanceRow("h-bank", "asset", "house_bank", 500, 0, -500)
    mine = [row_for(trial.rows, code) for code in ("h-bank", wallet.code, table.code)]
    assert sum(row.debits for row in mine) == sum(row.credits for row in mine) == 960
    assert trial.total_debits == trial.total_credits
    assert sum(row.balance for row in trial.rows) == 0
    assert trial.balanced
    assert [row.account for row in trial.rows] == sorted(row.account for row in trial.rows)


@pytest.mark.parametrize(
    ("minutes", "wallet_row", "table_row", "total"),
    [
        (-1, (0, 0, 0), (0, 0, 0), 0),
        (0, (0, 500, 500), (0, 0, 0), 500),
        (15, (120, 500, 380), (0, 120, 120), 620),
        (25, (120, 540, 420), (40, 120, 80), 660),
        (45, (420, 540, 120), (40, 420, 380), 960),
    ],
)
def test_trial_balance_as_of_a_moment_sums_entries_up_to_it(
    history: tuple[Account, Account],
    minutes: int,
    wallet_row: tuple[int, int, int],
    table_row: tuple[int, int, int],
    total: int,
) -> None:
    wallet, table = history

    trial = get_trial_balance(as_of=at(minutes))

    bank, mine, theirs = (row_for(trial.rows, code) for code in ("h-bank", wallet.code, table.code))
    assert (mine.debits, mine.credits, mine.balance) == wallet_row
    assert (theirs.debits, theirs.credits, theirs.balance) == table_row
    assert bank.balance == -min(total, 500)
    assert bank.debits + mine.debits + theirs.debits == bank.credits + mine.credits + theirs.credits == total
    assert trial.total_debits == trial.total_credits
    assert trial.balanced


def test_trial_balance_as_of_now_matches_the_stored_totals(history: tuple[Account, Account]) -> None:
    now = get_trial_balance()
    replayed = get_trial_balance(as_of=at(60))

    assert replayed == now


def test_balance_as_of_an_unknown_account_is_refused_like_the_balance_now() -> None:
    with pytest.raises(UnknownAccount):
        get_balance(code="no-such-wallet", as_of=at(10))
    with pytest.raises(UnknownAccount):
        get_balance(code="no-such-wallet")


def test_balance_as_of_before_the_first_entry_is_zero(history: tuple[Account, Account]) -> None:
    wallet, _ = history

    assert get_balance(code=wallet.code, as_of=at(-60)) == 0


def test_balance_as_of_walks_the_account_time_index_backwards() -> None:
    # On a near-empty test table the planner may rightly prefer a scan; forbid it, and what is
    # left to check is that the index's order is the query's (no Sort above it).
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL enable_seqscan = off")
        cursor.execute("SET LOCAL enable_bitmapscan = off")
        cursor.execute("EXPLAIN " + BALANCE_AS_OF, [at(10), "any"])
        plan = "\n".join(row[0] for row in cursor.fetchall())

    assert "ledger_entry_account_time" in plan
    assert "Sort" not in plan  # the index gives the order: no sort of the account's history
