"""Every detector on a clean night (no alert of its kinds) and on a night with injected cheats
(the alert, on the right subject, with evidence that adds up), all run by a real worker.

The nights come from ``conftest.nights``: simulated through the services, detected by
``run_detector_task`` on a Celery worker thread consuming Redis (not eager mode).
"""

from __future__ import annotations

import math
from typing import Any

import pytest
from django.conf import settings

from tables.detection.base import threshold
from tables.detection.detectors import DETECTOR_OF_KIND, DETECTORS, KINDS
from tables.detection.faro_splits import splits_tail
from tests.detection.conftest import DetectedNight

FAIR = 25 / 17
# The nights are built (committed, then flushed) by the session fixture; the mark makes
# pytest-django set the test database up and keeps each test read-only in a transaction.
pytestmark = pytest.mark.django_db


def one(alerts: list[dict[str, Any]], **subject: Any) -> dict[str, Any]:
    found = [a for a in alerts if all(a.get(k) == v for k, v in subject.items())]
    assert len(found) == 1, (subject, alerts)
    return found[0]


def spec_matches(alert: dict[str, Any], spec: dict[str, Any]) -> bool:
    if alert["kind"] != spec["kind"]:
        return False
    for key, value in spec.items():
        if key == "pair":
            if alert["evidence"].get("pair") != value:
                return False
        elif key != "kind" and alert.get(key) != value:
            return False
    return True


# --------------------------------------------------------------------------- both nights


@pytest.mark.parametrize("detector", sorted(DETECTORS))
def test_a_clean_night_raises_no_alert(clean: DetectedNight, detector: str) -> None:
    assert [a["summary"] for a in clean.alerts if a["kind"] in KINDS[detector]] == []
    assert all(run[detector].get("findings") == 0 for run in clean.first_runs if detector in run)


def test_the_tasks_ran_every_detector_and_a_second_run_only_updates(
    clean: DetectedNight, injected: DetectedNight
) -> None:
    for night in (clean, injected):
        per_detector = {name for run in night.first_runs for name in run}
        assert per_detector == set(DETECTORS)
        assert all("error" not in row for run in night.first_runs + night.second_runs for row in run.values())
        created = sum(row["created"] for run in night.first_runs for row in run.values())
        assert created == len(night.alerts)
        assert sum(row["created"] for run in night.second_runs for row in run.values()) == 0
        assert sum(row["updated"] for run in night.second_runs for row in run.values()) == len(night.alerts)
        assert all(a["detections"] == 2 and a["status"] == "open" for a in night.alerts)
        assert len({a["dedup_key"] for a in night.alerts}) == len(night.alerts)


def test_every_injected_scenario_is_found_and_every_alert_is_explained(injected: DetectedNight) -> None:
    assert injected.truth is not None
    specs = [s for item in injected.truth["scenarios"] for s in item["expected"] + item["tolerated"]]
    unexplained = [a["summary"] for a in injected.alerts if not any(spec_matches(a, s) for s in specs)]
    assert unexplained == []
    for item in injected.truth["scenarios"]:
        for spec in item["expected"]:
            assert any(spec_matches(a, spec) for a in injected.alerts), (item["scenario"], spec)
    assert {a["kind"] for a in injected.alerts} >= set(DETECTOR_OF_KIND) - {"faro_impossible_state"}


# --------------------------------------------------------------------------- Faro integrity


def test_a_dealer_stacking_splits_is_flagged_with_the_deals_that_show_it(injected: DetectedNight) -> None:
    stacker = injected.scenario("split_stacker")
    alert = one(injected.of("faro_split_rate"), dealer=stacker["subjects"]["dealer"])
    evidence = alert["evidence"]
    deals, splits = evidence["deals"], evidence["splits"]
    assert deals >= threshold("SPLIT_MIN_DEALS")
    assert splits == sum(r["splits"] for r in evidence["deals_by_splits"])  # every deal is listed
    assert evidence["rounds"] == sorted(r["round"] for r in evidence["deals_by_splits"])
    assert evidence["expected"] == pytest.approx(deals * FAIR, abs=0.01)
    assert evidence["z"] == pytest.approx((splits - deals * FAIR) / (1.19 * math.sqrt(deals)), abs=0.01)
    # The exact tail of that many splits in that many fair deals, judged by BH at the FDR.
    assert evidence["p_value"] == pytest.approx(splits_tail(deals, splits), rel=1e-3, abs=1e-4)
    assert evidence["p_value"] <= evidence["q_value"] <= evidence["fdr"] == threshold("FDR")
    assert evidence["window"]["days"] == threshold("WINDOW_DAYS")
    assert min(r["splits"] for r in evidence["deals_by_splits"]) >= 6  # every deal was stacked (rate 1)
    assert alert["table"] == stacker["subjects"]["table"]
    assert all(r["table"] == stacker["subjects"]["table"] for r in evidence["deals_by_splits"])


