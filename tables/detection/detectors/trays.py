"""Fills, credits and counts: chips into and out of a tray that the game does not explain.

A fill is read when its chips reached the tray (the dealer and a pit boss signed for it), a
credit when the pit released it; its "approver" is who answered for it beside the requester
(``tables.selectors.approved_slips``: a fill's receiving pit boss, a credit's releasing one).

* ``fill_unexplained`` — a fill received while the tray still held at least
  ``DETECT_FILL_NEED_RATIO`` of the session's opening count: the table had not lost the
  chips the fill replaces. The tray's balance before the fill comes from the fill's own
  ledger entry (``balance_after - amount``). One alert per table and requester per day.
* ``fill_pair`` — the same requester and approver on at least ``DETECT_FILL_PAIR_MIN`` fills
  in ``DETECT_FILL_PAIR_DAYS`` days, and on at least ``DETECT_FILL_PAIR_SHARE`` of that
  requester's fills: two signatures that are always the same two people are one.
* ``credit_before_close`` — a credit of at least ``DETECT_CREDIT_CLOSE_MIN`` released after
  the table's last deal of the session and before its closing count.
* ``short_count`` — a closing count short of the ledger by more than ``DETECT_SHORT_COUNT``
  (the audit's variance threshold by default).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import TYPE_CHECKING, Any

from casino.money import format_dollars
from ledger.models import Entry
from tables.detection.base import Finding, Window, counted, minutes_words, threshold
from tables.models import Round, TableSession
from tables.selectors import approved_slips

if TYPE_CHECKING:
    from tables.selectors import CrossedSlips

KINDS = ("fill_unexplained", "fill_pair", "credit_before_close", "short_count")
# evidence that is cents, read in dollars on screens ("fills" is not: fill_pair counts them)
MONEY = frozenset({
    "total", "closing_inventory", "closing_ledger", "variance", "threshold", "win", "closing_variance",
    "amount", "tray_before", "opening",
})  # fmt: skip


def detect(window: Window) -> list[Finding]:
    findings = _unexplained_fills(window)
    findings += _fill_pairs(window)
    if not window.live:
        findings += _credits_before_close(window)
    findings += _short_counts(window)
    return findings


def _approved_fills(span: Window) -> CrossedSlips:
    """The fills received within ``span``, oldest first."""
    fills = approved_slips("fill")
    return fills.filter(decided_at__gte=span.start, decided_at__lt=span.end).order_by("pk")


def _session_at(table_id: int | None, moment: Any) -> TableSession | None:
    if table_id is None:  # a slip with no table (a fill or credit always has one)
        return None
    return (
        TableSession.objects.filter(table_id=table_id, opened_at__lte=moment).order_by("-opened_at").first()
    )


def _unexplained_fills(window: Window) -> list[Finding]:
    ratio = float(threshold("FILL_NEED_RATIO"))
    fills = list(_approved_fills(window).select_related("table"))
    after = dict(
        Entry.objects.filter(
            transfer_id__in=[f.tray_transfer_id for f in fills], account__purpose="tray", amount__gt=0
        ).values_list("transfer_id", "balance_after")
    )
    grouped: dict[tuple[int | None, int], list[dict[str, Any]]] = defaultdict(list)
    for fill in fills:
        session = _session_at(fill.table_id, fill.decided_at)
        if session is None or fill.tray_transfer_id not in after:
            continue
        before = after[fill.tray_transfer_id] - fill.amount
        opening = session.opening_inventory
        if opening <= 0 or before < ratio * opening:
            continue
        grouped[(fill.table_id, fill.requested_by_id)].append(
            {
                "fill": fill.pk,
                "number": fill.number,
                "transfer": fill.tray_transfer_id,
                "amount": fill.amount,
                "tray_before": before,
                "opening": opening,
                "tray_share_of_opening": round(before / opening, 3),
                "approved_by": fill.approved_by_id,
                "at": fill.decided_at.isoformat() if fill.decided_at else None,
            }
        )
    findings = []
    for (table_id, requester), rows in grouped.items():
        total = sum(r["amount"] for r in rows)
        findings.append(
            Finding(
                kind="fill_unexplained",
                severity="high" if len(rows) >= 2 else "medium",
                subject=f"table:{table_id}:requester:{requester}",
                summary=(
                    f"{counted(len(rows), 'fill')} of {format_dollars(total)} in all at table {table_id} "
                    f"while its tray held at least {ratio:.0%} of the opening count."
                ),
                evidence={
                    "fills": rows,
                    "total": total,
                    "requested_by": requester,
                    "ratio": ratio,
                },
                table_id=table_id,
                dealer_id=requester,
            )
        )
    return findings


def _fill_pairs(window: Window) -> list[Finding]:
    minimum = int(threshold("FILL_PAIR_MIN"))
    share_min = float(threshold("FILL_PAIR_SHARE"))
    wide = window.widened(int(threshold("FILL_PAIR_DAYS")))
    day_start = Window.for_day(window.day).start
    fills: list[dict[str, Any]] = [
        dict(row)
        for row in _approved_fills(wide).values(
            "pk", "table_id", "amount", "requested_by_id", "approved_by_id", "decided_at", "tray_transfer_id"
        )
    ]
    by_requester: Counter[int] = Counter(f["requested_by_id"] for f in fills)
    pairs: dict[tuple[int, int], list[dict[str, Any]]] = defaultdict(list)
    for fill in fills:
        pairs[(fill["requested_by_id"], fill["approved_by_id"])].append(fill)
    findings = []
    for (requester, approver), rows in pairs.items():
        share = len(rows) / by_requester[requester]
        if len(rows) < minimum or share < share_min:
            continue
        if not any(r["decided_at"] >= day_start for r in rows):
            continue  # nothing new today: the earlier day's alert covers it
        tables = Counter(r["table_id"] for r in rows)
        total = sum(r["amount"] for r in rows)
        findings.append(
            Finding(
                kind="fill_pair",
                severity="medium",
                subject=f"pair:{requester}:{approver}",
                summary=(
                    f"{len(rows)} fills ({format_dollars(total)}) requested by staff {requester} were all "
                    f"approved by staff {approver} ({share:.0%} of the requester's fills)."
                ),
                evidence={
                    "requested_by": requester,
                    "approved_by": approver,
                    "fills": len(rows),
                    "requester_fills": by_requester[requester],
                    "share": round(share, 3),
                    "total": total,
                    "days": int(threshold("FILL_PAIR_DAYS")),
                    "tables": sorted(tables),
                    "fill_list": [
                        {
                            "fill": r["pk"],
                            "table": r["table_id"],
                            "amount": r["amount"],
                            "transfer": r["tray_transfer_id"],
                            "at": r["decided_at"].isoformat(),
                        }
                        for r in rows[:100]
                    ],
                },
                table_id=tables.most_common(1)[0][0],
                dealer_id=requester,
            )
        )
    return findings


def _credits_before_close(window: Window) -> list[Finding]:
    minimum = int(threshold("CREDIT_CLOSE_MIN"))
    findings = []
    sessions = TableSession.objects.filter(closed_at__gte=window.start, closed_at__lt=window.end).order_by(
        "pk"
    )
    for session in sessions:
        if session.closed_at is None:  # closed in the window: never, but the type cannot know
            continue
        last_deal = (
            Round.objects.filter(table_id=session.table_id, started_at__lte=session.closed_at)
            .order_by("-started_at")
            .values_list("started_at", flat=True)
            .first()
        )
        credits = approved_slips("credit").filter(
            table_id=session.table_id,
            decided_at__gte=max(session.opened_at, last_deal) if last_deal else session.opened_at,
            decided_at__lte=session.closed_at,
            amount__gte=minimum,
        )
        for credit in credits.order_by("pk"):
            gap = (session.closed_at - credit.decided_at).total_seconds()
            findings.append(
                Finding(
                    kind="credit_before_close",
                    severity="medium",
                    subject=f"credit:{credit.pk}",
                    summary=(
                        f"A credit of {format_dollars(credit.amount)} left table {session.table_id} "
                        f"after its last deal, {minutes_words(gap)} before the closing count."
                    ),
                    evidence={
                        "credit": credit.pk,
                        "number": credit.number,
                        "transfer": credit.tray_transfer_id,
                        "amount": credit.amount,
                        "requested_by": credit.requested_by_id,
                        "approved_by": credit.approved_by_id,
                        "session": session.pk,
                        "last_deal_at": last_deal.isoformat() if last_deal else None,
                        "credit_at": credit.decided_at.isoformat(),
                        "closed_at": session.closed_at.isoformat(),
                        "seconds_before_close": round(gap),
                        "closing_variance": session.closing_variance,
                    },
                    table_id=session.table_id,
                    dealer_id=credit.requested_by_id,
                )
            )
    return findings


def _short_counts(window: Window) -> list[Finding]:
    limit = int(threshold("SHORT_COUNT"))
    findings = []
    for session in TableSession.objects.filter(
        closed_at__gte=window.start, closed_at__lt=window.end, closing_variance__lt=-limit
    ).order_by("pk"):
        short = -(session.closing_variance or 0)
        findings.append(
            Finding(
                kind="short_count",
                severity="high" if short > 4 * limit else "medium",
                subject=f"session:{session.pk}",
                summary=(
                    f"Table {session.table_id} closed {format_dollars(short)} short of the ledger "
                    f"(threshold {format_dollars(limit)})."
                ),
                evidence={
                    "session": session.pk,
                    "closing_inventory": session.closing_inventory,
                    "closing_ledger": session.closing_ledger,
                    "variance": session.closing_variance,
                    "threshold": limit,
                    "closed_by": session.closed_by_id,
                    "closed_at": session.closed_at.isoformat() if session.closed_at else None,
                    "fills": session.fills,
                    "credits": session.credits,
                    "win": session.win,
                },
                table_id=session.table_id,
                dealer_id=session.closed_by_id,
            )
        )
    return findings
