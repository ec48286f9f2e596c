"""Issue 47: the audit report's "Drop and count", "Win and hold" and hold investigations.

A Faro table's box is counted $300.00 short of the cash recorded into it (``short_drop_day``):
the report lists the box with its seal, figures and counters, the win row as the regulator
reads it with the ledger's win and the difference line by line, and the table's and Faro's
month-to-date hold outside its band; the audit opens a ``hold_investigation`` alert for each,
which a pit boss closes only with a written note. The JSON, the CSV and the PDF carry it all.
"""

from __future__ import annotations

import csv
import datetime as dt
import io
import zipfile
from typing import Any

import pytest

from casino.models import User
from tables.api.audit_views import ReportOutputSerializer, report_envelope
from tables.audit.models import AuditReport
from tables.audit.render_csv import render_csv_zip
from tables.audit.render_pdf import render_pdf
from tables.audit.services import run_audit
from tables.detection.models import Alert, AlertStatus
from tests.audit.drop_days import short_drop_day

pytestmark = pytest.mark.django_db

DAY = dt.date(2026, 4, 14)


def _audit(report: AuditReport | None = None) -> dict[str, Any]:
    if report is None:
        report = AuditReport.objects.create(gaming_day=DAY, requested_at=dt.datetime.now(tz=dt.UTC))
    envelope = report_envelope(run_audit(report_id=report.pk))
    shape = ReportOutputSerializer(data=envelope)
    assert shape.is_valid(), shape.errors
    return envelope


@pytest.fixture
def audited(system_accounts: None) -> dict[str, Any]:
    day = short_drop_day(DAY)
    return {**day, "report": _audit()}


def test_the_report_lists_the_box_and_the_win_as_the_regulator_reads_it(audited: dict[str, Any]) -> None:
    report, table, name = audited["report"], audited["table"], audited["name"]
    (box,) = [b for b in report["drop"] if b["status"] == "counted"]
    assert box["table_name"] == name
    assert (box["recorded"], box["counted"], box["variance"]) == (70_000, 40_000, -30_000)
    assert box["seal"].startswith("S-")
    assert box["slip"].startswith("D-2026-")
    assert sorted(box["counted_by"]) == ["Cole Count", "Cora Count"]

    win = report["win"]
    (row,) = win["by_table"]
    assert (row["key"], row["label"]) == (str(table), name)
    assert (row["drop"], row["opener"], row["closer"], row["win"], row["electronic_win"]) == (
        40_000,
        100_000,
        31_000,
        -29_000,
        1_000,
    )
    assert row["hold"] == round(-29_000 / 40_000, 4)
    assert row["explanation"] == [
        {
            "code": "drop_count_variance",
            "words": "Drop boxes counted over or short of the cash recorded into them",
            "amount": -30_000,
        }
    ]
    assert [r["key"] for r in win["by_game"]] == ["faro"]
    assert sum(r["win"] for r in win["by_shift"]) == row["win"]
    assert win["month_to_date"]["win"] == win["year_to_date"]["win"] == -29_000

    kinds = [f["kind"] for f in report["findings"]]
    assert "drop_count_variance" in kinds
    assert kinds.count("hold_investigation") == 2
    # The count and the ledger still agree at the tray: chips sold for cash are not play.
    assert not {"variance_unexplained", "slips_ledger_mismatch"} & set(kinds)


def test_a_hold_outside_its_band_opens_an_investigation_closed_only_with_a_note(
    audited: dict[str, Any],
) -> None:
    report, table, floor = audited["report"], audited["table"], audited["floor"]
    checks = {(h["scope"], h["key"]): h for h in report["hold_investigations"]}
    assert set(checks) == {("table", str(table)), ("game", "faro")}
    check = checks[("table", str(table))]
    assert check["basis"] == "theo"
    assert check["outside"]
    assert check["low"] is not None
    assert check["high"] is not None
    assert not check["low"] <= check["hold"] <= check["high"]

    alerts = {a.table_id: a for a in Alert.objects.filter(kind="hold_investigation")}
    assert set(alerts) == {table, None}  # the table's, and the game's
    alert = alerts[table]
    assert (alert.status, alert.severity, alert.gaming_day) == (AlertStatus.OPEN, "high", DAY)
    assert alert.evidence["drop"] == 40_000
    assert alert.evidence["hold_pct"] == -72.5
    assert "month-to-date hold is −72.5 % on a drop of $400.00; its 95 % band is −" in alert.summary

    boss = floor.client(floor.pit_boss)
    empty = boss.post(f"/api/v1/alerts/{alert.pk}/resolve", {"note": "   "}, format="json")
    assert empty.status_code == 400
    assert empty.json()["error"]["message"] == "Say what you found in a note."
    assert Alert.objects.get(pk=alert.pk).status == AlertStatus.OPEN
    note = "Recounted the box with security: a $100 strap was short; surveillance reviewed."
    done = boss.post(f"/api/v1/alerts/{alert.pk}/resolve", {"note": note}, format="json")
    assert done.status_code == 200
    assert (done.json()["status"], done.json()["note"]) == ("resolved", note)

    # The audit run again: the resolved one stays as resolved, the open one is brought up to date.
    _audit(AuditReport.objects.get(gaming_day=DAY))
    alert.refresh_from_db()
    game = Alert.objects.get(kind="hold_investigation", table__isnull=True)
    assert (alert.status, alert.note, alert.detections) == (AlertStatus.RESOLVED, note, 1)
    assert (game.status, game.detections) == (AlertStatus.OPEN, 2)
    assert Alert.objects.filter(kind="hold_investigation").count() == 2


def _csv(files: zipfile.ZipFile, name: str) -> list[dict[str, str]]:
    (path,) = [p for p in files.namelist() if p.endswith(f"/{name}")]
    return list(csv.DictReader(io.StringIO(files.read(path).decode())))


def test_the_csv_and_the_pdf_carry_the_drop_and_the_win(audited: dict[str, Any], pit_boss: User) -> None:
    report = audited["report"]
    with zipfile.ZipFile(io.BytesIO(render_csv_zip(report))) as files:
        boxes = [b for b in _csv(files, "drop_boxes.csv") if b["status"] == "counted"]
        win = _csv(files, "win.csv")
        lines = _csv(files, "win_lines.csv")
        holds = _csv(files, "hold_investigations.csv")
    (box,) = boxes
    assert (box["recorded_cents"], box["recorded_dollars"]) == ("70000", "$700.00")
    assert (box["counted_cents"], box["variance_dollars"]) == ("40000", "−$300.00")
    assert {row["grouping"] for row in win} == {"table", "game", "shift", "period"}
    table_row = next(row for row in win if row["grouping"] == "table")
    assert (table_row["drop_cents"], table_row["win_dollars"], table_row["hold"]) == (
        "40000",
        "−$290.00",
        "-0.725",
    )
    assert (table_row["electronic_win_cents"], table_row["difference_cents"]) == ("1000", "-30000")
    assert [row["key"] for row in win if row["grouping"] == "period"] == [
        "day",
        "month_to_date",
        "year_to_date",
    ]
    assert {(row["grouping"], row["code"], row["amount_cents"]) for row in lines} >= {
        ("table", "drop_count_variance", "-30000")
    }
    assert {row["scope"] for row in holds} == {"table", "game"}

    pdf = render_pdf(report)
    assert pdf.startswith(b"%PDF")
