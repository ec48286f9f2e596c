"""The cage: cash in and out per player, CTR and MTL, and the day's cash flow hour by hour."""

from __future__ import annotations

from collections import defaultdict

from casino.cash.models import CashDirection
from casino.cash.selectors import cash_transactions
from casino.money import format_dollars
from tables import sql
from tables.audit import report as shape
from tables.audit.compute.state import AuditState, sql_rows
from tables.ratings.selectors import day_hours

# casino.cash's directions as the kinds the report has always named them by
DIRECTION_KINDS: dict[str, str] = {CashDirection.IN: "buy_in", CashDirection.OUT: "cash_out"}


def section_cage(audit: AuditState) -> None:
    """Cash in and out per player: CTR above the daily threshold, and the day's MTL lines.

    Read from ``casino.cash``'s rows, the project's one definition of a cash transaction (the
    cage's buy-ins and cash-outs, cash buy-ins at tables, markers redeemed in cash): a line is an
    MTL entry as ``record_cash`` judged it when it was made.
    """
    rows = list(cash_transactions(day=audit.day).order_by("at", "pk"))
    mtl: list[shape.MtlEntryData] = []
    total_in = total_out = 0
    for line in rows:
        player = audit.players[line.player_id]
        kind = DIRECTION_KINDS[line.direction]
        if line.direction == CashDirection.IN:
            player.cash_in += line.amount
            total_in += line.amount
        else:
            player.cash_out += line.amount
            total_out += line.amount
        audit.player_names.setdefault(line.player_id, line.player.name)
        if line.mtl:
            mtl.append(
                {
                    "player": line.player_id,
                    "name": audit.player_names.get(line.player_id, ""),
                    "kind": kind,
                    "amount": line.amount,
                    "at": line.at.astimezone(audit.zone).isoformat(),
                    "transfer": line.transfer_id or 0,
                }
            )
    ctr: list[shape.CtrData] = []
    for player_id, player in sorted(audit.players.items()):
        totals = (("cash_in", player.cash_in), ("cash_out", player.cash_out))
        over = [(label, total) for label, total in totals if total > audit.ctr_threshold]
        if not over:
            continue
        name = audit.player_names.get(player_id, "")
        ctr.append(
            {
                "player": player_id,
                "name": name,
                "cash_in": player.cash_in,
                "cash_out": player.cash_out,
                "directions": [label for label, _ in over],
            }
        )
        audit.add(
            shape.finding(
                "ctr_required",
                "compliance",
                f"{name}: "
                + " and ".join(f"{label.replace('_', ' ')} {format_dollars(total)}" for label, total in over)
                + f" above the CTR threshold of {format_dollars(audit.ctr_threshold)}: "
                "a Currency Transaction Report is due.",
                player=player_id,
                amount=max(player.cash_in, player.cash_out),
                evidence={"cash_in": player.cash_in, "cash_out": player.cash_out},
            )
        )
    audit.cage = {
        "cash_in": total_in,
        "cash_out": total_out,
        "transactions": len(rows),
        "ctr": ctr,
        "mtl": mtl,
    }


def section_cash_flow(audit: AuditState) -> None:
    """The day hour by hour: buy-ins, cash-outs, fills and credits.

    The hours are the ratings' (``day_hours``): every real hour, so 23 or 25 of them on the nights
    the clocks change, each labelled with its casino wall-clock time (the repeated 01:00 twice).
    """
    begins = day_hours(audit.day)
    rows = sql_rows(sql.AUDIT_CASH_FLOW_BY_HOUR, [begins[0], audit.day])
    by_hour: dict[int, dict[str, int]] = defaultdict(dict)
    for index, kind, total in rows:
        by_hour[index][kind] = int(total)
    hours: list[shape.CashFlowHour] = []
    for index, begin in enumerate(begins):
        local = begin.astimezone(audit.zone)
        sums = by_hour.get(index, {})
        hours.append(
            {
                "hour": local.strftime("%H:00"),
                "start": local.isoformat(),
                "cash_in": sums.get("buy_in", 0),
                "cash_out": sums.get("cash_out", 0),
                "fills": sums.get("fill", 0),
                "credits": sums.get("credit", 0),
            }
        )
    audit.cash_flow = hours
