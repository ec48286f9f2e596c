"""The demo floor (``load_demo_data``): every game can run at once, last night dealt and audited.

The command runs on the test database as on a fresh demo; the checks go through the same
services the console uses (open a table, start a deal) and the same replay and ledger reads
the auditors use.
"""

from __future__ import annotations

import datetime as dt
import io
import re
from collections.abc import Iterator
from typing import Any

import pytest
from django.contrib.auth.hashers import check_password, get_hasher, identify_hasher
from django.core.management import call_command
from django.test import override_settings
from django.utils import timezone

from casino.cash.models import CashTransaction
from casino.management.commands.load_demo_data import (
    DEMO_PASSWORD,
    PLAYERS,
    RELIEF_DEALER,
    STAFF,
    TABLE_DEALERS,
    quick_demo_hashes,
)
from casino.models import Player, Role, User
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from ledger.models import ClosedGamingDay, Transfer
from ledger.selectors import get_trial_balance
from ledger.services import ensure_system_accounts
from tables.audit.models import AuditReport, AuditStatus
from tables.credit.models import Marker
from tables.management.demo import TABLES
from tables.models import DealerShift, Round, RoundStatus, Seat, Table, TableSession, TableStatus
from tables.replay import check_round
from tables.rounds import start_round
from tables.selectors import last_closing_count
from tables.services import open_table
from tests.browser import PHONE, PORTRAIT, TABLET, open_page, shot, sign_in

GAMES = {"faro", "farmer", "fan_tan", "newmarket", "tonk", "stakes"}
FEWEST_PLAYERS = {"faro": 1, "farmer": 2, "fan_tan": 3, "newmarket": 3, "tonk": 2, "stakes": 2}


def load_demo() -> str:
    out = io.StringIO()
    call_command("load_demo_data", stdout=out)
    return out.getvalue()


def what_is_there() -> tuple[int, ...]:
    return (
        User.objects.count(),
        Transfer.objects.count(),
        Seat.objects.count(),
        TableSession.objects.count(),
        Round.objects.count(),
        AuditReport.objects.count(),
    )


