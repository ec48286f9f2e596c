"""Issue 44 items 16 and 17: the audit page in words, its tables grids on the page, an honest headline.

Read in Chromium on a tablet held either way. The page named games and accounts by their codes
(``fan_tan``, ``rake_revenue``, ``cage``), its one 16-column tables grid ran past the sheet (Band
cut, Rounds off screen) and its headline said "Everything reconciles: no findings" above a count
that was $25.00 short of the ledger. The close form said the day "runs until … 6 a.m.." (Django's
default time format ends in a full stop, and so did the sentence).
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.conf import settings

from casino.models import Role
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from tables.audit.models import AuditReport
from tables.audit.services import run_audit
from tests import factories
from tests.browser import PORTRAIT, TABLET, no_sideways_scroll, open_page, shot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

BOTH_TABLETS = pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z_]+\b")


def _table(pk: int, name: str, game: str, opener: int, closer: int, **more: Any) -> dict[str, Any]:
    """A table's row as the audit writes it, with the demo night's figures."""
    win = closer - opener
    return {
        "id": pk, "name": name, "game": game, "variant": None, "sessions": 1, "open": False,
        "opener": opener, "closer": closer, "fills": 0, "credits": 0, "win": win, "ledger_win": win,
        "variance": 0, "recorded_variance": 0, "variance_flagged": False, "rake": 0, "house_win": win,
        "handle": 34_000, "hold_pct": 0.0, "theo": None, "theo_hold_pct": None,
        "theo_band": {"low_pct": None, "high_pct": None}, "rounds": 2, "bets": 9, **more,
    }  # fmt: skip


TABLES = [
    _table(1, "Card room 1", "stakes", 50_000, 50_000, variant="Gops"),
    _table(2, "Fan Tan 1", "fan_tan", 100_000, 100_000),
    _table(3, "Farmer 1", "farmer", 100_000, 100_000),
    _table(
        4,
        "Faro 2",
        "faro",
        4_000_000,
        3_964_000,
        theo=1_085,
        theo_hold_pct=2.05,
        hold_pct=-67.92,
        theo_band={"low_pct": -54.6, "high_pct": 58.7},
    ),
    _table(5, "Newmarket 1", "newmarket", 100_000, 100_000),
    _table(6, "Tonk 1", "tonk", 100_000, 97_500, ledger_win=0, variance=-2_500, recorded_variance=-2_500),
]
SHORT_COUNT = {  # $25.00 short: within the threshold ("above $25.00"), so no finding
    "table": 6, "table_name": "Tonk 1", "session": 6, "stage": "closing", "counted": 97_500,
    "ledger": 100_000, "amount": -2_500, "flagged": False,
}  # fmt: skip
PURPOSES = [
    {"purpose": purpose, "accounts": number, "debits": out, "credits": into, "balance": into - out}
    for purpose, number, out, into in (
        ("cage", 1, 13_000_000, 0),
        ("layout", 9, 94_500, 94_500),
        ("rake_revenue", 1, 0, 0),
        ("suspense", 1, 0, 2_500),
        ("tray", 7, 89_500, 6_510_000),
        ("wallet", 42, 112_000, 6_689_000),
    )
]
MTL = {
    "player": 1, "name": "Kate Elder", "kind": "buy_in", "amount": 500_000,
    "at": "2026-03-02T22:15:00+00:00", "transfer": 9,
}  # fmt: skip


def _report_on_the_page(browser: Any, live_server: Any, viewport: dict[str, int], **sections: Any) -> Any:
    """A finished audit of a past day with these sections, open on an auditor's screen."""
    auditor = factories.staff(Role.AUDITOR, username="wordsauditor")
    day = dt.date.today() - dt.timedelta(days=3)
    report = AuditReport.objects.create(gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC))
    report = run_audit(report_id=report.pk)
    report.data.update(sections)
    report.data["trial_balance"]["by_purpose"] = PURPOSES
    report.save(update_fields=["data"])
    page = open_page(browser, live_server, viewport)
    sign_in(page, auditor.username)
    page.goto(f"/audit/{day.isoformat()}/")
    page.locator("table.tables").first.wait_for()
    return page


