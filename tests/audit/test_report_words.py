"""Issue 44 items 16 and 17 without a browser: the headline's every case, and the words of the
report's codes (every one the ledger and the game list know)."""

from __future__ import annotations

from typing import Any

import pytest

from ledger.models import AccountPurpose
from tables.audit.render_pdf import verdict
from tables.models import Game
from tables.templatetags.audit_tags import account_group, band, cash_kind, finding_title, game_name, percent

SUMMARY = {"critical": 0, "findings": 0}
THRESHOLDS = {"variance": 2_500, "ctr": 1_000_000, "mtl": 300_000}


def _count(amount: int) -> dict[str, Any]:
    return {"table": 6, "table_name": "Tonk 1", "stage": "closing", "amount": amount, "flagged": False}


@pytest.mark.parametrize(
    ("summary", "variances", "tone", "headline"),
    [
        ({"critical": 2, "findings": 3}, [], "bad", "2 critical findings: the day does not reconcile."),
        ({"critical": 0, "findings": 1}, [], "warn", "The ledger reconciles; 1 finding to review."),
        (
            SUMMARY,
            [_count(-2_500), _count(0)],
            "warn",
            "No findings, but one count differs from the ledger by −$25.00 (within the $25.00 "
            "threshold): see the counts below.",
        ),
        (
            SUMMARY,
            [_count(-2_500), _count(1_000)],
            "warn",
            "No findings, but 2 counts differ from the ledger, by −$15.00 in all (each within the "
            "$25.00 threshold): see the counts below.",
        ),
        (
            SUMMARY,
            [_count(0)],
            "good",
            "Everything reconciles: no findings, and every count matched the ledger.",
        ),
    ],
)
def test_the_headline_says_what_the_report_below_it_shows(
    summary: dict[str, int], variances: list[dict[str, Any]], tone: str, headline: str
) -> None:
    report = {"summary": summary, "variances": variances, "tables": [], "thresholds": THRESHOLDS}
    assert verdict(report) == (tone, headline)


def test_a_tables_variance_alone_also_keeps_the_headline_from_reconciling() -> None:
    report = {"summary": SUMMARY, "variances": [], "tables": [{"variance": -700}], "thresholds": THRESHOLDS}
    tone, headline = verdict(report)
    assert tone == "warn"
    assert "−$7.00" in headline
    assert "Everything reconciles" not in headline


def test_every_game_account_purpose_and_cash_kind_has_words() -> None:
    for game in Game.values:
        name = game_name({"game": game, "variant": None})
        assert "_" not in name, name
        assert name[0].isupper(), name
    assert game_name({"game": "fan_tan", "variant": None}) == "Fan Tan"
    assert game_name({"game": "stakes", "variant": "Gops"}) == "Card room (Gops)"
    for purpose in AccountPurpose.values:
        words = account_group(purpose)
        assert words != purpose, words
        assert "_" not in words, words
    assert (account_group("cage"), account_group("rake_revenue")) == ("The cage", "Rake revenue")
    assert (cash_kind("buy_in"), cash_kind("cash_out")) == ("Buy-in", "Cash-out")
    assert finding_title("ctr_required") == "CTR required"
    assert finding_title("some_new_kind") == "Some new kind"  # a kind added later still reads as words


def test_negative_percentages_take_the_minus_sign_of_the_dollars_beside_them() -> None:
    assert percent(-67.92) == "−67.92 %"
    assert percent(None) == "—"
    assert band({"low_pct": -54.6, "high_pct": 58.7}) == "−54.6 … 58.7 %"
    assert band({"low_pct": None, "high_pct": None}) == "—"
