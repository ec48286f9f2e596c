"""Holds: reserve funds, capture them (partly, repeatedly), then post, void or expire exactly once."""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from ledger.errors import (
    HoldExceeded,
    HoldNotPending,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidTransfer,
    UnknownAccount,
)
from ledger.models import Account, Entry, Hold, HoldStatus, Transfer
from ledger.services import (
    HoldRequest,
    Leg,
    expire_holds,
    hold,
    hold_many,
    post_hold,
    post_transfer,
    void_hold,
    void_holds,
)

pytestmark = pytest.mark.django_db

MakeWallet = Callable[..., Account]


def state(account: Account) -> tuple[int, int, int]:
    """(balance, held, available), read fresh."""
    account.refresh_from_db()
    return account.balance, account.held, account.available


def fresh_hold(reserved: Hold) -> Hold:
    reserved.refresh_from_db()
    return reserved


def test_a_hold_reduces_available_but_not_balance(make_wallet: MakeWallet) -> None:
    wallet = make_wallet(100)

    reserved = hold(key="ante-1", account_code=wallet.code, amount=30, memo="ante", meta={"round": 3})

    assert state(wallet) == (100, 30, 70)
    assert (wallet.debits_posted, wallet.credits_posted) == (0, 100)
    stored = Hold.objects.get(key="ante-1")
    assert stored.pk == reserved.pk
    assert (stored.account_id, stored.amount, stored.captured) == (wallet.pk, 30, 0)
    assert (stored.status, stored.remaining, stored.resolved_at) == (HoldStatus.PENDING, 30, None)
    assert (stored.memo, stored.meta) == ("ante", {"round": 3})


def test_holds_add_up_and_cannot_exceed_available(make_wallet: MakeWallet) -> None:
    wallet = make_wallet(100)
    hold(key="h1", account_code=wallet.code, amount=60)

    with pytest.raises(InsufficientFunds) as caught:
        hold(key="h2", account_code=wallet.code, amount=41)

    assert caught.value.fields == {"account": wallet.code, "available": 40, "needed": 41}
    assert state(wallet) == (100, 60, 40)
    assert not Hold.objects.filter(key="h2").exists()
    hold(key="h3", account_code=wallet.code, amount=40)
    assert state(wallet) == (100, 100, 0)


@pytest.mark.parametrize("amount", [0, -5, True, 2.5, "10", None])
def test_a_hold_needs_a_positive_whole_amount(make_wallet: MakeWallet, amount: Any) -> None:
    wallet = make_wallet(100)

    with pytest.raises(InvalidTransfer):
        hold(key="bad", account_code=wallet.code, amount=amount)

    assert state(wallet) == (100, 0, 100)
    assert not Hold.objects.filter(key="bad").exists()


def test_a_hold_on_an_unknown_account_is_refused() -> None:
    with pytest.raises(UnknownAccount):
        hold(key="ghost-hold", account_code="no-such-wallet", amount=10)

    assert not Hold.objects.filter(key="ghost-hold").exists()


def test_a_hold_key_is_idempotent(make_wallet: MakeWallet) -> None:
    wallet, other = make_wallet(100), make_wallet(100)
    first = hold(key="ante-9", account_code=wallet.code, amount=25)

    again = hold(key="ante-9", account_code=wallet.code, amount=25)

    assert again.pk == first.pk
    assert state(wallet) == (100, 25, 75)
    with pytest.raises(IdempotencyConflict):
        hold(key="ante-9", account_code=wallet.code, amount=26)
    with pytest.raises(IdempotencyConflict):
        hold(key="ante-9", account_code=other.code, amount=25)
    assert state(wallet) == (100, 25, 75)
    assert state(other) == (100, 0, 100)
    assert Hold.objects.filter(key="ante-9").count() == 1


def test_free_transfers_cannot_spend_held_funds(make_wallet: MakeWallet) -> None:
    wallet, table = make_wallet(100), make_wallet()
    hold(key="reserve", account_code=wallet.code, amount=70)

    with pytest.raises(InsufficientFunds) as caught:
        post_transfer(key="spend-31", kind="bet", legs=[Leg(debit=wallet.code, credit=table.code, amount=31)])

    assert caught.value.fields == {"account": wallet.code, "available": 30, "needed": 31}
    assert state(wallet) == (100, 70, 30)
    post_transfer(key="spend-30", kind="bet", legs=[Leg(debit=wallet.code, credit=table.code, amount=30)])
    assert state(wallet) == (70, 70, 0)
    assert state(table) == (30, 0, 30)


