"""Closing the gaming day early must not freeze the floor (issue 20, item 10).

Before the rollover a close needs ``force`` and is refused (409 ``tables_open``, listing them)
while any table is open, in the API and on the auditors' page, where the early close also
asks for the day to be typed back. The close at or after the rollover never waits for tables.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.test import Client

from casino.errors import Conflict
from casino.models import User
from ledger.gaming_day import gaming_day_for
from ledger.models import ClosedGamingDay
from tables.audit.models import AuditReport, AuditStatus
from tables.audit.services import request_audit, run_audit
from tests.factories import ApiFloor

pytestmark = pytest.mark.django_db

TRAY = 100_000


@pytest.fixture
def floor(system_accounts: None) -> ApiFloor:
    return ApiFloor()


def _open(floor: ApiFloor, game: str) -> dict[str, Any]:
    return floor.open_table(game=game, min_bet=100, max_bet=10_000, inventory=TRAY)


def _close(floor: ApiFloor, table: dict[str, Any]) -> None:
    floor.close_table(int(table["id"]), floor.tray(int(table["id"])))


def test_an_early_close_is_refused_while_tables_are_open_and_names_them(
    floor: ApiFloor, login: Any, auditor: User, django_capture_on_commit_callbacks: Any
) -> None:
    faro, fan_tan = _open(floor, "faro"), _open(floor, "fan_tan")
    client = login(auditor)
    today = gaming_day_for().isoformat()

    refused = client.post(f"/api/v1/gaming-days/{today}/close", {"force": True}, format="json")

    assert refused.status_code == 409
    error = refused.json()["error"]
    assert error["code"] == "tables_open"
    expected = sorted(({"id": t["id"], "name": t["name"]} for t in (faro, fan_tan)), key=lambda t: t["name"])
    assert error["fields"]["tables"] == expected
    assert faro["name"] in error["message"]
    assert fan_tan["name"] in error["message"]
    assert not AuditReport.objects.exists()
    assert not ClosedGamingDay.objects.exists()

    _close(floor, faro)
    still = client.post(f"/api/v1/gaming-days/{today}/close", {"force": True}, format="json")
    assert still.status_code == 409
    assert still.json()["error"]["fields"]["tables"] == [{"id": fan_tan["id"], "name": fan_tan["name"]}]
    _close(floor, fan_tan)
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        closed = client.post(f"/api/v1/gaming-days/{today}/close", {"force": True}, format="json")
    assert closed.status_code == 202, closed.content
    assert len(callbacks) == 1
    assert AuditReport.objects.get().forced


def test_the_close_after_the_rollover_never_waits_for_tables(
    floor: ApiFloor, login: Any, auditor: User, django_capture_on_commit_callbacks: Any
) -> None:
    _open(floor, "faro")
    yesterday = (gaming_day_for() - dt.timedelta(days=1)).isoformat()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        plain = login(auditor).post(f"/api/v1/gaming-days/{yesterday}/close", {}, format="json")
        forced = login(auditor).post(f"/api/v1/gaming-days/{yesterday}/close", {"force": True}, format="json")
    assert (plain.status_code, forced.status_code) == (202, 202)
    assert len(callbacks) == 1  # the second close found the first one queued
    report = AuditReport.objects.get()
    assert not report.forced
    done = run_audit(report_id=report.pk)
    assert done.status == AuditStatus.DONE


def test_a_table_opened_after_the_request_stops_the_early_close_in_the_worker(
    floor: ApiFloor, auditor: User, django_capture_on_commit_callbacks: Any
) -> None:
    """The request found no table open; one opened before the worker closed the day."""
    day = gaming_day_for()
    with django_capture_on_commit_callbacks(execute=False):
        report = request_audit(day=day, actor=auditor, force=True)
    table = _open(floor, "faro")

    with pytest.raises(Conflict) as refused:
        run_audit(report_id=report.pk)

    assert refused.value.code == "tables_open"
    assert not ClosedGamingDay.objects.filter(day=day).exists()
    failed = AuditReport.objects.get(pk=report.pk)
    assert failed.status == AuditStatus.FAILED
    assert table["name"] in failed.error


def test_the_page_shows_the_open_tables_and_wants_the_day_typed_back(
    floor: ApiFloor, pit_boss: User, django_capture_on_commit_callbacks: Any
) -> None:
    table = _open(floor, "faro")
    today = gaming_day_for().isoformat()
    client = Client()
    client.force_login(pit_boss)

    page = client.get(f"/audit/{today}/").content.decode()
    assert table["name"] in page
    assert "still open" in page
    assert 'name="confirm_day"' in page
    assert 'type="checkbox" name="force"' not in page

    # The old checkbox alone closes nothing, nor does a day typed wrong.
    ticked = client.post(f"/audit/{today}/close/", {"force": "on"})
    assert ticked.status_code == 409
    wrong = client.post(f"/audit/{today}/close/", {"confirm_day": "2020-01-01"})
    assert wrong.status_code == 400
    assert f"type the gaming day exactly as {today}" in wrong.content.decode()
    # Typed right, it is still refused while the table is open, and the page names it.
    typed = client.post(f"/audit/{today}/close/", {"confirm_day": today})
    assert typed.status_code == 409
    assert table["name"] in typed.content.decode()
    assert not AuditReport.objects.exists()

    _close(floor, table)
    assert "still open" not in client.get(f"/audit/{today}/").content.decode()
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        closed = client.post(f"/audit/{today}/close/", {"confirm_day": f" {today} "})
    assert closed.status_code == 302
    assert len(callbacks) == 1
    assert AuditReport.objects.get().forced
