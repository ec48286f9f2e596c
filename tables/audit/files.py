"""The report's files: its PDF and its CSV archive, drawn once per run and kept in the cache."""

from __future__ import annotations

from django.core.cache import cache

from tables.audit.models import AuditReport, AuditStatus
from tables.audit.render_csv import render_csv_zip
from tables.audit.render_pdf import render_pdf

FILE_CACHE_SECONDS = 7 * 24 * 3600


def _file_key(report: AuditReport, fmt: str) -> str:
    stamp = report.finished_at.timestamp() if report.finished_at else 0
    # v2: CSV cells are spreadsheet-safe; v3: the corrections section; v4: ``…_cents`` headers
    # and the cash-flow line stopping at the last data; v5: the slips section. Files cached by
    # an older renderer are not served.
    return f"audit-file:v5:{fmt}:{report.pk}:{report.runs}:{stamp:.6f}"


def get_report_file(*, report: AuditReport, fmt: str) -> bytes:
    """The report as a PDF or a CSV archive: from the cache, else drawn now and kept.

    A finished run never changes (a rerun bumps ``runs``), so the bytes are cached under the
    run; the worker draws them right after the audit, so a download rarely waits for it.
    """
    key = _file_key(report, fmt)
    content: bytes | None = cache.get(key)
    if content is None:
        content = render_pdf(report.data) if fmt == "pdf" else render_csv_zip(report.data)
        cache.set(key, content, FILE_CACHE_SECONDS)
    return content


def render_report_files(*, report_id: int) -> list[str]:
    """Draw a finished report's PDF and CSV archive into the cache; returns the formats drawn."""
    report = AuditReport.objects.get(pk=report_id)
    if report.status != AuditStatus.DONE:
        return []
    for fmt in ("pdf", "csv"):
        get_report_file(report=report, fmt=fmt)
    return ["pdf", "csv"]