def test_a_hold_is_captured_partially_and_repeatedly(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="pot-reserve", account_code=wallet.code, amount=50)

    first = post_transfer(
        key="pay-1",
        kind="pot",
        legs=[Leg(debit=wallet.code, credit=pot.code, amount=20, hold_id=reserved.pk)],
    )

    assert state(wallet) == (80, 30, 50)
    assert (fresh_hold(reserved).captured, reserved.remaining, reserved.status) == (
        20,
        30,
        HoldStatus.PENDING,
    )
    debit = first.entries.get(amount__lt=0)
    assert (debit.account_id, debit.amount, debit.balance_after, debit.hold_id) == (
        wallet.pk,
        -20,
        80,
        reserved.pk,
    )
    assert first.entries.get(amount__gt=0).hold_id is None

    post_transfer(
        key="pay-2",
        kind="pot",
        legs=[Leg(debit=wallet.code, credit=pot.code, amount=30, hold_id=reserved.pk)],
    )

    assert state(wallet) == (50, 0, 50)
    assert state(pot) == (50, 0, 50)
    assert (fresh_hold(reserved).captured, reserved.remaining, reserved.status) == (50, 0, HoldStatus.PENDING)
    assert list(reserved.captures.order_by("id").values_list("amount", flat=True)) == [-20, -30]


def test_a_capture_works_while_the_hold_covers_the_whole_balance(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="everything", account_code=wallet.code, amount=100)
    assert state(wallet) == (100, 100, 0)

    post_transfer(key="cap", kind="pot", legs=[Leg(wallet.code, pot.code, 40, hold_id=reserved.pk)])

    assert state(wallet) == (60, 60, 0)
    assert fresh_hold(reserved).captured == 40


def test_capturing_more_than_the_hold_has_left_is_hold_exceeded(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="small", account_code=wallet.code, amount=50)
    post_transfer(key="cap-1", kind="pot", legs=[Leg(wallet.code, pot.code, 30, hold_id=reserved.pk)])

    with pytest.raises(HoldExceeded) as caught:
        post_transfer(key="cap-2", kind="pot", legs=[Leg(wallet.code, pot.code, 21, hold_id=reserved.pk)])

    assert (caught.value.code, caught.value.status) == ("hold_exceeded", 409)
    assert state(wallet) == (70, 20, 50)
    assert fresh_hold(reserved).captured == 30
    assert not Transfer.objects.filter(key="cap-2").exists()


def test_legs_of_one_transfer_share_the_hold(make_wallet: MakeWallet) -> None:
    wallet, pot, rake = make_wallet(100), make_wallet(), make_wallet()
    reserved = hold(key="shared", account_code=wallet.code, amount=50)

    with pytest.raises(HoldExceeded):
        post_transfer(
            key="two-caps",
            kind="pot",
            legs=[
                Leg(wallet.code, pot.code, 30, hold_id=reserved.pk),
                Leg(wallet.code, rake.code, 21, hold_id=reserved.pk),
            ],
        )

    assert state(wallet) == (100, 50, 50)
    assert (state(pot), state(rake)) == ((0, 0, 0), (0, 0, 0))
    assert fresh_hold(reserved).captured == 0


def test_a_transfer_may_take_from_a_hold_and_from_free_funds(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="half", account_code=wallet.code, amount=50)

    with pytest.raises(InsufficientFunds):
        post_transfer(
            key="greedy",
            kind="pot",
            legs=[Leg(wallet.code, pot.code, 50, hold_id=reserved.pk), Leg(wallet.code, pot.code, 51)],
        )
    assert state(wallet) == (100, 50, 50)

    post_transfer(
        key="exact",
        kind="pot",
        legs=[Leg(wallet.code, pot.code, 50, hold_id=reserved.pk), Leg(wallet.code, pot.code, 50)],
    )

    assert state(wallet) == (0, 0, 0)
    assert state(pot) == (100, 0, 100)


