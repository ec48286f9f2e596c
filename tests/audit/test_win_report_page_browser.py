"""Issue 47: the audit page shows the drop and count, win and hold, and the hold investigations.

On a tablet held either way the auditor reads the counted box (its seal, what was recorded and
counted, who counted), the win row in dollars with its hold and the line that explains its
difference from the ledger's win, the chart, and the investigation the short box opened; the
page never scrolls sideways, each wide table scrolls in its own box.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from casino.models import Role
from tables.audit.models import AuditReport
from tables.audit.services import run_audit
from tests import factories
from tests.audit.drop_days import short_drop_day
from tests.browser import PORTRAIT, TABLET, no_sideways_scroll, open_page, shot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

DAY = dt.date(2026, 4, 14)
# Each cell of a table, and whether it lies inside the scroll box that holds its table.
_IN_BOX = """(testid) => {
    const box = document.querySelector(`[data-testid="${testid}-scroll"]`);
    const table = document.querySelector(`[data-testid="${testid}"]`);
    const b = box.getBoundingClientRect(), t = table.getBoundingClientRect();
    return {boxLeft: b.left, boxRight: b.right, width: innerWidth, scrolls: t.width > b.width + 1,
            overflow: getComputedStyle(box).overflowX};
}"""


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["1280x800", "810x1080"])
def test_the_auditor_reads_the_count_the_win_and_the_investigation(
    browser: Any, live_server: Any, viewport: dict[str, int], system_accounts: None
) -> None:
    day = short_drop_day(DAY)
    auditor = factories.staff(Role.AUDITOR, username="winauditor")
    report = AuditReport.objects.create(gaming_day=DAY, requested_at=dt.datetime.now(tz=dt.UTC))
    run_audit(report_id=report.pk)

    page = open_page(browser, live_server, viewport)
    sign_in(page, auditor.username)
    page.goto(f"/audit/{DAY.isoformat()}/")
    drop = page.locator("#drop")
    drop.scroll_into_view_if_needed()
    assert drop.get_by_role("heading", name="Drop and count (2 boxes)").is_visible()
    counted = drop.locator("tbody tr", has_text="Counted")
    assert counted.count() == 1
    text = counted.inner_text()
    for words in (day["name"], "$700.00", "$400.00", "−$300.00", "Cole Count", "Cora Count", "S-"):
        assert words in text, (words, text)
    assert "Waiting for the count" not in drop.inner_text()
    assert "At the table" in drop.inner_text()  # the next box, placed when the first was removed

    win = page.locator("#win-hold")
    win.scroll_into_view_if_needed()
    by_table = page.get_by_test_id("win-by-table")
    row = by_table.locator("tr", has_text=day["name"])
    figures = row.inner_text()
    for words in ("$400.00", "$1,000.00", "$310.00", "−$290.00", "−72.50 %", "$10.00", "−$300.00"):
        assert words in figures, (words, figures)
    explained = by_table.locator("tr.win-line").inner_text()
    assert "Drop boxes counted over or short of the cash recorded into them" in explained
    assert "−$300.00" in explained
    for testid in ("win-by-game", "win-by-shift", "win-periods"):
        assert page.get_by_test_id(testid).is_visible()
    assert "Graveyard" in page.get_by_test_id("win-by-shift").inner_text()
    periods = page.get_by_test_id("win-periods").inner_text()
    assert "April 2026 to the 14th" in periods
    assert "2026 to 14 April" in periods
    chart = win.locator("figure img")
    assert chart.evaluate("img => img.complete && img.naturalWidth > 0")
    box = chart.bounding_box()
    assert box is not None
    assert box["x"] >= 0
    assert box["x"] + box["width"] <= viewport["width"]

    investigations = page.get_by_test_id("hold-investigations").inner_text()
    assert day["name"] in investigations
    assert "Faro" in investigations
    assert "the bets' theoretical win" in investigations
    assert "Hold outside its band" in page.locator("#findings").inner_text()

    no_sideways_scroll(page)
    for testid in ("drop-boxes", "win-by-table", "hold-investigations"):
        where = page.evaluate(_IN_BOX, testid)
        assert where["boxLeft"] >= 0, where
        assert where["boxRight"] <= where["width"] + 1, where
        if where["scrolls"]:
            assert where["overflow"] in ("auto", "scroll"), where
    shot(page, f"audit-win-{viewport['width']}x{viewport['height']}")
    page.context.close()
