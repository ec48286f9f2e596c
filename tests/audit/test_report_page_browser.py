"""Issue 21 item 10: at 1280 x 800 every column of the audit's tables table can be read.

The table is wider than the sheet with real figures; it scrolls in its own box, so "Band"
and "Rounds" are on screen or one sideways scroll of that box away (not of the whole report,
whose scroll bar sits pages below), and the page itself is never wider than the screen.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from casino.models import Role
from tables.audit.services import run_audit
from tables.models import AuditReport
from tests import factories
from tests.browser import open_page, sign_in

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


def test_band_and_rounds_are_reachable_at_1280(browser: Any, live_server: Any) -> None:
    auditor = factories.staff(Role.AUDITOR, username="pageauditor")
    day = dt.date.today() - dt.timedelta(days=3)
    report = AuditReport.objects.create(gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC))
    report = run_audit(report_id=report.pk)
    report.data["tables"] = [_table_row(pk) for pk in (1, 2)]
    report.save(update_fields=["data"])

    page = open_page(browser, live_server)
    sign_in(page, auditor.username)
    page.goto(f"/audit/{day.isoformat()}/")
    page.locator("table.tables").wait_for()
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280  # the page is not cut off
    for name in ("Band", "Rounds", "Table"):
        where = page.evaluate(_REACH, name)
        assert where["own"], f"{name}: only the whole report scrolls sideways, not the table's own box"
        assert where["left"] >= 0, (name, where)
        assert where["right"] <= where["width"], (name, where)
        assert where["left"] >= where["boxLeft"] - 1, (name, where)
        assert where["right"] <= where["boxRight"] + 1, (name, where)
    page.screenshot(path="artifacts/screenshots/audit-tables-1280.png")