def test_a_hold_only_pays_for_its_own_account(make_wallet: MakeWallet) -> None:
    wallet, other, pot = make_wallet(100), make_wallet(100), make_wallet()
    reserved = hold(key="mine", account_code=wallet.code, amount=50)

    with pytest.raises(InvalidTransfer, match="does not reserve funds"):
        post_transfer(key="theirs", kind="pot", legs=[Leg(other.code, pot.code, 10, hold_id=reserved.pk)])
    with pytest.raises(InvalidTransfer, match="does not reserve funds"):
        post_transfer(key="nothing", kind="pot", legs=[Leg(wallet.code, pot.code, 10, hold_id=10**12)])

    assert state(other) == (100, 0, 100)
    assert state(wallet) == (100, 50, 50)
    assert fresh_hold(reserved).captured == 0


def test_post_hold_takes_everything_left_and_closes_the_hold(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="full", account_code=wallet.code, amount=50)

    transfer = post_hold(hold_id=reserved.pk, key="post-full", kind="pot", credit=pot.code)

    assert transfer is not None
    assert [(e.account_id, e.amount, e.hold_id) for e in transfer.entries.order_by("amount")] == [
        (wallet.pk, -50, reserved.pk),
        (pot.pk, 50, None),
    ]
    assert state(wallet) == (50, 0, 50)
    assert state(pot) == (50, 0, 50)
    fresh_hold(reserved)
    assert (reserved.status, reserved.captured, reserved.remaining) == (HoldStatus.POSTED, 50, 0)
    assert reserved.resolved_at is not None


def test_post_hold_partially_releases_the_rest(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="partial", account_code=wallet.code, amount=50)

    transfer = post_hold(hold_id=reserved.pk, key="post-20", kind="pot", credit=pot.code, amount=20)

    assert transfer is not None
    assert transfer.entries.get(amount__gt=0).amount == 20
    assert state(wallet) == (80, 0, 80)
    assert state(pot) == (20, 0, 20)
    assert (fresh_hold(reserved).status, reserved.captured) == (HoldStatus.POSTED, 20)


def test_post_hold_after_captures_takes_only_what_is_left(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="after-caps", account_code=wallet.code, amount=50)
    post_transfer(key="cap", kind="pot", legs=[Leg(wallet.code, pot.code, 10, hold_id=reserved.pk)])

    transfer = post_hold(hold_id=reserved.pk, key="post-rest", kind="pot", credit=pot.code)

    assert transfer is not None
    assert transfer.entries.get(amount__gt=0).amount == 40
    assert state(wallet) == (50, 0, 50)
    assert (fresh_hold(reserved).status, reserved.captured) == (HoldStatus.POSTED, 50)


def test_post_hold_of_a_fully_captured_hold_just_closes_it(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="spent", account_code=wallet.code, amount=30)
    post_transfer(key="cap-all", kind="pot", legs=[Leg(wallet.code, pot.code, 30, hold_id=reserved.pk)])
    transfers = Transfer.objects.count()

    assert post_hold(hold_id=reserved.pk, key="post-nothing", kind="pot", credit=pot.code) is None

    assert Transfer.objects.count() == transfers
    assert fresh_hold(reserved).status == HoldStatus.POSTED
    assert state(wallet) == (70, 0, 70)


def test_post_hold_beyond_what_is_left_is_refused_and_keeps_the_hold(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="keep", account_code=wallet.code, amount=50)

    with pytest.raises(HoldExceeded):
        post_hold(hold_id=reserved.pk, key="post-60", kind="pot", credit=pot.code, amount=60)

    assert (fresh_hold(reserved).status, reserved.captured) == (HoldStatus.PENDING, 0)
    assert state(wallet) == (100, 50, 50)
    assert not Transfer.objects.filter(key="post-60").exists()


@pytest.mark.parametrize("amount", [-5, -1, True, 2.5])
def test_post_hold_refuses_a_bad_amount_and_keeps_the_hold(make_wallet: MakeWallet, amount: Any) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="bad-post", account_code=wallet.code, amount=50)

    with pytest.raises(InvalidTransfer):
        post_hold(hold_id=reserved.pk, key="post-bad", kind="pot", credit=pot.code, amount=amount)

    assert (fresh_hold(reserved).status, reserved.captured, reserved.resolved_at) == (
        HoldStatus.PENDING,
        0,
        None,
    )
    assert state(wallet) == (100, 50, 50)
    assert not Transfer.objects.filter(key="post-bad").exists()


