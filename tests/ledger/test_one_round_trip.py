"""post_transfer is one call of the posting function ledger_post_transfer, whatever its legs: one
statement, its own transaction outside one, a savepoint inside one. These tests commit for real
(transactional_db)."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from django.db import connection, transaction
from django.test.utils import CaptureQueriesContext

from ledger.errors import (
    HoldExceeded,
    HoldNotPending,
    IdempotencyConflict,
    InsufficientFunds,
    InvalidTransfer,
    UnknownAccount,
)
from ledger.models import Account, Entry, Transfer
from ledger.services import Leg, hold, post_transfer, void_hold

pytestmark = pytest.mark.django_db(transaction=True)

MakeWallet = Callable[..., Account]


def balance(account: Account) -> int:
    return Account.objects.values_list("balance", flat=True).get(pk=account.pk)


def test_outside_a_transaction_a_transfer_is_exactly_one_statement(make_wallet: MakeWallet) -> None:
    payer, payee = make_wallet(500), make_wallet()
    assert connection.get_autocommit()

    with CaptureQueriesContext(connection) as queries:
        transfer = post_transfer(key="one-trip", kind="bet", legs=[Leg(payer.code, payee.code, 120)])

    assert len(queries.captured_queries) == 1
    assert "ledger_post_transfer(" in queries.captured_queries[0]["sql"]
    assert (balance(payer), balance(payee)) == (380, 120)
    stored = Transfer.objects.get(pk=transfer.pk)
    assert (stored.key, stored.kind, stored.fingerprint) == ("one-trip", "bet", transfer.fingerprint)
    entries = list(
        Entry.objects.filter(transfer=stored).order_by("id").values_list("amount", "balance_after")
    )
    assert entries == [(120, 120), (-120, 380)]  # credits are written first


def test_several_legs_or_a_hold_are_one_call_of_the_same_function(make_wallet: MakeWallet) -> None:
    payer, payee = make_wallet(500), make_wallet()
    reserve = hold(key="general-reserve", account_code=payer.code, amount=100)

    with CaptureQueriesContext(connection) as queries:
        two_legs = [Leg(payer.code, payee.code, 10), Leg(payer.code, "cage", 5)]
        post_transfer(key="two-legs", kind="bet", legs=two_legs)
        from_hold = [Leg(payer.code, payee.code, 30, hold_id=reserve.pk)]
        post_transfer(key="from-hold", kind="bet", legs=from_hold)

    assert [q["sql"].count("ledger_post_transfer(") for q in queries.captured_queries] == [1, 1]
    assert (balance(payer), balance(payee)) == (455, 40)


def test_a_refusal_outside_a_transaction_leaves_the_connection_usable(make_wallet: MakeWallet) -> None:
    payer, payee = make_wallet(50), make_wallet()

    with pytest.raises(InsufficientFunds) as caught:
        post_transfer(key="too-much-autocommit", kind="bet", legs=[Leg(payer.code, payee.code, 80)])

    assert caught.value.fields == {"account": payer.code, "available": 50, "needed": 80}
    assert "has $0.50 available; this transfer needs $0.30 more" in caught.value.message
    post_transfer(key="affordable", kind="bet", legs=[Leg(payer.code, payee.code, 50)])
    assert (balance(payer), balance(payee)) == (0, 50)
    assert not Transfer.objects.filter(key="too-much-autocommit").exists()


def test_a_refusal_inside_a_transaction_rolls_back_only_the_refused_transfer(make_wallet: MakeWallet) -> None:
    payer, payee = make_wallet(100), make_wallet()

    with transaction.atomic():
        post_transfer(key="first-in-txn", kind="bet", legs=[Leg(payer.code, payee.code, 60)])
        with pytest.raises(InsufficientFunds):
            post_transfer(key="second-in-txn", kind="bet", legs=[Leg(payer.code, payee.code, 60)])
        # The caller's transaction is still usable after the refusal.
        post_transfer(key="third-in-txn", kind="bet", legs=[Leg(payer.code, payee.code, 40)])

    assert (balance(payer), balance(payee)) == (0, 100)
    assert set(Transfer.objects.filter(key__endswith="-in-txn").values_list("key", flat=True)) == {
        "first-in-txn",
        "third-in-txn",
    }


def test_every_refusal_of_the_function_maps_to_its_domain_error(make_wallet: MakeWallet) -> None:
    payer, other, payee = make_wallet(100), make_wallet(100), make_wallet()
    post_transfer(key="taken", kind="bet", legs=[Leg(payer.code, payee.code, 10)])
    reserve = hold(key="reserve-map", account_code=payer.code, amount=30)
    other_reserve = hold(key="other-map", account_code=other.code, amount=30)

    with pytest.raises(UnknownAccount, match=r"No such account: nowhere-1, nowhere-2\."):
        post_transfer(
            key="u", kind="bet", legs=[Leg("nowhere-2", payee.code, 1), Leg("nowhere-1", payee.code, 1)]
        )
    with pytest.raises(IdempotencyConflict, match="already used for a different transfer"):
        post_transfer(key="taken", kind="bet", legs=[Leg(payer.code, payee.code, 11)])
    with pytest.raises(InvalidTransfer, match="does not reserve funds on"):
        post_transfer(key="h1", kind="bet", legs=[Leg(payer.code, payee.code, 5, hold_id=other_reserve.pk)])
    with pytest.raises(HoldExceeded, match="has 30 cents left, not 35"):
        post_transfer(
            key="h2",
            kind="bet",
            legs=[
                Leg(payer.code, payee.code, 20, hold_id=reserve.pk),
                Leg(payer.code, payee.code, 15, hold_id=reserve.pk),
            ],
        )
    void_hold(hold_id=reserve.pk)
    with pytest.raises(HoldNotPending, match="is voided; it can no longer pay"):
        post_transfer(key="h3", kind="bet", legs=[Leg(payer.code, payee.code, 5, hold_id=reserve.pk)])

    assert (balance(payer), balance(other), balance(payee)) == (90, 100, 10)
    assert not Transfer.objects.filter(key__in=["u", "h1", "h2", "h3"]).exists()


def test_a_replay_outside_a_transaction_returns_the_stored_transfer(make_wallet: MakeWallet) -> None:
    payer, payee = make_wallet(100), make_wallet()
    first = post_transfer(
        key="replayed", kind="bet", legs=[Leg(payer.code, payee.code, 25)], meta={"round": 7}
    )

    again = post_transfer(
        key="replayed", kind="bet", legs=[Leg(payer.code, payee.code, 25)], meta={"round": 7}
    )

    assert again.pk == first.pk
    assert again.meta == {"round": 7}
    assert (balance(payer), balance(payee)) == (75, 25)


def test_account_codes_with_quotes_commas_and_backslashes_reach_the_function_intact(
    make_wallet: MakeWallet,
) -> None:
    from tests.factories import wallet_account

    odd = wallet_account('odd "wallet", {7} \\ NULL')
    plain = make_wallet(300)

    post_transfer(
        key="odd-codes", kind="bet", legs=[Leg(plain.code, odd.code, 70), Leg(plain.code, "cage", 5)]
    )

    assert balance(odd) == 70
    assert Entry.objects.filter(transfer__key="odd-codes", account=odd).get().amount == 70


@pytest.mark.parametrize(
    ("debits", "credits", "amounts", "holds"),
    [
        ("{}", "{}", "{}", "{}"),  # no legs
        ("{a}", "{a}", "{5}", "{NULL}"),  # a leg to itself
        ("{a}", "{b}", "{0}", "{NULL}"),  # nothing moved
        ("{a,b}", "{b,c}", "{5,-5}", "{NULL,NULL}"),  # a negative amount in a later leg
        ("{a,b}", "{b}", "{5,5}", "{NULL,NULL}"),  # ragged legs
        ("{a}", "{NULL}", "{5}", "{NULL}"),  # no payee
    ],
)
def test_the_function_refuses_malformed_legs_from_any_caller(
    debits: str, credits: str, amounts: str, holds: str
) -> None:
    from django.db import DatabaseError

    with pytest.raises(DatabaseError) as caught, connection.cursor() as cursor:
        cursor.execute(
            "SELECT * FROM ledger_post_transfer('raw-bad', 'bet', '', now(), current_date, '{}', 'fp', NULL, "
            "%s::text[], %s::text[], %s::bigint[], %s::bigint[])",
            [debits, credits, amounts, holds],
        )

    assert getattr(caught.value.__cause__, "sqlstate", None) == "CK006"
    assert not Transfer.objects.filter(key="raw-bad").exists()


def _prepared_calls() -> list[str]:
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement FROM pg_prepared_statements WHERE statement LIKE %s",
            ["%ledger_post_transfer(%"],
        )
        return [row[0] for row in cursor.fetchall()]


def test_the_call_is_prepared_on_the_server_from_its_first_run(make_wallet: MakeWallet) -> None:
    """The call is bound on the server and prepared by its first run on a connection (psycopg's
    public ``prepare=True``), also right after a rollback, which makes psycopg deallocate every
    statement it prepared: the server plans it once per connection, not on every transfer."""
    payer, payee = make_wallet(100), make_wallet()
    post_transfer(key="prepared-0", kind="bet", legs=[Leg(payer.code, payee.code, 10)])

    prepared = _prepared_calls()
    assert len(prepared) == 1
    assert "$11::bigint[]" in prepared[0]  # bound parameters, not values quoted into the text

    with transaction.atomic():
        Account.objects.filter(pk=payer.pk).update(name="renamed")
        transaction.set_rollback(True)
    assert _prepared_calls() == []  # psycopg's own rule: nothing stays prepared over a rollback

    post_transfer(key="prepared-1", kind="bet", legs=[Leg(payer.code, payee.code, 10)])
    assert len(_prepared_calls()) == 1
    assert balance(payer) == 80
