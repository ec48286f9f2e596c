"""Issue 21 item 10: on a tablet or a phone every column of the audit's tables table can be read.

The table is wider than the sheet with real figures; it scrolls in its own box, so "Band"
and "Rounds" are on screen or one sideways scroll of that box away (not of the whole report,
whose scroll bar sits pages below), and the page itself is never wider than the screen. The
charts fit the screen's width, and the CSV button downloads amounts in columns named in cents.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from typing import Any

import pytest

from casino.models import Role
from tables.audit.models import AuditReport
from tables.audit.services import run_audit
from tests import factories
from tests.browser import EVERY_SIZE, no_sideways_scroll, on_screen, open_page, shot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BIG = 123_456_789  # $1,234,567.89: real nights have wide figures


def _table_row(pk: int) -> dict[str, Any]:
    return {
        "id": pk, "name": f"Faro high limit {pk}", "game": "faro", "variant": None, "sessions": 2,
        "open": False, "opener": BIG, "closer": BIG, "fills": BIG, "credits": BIG, "win": -BIG,
        "ledger_win": -BIG, "variance": -BIG, "recorded_variance": 0, "variance_flagged": True,
        "rake": BIG, "house_win": -BIG, "handle": BIG, "hold_pct": -12.34, "theo": BIG,
        "theo_hold_pct": 1.23, "theo_band": {"low_pct": -10.55, "high_pct": 12.75}, "rounds": 1234,
        "bets": 5678,
    }  # fmt: skip


# The header cell, its nearest ancestor that scrolls sideways scrolled to show it, and where
# it then sits on the screen and inside that box.
_REACH = """(name) => {
    const cells = [...document.querySelectorAll("table.tables thead th")];
    const th = cells.find(c => c.textContent.trim() === name);
    let box = th.parentElement;
    while (box && box !== document.body) {
        const style = getComputedStyle(box);
        if (box.scrollWidth > box.clientWidth && ["auto", "scroll"].includes(style.overflowX)) break;
        box = box.parentElement;
    }
    const inBox = box && box !== document.body;
    if (inBox) {
        const r = th.getBoundingClientRect(), b = box.getBoundingClientRect();
        if (r.right > b.right) box.scrollLeft += r.right - b.right;
        else if (r.left < b.left) box.scrollLeft -= b.left - r.left;
    }
    const r = th.getBoundingClientRect();
    const b = inBox ? box.getBoundingClientRect() : {left: 0, right: window.innerWidth};
    const own = !inBox || !!box.closest("#tables");  // the table's own box, not the whole sheet
    return {left: r.left, right: r.right, boxLeft: b.left, boxRight: b.right, width: window.innerWidth, own};
}"""


# The headline figures (handle, win...): each amount drawn whole inside the sheet and the screen.
_FIGURES = """() => [...document.querySelectorAll("table.figures td")].map(td => {
    const r = td.getBoundingClientRect(), sheet = td.closest(".audit-doc").getBoundingClientRect();
    const range = document.createRange();
    range.selectNodeContents(td);
    const lines = new Set([...range.getClientRects()].map(line => Math.round(line.top))).size;
    return {text: td.innerText, right: r.right, sheet: sheet.right, width: innerWidth, lines};
})"""
# Each chart's box, and how wide the picture is drawn against how wide it is.
_CHARTS = """() => [...document.querySelectorAll("#charts figure img")].map(img => {
    const r = img.getBoundingClientRect();
    return {left: r.left, right: r.right, loaded: img.complete && img.naturalWidth > 0};
})"""


@EVERY_SIZE
def test_band_and_rounds_are_reachable_and_the_page_fits(
    browser: Any, live_server: Any, viewport: dict[str, int]
) -> None:
    auditor = factories.staff(Role.AUDITOR, username="pageauditor")
    day = dt.date.today() - dt.timedelta(days=3)
    report = AuditReport.objects.create(gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC))
    report = run_audit(report_id=report.pk)
    report.data["tables"] = [_table_row(pk) for pk in (1, 2)]
    summary = report.data["summary"]
    summary.update({figure: BIG for figure in ("handle", "fills", "credits", "cash_in", "cash_out", "theo")})
    summary.update({figure: -BIG for figure in ("win", "ledger_win", "house_win")})
    report.save(update_fields=["data"])
    width = viewport["width"]

    page = open_page(browser, live_server, viewport)
    sign_in(page, auditor.username)
    page.goto(f"/audit/{day.isoformat()}/")
    page.locator("table.tables").first.wait_for()  # the count, then the play
    # The page is not cut off and never scrolls sideways as a whole.
    no_sideways_scroll(page)
    heading = page.get_by_role("heading", name="End-of-night audit").bounding_box()
    assert heading is not None
    assert heading["x"] >= 0, heading
    assert heading["x"] + heading["width"] <= width, heading
    for name in ("Band", "Rounds", "Table"):
        where = page.evaluate(_REACH, name)
        assert where["own"], f"{name}: only the whole report scrolls sideways, not the table's own box"
        assert where["left"] >= 0, (name, where)
        assert where["right"] <= where["width"], (name, where)
        assert where["left"] >= where["boxLeft"] - 1, (name, where)
        assert where["right"] <= where["boxRight"] + 1, (name, where)
    figures = page.evaluate(_FIGURES)
    assert len(figures) >= 8, figures
    for figure in figures:
        assert figure["right"] <= figure["sheet"], figure
        assert figure["right"] <= figure["width"], figure
        assert figure["lines"] == 1, figure
    page.locator("#tables").scroll_into_view_if_needed()
    shot(page, f"audit-tables-{width}x{viewport['height']}")

    charts = page.evaluate(_CHARTS)
    assert len(charts) == 3
    for chart in charts:
        assert chart["loaded"], chart
        assert chart["left"] >= 0, chart
        assert chart["right"] <= width, chart

    # A tap on "CSV (zip)" downloads the report; its amounts are named in cents.
    csv_button = page.get_by_role("link", name="CSV (zip)")
    page.evaluate("window.scrollTo(0, 0)")
    on_screen(csv_button)
    with page.expect_download() as download:
        csv_button.click()
    with zipfile.ZipFile(download.value.path()) as files:
        name = next(name for name in files.namelist() if name.endswith("tables.csv"))
        header = next(csv.reader(io.StringIO(files.read(name).decode())))
    assert {"opener_cents", "closer_cents", "win_cents", "rake_cents"} <= set(header), header
    assert "opener" not in header
    page.context.close()