def test_post_hold_of_zero_closes_the_hold_without_a_transfer(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="zero-post", account_code=wallet.code, amount=50)

    assert post_hold(hold_id=reserved.pk, key="post-zero", kind="pot", credit=pot.code, amount=0) is None

    assert (fresh_hold(reserved).status, reserved.captured) == (HoldStatus.POSTED, 0)
    assert state(wallet) == (100, 0, 100)
    assert not Transfer.objects.filter(key="post-zero").exists()


def test_void_hold_releases_the_rest_and_keeps_what_was_paid(make_wallet: MakeWallet) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(key="void-me", account_code=wallet.code, amount=50)
    post_transfer(key="cap", kind="pot", legs=[Leg(wallet.code, pot.code, 15, hold_id=reserved.pk)])

    voided = void_hold(hold_id=reserved.pk)

    assert voided.pk == reserved.pk
    fresh_hold(reserved)
    assert (reserved.status, reserved.captured, reserved.remaining) == (HoldStatus.VOIDED, 15, 0)
    assert reserved.resolved_at is not None
    assert state(wallet) == (85, 0, 85)
    assert state(pot) == (15, 0, 15)


def test_expire_holds_releases_only_pending_holds_past_their_expiry(make_wallet: MakeWallet) -> None:
    wallet = make_wallet(100)
    now = timezone.now()
    due = hold(key="due", account_code=wallet.code, amount=10, expires_at=now - dt.timedelta(minutes=1))
    exactly = hold(key="exactly", account_code=wallet.code, amount=20, expires_at=now)
    later = hold(key="later", account_code=wallet.code, amount=30, expires_at=now + dt.timedelta(minutes=1))
    forever = hold(key="forever", account_code=wallet.code, amount=5)
    voided = hold(key="voided", account_code=wallet.code, amount=7, expires_at=now - dt.timedelta(hours=1))
    void_hold(hold_id=voided.pk)
    assert state(wallet) == (100, 65, 35)

    assert expire_holds(now=now) == 2

    assert fresh_hold(due).status == fresh_hold(exactly).status == HoldStatus.EXPIRED
    assert due.resolved_at is not None
    assert fresh_hold(later).status == fresh_hold(forever).status == HoldStatus.PENDING
    assert fresh_hold(voided).status == HoldStatus.VOIDED
    assert state(wallet) == (100, 35, 65)
    assert expire_holds(now=now) == 0
    assert state(wallet) == (100, 35, 65)


@pytest.mark.parametrize("resolve", ["post", "void", "expire"])
def test_a_resolved_hold_cannot_pay_or_be_resolved_again(make_wallet: MakeWallet, resolve: str) -> None:
    wallet, pot = make_wallet(100), make_wallet()
    reserved = hold(
        key="once", account_code=wallet.code, amount=50, expires_at=timezone.now() + dt.timedelta(hours=1)
    )
    if resolve == "post":
        post_hold(hold_id=reserved.pk, key="post-once", kind="pot", credit=pot.code, amount=20)
    elif resolve == "void":
        void_hold(hold_id=reserved.pk)
    else:
        assert expire_holds(now=timezone.now() + dt.timedelta(hours=2)) == 1
    settled = fresh_hold(reserved).status, reserved.captured, reserved.resolved_at
    after = state(wallet), state(pot)
    entries = Entry.objects.count()

    with pytest.raises(HoldNotPending) as caught:
        post_transfer(key="late-cap", kind="pot", legs=[Leg(wallet.code, pot.code, 5, hold_id=reserved.pk)])
    assert (caught.value.code, caught.value.status) == ("hold_not_pending", 409)
    with pytest.raises(HoldNotPending):
        void_hold(hold_id=reserved.pk)
    with pytest.raises(HoldNotPending):
        post_hold(hold_id=reserved.pk, key="post-again", kind="pot", credit=pot.code, amount=5)
    with pytest.raises(HoldNotPending):
        post_hold(hold_id=reserved.pk, key="post-rest-again", kind="pot", credit=pot.code)
    assert expire_holds(now=timezone.now() + dt.timedelta(days=1)) == 0

    assert (fresh_hold(reserved).status, reserved.captured, reserved.resolved_at) == settled
    assert (state(wallet), state(pot)) == after
    assert Entry.objects.count() == entries
    assert state(wallet)[1] == 0


