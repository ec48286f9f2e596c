"""Credit: the day's markers issued and paid, what players owe on markers when the day ended, and
how old it is (0-30, 31-60, 61-90, over 90 days; tables.credit).

What is owed is read twice: from the markers less their payments made before the day's end, and
from the ledger's markers-receivable accounts as of that moment. They must agree (the check
``credit_vs_ledger``); a difference is a critical finding, since each payment moves both in one
transaction. A marker still owed past ``MARKER_COLLECTION_DAYS`` is a compliance finding.
"""

from __future__ import annotations

from collections import defaultdict

from django.conf import settings
from django.db.models import Sum

from casino.money import format_dollars
from ledger.models import AccountPurpose, Entry
from tables.accounts import RECEIVABLE_PREFIX
from tables.audit import report as shape
from tables.audit.compute.state import AuditState
from tables.credit.models import Marker, MarkerRedemption, RedemptionMethod

NO_CREDIT: shape.CreditData = {
    "issued": 0,
    "issued_count": 0,
    "redeemed": 0,
    "redeemed_cash": 0,
    "redeemed_chips": 0,
    "outstanding": 0,
    "aging": [{"bucket": b, "markers": 0, "outstanding": 0} for b in shape.CREDIT_BUCKETS],
    "markers": [],
}


def bucket_of(days: int) -> str:
    """0-30, 31-60, 61-90 or over 90 days outstanding."""
    if days <= 30:
        return "0-30"
    if days <= 60:
        return "31-60"
    if days <= 90:
        return "61-90"
    return "over 90"


def section_credit(audit: AuditState) -> None:
    issued = Marker.objects.filter(slip__gaming_day=audit.day).aggregate(total=Sum("amount"))
    issued_count = Marker.objects.filter(slip__gaming_day=audit.day).count()
    paid_today: defaultdict[str, int] = defaultdict(int)
    for method, total in (
        MarkerRedemption.objects.filter(at__gte=audit.start, at__lt=audit.end)
        .values_list("method")
        .annotate(total=Sum("amount"))
    ):
        paid_today[method] = int(total)
    owed = _owed_at_end(audit)
    ledger_owed = _ledger_owed_at_end(audit)
    rows = sorted(owed, key=lambda r: (r["gaming_day"], r["number"]))
    aging: dict[str, shape.CreditAgingData] = {
        b: {"bucket": b, "markers": 0, "outstanding": 0} for b in shape.CREDIT_BUCKETS
    }
    for row in rows:
        aging[row["bucket"]]["markers"] += 1
        aging[row["bucket"]]["outstanding"] += row["outstanding"]
    total = sum(r["outstanding"] for r in rows)
    audit.credit = {
        "issued": int(issued["total"] or 0),
        "issued_count": issued_count,
        "redeemed": paid_today[RedemptionMethod.CASH] + paid_today[RedemptionMethod.CHIPS],
        "redeemed_cash": paid_today[RedemptionMethod.CASH],
        "redeemed_chips": paid_today[RedemptionMethod.CHIPS],
        "outstanding": ledger_owed,
        "aging": [aging[b] for b in shape.CREDIT_BUCKETS],
        "markers": rows,
    }
    _check_against_ledger(audit, rows, total, ledger_owed)
    _past_deadline(audit, rows)


def _owed_at_end(audit: AuditState) -> list[shape.CreditMarkerData]:
    """Each marker issued by the day's end with something still owed then (payments after it
    do not count), oldest first."""
    markers = list(
        Marker.objects.filter(slip__gaming_day__lte=audit.day)
        .exclude(at__gte=audit.end)
        .select_related("slip__table", "player__user")
    )
    paid = dict(
        MarkerRedemption.objects.filter(marker__in=markers, at__lt=audit.end)
        .values_list("marker_id")
        .annotate(total=Sum("amount"))
    )
    rows: list[shape.CreditMarkerData] = []
    for marker in markers:
        left = marker.amount - int(paid.get(marker.pk, 0))
        if left <= 0:
            continue
        days = (audit.day - marker.slip.gaming_day).days
        table = marker.slip.table
        rows.append(
            {
                "number": marker.slip.number,
                "player": marker.player_id,
                "player_name": marker.player.name,
                "table": table.pk if table else None,
                "table_name": table.name if table else None,
                "gaming_day": marker.slip.gaming_day.isoformat(),
                "amount": marker.amount,
                "outstanding": left,
                "days": days,
                "bucket": bucket_of(days),
                "past_deadline": days > settings.MARKER_COLLECTION_DAYS,
            }
        )
    return rows


def _ledger_owed_at_end(audit: AuditState) -> int:
    """The players' markers receivable as of the day's end: their entries summed to that moment."""
    total = Entry.objects.filter(
        account__purpose=AccountPurpose.MARKERS,
        account__code__startswith=RECEIVABLE_PREFIX,
        created_at__lt=audit.end,
    ).aggregate(total=Sum("amount"))["total"]
    return int(total or 0)


def _check_against_ledger(
    audit: AuditState, rows: list[shape.CreditMarkerData], total: int, ledger_owed: int
) -> None:
    audit.check(
        "credit_vs_ledger",
        "What the markers say is owed equals the ledger's markers receivable",
        len(rows),
        0 if total == ledger_owed else 1,
    )
    if total != ledger_owed:
        audit.add(
            shape.finding(
                "credit_ledger_mismatch",
                "critical",
                f"The markers outstanding add up to {format_dollars(total)}; the ledger's markers "
                f"receivable holds {format_dollars(ledger_owed)}.",
                amount=total - ledger_owed,
                evidence={"markers": total, "ledger": ledger_owed},
            )
        )


def _past_deadline(audit: AuditState, rows: list[shape.CreditMarkerData]) -> None:
    for row in rows:
        if row["past_deadline"]:
            audit.add(
                shape.finding(
                    "marker_past_deadline",
                    "compliance",
                    f"Marker {row['number']} of {row['player_name']} still owes "
                    f"{format_dollars(row['outstanding'])} after {row['days']} days, past the "
                    f"{settings.MARKER_COLLECTION_DAYS}-day collection deadline.",
                    table=row["table"],
                    table_name=row["table_name"],
                    amount=row["outstanding"],
                    evidence={"marker": row["number"], "player": row["player"], "days": row["days"]},
                )
            )
