"""Issue 44 item 16: an alert's glance names people and tables and says its ratios in percent.

In Chromium on a tablet held either way, the auditors' alerts page (the pit's panel is the same
partial): the line under each alert read "ratio 0.5 · total $30,000.00 · requested by 3" and
"round 57 · table 4 · shoe electronic · splits 7". It now reads names and percentages.
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Role, User
from ledger.gaming_day import gaming_day_for
from tables.detection.base import Finding
from tables.detection.services import save_findings
from tables.models import Table
from tests import factories
from tests.browser import PORTRAIT, TABLET, no_sideways_scroll, open_page, shot, sign_in
from tests.console.test_words_browser import SNAKE_CASE

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _raise(detector: str, finding: Finding) -> None:
    save_findings(detector=detector, day=gaming_day_for(), findings=[finding])


def _floor_with_alerts(dealer: User, pit_boss: User, table: Table) -> None:
    """Three alerts with the summaries and evidence the tray and Faro detectors write."""
    _raise(
        "trays",
        Finding(
            kind="fill_unexplained",
            severity="high",
            subject=f"table:{table.pk}:requester:{dealer.pk}",
            summary=f"6 fills of $30,000.00 in all at table {table.pk} while its tray held at least 50% "
            "of the opening count.",
            evidence={"fills": [{"fill": 1}], "total": 3_000_000, "requested_by": dealer.pk, "ratio": 0.5},
            table_id=table.pk,
            dealer_id=dealer.pk,
        ),
    )
    _raise(
        "trays",
        Finding(
            kind="fill_pair",
            severity="medium",
            subject=f"pair:{dealer.pk}:{pit_boss.pk}",
            summary=f"6 fills ($30,000.00) requested by staff {dealer.pk} were all approved by staff "
            f"{pit_boss.pk} (100% of the requester's fills).",
            evidence={
                "requested_by": dealer.pk,
                "approved_by": pit_boss.pk,
                "fills": 6,
                "share": 1.0,
                "total": 3_000_000,
                "days": 7,
            },
            table_id=table.pk,
            dealer_id=dealer.pk,
        ),
    )
    _raise(
        "faro",
        Finding(
            kind="faro_split_deal",
            severity="medium",
            subject="round:57",
            summary=f"7 splits in one Faro deal at table {table.pk} (a fair deck averages 1.47; the "
            "chance of as many is 1 in 1,900).",
            evidence={"round": 57, "table": table.pk, "shoe": "electronic", "splits": 7, "p_value": 0.00054},
            table_id=table.pk,
            dealer_id=dealer.pk,
        ),
    )


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
def test_an_alerts_glance_names_people_and_tables_and_gives_percentages(
    browser: Any, live_server: Any, viewport: dict[str, int]
) -> None:
    dealer = factories.staff(Role.DEALER, name="Dana Dealer")
    pit_boss = factories.staff(Role.PIT_BOSS, name="Pat Pitboss")
    auditor = factories.staff(Role.AUDITOR)
    table = factories.TableFactory(actor=pit_boss, dealer=dealer, name="Faro high limit")
    _floor_with_alerts(dealer, pit_boss, table)

    page = open_page(browser, live_server, viewport)
    sign_in(page, auditor.username)
    page.goto("/pit/alerts/")
    glances = page.get_by_test_id("alert-evidence")
    glances.first.wait_for()
    seen = {text.split(" · ")[0]: text for text in glances.all_inner_texts()}
    assert seen["filled $30,000.00"] == (
        "filled $30,000.00 · requested by Dana Dealer · tray at 50% of its opening or more"
    )
    assert seen["requested by Dana Dealer"] == (
        "requested by Dana Dealer · approved by Pat Pitboss · 6 fills · 100% of the requester's · "
        "total $30,000.00"
    )
    assert seen["7 splits"] == "7 splits · chance 1 in 1,900"
    panel = page.get_by_test_id("alerts-panel")
    text = panel.inner_text()
    assert "7 splits in one Faro deal at Faro high limit" in text
    for old in (f"requested by {dealer.pk}", "ratio 0.5", f"table {table.pk}", "round 57", "electronic"):
        assert old not in text, old
    assert SNAKE_CASE.findall(text) == []  # no fill_unexplained, requested_by
    for glance in glances.all():
        box = glance.bounding_box()
        assert box is not None
        assert glance.is_visible()
        assert box["x"] + box["width"] <= viewport["width"], box
    no_sideways_scroll(page)
    shot(page, f"alerts-words-{viewport['width']}x{viewport['height']}")
    page.context.close()