# --- several holds at once (a round's reserves): hold_many and void_holds


def test_hold_many_reserves_on_every_account_in_a_fixed_number_of_statements(
    make_wallet: MakeWallet, django_assert_num_queries: Any
) -> None:
    """Lock the accounts (one statement, pk order), look up the keys, one INSERT, one UPDATE:
    the same four for two wallets as for five, and no savepoint of its own."""
    for count in (2, 5):
        wallets = [make_wallet(100) for _ in range(count)]
        requests = [HoldRequest(f"many-{count}-{i}", w.code, 10 + i) for i, w in enumerate(wallets)]

        with django_assert_num_queries(4):
            made = hold_many(requests)

        assert [h.amount for h in made] == [10 + i for i in range(count)]
        assert [state(w) for w in wallets] == [(100, 10 + i, 90 - i) for i in range(count)]
        assert all(h.pk is not None and h.status == HoldStatus.PENDING for h in made)


def test_hold_many_refuses_the_whole_batch_when_one_account_falls_short(make_wallet: MakeWallet) -> None:
    first, second = make_wallet(100), make_wallet(100)
    requests = [
        HoldRequest("batch-a", first.code, 60),
        HoldRequest("batch-b", second.code, 30),
        HoldRequest("batch-c", first.code, 41),  # with batch-a: 101 on a wallet of 100
    ]

    with pytest.raises(InsufficientFunds) as caught, transaction.atomic():  # the caller's rollback
        hold_many(requests)

    assert caught.value.fields == {"account": first.code, "available": 40, "needed": 41}
    assert (state(first), state(second)) == ((100, 0, 100), (100, 0, 100))
    assert not Hold.objects.filter(key__startswith="batch-").exists()


def test_hold_many_replays_known_keys_and_refuses_a_key_reused_for_something_else(
    make_wallet: MakeWallet,
) -> None:
    wallet, other = make_wallet(100), make_wallet(100)
    earlier = hold(key="seen-1", account_code=wallet.code, amount=20)

    again = hold_many([HoldRequest("seen-1", wallet.code, 20), HoldRequest("new-1", other.code, 5)])

    assert again[0].pk == earlier.pk
    assert (state(wallet), state(other)) == ((100, 20, 80), (100, 5, 95))
    with pytest.raises(IdempotencyConflict), transaction.atomic():
        hold_many([HoldRequest("new-2", wallet.code, 5), HoldRequest("seen-1", other.code, 20)])
    assert not Hold.objects.filter(key="new-2").exists()
    # The same key twice in one batch is one hold.
    twice = hold_many([HoldRequest("dup-1", other.code, 7), HoldRequest("dup-1", other.code, 7)])
    assert twice[0] is twice[1]
    assert state(other) == (100, 12, 88)
    with pytest.raises(UnknownAccount), transaction.atomic():
        hold_many([HoldRequest("ghost-2", wallet.code, 1), HoldRequest("ghost-3", "no-such-wallet", 1)])
    assert state(wallet) == (100, 20, 80)


def test_void_holds_gives_back_what_each_has_left_in_a_fixed_number_of_statements(
    make_wallet: MakeWallet, django_assert_num_queries: Any
) -> None:
    wallets = [make_wallet(100) for _ in range(4)]
    pot = make_wallet()
    reserved = hold_many([HoldRequest(f"void-{i}", w.code, 50) for i, w in enumerate(wallets)])
    post_transfer(
        key="void-pay",
        kind="pot",
        legs=[Leg(debit=wallets[0].code, credit=pot.code, amount=30, hold_id=reserved[0].pk)],
    )

    # lock the accounts · lock the holds · one UPDATE of held · one of the holds
    with django_assert_num_queries(4):
        voided = void_holds(hold_ids=[h.pk for h in reserved])

    assert [h.status for h in voided] == [HoldStatus.VOIDED] * 4
    assert [fresh_hold(h).status for h in reserved] == [HoldStatus.VOIDED] * 4
    assert [state(w) for w in wallets] == [(70, 0, 70)] + [(100, 0, 100)] * 3
    with pytest.raises(HoldNotPending), transaction.atomic():
        void_holds(hold_ids=[reserved[1].pk])