def test_a_deal_with_many_splits_is_flagged_on_its_own(injected: DetectedNight) -> None:
    stacker = injected.scenario("split_stacker")
    deals = injected.of("faro_split_deal")
    assert deals, "the stacker's 7-split deal"
    for alert in deals:
        evidence = alert["evidence"]
        assert alert["dealer"] == stacker["subjects"]["dealer"]
        assert evidence["p_value"] == pytest.approx(splits_tail(1, evidence["splits"]), rel=1e-3, abs=1e-4)
        # BH over the day's deals: on this small night (a dozen deals) six splits can pass.
        assert evidence["p_value"] <= evidence["q_value"] <= evidence["fdr"]
        assert evidence["splits"] >= 6
        assert len(evidence["turns"]) == evidence["splits"]
        assert evidence["round_links"] == [f"/api/v1/rounds/{evidence['round']}"]


# --------------------------------------------------------------------------- hold


def test_a_cold_deck_shows_as_a_hold_far_above_the_theoretical(injected: DetectedNight) -> None:
    cold = injected.scenario("cold_deck")
    dealer, table = cold["subjects"]["dealer"], cold["subjects"]["table"]
    alerts = injected.of("hold_anomaly")
    # The dealer never left the table: one test and one alert, the table's, naming the dealer.
    alert = one([a for a in alerts if a["evidence"]["scope"] == "table"], table=table)
    assert alert["dealer"] == dealer
    assert f"(dealer {dealer} dealt every deal)" in alert["summary"]
    assert not [a for a in alerts if a["evidence"]["scope"] == "dealer" and a["dealer"] == dealer]
    evidence = alert["evidence"]
    assert evidence["hold_pct"] == pytest.approx(100 * evidence["win"] / evidence["handle"], abs=0.01)
    assert evidence["z"] == pytest.approx((evidence["win"] - evidence["theo"]) / evidence["sigma"], abs=0.02)
    assert evidence["hold_pct"] > evidence["band_95_pct"][1] > evidence["theo_hold_pct"]
    assert evidence["handle"] >= threshold("HOLD_MIN_HANDLE")
    assert len(evidence["rounds"]) >= threshold("HOLD_MIN_ROUNDS")
    # Every turn fixed (rate 1; a turn with no money on its two ranks cannot be): far beyond a fair coin.
    assert evidence["turns_for_house"] > 0.8 * evidence["turns_decided"] >= threshold("HOLD_MIN_TURNS")
    # The alert cites its p-value (the smaller test's, doubled), the FDR it was raised at, the
    # window it read and its rounds, with links.
    assert evidence["p_value"] == pytest.approx(
        min(1, 2 * min(evidence["turns_p_value"], evidence["p_value_hold"])), rel=1e-3, abs=1e-4
    )
    assert evidence["p_value"] <= evidence["q_value"] <= evidence["fdr"] == threshold("FDR")
    assert evidence["turns_p_value"] < 1e-6
    assert evidence["window"]["days"] == threshold("WINDOW_DAYS")
    assert evidence["window"]["last_day"] == alert["gaming_day"].isoformat()
    assert evidence["window"]["first_day"] <= evidence["window"]["first_day_with_rounds"]
    assert evidence["round_links"] == [f"/api/v1/rounds/{pk}" for pk in evidence["rounds"]]
    assert evidence["rounds_total"] == len(evidence["rounds"])
    assert evidence["dealers"] == [dealer]


