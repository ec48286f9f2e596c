"""Races against the real PostgreSQL: threads with their own connections, released together by a barrier.

``transaction=True`` so every service call really commits and the threads see each other's work.
"""

from __future__ import annotations

import threading
from collections import Counter
from collections.abc import Callable
from typing import Any

import pytest
from django.db import connection

from ledger.errors import HoldExceeded, InsufficientFunds
from ledger.models import Account, Entry, Hold, HoldStatus, Transfer
from ledger.services import Leg, hold, post_transfer

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.slow]

MakeWallet = Callable[..., Account]


def race(threads: int, work: Callable[[int], Any]) -> list[Any]:
    """Run ``work(i)`` in ``threads`` threads started together; return each result or exception."""
    barrier = threading.Barrier(threads)
    results: list[Any] = [None] * threads

    def run(index: int) -> None:
        try:
            barrier.wait(timeout=30)
            results[index] = work(index)
        except Exception as error:  # reported to the test thread, which asserts on it
            results[index] = error
        finally:
            connection.close()

    workers = [threading.Thread(target=run, args=(i,), daemon=True) for i in range(threads)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(timeout=60)
    assert not any(worker.is_alive() for worker in workers), "a thread hung (deadlock?)"
    return results


def outcomes(results: list[Any]) -> Counter[str]:
    return Counter(type(result).__name__ for result in results)


def test_concurrent_debits_never_overdraw_a_wallet(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()

    results = race(
        8,
        lambda i: post_transfer(key=f"race-debit-{i}", kind="bet", legs=[Leg(wallet.code, table.code, 30)]),
    )

    assert outcomes(results) == {"Transfer": 3, "InsufficientFunds": 5}
    refused = [r for r in results if isinstance(r, InsufficientFunds)]
    assert all(r.fields["account"] == wallet.code and r.fields["needed"] == 30 for r in refused)
    wallet.refresh_from_db()
    table.refresh_from_db()
    assert (wallet.balance, wallet.debits_posted, wallet.credits_posted) == (10, 90, 100)
    assert table.balance == 90
    assert Transfer.objects.filter(key__startswith="race-debit-").count() == 3
    history = list(Entry.objects.filter(account=wallet).order_by("id").values_list("amount", "balance_after"))
    assert history == [(100, 100), (-30, 70), (-30, 40), (-30, 10)]


def test_concurrent_replays_of_one_key_make_one_transfer(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    legs = [Leg(wallet.code, table.code, 40)]

    results = race(8, lambda i: post_transfer(key="race-same-key", kind="bet", legs=legs))

    assert outcomes(results) == {"Transfer": 8}
    assert len({transfer.pk for transfer in results}) == 1
    assert Transfer.objects.filter(key="race-same-key").count() == 1
    assert Entry.objects.filter(transfer__key="race-same-key").count() == 2
    wallet.refresh_from_db()
    table.refresh_from_db()
    assert (wallet.balance, table.balance) == (60, 40)
    assert wallet.version == 2  # funded once, debited once


def test_transfers_in_opposite_directions_do_not_deadlock(make_wallet: MakeWallet) -> None:
    alice, bob = make_wallet(1_000), make_wallet(1_000)

    def shuffle(thread: int) -> int:
        for step in range(25):
            payer, payee = (alice, bob) if (thread + step) % 2 == 0 else (bob, alice)
            post_transfer(
                key=f"race-swap-{thread}-{step}",
                kind="swap",
                legs=[Leg(payer.code, payee.code, thread + 1)],
            )
        return 25

    results = race(4, shuffle)

    assert results == [25, 25, 25, 25], results
    # Each thread's 25 steps alternate direction starting A->B (even threads) or B->A (odd):
    # 13 one way and 12 the other, so even threads move +1 step of their amount to B, odd ones to A.
    moved_to_bob = sum((1 if thread % 2 == 0 else -1) * (thread + 1) for thread in range(4))
    alice.refresh_from_db()
    bob.refresh_from_db()
    assert (alice.balance, bob.balance) == (1_000 - moved_to_bob, 1_000 + moved_to_bob)
    assert alice.balance + bob.balance == 2_000
    assert Transfer.objects.filter(key__startswith="race-swap-").count() == 100
    for account in (alice, bob):
        entries = list(
            Entry.objects.filter(account=account).order_by("id").values_list("amount", "balance_after")
        )
        running = 0
        for amount, balance_after in entries:
            running += amount
            assert balance_after == running
        assert running == account.balance


def test_concurrent_captures_never_exceed_the_hold(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(500), make_wallet()
    reserved = hold(key="race-hold", account_code=wallet.code, amount=100)

    results = race(
        8,
        lambda i: post_transfer(
            key=f"race-capture-{i}", kind="pot", legs=[Leg(wallet.code, pot.code, 30, hold_id=reserved.pk)]
        ),
    )

    assert outcomes(results) == {"Transfer": 3, "HoldExceeded": 5}
    assert all(isinstance(r, HoldExceeded) for r in results if not isinstance(r, Transfer))
    reserved.refresh_from_db()
    assert (reserved.captured, reserved.status) == (90, HoldStatus.PENDING)
    assert Entry.objects.filter(hold=reserved).count() == 3
    wallet.refresh_from_db()
    pot.refresh_from_db()
    assert (wallet.balance, wallet.held, pot.balance) == (410, 10, 90)
    assert Hold.objects.get(pk=reserved.pk).captured <= reserved.amount


def test_holds_and_debits_racing_on_one_wallet_never_overcommit_it(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()

    def work(i: int) -> Any:
        if i % 2:
            return hold(key=f"race-mixed-hold-{i}", account_code=wallet.code, amount=30)
        return post_transfer(key=f"race-mixed-debit-{i}", kind="bet", legs=[Leg(wallet.code, table.code, 30)])

    results = race(8, work)

    assert outcomes(results)["InsufficientFunds"] == 5
    assert len([r for r in results if not isinstance(r, InsufficientFunds)]) == 3
    wallet.refresh_from_db()
    debited = Transfer.objects.filter(key__startswith="race-mixed-debit-").count()
    held = Hold.objects.filter(key__startswith="race-mixed-hold-").count()
    assert debited + held == 3
    assert (wallet.balance, wallet.held) == (100 - 30 * debited, 30 * held)
    assert wallet.available == 10
