"""Issue 46 items 2 and 6: a shift-change or spot count of an open table, and its variance.

``POST /tables/{id}/counts`` writes a count slip against the ledger's tray; the table stays open
and no chip moves (the variance is what the pit investigates). Over $25.00 off, the pit boss
signs only with a note and a ``count_variance`` alert is raised; $100.00 or more raises a
``reportable_variance``.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.utils import timezone

from casino.models import ActionLog, Role
from ledger.models import Transfer
from tables.detection.models import Alert
from tables.slips.models import Slip
from tests.factories import PASSWORD, open_table_for, staff

pytestmark = pytest.mark.django_db

YEAR = timezone.now().year
TRAY = 100_000  # $1,000.00


@pytest.fixture
def open_table(table: Any) -> Any:
    open_table_for(table, inventory=TRAY)
    table.refresh_from_db()
    return table


def _count(client: Any, table: Any, count: Any, reason: Any = "spot_check", **headers: str) -> Any:
    return client.post(
        f"/api/v1/tables/{table.pk}/counts",
        {"count": count, "reason": reason},
        format="json",
        headers=headers,
    )


def test_a_spot_count_records_the_tray_and_moves_nothing(login: Any, dealer: Any, open_table: Any) -> None:
    transfers = Transfer.objects.count()

    answer = _count(login(dealer), open_table, {"10000": 9, "2500": 3, "500": 5})  # $1,000.00

    assert answer.status_code == 201, answer.content
    slip = answer.json()
    assert slip["number"] == f"S-{YEAR}-000001"
    assert (slip["kind"], slip["status"], slip["reason"], slip["table"]) == (
        "count",
        "pending",
        "spot_check",
        open_table.pk,
    )
    assert (slip["amount"], slip["expected"], slip["variance"]) == (TRAY, TRAY, 0)
    assert slip["needs"] == ["dealer", "pit_boss"]
    open_table.refresh_from_db()
    open_table.tray.refresh_from_db()
    assert open_table.status == "open"
    assert open_table.tray.balance == TRAY
    assert Transfer.objects.count() == transfers
    assert not Alert.objects.exists()
    assert ActionLog.objects.filter(action="slip.count", object_id=str(slip["id"])).exists()


def test_a_short_spot_count_leaves_the_tray_as_the_ledger_has_it(
    login: Any, pit_boss: Any, open_table: Any
) -> None:
    answer = _count(login(pit_boss), open_table, {"10000": 9, "2500": 2}, reason="shift_change")  # $950.00

    assert answer.status_code == 201, answer.content
    slip = answer.json()
    assert (slip["reason"], slip["requested_by"]) == ("shift_change", pit_boss.pk)
    assert (slip["amount"], slip["expected"], slip["variance"]) == (95_000, TRAY, -5_000)
    open_table.tray.refresh_from_db()
    assert open_table.tray.balance == TRAY  # recorded, not adjusted
    alert = Alert.objects.get()
    assert (alert.kind, alert.severity) == ("count_variance", "medium")
    assert alert.summary == (
        f"Count {slip['number']} at {open_table.name} is $50.00 short: counted $950.00, the ledger's tray "
        "$1,000.00."
    )


@pytest.mark.parametrize(
    ("count", "alert"),
    [
        ({"10000": 10, "2500": 1}, None),  # $25.00 over: within what the pit lets pass
        ({"10000": 10, "2500": 1, "100": 1}, "count_variance"),  # $26.00 over
        ({"10000": 9}, "reportable_variance"),  # $100.00 short: reportable
        ({"10000": 11, "500": 1}, "reportable_variance"),  # $105.00 over
    ],
)
def test_a_variance_raises_the_alert_its_size_calls_for(
    login: Any, dealer: Any, open_table: Any, count: dict[str, int], alert: str | None
) -> None:
    answer = _count(login(dealer), open_table, count)

    assert answer.status_code == 201, answer.content
    raised = list(Alert.objects.values_list("kind", "dedup_key"))
    assert raised == ([] if alert is None else [(alert, f"{alert}:{answer.json()['number']}")])


def test_a_count_off_by_more_than_25_dollars_is_signed_by_the_pit_boss_with_a_note(
    login: Any, dealer: Any, pit_boss: Any, open_table: Any
) -> None:
    slip = _count(login(dealer), open_table, {"10000": 9, "2500": 2}).json()  # $50.00 short
    sign = f"/api/v1/slips/{slip['id']}/sign"
    assert login(dealer).post(sign, {"password": PASSWORD}, format="json").status_code == 200

    bare = login(pit_boss).post(sign, {"password": PASSWORD}, format="json")

    assert bare.status_code == 400
    assert bare.json()["error"]["code"] == "note_required"
    assert "$50.00 short" in bare.json()["error"]["message"]
    noted = login(pit_boss).post(
        sign, {"password": PASSWORD, "note": "two $25 chips in the drop"}, format="json"
    )
    assert noted.status_code == 200, noted.content
    assert (noted.json()["status"], noted.json()["needs"]) == ("final", [])
    assert [s["note"] for s in noted.json()["signatures"]] == ["", "two $25 chips in the drop"]


def test_a_count_within_25_dollars_is_signed_without_a_note(
    login: Any, dealer: Any, pit_boss: Any, open_table: Any
) -> None:
    slip = _count(login(dealer), open_table, {"10000": 10, "2500": 1}).json()  # $25.00 over
    sign = f"/api/v1/slips/{slip['id']}/sign"
    login(dealer).post(sign, {"password": PASSWORD}, format="json")

    signed = login(pit_boss).post(sign, {"password": PASSWORD}, format="json")

    assert signed.status_code == 200, signed.content
    assert signed.json()["status"] == "final"


@pytest.mark.parametrize(
    ("body", "says"),
    [
        ({"count": {"2000": 1}, "reason": "spot_check"}, "There is no 2000-cent chip"),
        ({"count": {"10000": -1}, "reason": "spot_check"}, "$100 chips must be a whole number from 0"),
        ({"count": {"10000": 1.5}, "reason": "spot_check"}, "$100 chips must be a whole number"),
        ({"count": "1000 dollars", "reason": "spot_check"}, "pieces by chip value in cents"),
        ({"count": {"10000": 10}, "reason": "because"}, "is not a valid choice"),
        ({"count": {"10000": 10}}, "This field is required"),
        ({"reason": "spot_check"}, "This field is required"),
    ],
)
def test_a_bad_count_is_refused_in_words_and_writes_nothing(
    login: Any, dealer: Any, open_table: Any, body: dict[str, Any], says: str
) -> None:
    answer = login(dealer).post(f"/api/v1/tables/{open_table.pk}/counts", body, format="json")

    assert answer.status_code == 400, answer.content
    assert says in str(answer.json()["error"])
    assert not Slip.objects.filter(kind="count").exists()


def test_only_the_tables_dealer_or_a_pit_boss_counts(login: Any, open_table: Any, cashier: Any) -> None:
    stranger = staff(Role.DEALER)
    for who in (stranger, cashier):
        answer = _count(login(who), open_table, {"10000": 10})
        assert answer.status_code == 403, who.role
        assert "assigned to this table or a pit boss" in answer.json()["error"]["message"]
    assert not Slip.objects.filter(kind="count").exists()


def test_a_closed_table_is_not_spot_counted(login: Any, dealer: Any, table: Any) -> None:
    answer = _count(login(dealer), table, {"10000": 10})

    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "table_closed"
    assert not Slip.objects.exists()
    assert login(dealer).post("/api/v1/tables/999999/counts", {}, format="json").status_code == 404


def test_a_count_replays_for_the_same_key(login: Any, dealer: Any, open_table: Any) -> None:
    client = login(dealer)
    first = _count(client, open_table, {"10000": 10}, **{"Idempotency-Key": "count-1"})
    again = _count(client, open_table, {"10000": 10}, **{"Idempotency-Key": "count-1"})
    other = _count(client, open_table, {"10000": 9}, **{"Idempotency-Key": "count-1"})

    assert (first.status_code, again.status_code, other.status_code) == (201, 201, 409)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert Slip.objects.filter(kind="count").count() == 1
