"""Issue 46 item 5: a fill or credit still in transit after ``SLIP_TRANSIT_MINUTES`` is an alert.

The beat task is called directly, against the real database; the clock is moved by passing
``now`` (the service's) or by setting the limit to zero (the task's).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from casino.models import Role, User
from tables.detection.models import Alert
from tables.models import Table
from tables.slips.models import Slip
from tables.slips.services import sign_slip
from tables.slips.transit import approve_transit_slip, request_transit_slip
from tables.slips.transit_alerts import alert_slips_in_transit
from tables.tasks import alert_slips_in_transit_task
from tests.factories import open_table_for, staff

pytestmark = pytest.mark.django_db


def _issued(table: Table, kind: str, amount: int, *, asker: User, approver: User) -> Slip:
    slip = request_transit_slip(actor=asker, table_id=table.pk, kind=kind, amount=amount)
    return approve_transit_slip(
        actor=approver, table_id=table.pk, slip_id=slip.pk, kind=kind, password_confirmed=False
    )


@pytest.fixture
def fill(table: Table, dealer: User, cashier: User) -> Slip:
    open_table_for(table)
    return _issued(table, "fill", 25_000, asker=dealer, approver=cashier)


def _later(minutes: float) -> dt.datetime:
    return timezone.now() + dt.timedelta(minutes=minutes)


def test_a_fill_in_transit_too_long_raises_one_alert(fill: Slip, table: Table) -> None:
    limit = django_settings.SLIP_TRANSIT_MINUTES

    assert alert_slips_in_transit(now=_later(limit - 1)) == 0
    assert alert_slips_in_transit(now=_later(limit + 1)) == 1
    assert alert_slips_in_transit(now=_later(limit + 20)) == 0  # once per slip, whatever the runs

    alert = Alert.objects.get(kind="slip_in_transit")
    assert alert.dedup_key == f"slip_in_transit:{fill.number}"
    assert (alert.evidence["slip"], alert.evidence["amount"], alert.table_id) == (
        fill.number,
        25_000,
        table.pk,
    )
    assert alert.evidence["minutes"] >= limit
    assert alert.evidence["needs"] == ["dealer", "pit_boss"]
    assert fill.number in alert.summary
    assert "$250.00" in alert.summary
    assert alert.status == "open"


def test_a_slip_signed_for_in_time_raises_nothing(fill: Slip, dealer: User, pit_boss: User) -> None:
    for signer in (dealer, pit_boss):
        sign_slip(actor=signer, slip_id=fill.pk)

    assert alert_slips_in_transit(now=_later(django_settings.SLIP_TRANSIT_MINUTES * 10)) == 0
    assert not Alert.objects.exists()


def test_a_pending_slip_is_not_in_transit(table: Table, dealer: User) -> None:
    open_table_for(table)
    request_transit_slip(actor=dealer, table_id=table.pk, kind="fill", amount=1_000)

    assert alert_slips_in_transit(now=_later(django_settings.SLIP_TRANSIT_MINUTES * 10)) == 0


def test_the_beat_task_alerts_every_slip_in_transit(
    fill: Slip, table: Table, dealer: User, settings: Any, login: Any, pit_boss: User
) -> None:
    credit = _issued(table, "credit", 5_000, asker=dealer, approver=staff(Role.PIT_BOSS))
    settings.SLIP_TRANSIT_MINUTES = 0

    assert alert_slips_in_transit_task() == 2
    assert alert_slips_in_transit_task() == 0

    numbers = {a.evidence["slip"] for a in Alert.objects.filter(kind="slip_in_transit")}
    assert numbers == {fill.number, credit.number}
    listed = login(pit_boss).get("/api/v1/alerts?kind=slip_in_transit").json()["results"]
    assert {a["evidence"]["slip"] for a in listed} == numbers
    schedule = django_settings.CELERY_BEAT_SCHEDULE["slips-in-transit"]
    assert schedule["task"] == "tables.tasks.alert_slips_in_transit_task"
