"""The close and report endpoints' contract, the auditors' page and the beat, without a worker.

Nothing here runs the task through Celery (tests/audit/test_audit_worker.py does): the close
is checked up to the commit hook that would send it, and ``run_audit`` is called as a service.
"""

from __future__ import annotations

import datetime as dt
import io
import zipfile
from typing import Any

import pytest
from celery.schedules import crontab
from django.conf import settings
from django.test import Client

from casino.models import Role, User
from ledger.gaming_day import gaming_day_for
from ledger.models import ClosedGamingDay
from tables.api.audit_views import ReportOutputSerializer, report_envelope
from tables.audit.models import AuditReport, AuditStatus
from tables.audit.services import audit_previous_gaming_day, run_audit
from tables.ratings.selectors import day_hours
from tests import factories

pytestmark = pytest.mark.django_db


def _yesterday() -> dt.date:
    return gaming_day_for() - dt.timedelta(days=1)


@pytest.mark.parametrize("role", [Role.DEALER, Role.CASHIER, Role.ADMIN, Role.PLAYER])
def test_only_pit_bosses_and_auditors_close_or_read(login: Any, system_accounts: None, role: str) -> None:
    client = login(factories.staff(role))
    day = _yesterday().isoformat()
    closed = client.post(f"/api/v1/gaming-days/{day}/close", {"force": True}, format="json")
    assert closed.status_code == 403
    assert closed.json()["error"]["code"] == "forbidden"
    assert client.get(f"/api/v1/gaming-days/{day}/report").status_code == 403
    assert not AuditReport.objects.exists()


def test_no_token_is_401(api: Any) -> None:
    assert api.post("/api/v1/gaming-days/2026-01-01/close").status_code == 401
    assert api.get("/api/v1/gaming-days/2026-01-01/report").status_code == 401


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "20261122", "2026-02-30", "2026-1-1"])
def test_a_bad_date_is_400(login: Any, auditor: User, bad: str) -> None:
    client = login(auditor)
    for response in (
        client.post(f"/api/v1/gaming-days/{bad}/close", {}, format="json"),
        client.get(f"/api/v1/gaming-days/{bad}/report"),
    ):
        assert response.status_code == 400
        assert response.json()["error"]["code"] == "bad_date"


def test_an_open_day_needs_force_and_a_future_day_cannot_close(
    login: Any, pit_boss: User, django_capture_on_commit_callbacks: Any
) -> None:
    client = login(pit_boss)
    today = gaming_day_for()
    response = client.post(f"/api/v1/gaming-days/{today}/close", {}, format="json")
    assert response.status_code == 409
    assert response.json()["error"]["code"] == "gaming_day_open"
    assert "ends_at" in response.json()["error"]["fields"]
    future = today + dt.timedelta(days=2)
    refused = client.post(f"/api/v1/gaming-days/{future}/close", {"force": True}, format="json")
    assert refused.status_code == 409
    assert refused.json()["error"]["code"] == "gaming_day_not_started"
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        forced = client.post(f"/api/v1/gaming-days/{today}/close", {"force": True}, format="json")
    assert forced.status_code == 202
    assert len(callbacks) == 1
    assert AuditReport.objects.get(gaming_day=today).forced


def test_close_queues_one_task_and_reports_its_progress(
    login: Any, auditor: User, django_capture_on_commit_callbacks: Any
) -> None:
    client = login(auditor)
    day = _yesterday().isoformat()
    missing = client.get(f"/api/v1/gaming-days/{day}/report")
    assert missing.status_code == 404
    assert missing.json()["error"]["code"] == "no_report"

    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        first = client.post(f"/api/v1/gaming-days/{day}/close", {}, format="json")
        again = client.post(f"/api/v1/gaming-days/{day}/close", {}, format="json")
    assert first.status_code == again.status_code == 202
    task_id = first.json()["task_id"]
    assert again.json()["task_id"] == task_id
    assert len(callbacks) == 1, "a second close while one is queued must not queue another task"
    report = AuditReport.objects.get()
    assert (report.status, report.task_id, report.requested_by) == (AuditStatus.QUEUED, task_id, auditor)

    beat = dt.datetime.now(tz=dt.UTC) - dt.timedelta(seconds=5)
    AuditReport.objects.filter(pk=report.pk).update(
        status=AuditStatus.RUNNING, progress_done=7, progress_total=19, started_at=beat, heartbeat_at=beat
    )
    for fmt in ("json", "pdf", "csv"):
        running = client.get(f"/api/v1/gaming-days/{day}/report", {"format": fmt})
        assert running.status_code == 200
        assert running["Content-Type"] == "application/json"
        body = running.json()
        assert body.pop("seconds_since_heartbeat") >= 5
        assert body == {
            "gaming_day": day,
            "status": "running",
            "task_id": task_id,
            "runs": 0,
            "progress": {"done": 7, "total": 19},
            "heartbeat_at": beat.isoformat(),
            "stale": False,
        }
    bad = client.get(f"/api/v1/gaming-days/{day}/report", {"format": "xml"})
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "bad_format"