# --------------------------------------------------------------------------- collusion


def test_soft_play_between_colluders_is_a_one_way_chip_flow(injected: DetectedNight) -> None:
    giver, taker = injected.scenario("colluders")["subjects"]["players"]
    alert = one(injected.of("chip_flow"), player=taker)
    evidence = alert["evidence"]
    assert evidence["pair"] == [giver, taker]
    assert evidence["by_wins"] is True
    assert evidence["rounds_b_paid_a"] == 0
    assert evidence["a_wins"] == 0
    assert evidence["shared_rounds"] >= threshold("FLOW_MIN_SHARED")
    assert evidence["b_wins"] > evidence["b_expected_wins"]
    # Which way the rounds between them went, and A short of wins in the rounds B did not win too
    # (not B's luck); the pair's p is twice the smaller of its two tests, then BH over the pairs.
    assert evidence["direction_p_value"] <= threshold("FLOW_P")
    assert evidence["a_wins_when_b_did_not_win"] < evidence["a_expected_wins_when_b_did_not_win"]
    assert evidence["luck_p_value"] <= threshold("FLOW_LUCK_P")
    assert evidence["p_value"] <= min(1, 2 * evidence["direction_p_value"]) + 1e-4
    assert evidence["p_value"] <= evidence["q_value"] <= evidence["fdr"] == threshold("FDR")
    assert evidence["window"]["days"] == threshold("WINDOW_DAYS")
    assert evidence["round_links"] == [f"/api/v1/rounds/{pk}" for pk in evidence["rounds"]]


def test_a_dumper_losing_big_to_one_partner_is_a_one_way_chip_flow(injected: DetectedNight) -> None:
    giver, taker = injected.scenario("dumper")["subjects"]["players"]
    alert = one(injected.of("chip_flow"), player=taker)
    evidence = alert["evidence"]
    assert evidence["pair"] == [giver, taker]
    assert evidence["by_amounts"] is True
    assert evidence["rounds_a_paid_most"] > evidence["rounds_a_paid_most_expected"]
    assert evidence["top_payer_p_value_to_others"] > threshold("FLOW_TOP_ELSEWHERE_P")
    assert evidence["top_payer_p_value"] <= threshold("FLOW_TOP_P")
    assert evidence["net_a_to_b"] >= threshold("FLOW_MIN_AMOUNT")
    assert evidence["amount_b_to_a"] == 0


def test_a_dealer_steering_wins_to_a_partner_is_flagged_twice(injected: DetectedNight) -> None:
    partner = injected.scenario("dealer_partner")["subjects"]
    affinity = one(injected.of("dealer_affinity"), player=partner["player"])
    assert affinity["dealer"] == partner["dealer"]
    assert affinity["table"] == partner["table"]
    evidence = affinity["evidence"]
    assert evidence["wins_with_dealer"] == evidence["rounds_with_dealer"] >= threshold("AFFINITY_MIN_ROUNDS")
    assert evidence["p_value"] <= threshold("AFFINITY_P") < evidence["p_value_elsewhere"]
    assert evidence["rounds_elsewhere"] >= threshold("AFFINITY_MIN_OTHER_ROUNDS")
    never = one(injected.of("never_loses"), player=partner["player"])
    assert never["dealer"] == partner["dealer"]
    assert never["evidence"]["losses"] == 0
    assert never["evidence"]["chance"] <= threshold("NEVER_LOSES_P")
    assert never["evidence"]["result"] == evidence["result_with_dealer"] > 0


# --------------------------------------------------------------------------- betting limits


def test_a_player_probing_the_maximum_across_tables_is_flagged(injected: DetectedNight) -> None:
    prober = injected.scenario("limit_prober")["subjects"]["player"]
    probing = one(injected.of("limit_probing"), player=prober)
    attempts = probing["evidence"]["attempts"]
    assert probing["evidence"]["refusals"] == len(attempts) >= threshold("LIMIT_REFUSALS")
    assert all(a["amount"] and a["round"] for a in attempts)
    under = one(injected.of("just_under_max"), player=prober)
    bets = under["evidence"]["bets_list"]
    assert len(under["evidence"]["tables"]) >= threshold("UNDER_MAX_MIN_TABLES")
    assert all(threshold("UNDER_MAX_RATIO") * b["max_bet"] <= b["amount"] < b["max_bet"] for b in bets)
    # every refused probe was over the maximum the table had then
    assert {a["table"] for a in attempts} <= set(under["evidence"]["tables"])


