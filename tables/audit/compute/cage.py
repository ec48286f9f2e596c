"""The cage: cash in and out per player, CTR and MTL, and the day's cash flow hour by hour."""

from __future__ import annotations

from collections import defaultdict

from casino.money import format_dollars
from tables import sql
from tables.audit import report as shape
from tables.audit.compute.state import AuditState, sql_rows
from tables.ratings.selectors import day_hours


def section_cage(audit: AuditState) -> None:
    """Cash in and out per player: CTR above the daily threshold, an MTL entry per large transaction."""
    rows = sql_rows(sql.AUDIT_CAGE_CASH, [audit.day])
    mtl: list[shape.MtlEntryData] = []
    total_in = total_out = 0
    for account_id, transfer_id, kind, at, amount in rows:
        player_id = audit.wallet_player.get(account_id)
        if player_id is None:
            continue
        player = audit.players[player_id]
        cents = abs(int(amount))
        if kind == "buy_in":
            player.cash_in += cents
            total_in += cents
        else:
            player.cash_out += cents
            total_out += cents
        if cents > audit.mtl_threshold:
            mtl.append(
                {
                    "player": player_id,
                    "name": audit.player_names.get(player_id, ""),
                    "kind": kind,
                    "amount": cents,
                    "at": at.astimezone(audit.zone).isoformat(),
                    "transfer": transfer_id,
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