def test_run_audit_closes_the_day_and_reports_progress(auditor: User, login: Any) -> None:
    """The task's service on a quiet day: the day is closed, every step reported, files render."""
    day = _yesterday()
    report = AuditReport.objects.create(
        gaming_day=day, requested_at=dt.datetime.now(tz=dt.UTC), requested_by=auditor
    )
    seen: list[tuple[int, int]] = []
    done = run_audit(report_id=report.pk, progress=lambda n, total: seen.append((n, total)))
    assert ClosedGamingDay.objects.filter(day=day).exists()
    assert done.status == AuditStatus.DONE
    assert done.runs == 1
    assert done.findings == 0
    assert seen
    assert seen[-1][0] == seen[-1][1] > 0
    assert [n for n, _ in seen] == sorted(n for n, _ in seen)
    envelope = report_envelope(done)
    shape = ReportOutputSerializer(data=envelope)
    assert shape.is_valid(), shape.errors
    assert envelope["summary"]["tables"] == 0
    assert envelope["trial_balance"]["balanced"]
    assert len(envelope["cash_flow"]) == len(day_hours(day))  # 24, or 23 or 25 when the clocks change

    client = login(auditor)
    body = client.get(f"/api/v1/gaming-days/{day}/report").json()
    assert body["status"] == "done"
    assert body["closed"]["by"] == auditor.username
    pdf = client.get(f"/api/v1/gaming-days/{day}/report", {"format": "pdf"})
    assert pdf["Content-Type"] == "application/pdf"
    assert pdf.content.startswith(b"%PDF-")
    assert f"audit-{day}.pdf" in pdf["Content-Disposition"]
    archive = client.get(f"/api/v1/gaming-days/{day}/report", {"format": "csv"})
    with zipfile.ZipFile(io.BytesIO(archive.content)) as files:
        # corrections.csv, four of slips and four of the drop, win and hold beside the eleven sections
        assert len(files.namelist()) == 26
        summary = files.read(f"audit-{day}/summary.csv").decode().splitlines()
        assert summary[0].startswith("gaming_day,tables,open_tables,rounds")
        assert summary[1].startswith(f"{day},0,0,0")

    rerun = run_audit(report_id=report.pk)
    assert rerun.runs == 2
    assert AuditReport.objects.count() == 1
    assert ClosedGamingDay.objects.count() == 1


def test_the_beat_audits_the_day_that_just_ended_once(
    system_accounts: None, django_capture_on_commit_callbacks: Any
) -> None:
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        report = audit_previous_gaming_day()
    assert report is not None
    assert report.gaming_day == _yesterday()
    assert report.requested_by is None
    assert len(callbacks) == 1
    AuditReport.objects.filter(pk=report.pk).update(status=AuditStatus.DONE)
    assert audit_previous_gaming_day() is None
    entry = settings.CELERY_BEAT_SCHEDULE["gaming-day-audit"]
    assert entry["task"] == "tables.audit.tasks.audit_previous_gaming_day_task"
    schedule = entry["schedule"]
    assert isinstance(schedule, crontab)
    assert schedule.hour == {settings.GAMING_DAY_ROLLOVER_HOUR}
    assert schedule.minute == {15}


def test_the_schema_describes_both_endpoints(login: Any, auditor: User) -> None:
    schema = login(auditor).get("/api/v1/schema", {"format": "json"}).json()
    close = schema["paths"]["/api/v1/gaming-days/{day}/close"]["post"]
    report = schema["paths"]["/api/v1/gaming-days/{day}/report"]["get"]
    assert "202" in close["responses"]
    assert "409" in close["responses"]
    assert set(report["responses"]["200"]["content"]) == {
        "application/json",
        "application/pdf",
        "application/zip",
    }
    assert any(p["name"] == "format" for p in report["parameters"])


# --------------------------------------------------------------------------- the auditors' page


def test_the_page_is_for_signed_in_auditors_and_pit_bosses(
    auditor: User, pit_boss: User, dealer: User, django_capture_on_commit_callbacks: Any
) -> None:
    day = _yesterday().isoformat()
    anonymous = Client().get(f"/audit/{day}/")
    assert anonymous.status_code == 302
    assert settings.LOGIN_URL in anonymous["Location"]
    refused = Client()
    refused.force_login(dealer)
    assert refused.get(f"/audit/{day}/").status_code == 403

    client = Client()
    client.force_login(auditor)
    page = client.get(f"/audit/{day}/")
    assert page.status_code == 200
    assert b"No audit has run for this day" in page.content
    assert client.get("/audit/").status_code == 200
    with django_capture_on_commit_callbacks(execute=False) as callbacks:
        closed = client.post(f"/audit/{day}/close/")
    assert closed.status_code == 302
    assert len(callbacks) == 1
    assert b"The audit is queued" in client.get(f"/audit/{day}/").content

    boss = Client()
    boss.force_login(pit_boss)
    report = AuditReport.objects.get()
    run_audit(report_id=report.pk)
    shown = boss.get(f"/audit/{day}/")
    assert shown.status_code == 200
    for text in (b"End-of-night audit", b"Integrity checks", b"Trial balance", b"data:image/png;base64,"):
        assert text in shown.content
    early = boss.post(f"/audit/{gaming_day_for().isoformat()}/close/")
    assert early.status_code == 409
    assert b"force" in early.content