# --------------------------------------------------------------------------- fills, credits, counts


def test_fill_abuse_is_flagged_three_ways(injected: DetectedNight) -> None:
    abuser = injected.scenario("fill_abuser")
    dealer, approver = abuser["subjects"]["dealer"], abuser["subjects"]["approver"]
    fills = one(injected.of("fill_unexplained"), dealer=dealer)
    assert [f["fill"] for f in fills["evidence"]["fills"]] == abuser["stats"]["fills"]
    for fill in fills["evidence"]["fills"]:
        assert fill["tray_before"] >= threshold("FILL_NEED_RATIO") * fill["opening"]
        assert fill["approved_by"] == approver
    pair = one(injected.of("fill_pair"), dealer=dealer)
    assert pair["evidence"]["approved_by"] == approver
    assert pair["evidence"]["fills"] >= threshold("FILL_PAIR_MIN")
    assert pair["evidence"]["share"] == 1.0
    # The injected credit; the tray check may add an honest one too (the fills overfilled the tray).
    credits = {
        a["evidence"]["credit"]: a for a in injected.of("credit_before_close") if a["dealer"] == dealer
    }
    credit = credits[abuser["stats"]["credit"]]
    assert credit["table"] == abuser["subjects"]["table"]
    assert credit["evidence"]["approved_by"] == approver
    assert credit["evidence"]["credit_at"] >= credit["evidence"]["last_deal_at"]


def test_a_short_closing_count_is_flagged_with_the_session(injected: DetectedNight) -> None:
    shorted = injected.scenario("short_count")["stats"]["tables"]
    assert shorted
    for row in shorted:
        alert = one(injected.of("short_count"), table=row["table"])
        assert alert["evidence"]["variance"] == -row["short"] < -threshold("SHORT_COUNT")
        assert alert["dealer"] == row["dealer"] == alert["evidence"]["closed_by"]
        assert alert["evidence"]["closing_inventory"] - alert["evidence"]["closing_ledger"] == -row["short"]


# --------------------------------------------------------------------------- AML


def test_structuring_across_two_days_is_flagged_with_every_transaction(injected: DetectedNight) -> None:
    scenario = injected.scenario("structurer")
    player = scenario["subjects"]["player"]
    alert = one(injected.of("structuring"), player=player)
    evidence = alert["evidence"]
    line = settings.CTR_THRESHOLD
    cash_in = evidence["cash_in"]["transactions"]
    assert {t["transfer"] for t in cash_in} == {row["transfer"] for row in scenario["stats"]["buy_ins"]}
    assert all(threshold("STRUCTURING_LOW") * line <= t["amount"] <= line for t in cash_in)
    assert {t["transfer"] for t in evidence["cash_out"]["transactions"]} == {
        row["transfer"] for row in scenario["stats"]["cash_outs"]
    }
    assert len(evidence["days"]) == 2
    assert alert["severity"] == "high"
    minimal = one(injected.of("minimal_play_cash_out"), player=player)
    assert minimal["evidence"]["cash_out"] >= threshold("MINPLAY_MIN_CASH_OUT")
    assert minimal["evidence"]["handle"] <= threshold("MINPLAY_RATIO") * minimal["evidence"]["cash_out"]


def test_chips_bought_and_walked_out_are_flagged(injected: DetectedNight) -> None:
    scenario = injected.scenario("chip_walker")
    alert = one(injected.of("chip_walking"), player=scenario["subjects"]["player"])
    evidence = alert["evidence"]
    assert evidence["cash_in"] >= scenario["stats"]["buy_in"]
    assert evidence["cash_out"] == 0
    assert evidence["unredeemed"] == evidence["cash_in"] + evidence["result"]
    assert evidence["handle"] <= threshold("WALK_PLAY_RATIO") * evidence["cash_in"]
