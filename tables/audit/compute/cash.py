"""Cash reporting (Title 31, 31 CFR 1021.313): the day's MTL lines, the CTRs due, the refusals.

Read from ``casino.cash``, the rows every cash transaction writes as it is made; the MTL flag is
what ``record_cash`` judged then. A CTR carries the identification on file (FinCEN form 112's part
I); a CTR due with none on file is a critical finding (a transaction past the line should have
been refused), and each refusal is listed: it moved nothing, and its row outlived its rollback.
"""

from __future__ import annotations

from casino.cash.selectors import list_ctrs, list_mtl, list_refusals
from casino.money import format_dollars
from tables.audit import report as shape
from tables.audit.compute.state import AuditState


def section_cash_reporting(audit: AuditState) -> None:
    mtl: list[shape.CashLineData] = [
        {
            "player": line.player_id,
            "name": line.player.name,
            "kind": line.kind,
            "direction": line.direction,
            "amount": line.amount,
            "where": line.where,
            "by": line.by.name or line.by.username,
            "at": line.at.astimezone(audit.zone).isoformat(),
            "transfer": line.transfer_id,
        }
        for line in list_mtl(day=audit.day).order_by("at", "pk")
    ]
    ctrs: list[shape.CashCtrData] = []
    for report in list_ctrs(day=audit.day):
        ident = report["identification"]
        ctrs.append(
            {
                "player": report["player"],
                "name": report["name"],
                "cash_in": report["cash_in"],
                "cash_out": report["cash_out"],
                "directions": report["directions"],
                "transactions": len(report["transactions"]),
                "id_kind": ident.get_kind_display() if ident else "",
                "id_number": ident.number if ident else "",
                "id_issued_by": ident.issued_by if ident else "",
                "id_name": ident.name if ident else "",
                "birth_date": ident.birth_date.isoformat() if ident else "",
                "address": ident.address if ident else "",
            }
        )
        if ident is None:
            audit.add(
                shape.finding(
                    "ctr_without_identification",
                    "critical",
                    f"{report['name']}: cash past {format_dollars(audit.ctr_threshold)} with no "
                    "identification on file; the CTR cannot be filed as it stands.",
                    player=report["player"],
                    amount=max(report["cash_in"], report["cash_out"]),
                )
            )
    refused: list[shape.CashRefusalData] = [
        {
            "player": refusal.player_id,
            "name": refusal.player.name,
            "kind": refusal.kind,
            "amount": refusal.amount,
            "day_total": refusal.day_total,
            "where": refusal.where,
            "by": refusal.by.name or refusal.by.username,
            "at": refusal.at.astimezone(audit.zone).isoformat(),
        }
        for refusal in list_refusals(day=audit.day)
    ]
    audit.cash_reporting = {"mtl": mtl, "ctrs": ctrs, "refused": refused}
