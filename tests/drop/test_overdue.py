"""A drop box not removed within ``DROP_BOX_OVERDUE_DAYS`` gaming days raises
``drop_box_overdue``, once per box (tables.drop.overdue; beat's task)."""

from __future__ import annotations

import datetime as dt

import pytest
from django.conf import settings as django_settings
from django.utils import timezone

from casino.models import Player, User
from tables.detection.models import Alert
from tables.drop.models import DropBox
from tables.drop.overdue import alert_drop_boxes_overdue
from tables.drop.services import cash_buy_in, remove_box
from tables.models import Table
from tables.tasks import alert_drop_boxes_overdue_task

pytestmark = pytest.mark.django_db


@pytest.fixture
def box(open_table: Table, dealer: User, player: Player) -> DropBox:
    return cash_buy_in(actor=dealer, table_id=open_table.pk, player_id=player.pk, amount=12_345).box


def _days_later(days: int) -> dt.datetime:
    return timezone.now() + dt.timedelta(days=days)


def test_a_box_left_at_its_table_two_gaming_days_raises_one_alert(box: DropBox, open_table: Table) -> None:
    limit = django_settings.DROP_BOX_OVERDUE_DAYS

    assert alert_drop_boxes_overdue(now=_days_later(limit - 1)) == 0
    assert alert_drop_boxes_overdue(now=_days_later(limit)) == 1
    assert alert_drop_boxes_overdue(now=_days_later(limit + 3)) == 0  # once per box

    alert = Alert.objects.get(kind="drop_box_overdue")
    assert alert.dedup_key == f"drop_box_overdue:{box.number}"
    assert alert.table_id == open_table.pk
    assert (alert.evidence["box"], alert.evidence["recorded"], alert.evidence["days"]) == (
        box.number,
        12_345,
        limit,
    )
    assert box.number in alert.summary
    assert "$123.45" in alert.summary
    assert open_table.name in alert.summary


def test_a_removed_box_raises_none(box: DropBox, counter: User) -> None:
    remove_box(actor=counter, box_id=box.pk, seal="S-77")

    assert alert_drop_boxes_overdue(now=_days_later(1)) == 0
    assert not Alert.objects.filter(dedup_key=f"drop_box_overdue:{box.number}").exists()


def test_the_beat_task_raises_them_and_is_scheduled(box: DropBox, settings: object) -> None:
    settings.DROP_BOX_OVERDUE_DAYS = 0  # type: ignore[attr-defined]

    assert alert_drop_boxes_overdue_task() == 1
    assert alert_drop_boxes_overdue_task() == 0
    schedule = django_settings.CELERY_BEAT_SCHEDULE["drop-boxes-overdue"]
    assert schedule["task"] == "tables.tasks.alert_drop_boxes_overdue_task"
