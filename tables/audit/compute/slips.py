"""Slips: the pit's books for the day, every number accounted for (tables.slips).

Each series with slips in the day (a kind in a calendar year) is accounted for from the number
after the previous day's last to the one before the next day's first: a number in that stretch
no slip carries is missing, a critical finding (the database refuses to delete a slip, so only
tampering leaves one). Voids are listed with their reasons; counts off the ledger's tray beyond
``COUNT_VARIANCE_NOTE``, reportable ones first; and fills and credits still in transit when the
audit ran, each a warning.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.conf import settings
from django.db.models import Max, Min, Q

from casino.money import format_dollars
from casino.selectors import staff_names
from tables.audit import report as shape
from tables.audit.compute.state import AuditState
from tables.slips.models import Slip, SlipCounter, SlipKind, SlipStatus
from tables.slips.numbers import format_number

COUNT_KINDS = (SlipKind.OPENER, SlipKind.CLOSER, SlipKind.COUNT)
KIND_WORDS = {
    SlipKind.OPENER: "Opening count",
    SlipKind.CLOSER: "Closing count",
    SlipKind.COUNT: "Count",
    SlipKind.FILL: "Fill",
    SlipKind.CREDIT: "Credit",
    SlipKind.DROP: "Drop",
    SlipKind.MARKER: "Marker",
}


def section_slips(audit: AuditState) -> None:
    slips = list(
        Slip.objects.filter(
            Q(gaming_day=audit.day) | Q(voided_at__gte=audit.start, voided_at__lt=audit.end)
        ).select_related("table")
    )
    of_day = [s for s in slips if s.gaming_day == audit.day]
    in_transit = list(
        Slip.objects.filter(status=SlipStatus.ISSUED, gaming_day__lte=audit.day)
        .select_related("table")
        .order_by("kind", "year", "serial")
    )
    audit.slips = {
        "series": _series(audit, of_day),
        "voids": _voids(audit, slips),
        "variances": _variances(audit, of_day),
        "in_transit": _in_transit(audit, in_transit),
    }


def _series(audit: AuditState, slips: list[Slip]) -> list[shape.SlipSeriesData]:
    by_series: dict[tuple[str, int], list[Slip]] = defaultdict(list)
    for slip in slips:
        by_series[(slip.kind, slip.year)].append(slip)
    order = {kind: i for i, kind in enumerate(SlipKind.values)}
    rows: list[shape.SlipSeriesData] = []
    for (kind, year), members in sorted(by_series.items(), key=lambda item: (order[item[0][0]], item[0][1])):
        serials = sorted(s.serial for s in members)
        series = Slip.objects.filter(kind=kind, year=year)
        before = series.filter(gaming_day__lt=audit.day).aggregate(n=Max("serial"))["n"] or 0
        after = series.filter(gaming_day__gt=audit.day).aggregate(n=Min("serial"))["n"]
        if after is None:  # no later slip: the counter's last number closes the stretch
            counter = SlipCounter.objects.filter(kind=kind, year=year).values_list("last", flat=True).first()
            after = max(counter or 0, serials[-1]) + 1
        carried = set(series.filter(serial__gt=before, serial__lt=after).values_list("serial", flat=True))
        missing = [format_number(kind, year, n) for n in range(before + 1, after) if n not in carried]
        rows.append(
            {
                "kind": kind,
                "year": year,
                "first": format_number(kind, year, serials[0]),
                "last": format_number(kind, year, serials[-1]),
                "issued": len(members),
                "void": sum(1 for s in members if s.status == SlipStatus.VOID),
                "missing": missing,
            }
        )
        if missing:
            audit.add(
                shape.finding(
                    "slip_missing",
                    "critical",
                    f"No slip carries {_listed(missing)}: the {kind} series of {year} has a gap "
                    "around this day's slips.",
                    evidence={"kind": kind, "year": year, "missing": missing},
                )
            )
    audit.check("slip_series", "Slip numbers accounted for", len(rows), sum(1 for r in rows if r["missing"]))
    return rows


def _listed(numbers: list[str], shown: int = 5) -> str:
    head = ", ".join(numbers[:shown])
    return head if len(numbers) <= shown else f"{head} and {len(numbers) - shown} more"


def _local(audit: AuditState, moment: dt.datetime | None) -> str:
    return moment.astimezone(audit.zone).isoformat() if moment else ""


def _voids(audit: AuditState, slips: list[Slip]) -> list[shape.SlipVoidData]:
    voided = sorted((s for s in slips if s.status == SlipStatus.VOID), key=lambda s: (s.voided_at, s.pk))
    names = staff_names({s.voided_by_id for s in voided if s.voided_by_id})
    return [
        {
            "number": s.number,
            "kind": s.kind,
            "table": s.table_id,
            "table_name": s.table.name if s.table else None,
            "amount": s.amount,
            "reason": s.void_reason,
            "voided_by": s.voided_by_id or 0,
            "voided_by_name": names.get(s.voided_by_id or 0, ""),
            "voided_at": _local(audit, s.voided_at),
        }
        for s in voided
    ]


def _variances(audit: AuditState, slips: list[Slip]) -> list[shape.SlipVarianceData]:
    note, reportable = settings.COUNT_VARIANCE_NOTE, settings.REPORTABLE_VARIANCE
    off = [s for s in slips if s.kind in COUNT_KINDS and abs(s.variance or 0) > note]
    off.sort(key=lambda s: (abs(s.variance or 0) < reportable, -abs(s.variance or 0), s.number))
    rows: list[shape.SlipVarianceData] = []
    for s in off:
        variance, expected = s.variance or 0, s.expected or 0
        row: shape.SlipVarianceData = {
            "number": s.number,
            "kind": s.kind,
            "status": s.status,
            "table": s.table_id,
            "table_name": s.table.name if s.table else None,
            "counted": s.amount,
            "expected": expected,
            "variance": variance,
            "reportable": abs(variance) >= reportable,
        }
        rows.append(row)
        if row["reportable"]:
            where = f" at {row['table_name']}" if row["table_name"] else ""
            audit.add(
                shape.finding(
                    "reportable_variance",
                    "warning",
                    f"{KIND_WORDS[SlipKind(s.kind)]} {s.number}{where} is {format_dollars(abs(variance))} "
                    f"{'over' if variance > 0 else 'short'}: counted {format_dollars(s.amount)}, the "
                    f"ledger's tray {format_dollars(expected)}.",
                    table=s.table_id,
                    table_name=row["table_name"],
                    amount=variance,
                    evidence={"slip": s.number, "status": s.status},
                )
            )
    return rows


def _in_transit(audit: AuditState, slips: list[Slip]) -> list[shape.SlipTransitData]:
    rows: list[shape.SlipTransitData] = []
    for s in slips:
        row: shape.SlipTransitData = {
            "number": s.number,
            "kind": s.kind,
            "table": s.table_id,
            "table_name": s.table.name if s.table else None,
            "amount": s.amount,
            "gaming_day": s.gaming_day.isoformat(),
            "at": _local(audit, s.at),
        }
        rows.append(row)
        where = f" for {row['table_name']}" if row["table_name"] else ""
        audit.add(
            shape.finding(
                "slip_in_transit",
                "warning",
                f"{KIND_WORDS[SlipKind(s.kind)]} {s.number}{where} of {format_dollars(s.amount)} was "
                "still in transit when the audit ran: issued, never signed for on arrival.",
                table=s.table_id,
                table_name=row["table_name"],
                amount=s.amount,
                evidence={"slip": s.number, "gaming_day": row["gaming_day"]},
            )
        )
    return rows
