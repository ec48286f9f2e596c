"""Issue 46 item 3: a slip that is not final is voided by the side that answers for it, and keeps
its number; a final slip is corrected by a new slip, never voided.

The pit voids openers, closers and counts; the cage fills and credits (for which the void's
effect, ``tables.slips.effects.ON_VOID``, sends chips in transit back; the fills and credits
register theirs).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.db import transaction
from django.utils import timezone

from casino.models import ActionLog, User
from ledger.models import Transfer
from tables.slips import effects
from tables.slips.models import Slip, SlipKind, SlipStatus
from tables.slips.services import issue_slip
from tests.factories import PASSWORD, open_table_for

pytestmark = pytest.mark.django_db

YEAR = timezone.now().year


@pytest.fixture
def open_table(table: Any) -> Any:
    open_table_for(table, inventory=100_000)
    return table


def _spot_count(login: Any, dealer: Any, table: Any, count: dict[str, int] | None = None) -> dict[str, Any]:
    answer = login(dealer).post(
        f"/api/v1/tables/{table.pk}/counts",
        {"count": count or {"10000": 10}, "reason": "spot_check"},
        format="json",
    )
    assert answer.status_code == 201, answer.content
    return dict(answer.json())


def _fill(table: Any, by: User) -> Slip:
    with transaction.atomic():
        return issue_slip(kind=SlipKind.FILL, requested_by=by, table=table, amount=20_000)


def _void(client: Any, slip_id: int, reason: Any = "counted the wrong rack", **headers: str) -> Any:
    return client.post(f"/api/v1/slips/{slip_id}/void", {"reason": reason}, format="json", headers=headers)


def test_a_pit_boss_voids_a_count_and_it_keeps_its_number(
    login: Any, dealer: Any, pit_boss: Any, auditor: Any, open_table: Any
) -> None:
    count = _spot_count(login, dealer, open_table)
    transfers = Transfer.objects.count()

    answer = _void(login(pit_boss), count["id"])

    assert answer.status_code == 200, answer.content
    body = answer.json()
    assert (body["number"], body["status"]) == (count["number"], "void")
    assert body["void"]["reason"] == "counted the wrong rack"
    assert body["void"]["by"] == pit_boss.pk
    assert body["void"]["at"]
    slip = Slip.objects.get(pk=count["id"])
    assert (slip.status, slip.voided_by_id, slip.void_reason) == (
        SlipStatus.VOID,
        pit_boss.pk,
        "counted the wrong rack",
    )
    assert Transfer.objects.count() == transfers  # a count moved nothing, and its void neither
    log = ActionLog.objects.get(action="slip.void", object_id=str(slip.pk))
    assert log.data == {"number": count["number"], "reason": "counted the wrong rack"}
    series = login(auditor).get(f"/api/v1/slips/series?year={YEAR}&kind=count").json()
    assert (series["issued"], series["void"], series["missing"]) == (1, 1, [])
    assert login(dealer).get(f"/api/v1/slips/{slip.pk}").json()["status"] == "void"
    signed = login(dealer).post(f"/api/v1/slips/{slip.pk}/sign", {"password": PASSWORD}, format="json")
    assert signed.status_code == 409  # a void slip takes no more signatures


def test_an_opener_is_voided_by_the_pit_and_the_tray_stays(
    login: Any, pit_boss: Any, open_table: Any
) -> None:
    opener = Slip.objects.get(kind=SlipKind.OPENER, table=open_table)

    answer = _void(login(pit_boss), opener.pk, "opened on the wrong table's slip")

    assert answer.status_code == 200, answer.content
    open_table.tray.refresh_from_db()
    assert open_table.tray.balance == 100_000


def test_the_cage_voids_fills_and_credits_and_their_void_effect_runs(
    login: Any, dealer: Any, cashier: Any, open_table: Any, monkeypatch: Any
) -> None:
    seen: list[tuple[str, str, int]] = []
    monkeypatch.setitem(
        effects.ON_VOID, SlipKind.FILL, lambda slip, actor: seen.append((slip.number, slip.status, actor.pk))
    )
    fill = _fill(open_table, dealer)

    answer = _void(login(cashier), fill.pk, "asked for twice")

    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "void"
    assert seen == [(fill.number, SlipStatus.PENDING, cashier.pk)]  # the effect sees the status before
    with transaction.atomic():  # a credit is the cage's too
        credit = issue_slip(kind=SlipKind.CREDIT, requested_by=dealer, table=open_table, amount=5_000)
    assert _void(login(cashier), credit.pk).status_code == 200
    assert seen == [(fill.number, SlipStatus.PENDING, cashier.pk)]  # nothing registered for credits here


def test_a_slip_in_transit_is_voided_by_the_cage(
    login: Any, dealer: Any, cashier: Any, open_table: Any
) -> None:
    fill = _fill(open_table, dealer)
    issued = login(cashier).post(f"/api/v1/slips/{fill.pk}/sign", {"password": PASSWORD}, format="json")
    assert issued.json()["status"] == "issued"

    answer = _void(login(cashier), fill.pk, "the runner never left the cage")

    assert answer.status_code == 200, answer.content
    assert answer.json()["status"] == "void"


@pytest.mark.parametrize(("kind", "voider"), [("count", "pit_boss"), ("fill", "cashier")])
def test_a_role_that_does_not_answer_for_the_slip_may_not_void_it(
    login: Any,
    dealer: Any,
    pit_boss: Any,
    cashier: Any,
    auditor: Any,
    open_table: Any,
    kind: str,
    voider: str,
) -> None:
    slip_id = (
        _spot_count(login, dealer, open_table)["id"] if kind == "count" else _fill(open_table, dealer).pk
    )
    people = {"dealer": dealer, "pit_boss": pit_boss, "cashier": cashier, "auditor": auditor}

    for role, person in people.items():
        if role == voider:
            continue
        answer = _void(login(person), slip_id)
        assert answer.status_code == 403, role
        assert "voided only by" in answer.json()["error"]["message"]
    assert Slip.objects.get(pk=slip_id).status != SlipStatus.VOID


def test_a_final_slip_is_corrected_by_a_new_slip_never_voided(
    login: Any, dealer: Any, pit_boss: Any, open_table: Any
) -> None:
    count = _spot_count(login, dealer, open_table)
    for person in (dealer, pit_boss):
        login(person).post(f"/api/v1/slips/{count['id']}/sign", {"password": PASSWORD}, format="json")

    answer = _void(login(pit_boss), count["id"])

    assert answer.status_code == 409
    assert answer.json()["error"]["code"] == "slip_final"
    assert "corrected by a new slip" in answer.json()["error"]["message"]
    slip = Slip.objects.get(pk=count["id"])
    assert (slip.status, slip.voided_by_id, slip.void_reason) == (SlipStatus.FINAL, None, "")
    assert not ActionLog.objects.filter(action="slip.void").exists()


def test_a_void_slip_is_not_voided_again(login: Any, dealer: Any, pit_boss: Any, open_table: Any) -> None:
    count = _spot_count(login, dealer, open_table)
    assert _void(login(pit_boss), count["id"], "first").status_code == 200

    again = _void(login(pit_boss), count["id"], "second")

    assert again.status_code == 409
    assert again.json()["error"]["code"] == "slip_void"
    assert Slip.objects.get(pk=count["id"]).void_reason == "first"


@pytest.mark.parametrize("reason", ["", "   ", 42, None, "x" * 301])
def test_a_void_says_why(login: Any, dealer: Any, pit_boss: Any, open_table: Any, reason: Any) -> None:
    count = _spot_count(login, dealer, open_table)

    answer = _void(login(pit_boss), count["id"], reason)

    assert answer.status_code == 400, answer.content
    assert Slip.objects.get(pk=count["id"]).status == SlipStatus.PENDING


def test_a_void_replays_for_the_same_key(login: Any, dealer: Any, pit_boss: Any, open_table: Any) -> None:
    count = _spot_count(login, dealer, open_table)
    boss = login(pit_boss)

    first = _void(boss, count["id"], "recounted", **{"Idempotency-Key": "void-1"})
    again = _void(boss, count["id"], "recounted", **{"Idempotency-Key": "void-1"})

    assert (first.status_code, again.status_code) == (200, 200)
    assert again.json() == first.json()
    assert again["Idempotent-Replayed"] == "true"
    assert ActionLog.objects.filter(action="slip.void").count() == 1


def test_voiding_a_slip_that_is_not_there_is_404(login: Any, pit_boss: Any) -> None:
    assert _void(login(pit_boss), 999_999).status_code == 404
