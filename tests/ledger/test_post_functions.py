"""ledger_post_transfer, the one posting function (migration 0010), called directly.

post_transfer sends every transfer to it, one leg or many, with or without holds; a second,
scalar function for one leg without a hold (ledger_post_leg) is gone. Here the function is
called as any caller could, and its writes and refusals (code, message, detail) are checked.
These tests commit for real (transactional_db); the last one needs two connections.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from typing import Any

import pytest
from django.db import DatabaseError, connection, connections, transaction

from ledger.models import Account, Entry, Transfer
from ledger.services import Leg, hold, post_transfer

pytestmark = pytest.mark.django_db(transaction=True)

MakeWallet = Callable[..., Account]
Outcome = tuple[str, Any]


def call(key: str, debit: str, credit: str, amount: int, fingerprint: str = "fp") -> Outcome:
    return _call(
        "SELECT o_transfer_id, o_replayed FROM ledger_post_transfer("
        "%s, 'bet', '', now(), current_date, '{}', %s, NULL,"
        " ARRAY[%s::text], ARRAY[%s::text], ARRAY[%s::bigint], ARRAY[NULL::bigint])",
        [key, fingerprint, debit, credit, amount],
    )


def _call(sql: str, params: list[Any]) -> Outcome:
    """("ok", replayed) or ("refused", (sqlstate, message, detail)); a refusal writes nothing."""
    try:
        with transaction.atomic(), connection.cursor() as cursor:
            cursor.execute(sql, params)
            _, replayed = cursor.fetchone()
    except DatabaseError as error:
        diag = error.__cause__.diag  # type: ignore[union-attr]
        detail = json.loads(diag.message_detail) if diag.message_detail else None
        return "refused", (diag.sqlstate, diag.message_primary, detail)
    return "ok", replayed


def written(key: str) -> list[tuple[str, int, int]]:
    return list(
        Entry.objects.filter(transfer__key=key)
        .order_by("id")
        .values_list("account__code", "amount", "balance_after")
    )


def balances(*accounts: Account) -> list[int]:
    return [Account.objects.values_list("balance", flat=True).get(pk=a.pk) for a in accounts]


def test_there_is_one_posting_function() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT proname FROM pg_proc WHERE proname LIKE 'ledger\\_post\\_%' ORDER BY 1")
        assert [row[0] for row in cursor.fetchall()] == ["ledger_post_transfer"]


def test_a_transfer_writes_the_credit_first_and_moves_both_balances(make_wallet: MakeWallet) -> None:
    payer, payee = make_wallet(300), make_wallet(20)

    assert call("pay", payer.code, payee.code, 120) == ("ok", False)

    assert written("pay") == [(payee.code, 120, 140), (payer.code, -120, 180)]
    assert balances(payer, payee) == [180, 140]
    payer.refresh_from_db()
    assert (payer.credits_posted - payer.debits_posted, payer.version) == (180, 2)  # funded, then paid


def test_each_refusal_of_one_leg(make_wallet: MakeWallet) -> None:
    """Each case against the same state: the SQLSTATE, the message a person reads, the detail."""
    payer, payee = make_wallet(100), make_wallet()
    hold(key="reserve-alike", account_code=payer.code, amount=30)  # available: 70
    post_transfer(key="taken-alike", kind="bet", legs=[Leg(payer.code, payee.code, 1)])
    taken_fingerprint = Transfer.objects.get(key="taken-alike").fingerprint
    cases: dict[str, tuple[str, str, str, int, str]] = {
        "short": ("short", payer.code, payee.code, 80, "fp"),
        "to itself": ("itself", payer.code, payer.code, 5, "fp"),
        "zero": ("zero", payer.code, payee.code, 0, "fp"),
        "unknown payee": ("unknown", payer.code, "nowhere-b", 5, "fp"),
        "both unknown": ("unknown2", "nowhere-z", "nowhere-a", 5, "fp"),
        "key taken, other content": ("taken-alike", payer.code, payee.code, 1, "other"),
    }

    answers = {label: call(*args) for label, args in cases.items()}

    assert {label: answer[0] for label, answer in answers.items()} == dict.fromkeys(cases, "refused")
    assert answers["short"][1] == (
        "CK001",
        f"{payer.code} has 69 cents available; this transfer needs 11 cents more.",
        {"account": payer.code, "available": 69, "needed": 80},
    )
    assert (
        answers["to itself"][1]
        == answers["zero"][1]
        == (
            "CK006",
            "Each leg moves a positive amount between two different accounts.",
            None,
        )
    )
    assert answers["unknown payee"][1] == ("CK003", "No such account: nowhere-b.", None)
    assert answers["both unknown"][1] == ("CK003", "No such account: nowhere-a, nowhere-z.", None)
    assert answers["key taken, other content"][1] == (
        "CK002",
        "Key 'taken-alike' was already used for a different transfer.",
        None,
    )
    # A replay with the stored fingerprint is a replay.
    assert call("taken-alike", payer.code, payee.code, 1, taken_fingerprint) == ("ok", True)
    assert balances(payer, payee) == [99, 1]
    assert not Transfer.objects.filter(key__in=["short", "itself", "zero", "unknown", "unknown2"]).exists()


def test_a_twin_in_flight_that_rolls_back_leaves_the_key_to_the_waiting_call(make_wallet: MakeWallet) -> None:
    """The key is claimed first: a second call with it waits for the first, and when the first
    rolls back the second posts as if it had been first (no "retry" error, nothing lost)."""
    payer, payee = make_wallet(100), make_wallet()
    first_holds_key = threading.Event()
    second_done = threading.Event()
    outcome: dict[str, Outcome] = {}

    def second() -> None:
        try:
            first_holds_key.wait(10)
            outcome["second"] = call("twin", payer.code, payee.code, 40)
        finally:
            second_done.set()
            connections.close_all()

    worker = threading.Thread(target=second)
    worker.start()
    with transaction.atomic():
        assert call("twin", payer.code, payee.code, 40) == ("ok", False)
        first_holds_key.set()
        assert not second_done.wait(0.5), "the second call must wait for the first's key"
        transaction.set_rollback(True)
    worker.join(10)

    assert outcome["second"] == ("ok", False)
    assert Transfer.objects.filter(key="twin").count() == 1
    assert balances(payer, payee) == [60, 40]
