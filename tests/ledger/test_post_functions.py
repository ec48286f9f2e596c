"""ledger_post_leg and ledger_post_transfer give the same answer to the same one-leg transfer.

post_transfer sends a one-leg transfer without a hold to ledger_post_leg, so the general
function only sees one leg when it carries a hold. Here both are called directly, with the
same inputs, and must agree on what they write and on every refusal: code, message, detail.
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


def call_leg(key: str, debit: str, credit: str, amount: int, fingerprint: str = "fp") -> Outcome:
    return _call(
        "SELECT o_transfer_id, o_replayed FROM ledger_post_leg("
        "%s, 'bet', '', now(), current_date, '{}', %s, NULL, %s::text, %s::text, %s::bigint)",
        [key, fingerprint, debit, credit, amount],
    )


def call_general(key: str, debit: str, credit: str, amount: int, fingerprint: str = "fp") -> Outcome:
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


FUNCTIONS = {"leg": call_leg, "general": call_general}


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_transfer_writes_the_credit_first_and_moves_both_balances(
    name: str, make_wallet: MakeWallet
) -> None:
    payer, payee = make_wallet(300), make_wallet(20)

    assert FUNCTIONS[name]("pay", payer.code, payee.code, 120) == ("ok", False)

    assert written("pay") == [(payee.code, 120, 140), (payer.code, -120, 180)]
    assert balances(payer, payee) == [180, 140]
    payer.refresh_from_db()
    assert (payer.credits_posted - payer.debits_posted, payer.version) == (180, 2)  # funded, then paid


def test_both_functions_refuse_alike(make_wallet: MakeWallet) -> None:
    """Each case runs through both functions against the same state; the answers must match."""
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

    answers = {label: {name: fn(*args) for name, fn in FUNCTIONS.items()} for label, args in cases.items()}

    for label, by_function in answers.items():
        assert by_function["leg"] == by_function["general"], label
        assert by_function["leg"][0] == "refused", label
    assert answers["short"]["leg"][1] == (
        "CK001",
        f"{payer.code} has 69 cents available; this transfer needs 11 cents more.",
        {"account": payer.code, "available": 69, "needed": 80},
    )
    assert answers["to itself"]["leg"][1][0] == answers["zero"]["leg"][1][0] == "CK006"
    assert answers["unknown payee"]["leg"][1][:2] == ("CK003", "No such account: nowhere-b.")
    assert answers["both unknown"]["leg"][1][:2] == ("CK003", "No such account: nowhere-a, nowhere-z.")
    assert answers["key taken, other content"]["leg"][1][0] == "CK002"
    # A replay with the stored fingerprint is a replay in both.
    for fn in FUNCTIONS.values():
        assert fn("taken-alike", payer.code, payee.code, 1, taken_fingerprint) == ("ok", True)
    assert balances(payer, payee) == [99, 1]
    assert not Transfer.objects.filter(key__in=["short", "itself", "zero", "unknown", "unknown2"]).exists()


@pytest.mark.parametrize("name", sorted(FUNCTIONS))
def test_a_twin_in_flight_that_rolls_back_leaves_the_key_to_the_waiting_call(
    name: str, make_wallet: MakeWallet
) -> None:
    """The key is claimed first: a second call with it waits for the first, and when the first
    rolls back the second posts as if it had been first (no "retry" error, nothing lost)."""
    payer, payee = make_wallet(100), make_wallet()
    fn = FUNCTIONS[name]
    first_holds_key = threading.Event()
    second_done = threading.Event()
    outcome: dict[str, Outcome] = {}

    def second() -> None:
        try:
            first_holds_key.wait(10)
            outcome["second"] = fn("twin", payer.code, payee.code, 40)
        finally:
            second_done.set()
            connections.close_all()

    worker = threading.Thread(target=second)
    worker.start()
    with transaction.atomic():
        assert fn("twin", payer.code, payee.code, 40) == ("ok", False)
        first_holds_key.set()
        assert not second_done.wait(0.5), "the second call must wait for the first's key"
        transaction.set_rollback(True)
    worker.join(10)

    assert outcome["second"] == ("ok", False)
    assert Transfer.objects.filter(key="twin").count() == 1
    assert balances(payer, payee) == [60, 40]
