"""Issue 46 item 8: the audit report's "Slips" section, in the JSON, the page, the PDF and the CSV.

A day with an opener counted by chip, three spot counts (one $150.00 short, one $30.00 over,
one voided), a fill left in transit, a credit voided by the cage and a number of the fill
series taken behind the service's back is audited by the real service (``run_audit``). Every
series is accounted for, the gap is a critical finding, voids carry their reasons, variances
come reportable first, and the fill in transit is listed.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from typing import Any

import pytest
from django.db import connection, transaction
from django.test import Client
from pypdf import PdfReader

from casino.models import User
from ledger.gaming_day import gaming_day_for
from tables.api.audit_views import ReportOutputSerializer, report_envelope
from tables.audit.models import AuditReport
from tables.audit.render_csv import sections
from tables.audit.render_pdf import render_pdf
from tables.audit.services import run_audit
from tables.models import Table
from tables.slips.models import SlipKind
from tables.slips.services import issue_slip
from tests.factories import PASSWORD, ApiFloor

pytestmark = pytest.mark.django_db


def _audit(auditor: User) -> dict[str, Any]:
    report = AuditReport.objects.create(
        gaming_day=gaming_day_for(), requested_at=dt.datetime.now(tz=dt.UTC), requested_by=auditor
    )
    envelope = report_envelope(run_audit(report_id=report.pk))
    shape = ReportOutputSerializer(data=envelope)
    assert shape.is_valid(), shape.errors
    return envelope


@pytest.fixture
def books(system_accounts: None) -> dict[str, Any]:
    floor = ApiFloor()
    table = floor.post(
        floor.pit_boss, "tables", {"name": "Faro 7", "game": "faro", "min_bet": 500, "max_bet": 20_000}, 201
    )
    floor.post(floor.pit_boss, f"tables/{table['id']}/assign", {"dealer": floor.dealer.pk}, 200)
    opened = floor.post(floor.dealer, f"tables/{table['id']}/open", {"opening_count": {"10000": 10}}, 201)

    def count(pieces: dict[str, int]) -> dict[str, Any]:
        body = {"count": pieces, "reason": "spot_check"}
        return dict(floor.post(floor.dealer, f"tables/{table['id']}/counts", body, 201))

    short = count({"10000": 8, "2500": 2})  # $850.00: $150.00 short
    over = count({"10000": 10, "500": 6})  # $1,030.00: $30.00 over
    wrong = count({"10000": 10})
    floor.post(floor.pit_boss, f"slips/{wrong['id']}/void", {"reason": "counted the wrong rack"}, 200)

    at = Table.objects.get(pk=table["id"])
    with transaction.atomic():
        fill = issue_slip(kind=SlipKind.FILL, requested_by=floor.dealer, table=at, amount=20_000)
        credit = issue_slip(kind=SlipKind.CREDIT, requested_by=floor.dealer, table=at, amount=5_000)
    floor.post(floor.cashier, f"slips/{fill.pk}/sign", {"password": PASSWORD}, 200)  # issued: in transit
    floor.post(floor.cashier, f"slips/{credit.pk}/void", {"reason": "=SUM(A1) asked twice"}, 200)
    with connection.cursor() as cursor:  # a fill number taken behind the service's back
        cursor.execute("UPDATE tables_slipcounter SET last = last + 1 WHERE kind = 'fill'")
    with transaction.atomic():
        later = issue_slip(kind=SlipKind.FILL, requested_by=floor.dealer, table=at, amount=1_000)
    return {
        "floor": floor,
        "table": table,
        "opener": opened["opener"],
        "short": short,
        "over": over,
        "wrong": wrong,
        "fill": fill,
        "credit": credit,
        "later": later,
    }


def test_the_report_accounts_for_the_days_slips(books: dict[str, Any], auditor: User) -> None:
    report = _audit(auditor)
    slips = report["slips"]
    fill, later = books["fill"], books["later"]

    series = {s["kind"]: s for s in slips["series"]}
    assert list(series) == ["opener", "count", "fill", "credit"]  # the kinds' order
    assert series["count"] == {
        "kind": "count",
        "year": fill.year,
        "first": books["short"]["number"],
        "last": books["wrong"]["number"],
        "issued": 3,
        "void": 1,
        "missing": [],
    }
    assert (series["fill"]["first"], series["fill"]["last"], series["fill"]["issued"]) == (
        fill.number,
        later.number,
        2,
    )
    assert series["fill"]["missing"] == [fill.number[:-1] + "2"]
    assert series["credit"]["void"] == 1

    missing = [f for f in report["findings"] if f["kind"] == "slip_missing"]
    assert [(f["severity"], f["evidence"]["missing"]) for f in missing] == [
        ("critical", series["fill"]["missing"])
    ]
    assert f"No slip carries {series['fill']['missing'][0]}" in missing[0]["message"]
    check = next(c for c in report["checks"] if c["name"] == "slip_series")
    assert (check["checked"], check["failed"], check["passed"]) == (4, 1, False)

    assert [(v["number"], v["reason"]) for v in slips["voids"]] == [
        (books["wrong"]["number"], "counted the wrong rack"),
        (books["credit"].number, "=SUM(A1) asked twice"),
    ]
    voids = {v["number"]: v for v in slips["voids"]}
    assert voids[books["credit"].number]["voided_by"] == books["floor"].cashier.pk
    assert voids[books["credit"].number]["table_name"] == "Faro 7"

    assert [(v["number"], v["variance"], v["reportable"]) for v in slips["variances"]] == [
        (books["short"]["number"], -15_000, True),
        (books["over"]["number"], 3_000, False),
    ]
    reportable = [f for f in report["findings"] if f["kind"] == "reportable_variance"]
    assert [(f["severity"], f["amount"], f["evidence"]["slip"]) for f in reportable] == [
        ("warning", -15_000, books["short"]["number"])
    ]
    assert "is $150.00 short: counted $850.00, the ledger's tray $1,000.00" in reportable[0]["message"]

    assert [(t["number"], t["kind"], t["amount"], t["table_name"]) for t in slips["in_transit"]] == [
        (fill.number, "fill", 20_000, "Faro 7")
    ]
    transit = [f for f in report["findings"] if f["kind"] == "slip_in_transit"]
    assert [f["evidence"]["slip"] for f in transit] == [fill.number]
    assert "still in transit" in transit[0]["message"]


def test_the_slips_section_is_on_the_page_in_the_pdf_and_in_the_csv(
    books: dict[str, Any], auditor: User
) -> None:
    report = _audit(auditor)
    fill = books["fill"]

    client = Client()
    client.force_login(auditor)
    page = client.get(f"/audit/{report['gaming_day']}/").content.decode()
    assert 'id="slips"' in page
    for text in (
        "Count variances (2)",
        "Voided slips (2)",
        "Still in transit (1)",
        books["short"]["number"],
        "counted the wrong rack",
        "reportable",
        "Slip number missing",
    ):
        assert text in page, text

    pdf = PdfReader(io.BytesIO(render_pdf(report)))
    text = " ".join(p.extract_text() for p in pdf.pages)
    assert "Slips" in text
    assert fill.number in text
    assert "counted the wrong rack" in text

    files = sections(report)
    series = list(csv.DictReader(io.StringIO(files["slip_series.csv"].decode())))
    assert [r["kind"] for r in series] == ["opener", "count", "fill", "credit"]
    variances = list(csv.DictReader(io.StringIO(files["slip_variances.csv"].decode())))
    assert (variances[0]["number"], variances[0]["variance_cents"], variances[0]["variance_dollars"]) == (
        books["short"]["number"],
        "-15000",
        "−$150.00",
    )
    assert variances[0]["expected_dollars"] == "$1,000.00"
    voids = list(csv.DictReader(io.StringIO(files["slip_voids.csv"].decode())))
    assert voids[1]["reason"] == "'=SUM(A1) asked twice"  # a reason typed as a formula stays text
    transit = list(csv.DictReader(io.StringIO(files["slips_in_transit.csv"].decode())))
    assert [(r["number"], r["amount_cents"]) for r in transit] == [(fill.number, "20000")]
    archive = client.get(f"/api/v1/gaming-days/{report['gaming_day']}/report", {"format": "csv"})
    with zipfile.ZipFile(io.BytesIO(archive.content)) as zipped:
        names = {name.split("/", 1)[1] for name in zipped.namelist()}
    assert {"slip_series.csv", "slip_voids.csv", "slip_variances.csv", "slips_in_transit.csv"} <= names


def test_a_report_stored_before_slips_renders_without_the_section(
    books: dict[str, Any], auditor: User
) -> None:
    report = _audit(auditor)
    del report["slips"]

    files = sections(report)

    assert files["slip_series.csv"].decode().startswith("kind,year,first,last,issued,void,missing")
    assert len(files["slip_series.csv"].decode().splitlines()) == 1
    assert render_pdf(report).startswith(b"%PDF-")