@pytest.mark.usefixtures("system_accounts", "task_queue")
def test_the_demo_floor_runs_every_game_at_once_after_an_audited_night() -> None:
    printed = load_demo()
    assert "Demo data ready" in printed
    loaded = what_is_there()
    load_demo()
    assert what_is_there() == loaded, "a second run adds nothing"

    # Credit play: one line set by the admin, one open marker the pit boss issued at Faro 1.
    marker = Marker.objects.select_related("credit_line__set_by", "issued_by", "slip__table").get()
    assert marker.credit_line.set_by.username == "admin"
    assert marker.issued_by.username == "pitboss"
    assert marker.slip.table is not None
    assert marker.slip.table.name == "Faro 1"
    assert marker.outstanding == marker.credit_line.receivable.balance == 100_000
    assert f"owes $1,000.00 on marker {marker.slip.number}" in printed

    players = list(Player.objects.select_related("wallet"))
    assert len(players) == len(PLAYERS) >= 40
    assert all(p.wallet.balance > 0 for p in players), "every player has chips"
    # Every fifth demo player's first buy-in ($3,500.00) is an MTL line of the day it was made (docs/cash.md).
    mtl = CashTransaction.objects.filter(mtl=True, kind="cage_buy_in").select_related("player__user")
    assert {line.player.name for line in mtl} >= set(PLAYERS[4::5])
    assert get_trial_balance().balanced

    tables = {t.name: t for t in Table.objects.select_related("tray", "dealer")}
    assert set(tables) == {spec.name for spec in TABLES}
    assert {t.game for t in tables.values()} == GAMES
    # A dealer per table, `dealer` at Faro 1, and a relief dealer who holds none.
    dealt_by = {name: table.dealer.username for name, table in tables.items() if table.dealer}
    assert dealt_by == dict(zip([spec.name for spec in TABLES], TABLE_DEALERS, strict=True))
    assert dealt_by["Faro 1"] == "dealer"
    assert len(set(dealt_by.values())) == len(TABLES)
    relief = User.objects.get(username=RELIEF_DEALER)
    assert relief.role == Role.DEALER
    assert not Table.objects.filter(dealer=relief).exists()
    assert not DealerShift.objects.filter(dealer=relief).exists()

    # Last night: every table dealt, closed on its count, and every round replays exactly.
    yesterday = gaming_day_for(timezone.now()) - dt.timedelta(days=1)
    settled = list(Round.objects.filter(status=RoundStatus.SETTLED))
    assert {r.table_id for r in settled} == {t.pk for t in tables.values()}
    assert all(gaming_day_for(r.ended_at) == yesterday for r in settled if r.ended_at)
    assert [check_round(r).problems for r in settled] == [[]] * len(settled)
    report = AuditReport.objects.get(gaming_day=yesterday)
    assert (report.status, report.findings) == (AuditStatus.DONE, 0)
    # The count team counted the boxes that took cash; the auditor has a drop and a win row.
    counted = [box for box in report.data["drop"] if box["status"] == "counted"]
    assert {box["table_name"] for box in counted} == {"Faro 1", "Fan Tan 1"}
    assert all(box["variance"] == 0 and len(box["counted_by"]) == 2 for box in counted)
    faro = next(row for row in report.data["win"]["by_table"] if row["label"] == "Faro 1")
    assert faro["drop"] == 70_000
    assert faro["win"] == faro["drop"] - faro["fills"] + faro["credits"] + faro["closer"] - faro["opener"]
    assert faro["difference"] == 0
    # Each dealer is credited with their own table's night, once: from their assignment to the
    # day's end (their shift runs on), not the seven tables' nights summed onto one person.
    _, day_end = gaming_day_bounds(yesterday)
    audited = {row["name"]: row for row in report.data["dealers"]}
    for name, table in tables.items():
        shift = DealerShift.objects.get(table=table)
        row = audited[table.dealer.name]
        assert row["tables"] == [name]
        assert row["minutes"] == round((day_end - shift.started_at).total_seconds() / 60)
        assert 0 < row["minutes"] <= 12 * 60
    assert ClosedGamingDay.objects.filter(day=yesterday).exists()
    assert any(s["pot_splits"] for s in TableSession.objects.values("pot_splits")), "a pot split at close"

    # Tonight: each table opens with its counted tray (last night's closer), by its dealer.
    for table in tables.values():
        dealer = table.dealer
        if table.status == TableStatus.CLOSED:
            open_table(actor=dealer, table_id=table.pk, opening_inventory=last_closing_count(table))
        tonight = TableSession.objects.get(table=table, closed_at__isnull=True)
        assert (tonight.opened_by_id, tonight.opening_variance) == (dealer.pk, 0)
        closer = last_closing_count(table)
        assert closer is not None
        assert tonight.opening_inventory == closer > 0

    # Every game starts a deal at once, every seated player dealt in (none short of the reserve).
    seated_games = set()
    for table in tables.values():
        seated = Seat.objects.filter(table=table, left_at__isnull=True).count()
        deal = start_round(actor=table.dealer, table_id=table.pk, shoe="electronic")
        assert deal.status in {RoundStatus.BETTING, RoundStatus.IN_PLAY}, table.name
        if table.game != "faro":
            assert len(deal.players) == seated >= FEWEST_PLAYERS[table.game], table.name
        if seated >= FEWEST_PLAYERS[table.game]:
            seated_games.add(table.game)
    assert seated_games == GAMES
    sitting = list(Seat.objects.filter(left_at__isnull=True).values_list("player_id", flat=True))
    assert len(sitting) == len(set(sitting)) >= 24
    assert len(players) - len(sitting) >= 10, "players left to seat from the console"


@pytest.mark.usefixtures("system_accounts", "task_queue")
def test_demo_accounts_sign_in_with_the_printed_password(api: Any) -> None:
    load_demo()
    for username in [*(username for username, _, _ in STAFF), "wyatt.earp"]:
        body = {"username": username, "password": DEMO_PASSWORD}
        signed = api.post("/api/v1/auth/token", body, format="json")
        assert signed.status_code == 200, (username, signed.content)


