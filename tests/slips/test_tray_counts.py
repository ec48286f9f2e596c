"""Issue 46 item 2: the tray counted by chip at opening and closing, each count an accountable slip.

``POST /tables/{id}/open`` and ``/close`` take ``opening_count`` / ``closing_count`` (pieces by
chip) or the cents as before; either way the response carries the opener or closer slip, whose
``expected`` is the ledger's tray before the count adjusts it and whose ``variance`` is the one
posted to over/short. A variance beyond what the pit lets pass raises its alert at once.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from ledger.models import Transfer
from tables.detection.models import Alert
from tables.models import TableSession
from tables.slips.models import Slip, SlipCounter, SlipKind
from tables.slips.selectors import account_for_series
from tests.factories import ApiFloor, open_table_for

pytestmark = pytest.mark.django_db

YEAR = timezone.now().year
# $2,000.00 over the default chip set: 40 × $25, 8 × $100, 30 × $5, 50 × $1
BANKROLL = {"2500": 40, "10000": 8, "500": 30, "100": 50}
BANKROLL_CENTS = 40 * 2500 + 8 * 10000 + 30 * 500 + 50 * 100


def _open(login: Any, dealer: Any, table: Any, body: dict[str, Any], **headers: str) -> Any:
    return login(dealer).post(f"/api/v1/tables/{table.pk}/open", body, format="json", headers=headers)


def _close(login: Any, dealer: Any, table: Any, body: dict[str, Any], **headers: str) -> Any:
    return login(dealer).post(f"/api/v1/tables/{table.pk}/close", body, format="json", headers=headers)


def test_a_first_opening_counted_by_chip_writes_its_opener(login: Any, dealer: Any, table: Any) -> None:
    answer = _open(login, dealer, table, {"opening_count": BANKROLL})

    assert answer.status_code == 201, answer.content
    session = answer.json()
    assert session["opening_inventory"] == BANKROLL_CENTS
    opener = session["opener"]
    assert opener["number"] == f"O-{YEAR}-000001"
    assert (opener["kind"], opener["status"], opener["table"]) == ("opener", "pending", table.pk)
    assert opener["count"] == {"50": 0, "100": 50, "500": 30, "2500": 40, "10000": 8, "50000": 0, "100000": 0}
    # The bankroll is issued from the cage first: the ledger's tray then holds what was counted.
    assert (opener["amount"], opener["expected"], opener["variance"]) == (BANKROLL_CENTS, BANKROLL_CENTS, 0)
    assert opener["needs"] == ["dealer", "pit_boss"]
    assert opener["requested_by"] == dealer.pk
    slip = Slip.objects.get(pk=opener["id"])
    assert slip.session_id == session["id"]
    assert slip.receipt_transfer is not None
    assert slip.receipt_transfer.kind == "table_issue"
    assert slip.issue_transfer is None
    table.tray.refresh_from_db()
    assert table.tray.balance == BANKROLL_CENTS
    assert not Alert.objects.exists()


def test_an_opening_in_cents_writes_an_opener_without_a_count(login: Any, dealer: Any, table: Any) -> None:
    answer = _open(login, dealer, table, {"opening_inventory": 150_000})

    assert answer.status_code == 201, answer.content
    opener = answer.json()["opener"]
    assert (opener["count"], opener["amount"], opener["variance"]) == (None, 150_000, 0)


def test_a_reopening_off_the_ledger_records_and_posts_the_variance(
    login: Any, dealer: Any, table: Any
) -> None:
    open_table_for(table, inventory=100_000)
    _close(login, dealer, table, {"closing_inventory": 100_000})
    short = {"10000": 9, "2500": 2}  # $950.00: $50.00 short of the ledger's $1,000.00

    answer = _open(login, dealer, table, {"opening_count": short})

    assert answer.status_code == 201, answer.content
    body = answer.json()
    opener = body["opener"]
    assert (opener["amount"], opener["expected"], opener["variance"]) == (95_000, 100_000, -5_000)
    assert body["opening_variance"] == opener["variance"]
    slip = Slip.objects.get(pk=opener["id"])
    assert slip.issue_transfer is not None
    assert slip.issue_transfer.kind == "count_variance"
    assert slip.issue_transfer.meta == {"table": table.pk, "stage": "opening"}
    assert slip.receipt_transfer is None  # no bankroll: the table had opened before
    alert = Alert.objects.get()
    assert (alert.kind, alert.severity, alert.table_id) == ("count_variance", "medium", table.pk)
    assert alert.evidence["slip"] == opener["number"]
    assert "$50.00 short" in alert.summary


def test_a_closing_counted_by_chip_writes_its_closer_and_a_reportable_variance(
    login: Any, dealer: Any, auditor: Any, table: Any
) -> None:
    open_table_for(table, inventory=BANKROLL_CENTS)
    counted = {**BANKROLL, "2500": 34}  # six $25 chips missing: $150.00 short

    answer = _close(login, dealer, table, {"closing_count": counted})

    assert answer.status_code == 200, answer.content
    summary = answer.json()
    closer = summary["closer"]
    assert closer["number"] == f"X-{YEAR}-000001"
    assert closer["kind"] == "closer"
    assert closer["count"]["2500"] == 34
    expected = BANKROLL_CENTS
    assert (closer["amount"], closer["expected"], closer["variance"]) == (
        expected - 15_000,
        expected,
        -15_000,
    )
    assert summary["variance"] == closer["variance"]
    assert summary["closing_inventory"] == expected - 15_000
    assert TableSession.objects.get(pk=summary["id"]).closing_ledger == expected
    assert Slip.objects.get(pk=closer["id"]).issue_transfer.meta == {"table": table.pk, "stage": "closing"}

    alert = Alert.objects.get()
    assert (alert.kind, alert.severity, alert.detector) == ("reportable_variance", "high", "slips")
    assert alert.dedup_key == f"reportable_variance:{closer['number']}"
    assert alert.evidence == {
        "slip": closer["number"],
        "slip_id": closer["id"],
        "slip_kind": "closer",
        "session": summary["id"],
        "counted": expected - 15_000,
        "expected": expected,
        "variance": -15_000,
    }
    assert alert.summary == (
        f"Closing count {closer['number']} at {table.name} is $150.00 short: counted $1,850.00, "
        "the ledger's tray $2,000.00."
    )
    listed = login(auditor).get("/api/v1/alerts?kind=reportable_variance").json()["results"]
    assert [(a["kind"], a["severity"], a["table"]) for a in listed] == [
        ("reportable_variance", "high", table.pk)
    ]
    assert login(auditor).get("/api/v1/alerts?kind=count_variance").json()["results"] == []
    assert login(auditor).get("/api/v1/alerts?kind=no_such_kind").status_code == 400


def test_a_closing_in_cents_writes_a_closer_without_a_count(login: Any, dealer: Any, table: Any) -> None:
    open_table_for(table, inventory=100_000)

    answer = _close(login, dealer, table, {"closing_inventory": 100_000})

    assert answer.status_code == 200, answer.content
    closer = answer.json()["closer"]
    assert (closer["count"], closer["amount"], closer["expected"], closer["variance"]) == (
        None,
        100_000,
        100_000,
        0,
    )
    assert Slip.objects.get(pk=closer["id"]).issue_transfer is None


@pytest.mark.parametrize(
    ("body", "code", "says"),
    [
        ({"opening_count": {"700": 3}}, "invalid", "There is no 700-cent chip"),
        ({"opening_count": {"2500": -3}}, "invalid", "$25 chips must be a whole number from 0"),
        ({"opening_count": {"2500": "4"}}, "invalid", "$25 chips must be a whole number"),
        ({"opening_count": [40, 8]}, "invalid", "pieces by chip value in cents"),
        ({"opening_count": {"2500": 4}, "opening_inventory": 10_000}, "invalid", "not both"),
        ({}, "invalid", "Give the opening count"),
        ({"opening_inventory": 12.5}, "invalid", "JSON integer"),
    ],
)
def test_a_bad_opening_count_is_refused_in_words_and_opens_nothing(
    login: Any, dealer: Any, table: Any, body: dict[str, Any], code: str, says: str
) -> None:
    answer = _open(login, dealer, table, body)

    assert answer.status_code == 400, answer.content
    error = answer.json()["error"]
    assert error["code"] == code
    assert says in error["message"]
    table.refresh_from_db()
    assert table.status == "closed"
    assert not TableSession.objects.filter(table=table).exists()
    assert not Slip.objects.exists()
    assert not SlipCounter.objects.exists()


def test_a_bad_closing_count_is_refused_and_the_table_stays_open(login: Any, dealer: Any, table: Any) -> None:
    open_table_for(table, inventory=100_000)

    answer = _close(login, dealer, table, {"closing_count": {"2500": 4, "3": 1}})

    assert answer.status_code == 400
    assert "There is no 3-cent chip" in answer.json()["error"]["message"]
    assert answer.json()["error"]["fields"] == {"closing_count": {"3": "unknown chip"}}
    table.refresh_from_db()
    assert table.status == "open"
    assert not Slip.objects.filter(kind=SlipKind.CLOSER).exists()


def test_a_close_refused_while_a_round_is_live_gives_its_number_back(system_accounts: None) -> None:
    floor = ApiFloor()
    table = floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=100_000)
    player = floor.new_player(buy_in=10_000)
    floor.seat(table["id"], player, 1)
    floor.start_round(table["id"], "electronic")

    refused = floor.client(floor.dealer).post(
        f"/api/v1/tables/{table['id']}/close", {"closing_count": {"10000": 10}}, format="json"
    )

    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "round_live"
    series = account_for_series(kind=SlipKind.CLOSER, year=YEAR)
    assert (series.issued, series.last, series.missing) == (0, None, [])


def test_opening_and_closing_replay_for_the_same_key(login: Any, dealer: Any, table: Any) -> None:
    body = {"opening_count": BANKROLL}
    first = _open(login, dealer, table, body, **{"Idempotency-Key": "open-1"})
    again = _open(login, dealer, table, body, **{"Idempotency-Key": "open-1"})

    assert (first.status_code, again.status_code) == (201, 201)
    assert again["Idempotent-Replayed"] == "true"
    assert again.json() == first.json()
    assert Slip.objects.filter(kind=SlipKind.OPENER).count() == 1
    other = _open(login, dealer, table, {"opening_count": {"2500": 1}}, **{"Idempotency-Key": "open-1"})
    assert other.status_code == 409
    assert other.json()["error"]["code"] == "idempotency_conflict"

    transfers = Transfer.objects.count()
    closing = {"closing_count": {**BANKROLL, "100": 45}}
    shut = _close(login, dealer, table, closing, **{"Idempotency-Key": "close-1"})
    shut_again = _close(login, dealer, table, closing, **{"Idempotency-Key": "close-1"})

    assert (shut.status_code, shut_again.status_code) == (200, 200)
    assert shut_again.json() == shut.json()
    assert shut.json()["closer"]["variance"] == -500
    assert Slip.objects.filter(kind=SlipKind.CLOSER).count() == 1
    assert Transfer.objects.count() == transfers + 1  # the one closing variance, posted once
