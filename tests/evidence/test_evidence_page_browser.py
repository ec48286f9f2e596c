"""The auditor's page shows a closed day's checkpoint (root, signer, records), downloads its
records and its checkpoint, and gives the one line that checks them; the two files it downloads
verify. At the tablet's 1280x800 and a portrait 810x1080, without sideways scrolling."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import pytest

from casino.models import Role
from ledger.evidence.verify import verify
from ledger.services import Leg, post_transfer
from tables.audit.models import AuditReport
from tables.audit.services import run_audit
from tables.evidence.models import Checkpoint
from tests import factories
from tests.browser import PORTRAIT, TABLET, no_sideways_scroll, on_screen, open_page, shot, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
def test_the_days_checkpoint_is_shown_and_its_files_verify(
    browser: Any, live_server: Any, viewport: dict[str, int], system_accounts: None, tmp_path: Path
) -> None:
    auditor = factories.staff(Role.AUDITOR, username="evidenceauditor")
    day = dt.date.today() - dt.timedelta(days=3)
    player = factories.PlayerFactory(actor=factories.staff(Role.CASHIER), funded=0)
    at = dt.datetime.combine(day, dt.time(20), tzinfo=dt.UTC)
    post_transfer(key="evidence-page", kind="buy_in", legs=[Leg("cage", player.wallet.code, 5_000)], at=at)
    report = AuditReport.objects.create(gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC))
    run_audit(report_id=report.pk)
    checkpoint = Checkpoint.objects.get(gaming_day=day)

    page = open_page(browser, live_server, viewport)
    sign_in(page, auditor.username)
    page.goto("/audit/")
    signed = page.get_by_role("link", name=f"{checkpoint.records} records, root {checkpoint.root[:12]}…")
    on_screen(signed)
    signed.click()
    evidence = page.locator("#evidence")
    evidence.get_by_role("heading", name="Evidence").wait_for()
    evidence.scroll_into_view_if_needed()
    text = evidence.inner_text()
    assert checkpoint.root in text
    assert f"key {checkpoint.key_id}, the casino's current key" in text
    assert f"{checkpoint.records} records" in text
    command = evidence.locator(".verify-command")
    assert command.inner_text().strip() == (
        f"python -m ledger.verify evidence-{day}.jsonl checkpoint-{day}.json"
    )
    no_sideways_scroll(page)
    on_screen(command)
    shot(page, f"audit-evidence-{viewport['width']}x{viewport['height']}")

    files = {}
    for name in ("Download the records", "Download the checkpoint"):
        link = evidence.get_by_role("link", name=name)
        with page.expect_download() as download:
            link.click()
        files[name] = Path(download.value.path()).read_text()
        assert download.value.suggested_filename.endswith(
            f"-{day}.jsonl" if "records" in name else f"-{day}.json"
        )
    report_ = verify(files["Download the records"].splitlines(), json.loads(files["Download the checkpoint"]))
    assert report_.ok, report_.problems
    assert report_.records.get("transfer") == 1
    page.context.close()


def test_a_pit_boss_reads_the_report_without_the_evidence(
    browser: Any, live_server: Any, system_accounts: None
) -> None:
    boss = factories.staff(Role.PIT_BOSS, username="evidenceboss")
    day = dt.date.today() - dt.timedelta(days=3)
    report = AuditReport.objects.create(gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC))
    run_audit(report_id=report.pk)
    assert Checkpoint.objects.filter(gaming_day=day).exists()

    page = open_page(browser, live_server, TABLET)
    sign_in(page, boss.username)
    page.goto(f"/audit/{day.isoformat()}/")
    page.get_by_role("heading", name="End-of-night audit").wait_for()
    assert page.locator("#evidence").count() == 0
    page.context.close()