@override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.PBKDF2PasswordHasher"])
def test_quick_demo_hashes_verify_with_djangos_hasher_and_are_upgraded_at_sign_in() -> None:
    with quick_demo_hashes():
        encoded = get_hasher().encode(DEMO_PASSWORD, get_hasher().salt())
    assert encoded.startswith("pbkdf2_sha256$1000$")
    assert check_password(DEMO_PASSWORD, encoded)
    assert not check_password("wrong", encoded)
    assert identify_hasher(encoded).must_update(encoded), "re-hashed at full strength on first sign-in"
    with quick_demo_hashes():
        assert get_hasher().encode(DEMO_PASSWORD, "salt").startswith("pbkdf2_sha256$1000$")
    # Back to Django's own rounds once the demo is loaded.
    assert not get_hasher().encode(DEMO_PASSWORD, "salt").startswith("pbkdf2_sha256$1000$")


@pytest.fixture
def house_accounts(transactional_db: None) -> Iterator[None]:
    """A transactional test's flush empties the cage and rake rows: there before and after."""
    ensure_system_accounts()
    yield
    ensure_system_accounts()


def _on_screen(box: dict[str, float] | None, viewport: dict[str, int]) -> None:
    assert box is not None
    assert box["x"] >= 0, box
    assert box["x"] + box["width"] <= viewport["width"], box
    assert box["y"] >= 0, box
    assert box["y"] + box["height"] <= viewport["height"], box


@pytest.mark.browser
@pytest.mark.usefixtures("house_accounts", "task_queue")
def test_each_dealer_sees_their_table_and_auditor_last_nights_report(browser: Any, live_server: Any) -> None:
    """On a tablet (landscape, upright) and a phone, from one load of the demo (it is slow):
    `dealer` has Faro 1 (open, players seated), Faro 2's dealer has it closed, to open."""
    load_demo()
    yesterday = (gaming_day_for(timezone.now()) - dt.timedelta(days=1)).isoformat()
    dealers = dict(zip([spec.name for spec in TABLES], TABLE_DEALERS, strict=True))
    for size, viewport in {"tablet": TABLET, "portrait": PORTRAIT, "phone": PHONE}.items():
        for table_name, action in (("Faro 1", "Go to"), ("Faro 2", "Open")):
            page = open_page(browser, live_server, viewport)
            sign_in(page, dealers[table_name], DEMO_PASSWORD)
            page.goto("/console/")
            cards = page.locator("article.tcard")
            assert cards.count() == 1, (size, table_name)
            assert cards.first.locator("h2").inner_text().startswith(table_name), size
            _on_screen(cards.first.bounding_box(), viewport)
            assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), size
            link = page.get_by_role("link", name=f"{action} {table_name}")
            assert link.count() == 1, (size, table_name)
            link.scroll_into_view_if_needed()
            shot(page, f"demo-dealer-{table_name.replace(' ', '-').lower()}-{size}")
            _on_screen(link.bounding_box(), viewport)
            link.click()  # tapped, it opens the table's screen
            page.wait_for_url(re.compile(r"/console/tables/\d+/"))
            assert table_name in page.locator("main").inner_text(), size
            page.context.close()

        page = open_page(browser, live_server, viewport)
        sign_in(page, "auditor", DEMO_PASSWORD)
        page.goto("/audit/")
        row = page.locator("tr", has=page.get_by_role("link", name=yesterday))
        assert row.count() == 1, size
        assert row.locator("td").nth(1).inner_text() == "done"
        assert row.locator("td").nth(2).inner_text() == "0"
        _on_screen(row.bounding_box(), viewport)
        assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), size
        page.get_by_role("link", name=yesterday).click()
        page.wait_for_url(f"**/audit/{yesterday}/")
        assert "Faro 1" in page.locator("main").inner_text()
        assert page.evaluate("document.scrollingElement.scrollWidth <= innerWidth"), size
        shot(page, f"demo-auditor-yesterday-{size}")
        page.context.close()
