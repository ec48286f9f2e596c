"""Issue 48: the audit report's "Credit" section, in the JSON, the page, the PDF and the CSV.

A marker of $300.00 issued 45 days ago and paid $100.00 in cash today, and a marker of $200.00
issued today, audited by the real service (``run_audit``): the day issued $200.00 and redeemed
$100.00, $400.00 is owed at its end, half of it 31-60 days old and past the collection deadline,
and what the markers say agrees with the ledger's receivables. A payment the ledger never saw
makes the two disagree: a critical finding.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
from typing import Any

import pytest
import time_machine
from django.test import Client
from django.utils import timezone
from pypdf import PdfReader

from casino.models import Player, Role, User
from ledger.gaming_day import gaming_day_for
from tables.api.audit_views import ReportOutputSerializer, report_envelope
from tables.audit.models import AuditReport
from tables.audit.render_csv import sections
from tables.audit.render_pdf import render_pdf
from tables.audit.services import run_audit
from tables.credit.models import Marker, MarkerRedemption
from tables.credit.services import issue_marker, redeem_marker, set_credit_line
from tables.models import Table
from tests import factories

pytestmark = pytest.mark.django_db

AGO = dt.timedelta(days=45)


def _audit(auditor: User) -> dict[str, Any]:
    report = AuditReport.objects.create(
        gaming_day=gaming_day_for(), requested_at=dt.datetime.now(tz=dt.UTC), requested_by=auditor
    )
    envelope = report_envelope(run_audit(report_id=report.pk))
    shape = ReportOutputSerializer(data=envelope)
    assert shape.is_valid(), shape.errors
    return envelope


@pytest.fixture
def markers(table: Table, pit_boss: User, cashier: User, player: Player) -> dict[str, Marker]:
    set_credit_line(actor=factories.staff(Role.ADMIN), player=player, limit=1_000_000)
    with time_machine.travel(timezone.now() - AGO, tick=True):
        factories.open_table_for(table, inventory=500_000)
        old = issue_marker(actor=pit_boss, table_id=table.pk, player_id=player.pk, amount=30_000)
    new = issue_marker(actor=pit_boss, table_id=table.pk, player_id=player.pk, amount=20_000)
    redeem_marker(actor=cashier, marker_id=old.slip_id, amount=10_000, method="cash")
    return {"old": old, "new": new}


def test_the_report_counts_the_days_credit_and_ages_what_is_owed(
    markers: dict[str, Marker], auditor: User, player: Player
) -> None:
    report = _audit(auditor)
    credit = report["credit"]

    assert (credit["issued_count"], credit["issued"]) == (1, 20_000)
    assert (credit["redeemed"], credit["redeemed_cash"], credit["redeemed_chips"]) == (10_000, 10_000, 0)
    assert credit["outstanding"] == 40_000
    assert credit["aging"] == [
        {"bucket": "0-30", "markers": 1, "outstanding": 20_000},
        {"bucket": "31-60", "markers": 1, "outstanding": 20_000},
        {"bucket": "61-90", "markers": 0, "outstanding": 0},
        {"bucket": "over 90", "markers": 0, "outstanding": 0},
    ]
    old, new = markers["old"], markers["new"]
    assert [(m["number"], m["outstanding"], m["days"], m["past_deadline"]) for m in credit["markers"]] == [
        (old.slip.number, 20_000, 45, True),
        (new.slip.number, 20_000, 0, False),
    ]
    check = next(c for c in report["checks"] if c["name"] == "credit_vs_ledger")
    assert (check["checked"], check["passed"]) == (2, True)
    late = [f for f in report["findings"] if f["kind"] == "marker_past_deadline"]
    assert [(f["severity"], f["amount"]) for f in late] == [("compliance", 20_000)]
    assert f"Marker {old.slip.number} of {player.name} still owes $200.00 after 45 days" in late[0]["message"]


def test_the_credit_section_is_on_the_page_in_the_pdf_and_in_the_csv(
    markers: dict[str, Marker], auditor: User
) -> None:
    report = _audit(auditor)
    number = markers["old"].slip.number

    client = Client()
    client.force_login(auditor)
    page = client.get(f"/audit/{report['gaming_day']}/").content.decode()
    assert 'id="credit"' in page
    for text in ("Markers owed (2)", "31-60", "past the collection deadline", number, "$400.00"):
        assert text in page, text

    text = " ".join(p.extract_text() for p in PdfReader(io.BytesIO(render_pdf(report))).pages)
    assert "Credit" in text
    assert number in text

    files = sections(report)
    (summary,) = csv.DictReader(io.StringIO(files["credit.csv"].decode()))
    assert (summary["issued_total_cents"], summary["issued_total_dollars"]) == ("20000", "$200.00")
    assert (summary["outstanding_cents"], summary["redeemed_cash_dollars"]) == ("40000", "$100.00")
    aging = list(csv.DictReader(io.StringIO(files["credit_aging.csv"].decode())))
    assert [(a["bucket"], a["markers"], a["outstanding_dollars"]) for a in aging][:2] == [
        ("0-30", "1", "$200.00"),
        ("31-60", "1", "$200.00"),
    ]
    owed = list(csv.DictReader(io.StringIO(files["credit_markers.csv"].decode())))
    assert (owed[0]["number"], owed[0]["days"], owed[0]["past_deadline"]) == (number, "45", "true")


def test_a_payment_the_ledger_never_saw_is_a_critical_finding(
    markers: dict[str, Marker], auditor: User, cashier: User
) -> None:
    MarkerRedemption.objects.create(  # written behind the service's back: no receivable moved
        marker=markers["new"],
        amount=5_000,
        method="cash",
        transfer=markers["new"].transfer,  # any transfer: this one moved no payment
        by=cashier,
        at=timezone.now(),
    )

    report = _audit(auditor)

    check = next(c for c in report["checks"] if c["name"] == "credit_vs_ledger")
    assert check["passed"] is False
    (finding,) = [f for f in report["findings"] if f["kind"] == "credit_ledger_mismatch"]
    assert finding["severity"] == "critical"
    assert finding["amount"] == -5_000
    assert "add up to $350.00; the ledger's markers receivable holds $400.00" in finding["message"]


def test_a_report_stored_before_credit_renders_without_it(markers: dict[str, Marker], auditor: User) -> None:
    report = _audit(auditor)
    del report["credit"]

    files = sections(report)

    assert len(files["credit_markers.csv"].decode().splitlines()) == 1
    assert render_pdf(report).startswith(b"%PDF-")
