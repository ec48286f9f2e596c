"""The detection tasks on a real Celery worker (Redis broker and result backend, not eager):
idempotent reruns, resolved alerts that stay resolved, a tampered manual-shoe round, errors.
"""

from __future__ import annotations

from typing import Any

import pytest
from django.conf import settings

from casino.models import Role
from casino.services import buy_in
from ledger.gaming_day import gaming_day_for
from tables.detection.models import Alert, AlertStatus
from tables.detection.services import resolve_alert
from tables.detection.tasks import run_detector_task, run_detectors_task
from tables.models import Round
from tables.rounds import apply_round_action, start_round
from tables.services import assign_dealer, create_table, open_table, seat_player
from tests import factories

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]
TIMEOUT = 60


def today() -> str:
    return gaming_day_for().isoformat()


def test_structuring_is_detected_by_the_worker_and_a_rerun_updates_the_same_alert(detect_worker: Any) -> None:
    cashier = factories.staff(Role.CASHIER)
    player = factories.PlayerFactory(actor=cashier)
    factories.identified(player)  # on file: the day's cash may pass the CTR line
    line = settings.CTR_THRESHOLD
    first, second = (
        buy_in(actor=cashier, player=player, amount=line * 95 // 100),
        buy_in(actor=cashier, player=player, amount=line * 92 // 100),
    )
    summary = run_detector_task.delay("aml", today()).get(timeout=TIMEOUT)
    # Structuring, and chip walking: $18,700 bought, nothing played, nothing cashed out.
    assert summary["aml"]["created"] == 2
    assert set(Alert.objects.values_list("kind", flat=True)) == {"structuring", "chip_walking"}
    alert = Alert.objects.get(kind="structuring")
    assert alert.player_id == player.pk
    assert alert.detector == "aml"
    assert alert.status == AlertStatus.OPEN
    assert [t["transfer"] for t in alert.evidence["cash_in"]["transactions"]] == [first.pk, second.pk]

    # A third transaction: the rerun updates the same row (dedup key), it does not add one.
    third = buy_in(actor=cashier, player=player, amount=line * 90 // 100)
    again = run_detectors_task.delay(today(), ["aml"]).get(timeout=TIMEOUT)
    assert again["aml"] == {**again["aml"], "created": 0, "updated": 2}
    alert.refresh_from_db()
    assert alert.detections == 2
    assert alert.evidence["cash_in"]["count"] == 3
    assert third.pk in [t["transfer"] for t in alert.evidence["cash_in"]["transactions"]]
    assert Alert.objects.count() == 2

    # Resolved, then found again: the evidence is refreshed, the pit boss's verdict stays.
    boss = factories.staff(Role.PIT_BOSS)
    resolve_alert(actor=boss, alert_id=alert.pk, note="Regular; ID on file, CTR filed.")
    run_detector_task.delay("aml", today()).get(timeout=TIMEOUT)
    alert.refresh_from_db()
    assert alert.status == AlertStatus.RESOLVED
    assert alert.resolved_by == boss
    assert alert.detections == 3


def test_every_detector_runs_as_one_task_and_twice_at_once_makes_one_alert(detect_worker: Any) -> None:
    cashier = factories.staff(Role.CASHIER)
    player = factories.PlayerFactory(actor=cashier)
    factories.identified(player)
    for share in (97, 93):
        buy_in(actor=cashier, player=player, amount=settings.CTR_THRESHOLD * share // 100)
    results = [run_detectors_task.delay(today()) for _ in range(2)]
    summaries = [r.get(timeout=TIMEOUT) for r in results]
    assert all(set(s) == {"faro", "hold", "collusion", "limits", "trays", "aml"} for s in summaries)
    assert Alert.objects.filter(kind="structuring").count() == 1
    assert Alert.objects.count() == 2  # and chip walking: one row each, however many runs
    assert sum(s["aml"]["created"] for s in summaries) == 2


def test_a_manual_round_with_a_rank_dealt_five_times_is_flagged(detect_worker: Any) -> None:
    boss, dealer, cashier = (factories.staff(r) for r in (Role.PIT_BOSS, Role.DEALER, Role.CASHIER))
    table = create_table(actor=boss, name="Faro tamper", game="faro", min_bet=500, max_bet=50_000)
    assign_dealer(actor=boss, table_id=table.pk, dealer_id=dealer.pk)
    open_table(actor=dealer, table_id=table.pk, opening_inventory=500_000)
    player = factories.PlayerFactory(actor=cashier)
    buy_in(actor=cashier, player=player, amount=100_000)
    seat_player(actor=dealer, table_id=table.pk, player_id=player.pk)
    round_ = start_round(actor=dealer, table_id=table.pk, shoe="manual")
    apply_round_action(actor=dealer, round_id=round_.pk, action={"type": "soda", "card": "KS"})
    apply_round_action(actor=dealer, round_id=round_.pk, action={"type": "turn", "cards": ["KH", "KD"]})
    honest = run_detector_task.delay("faro", today()).get(timeout=TIMEOUT)
    assert honest["faro"]["findings"] == 0

    # Someone edits the stored round behind the engine's back: a fifth king.
    round_.refresh_from_db()
    state: dict[str, Any] = dict(round_.state)
    state["casekeeper"]["K"]["winners"] = ["KD", "KC", "KS"]
    state["casekeeper"]["K"]["left"] = 0
    Round.objects.filter(pk=round_.pk).update(state=state)
    run_detector_task.delay("faro", today()).get(timeout=TIMEOUT)
    alert = Alert.objects.get(kind="faro_impossible_state")
    assert alert.table_id == table.pk
    assert alert.dealer_id == dealer.pk
    assert alert.severity == "high"
    assert alert.evidence["round"] == round_.pk
    assert alert.evidence["problems"][0]["rank"] == "K"
    assert alert.evidence["problems"][0]["dealt"] == 5


def test_an_unknown_detector_fails_the_task_and_writes_nothing(detect_worker: Any) -> None:
    result = run_detector_task.delay("tarot", today())
    with pytest.raises(Exception, match="No detector named tarot"):
        result.get(timeout=TIMEOUT)
    assert not Alert.objects.exists()


def test_a_bad_day_fails_the_task(detect_worker: Any) -> None:
    result = run_detector_task.delay("aml", "yesterday")
    with pytest.raises(ValueError, match="Invalid isoformat"):
        result.get(timeout=TIMEOUT)