@BOTH_TABLETS
def test_games_accounts_and_cash_kinds_read_in_words(
    browser: Any, live_server: Any, viewport: dict[str, int]
) -> None:
    page = _report_on_the_page(
        browser, live_server, viewport, tables=TABLES, cage={**_empty_cage(), "mtl": [MTL]}
    )
    sheet = page.locator(".audit-doc").inner_text()
    games = page.locator("table.tables").first.locator("tbody td:nth-child(2)").all_inner_texts()
    assert games == ["Card room (Gops)", "Fan Tan", "Farmer", "Faro", "Newmarket", "Tonk"]
    accounts = page.locator("#trial-balance tbody td:first-child").all_inner_texts()
    assert accounts[:6] == [
        "The cage",
        "Chips on the layouts",
        "Rake revenue",
        "Count over/short (suspense)",
        "Table trays",
        "Player wallets",
    ]
    assert page.locator("#cage tbody td:nth-child(3)").inner_text() == "Buy-in"
    assert SNAKE_CASE.findall(sheet) == []  # no fan_tan, rake_revenue, buy_in anywhere on the sheet
    for code in ("farmer", "cage", "layout", "suspense", "stakes"):
        assert not re.search(rf"(?m)^{code}\b|\t{code}\b", sheet), code
    page.context.close()


@BOTH_TABLETS
def test_the_tables_grids_fit_the_page_with_every_column_on_screen(
    browser: Any, live_server: Any, viewport: dict[str, int]
) -> None:
    page = _report_on_the_page(browser, live_server, viewport, tables=TABLES, variances=[SHORT_COUNT])
    width = viewport["width"]
    no_sideways_scroll(page)
    sheet = page.locator(".audit-doc").bounding_box()
    assert sheet is not None
    grids = page.locator("table.tables")
    seen = []
    for index in range(grids.count()):
        grid = grids.nth(index)
        grid.scroll_into_view_if_needed()
        # The grid fits its box: nothing to scroll sideways, nothing cut.
        assert grid.evaluate("t => t.parentElement.scrollWidth <= t.parentElement.clientWidth")
        for header in grid.locator("thead th").all():
            box = header.bounding_box()
            assert box is not None
            name = header.inner_text()
            assert header.is_visible(), name
            assert box["x"] >= sheet["x"], (name, box)
            assert box["x"] + box["width"] <= min(width, sheet["x"] + sheet["width"]), (name, box, width)
            seen.append(name)
    for column in ("Opener", "Variance", "Rounds", "Handle", "Theo hold", "Band"):
        assert column in seen, seen
    assert grids.count() == 2  # the count, and the play
    page.get_by_test_id("tables-play").scroll_into_view_if_needed()
    shot(page, f"audit-grids-{width}x{viewport['height']}")
    page.context.close()


@BOTH_TABLETS
def test_the_headline_does_not_say_everything_reconciles_above_a_variance(
    browser: Any, live_server: Any, viewport: dict[str, int]
) -> None:
    page = _report_on_the_page(browser, live_server, viewport, tables=TABLES, variances=[SHORT_COUNT])
    verdict = page.locator(".audit-doc .verdict")
    text = verdict.inner_text()
    assert "Everything reconciles" not in text
    assert "one count differs from the ledger by −$25.00 (within the $25.00 threshold)" in text, text
    # The count it speaks of is shown below it.
    row = page.locator("#variances tbody tr", has_text="Tonk 1")
    assert row.inner_text().split("\t")[-2].strip() == "−$25.00", row.inner_text()
    above, below = verdict.bounding_box(), row.bounding_box()
    assert above is not None
    assert below is not None
    assert above["y"] + above["height"] <= below["y"]
    assert "warn" in (verdict.get_attribute("class") or "")
    page.context.close()


@BOTH_TABLETS
def test_the_day_still_open_ends_at_a_time_and_one_full_stop(
    browser: Any, live_server: Any, viewport: dict[str, int]
) -> None:
    auditor = factories.staff(Role.AUDITOR, username="closingauditor")
    today = gaming_day_for()
    page = open_page(browser, live_server, viewport)
    sign_in(page, auditor.username)
    page.goto(f"/audit/{today.isoformat()}/")
    note = page.locator(".audit-status p.muted", has_text="runs until")
    end = gaming_day_bounds(today)[1]
    assert note.is_visible()
    assert note.inner_text().startswith(
        f"This gaming day runs until {end:%Y-%m-%d %H:%M} ({settings.CASINO_TIME_ZONE}). Closing it early"
    ), note.inner_text()
    assert ".." not in note.inner_text()
    page.context.close()


def _empty_cage() -> dict[str, Any]:
    return {"cash_in": 0, "cash_out": 0, "transactions": 0, "ctr": [], "mtl": []}
