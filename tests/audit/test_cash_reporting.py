"""Issue 48: the audit report's "Cash reporting": MTL lines, the CTRs with the identification on
file, and the transactions refused for want of it, on the page, in the PDF and in the CSV files.
It reads the same cash lines as the cage, the tables and the detectors (casino.cash)."""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from typing import Any

import pytest
from django.test import Client

from casino.models import Player, User
from casino.services import buy_in
from ledger.gaming_day import gaming_day_for
from tables.audit.models import AuditReport
from tables.audit.services import run_audit
from tests import factories

pytestmark = pytest.mark.django_db


def _audited_day(cashier: User, auditor: User, login: Any) -> tuple[dt.date, Player]:
    high = factories.PlayerFactory(actor=cashier, name="Doc Holliday")
    small = factories.PlayerFactory(actor=cashier, name="Big Nose Kate")
    factories.identified(high, by=cashier)
    buy_in(actor=cashier, player=high, amount=700_000)
    buy_in(actor=cashier, player=high, amount=500_000)
    buy_in(actor=cashier, player=small, amount=900_000)
    refused = login(cashier).post(
        "/api/v1/cage/buy-ins", {"player": small.pk, "amount": 200_000}, format="json"
    )
    assert refused.status_code == 409
    day = gaming_day_for()
    report = AuditReport.objects.create(
        gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC), requested_by=auditor, forced=True
    )
    run_audit(report_id=report.pk)
    return day, high


def test_the_report_lists_mtl_lines_ctrs_and_refusals(cashier: User, auditor: User, login: Any) -> None:
    day, high = _audited_day(cashier, auditor, login)
    client = login(auditor)

    data = client.get(f"/api/v1/gaming-days/{day}/report").json()

    cash = data["cash_reporting"]
    assert [(m["name"], m["amount"], m["where"], m["by"]) for m in cash["mtl"]] == [
        ("Doc Holliday", 700_000, "Cage", cashier.name),
        ("Doc Holliday", 500_000, "Cage", cashier.name),  # $3,000.00 or more: a line on its own
        ("Big Nose Kate", 900_000, "Cage", cashier.name),
    ]
    (ctr,) = cash["ctrs"]
    assert (ctr["player"], ctr["cash_in"], ctr["directions"], ctr["transactions"]) == (
        high.pk, 1_200_000, ["cash_in"], 2,
    )  # fmt: skip
    assert (ctr["id_kind"], ctr["id_number"], ctr["birth_date"]) == (
        "Driver's licence",
        f"D{high.pk:07d}",
        "1979-05-17",
    )
    (refusal,) = cash["refused"]
    assert (refusal["name"], refusal["amount"], refusal["day_total"]) == ("Big Nose Kate", 200_000, 900_000)
    assert data["cage"]["cash_in"] == 2_100_000
    assert {c["player"] for c in data["cage"]["ctr"]} == {high.pk}

    browser = Client()
    browser.force_login(auditor)
    page = browser.get(f"/audit/{day}/")
    assert page.status_code == 200
    text = page.content.decode()
    assert "Cash reporting" in text
    assert "MTL lines (3)" in text
    assert "Refused for want of identification (1)" in text
    assert f"Driver&#x27;s licence D{high.pk:07d} (NV), Doc Holliday" in text
    pdf = client.get(f"/api/v1/gaming-days/{day}/report", {"format": "pdf"})
    assert pdf.status_code == 200
    assert pdf["Content-Type"] == "application/pdf"

    archive = client.get(f"/api/v1/gaming-days/{day}/report", {"format": "csv"})
    with zipfile.ZipFile(io.BytesIO(archive.content)) as files:
        rows = {
            name.rsplit("/", 1)[-1]: list(csv.DictReader(io.StringIO(files.read(name).decode())))
            for name in files.namelist()
        }
    assert [r["name"] for r in rows["cash_mtl.csv"]] == ["Doc Holliday", "Doc Holliday", "Big Nose Kate"]
    assert rows["cash_ctrs.csv"][0]["address"] == "100 Fremont Street, Las Vegas NV 89101"
    assert rows["cash_refused.csv"][0]["day_total_dollars"] == "$9,000.00"
