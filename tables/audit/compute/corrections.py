"""Corrections: every correction of the day's rounds, who asked, who decided, and what went back."""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.db.models import Q

from casino.selectors import staff_names
from tables import sql
from tables.audit import report as shape
from tables.audit.compute.state import AuditState, sql_rows
from tables.models import Correction, CorrectionStatus, RoundAction


def section_corrections(audit: AuditState) -> None:
    """Every correction of the day's rounds (or asked during the day): who asked, who decided, why.

    What it voided (the action numbers, or the whole round), the reversing transfers and the
    chips they moved back. One still pending at the close is a warning: its round is paused
    and the day closed on it.
    """
    round_ids = [r.pk for r in audit.rounds]
    corrections = list(
        Correction.objects.filter(
            Q(round_id__in=round_ids) | Q(requested_at__gte=audit.start, requested_at__lt=audit.end)
        )
        .select_related("round", "round__table")
        .order_by("requested_at", "pk")
    )
    if not corrections:
        return
    voided: dict[int, list[int]] = defaultdict(list)
    for correction_id, seq in (
        RoundAction.all_objects.filter(voided_by__in=corrections)
        .order_by("seq")
        .values_list("voided_by_id", "seq")
    ):
        voided[correction_id].append(seq)
    pending = [c for c in corrections if c.status == CorrectionStatus.PENDING]
    would_void: dict[int, list[int]] = defaultdict(list)  # round -> live seqs, for pending ones
    for round_id, seq in (
        RoundAction.objects.filter(round_id__in={c.round_id for c in pending})
        .order_by("seq")
        .values_list("round_id", "seq")
    ):
        would_void[round_id].append(seq)
    reversal_ids = {int(t) for c in corrections for t in (c.reversals or []) if isinstance(t, int)}
    moved = dict(sql_rows(sql.AUDIT_REVERSED_AMOUNTS, [sorted(reversal_ids)]))
    names = staff_names(
        {c.requested_by_id for c in corrections} | {c.decided_by_id for c in corrections if c.decided_by_id}
    )

    def local(moment: dt.datetime | None) -> str | None:
        return moment.astimezone(audit.zone).isoformat() if moment else None

    for correction in corrections:
        round_ = correction.round
        whole = correction.from_seq is None
        if correction.status == CorrectionStatus.PENDING:
            live = would_void.get(round_.pk, [])
            actions = live if whole else [seq for seq in live if seq >= (correction.from_seq or 0)]
        else:
            actions = voided.get(correction.pk, [])
        reversals = [int(t) for t in (correction.reversals or []) if isinstance(t, int)]
        row: shape.CorrectionData = {
            "id": correction.pk,
            "table": round_.table_id,
            "table_name": round_.table.name,
            "round": round_.pk,
            "round_number": round_.number,
            "whole_round": whole,
            "actions": actions,
            "voided": shape.voided_text(whole=whole, actions=actions),
            "reason": correction.reason,
            "status": correction.status,
            "requested_by": correction.requested_by_id,
            "requested_by_name": names.get(correction.requested_by_id, str(correction.requested_by_id)),
            "requested_at": local(correction.requested_at) or "",
            "decided_by": correction.decided_by_id,
            "decided_by_name": names.get(correction.decided_by_id) if correction.decided_by_id else None,
            "decided_at": local(correction.decided_at),
            "note": correction.note,
            "reversals": reversals,
            "amount_reversed": sum(int(moved.get(t, 0)) for t in reversals),
        }
        audit.corrections.append(row)
        if correction.status == CorrectionStatus.PENDING:
            audit.add(
                shape.finding(
                    "correction_pending",
                    "warning",
                    f"Correction still pending at the close: correction {correction.pk} of round "
                    f"{round_.number} at {round_.table.name} ({row['voided']}: {correction.reason}), "
                    f"asked by {row['requested_by_name']}, was never approved or refused.",
                    table=round_.table_id,
                    table_name=round_.table.name,
                    round=round_.pk,
                    evidence={"correction": correction.pk, "requested_at": row["requested_at"]},
                )
            )
