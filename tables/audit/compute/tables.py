"""Tables: the count against the ledger, table by table.

Sessions give the count (the first opening, the last closing), fill and credit slips the fills
and credits (as they crossed a tray: ``tray_slips_of_day``), the tray's postings by kind the
ledger's side, the rake account the rake. The win by the count is checked against the ledger's
house-win postings and each variance is flagged.
"""

from __future__ import annotations

import datetime as dt

from casino.money import format_dollars
from tables import sql
from tables.audit import report as shape
from tables.audit.compute.state import AuditState, TableAcc, add_tables, sql_rows
from tables.audit.compute.win_data import CASH_BUY_IN, MARKER, NOT_PLAY
from tables.models import (
    RoundStatus,
    Table,
    TableSession,
    TrayRequest,
    TrayRequestStatus,
    table_win,
)
from tables.slips.effects import CREDIT, CREDIT_RETURN, FILL
from tables.slips.models import Slip, SlipKind

# Tray postings that are not play: the rest (bets lost, wins paid, splits …) is the house's win.
# Chips sold for cash at the table and lent on markers leave the tray for the drop box.
NON_PLAY_TRAY_KINDS = NOT_PLAY


def tray_slips_of_day(day: dt.date) -> list[tuple[int, str, int]]:
    """``(table, kind, amount)`` of every slip movement across a tray on ``day``: fills received,
    credits released, and (negative) credits voided in transit whose chips came back. So a
    credit released one day and voided the next counts on both, as the tray's postings do.
    Fills and credits approved in one step before slips (``TrayRequest``) are read as well.
    """
    rows: list[tuple[int, str, int]] = list(
        Slip.objects.filter(kind=SlipKind.FILL, receipt_transfer__gaming_day=day).values_list(
            "table_id", "kind", "amount"
        )
    )
    rows += Slip.objects.filter(kind=SlipKind.CREDIT, issue_transfer__gaming_day=day).values_list(
        "table_id", "kind", "amount"
    )
    rows += [
        (table_id, kind, -amount)
        for table_id, kind, amount in Slip.objects.filter(
            kind=SlipKind.CREDIT, return_transfer__gaming_day=day
        ).values_list("table_id", "kind", "amount")
    ]
    rows += TrayRequest.objects.filter(
        status=TrayRequestStatus.APPROVED, transfer__gaming_day=day
    ).values_list("table_id", "kind", "amount")
    return rows


def section_tables(audit: AuditState) -> None:
    """Sessions (the count), tray postings by kind (the ledger), slips, rake."""
    sessions = list(
        TableSession.objects.filter(opened_at__gte=audit.start, opened_at__lt=audit.end).order_by(
            "opened_at", "pk"
        )
    )
    tray_rows = sql_rows(sql.AUDIT_TRAY_POSTINGS, [audit.day])
    rake_rows = sql_rows(sql.AUDIT_RAKE_BY_TABLE, [audit.day])
    slips = tray_slips_of_day(audit.day)
    tray_table = dict(
        Table.objects.filter(tray_id__in={r[0] for r in tray_rows}).values_list("tray_id", "pk")
    )
    table_ids = (
        {s.table_id for s in sessions}
        | set(tray_table.values())
        | {int(t) for t, _ in rake_rows if t is not None}
        | {table_id for table_id, _, _ in slips}
        | {r.table_id for r in audit.rounds}
    )
    add_tables(audit, table_ids)
    for session in sessions:
        audit.tables[session.table_id].sessions.append(session)
    for account_id, kind, total in tray_rows:
        acc = audit.tables[tray_table[account_id]]
        acc.tray_by_kind[kind] = acc.tray_by_kind.get(kind, 0) + int(total)
    for table_ref, total in rake_rows:
        if table_ref is None:
            audit.add(
                shape.finding(
                    "rake_without_table",
                    "warning",
                    "Rake was posted with no table in its metadata.",
                    amount=int(total),
                )
            )
            continue
        audit.tables[int(table_ref)].rake += int(total)
    for table_id, kind, amount in slips:
        acc = audit.tables[table_id]
        if kind == SlipKind.FILL:
            acc.slip_fills += amount
        else:
            acc.slip_credits += amount
    for round_ in audit.rounds:
        if round_.status != RoundStatus.VOID:  # a misdeal voided whole was never played
            audit.tables[round_.table_id].rounds += 1


def finish_tables(audit: AuditState) -> None:
    """Win from the count, checked against the ledger's house-win postings; variances flagged."""
    for acc in sorted(audit.tables.values(), key=lambda a: a.table.name):
        table = acc.table
        sessions = acc.sessions
        ledger_win = sum(v for k, v in acc.tray_by_kind.items() if k not in NON_PLAY_TRAY_KINDS)
        ledger_fills = acc.tray_by_kind.get(FILL, 0)
        ledger_credits = -(acc.tray_by_kind.get(CREDIT, 0) + acc.tray_by_kind.get(CREDIT_RETURN, 0))
        if (ledger_fills, ledger_credits) != (acc.slip_fills, acc.slip_credits):
            audit.add(
                shape.finding(
                    "slips_ledger_mismatch",
                    "critical",
                    f"{table.name}: fill and credit slips show fills {format_dollars(acc.slip_fills)} and "
                    f"credits {format_dollars(acc.slip_credits)}, the tray's postings "
                    f"{format_dollars(ledger_fills)} and {format_dollars(ledger_credits)}.",
                    table=table.pk,
                    table_name=table.name,
                    evidence={
                        "slips": [acc.slip_fills, acc.slip_credits],
                        "ledger": [ledger_fills, ledger_credits],
                    },
                )
            )
        for index, session in enumerate(sessions):
            # The first opening's variance is yesterday's closer against today's opener: listed
            # when non-zero, but it is not part of today's win.
            if index > 0 or session.opening_variance:
                _record_variance(
                    audit, acc, session, "opening", session.opening_inventory, session.opening_ledger
                )
            if session.closed_at is not None:
                _record_variance(
                    audit, acc, session, "closing", session.closing_inventory, session.closing_ledger
                )
        if not sessions and (ledger_win or acc.rounds):
            audit.add(
                shape.finding(
                    "uncounted_table",
                    "warning",
                    f"{table.name} has play in the ledger but no session (no count) opened in the day.",
                    table=table.pk,
                    table_name=table.name,
                    amount=ledger_win,
                )
            )
        open_session = next((s for s in sessions if s.closed_at is None), None)
        if open_session is not None:
            audit.add(
                shape.finding(
                    "table_open",
                    "warning",
                    f"{table.name} was still open at the close: its closer is the tray's ledger balance, "
                    "not a count.",
                    table=table.pk,
                    table_name=table.name,
                )
            )
        audit.table_rows.append(_table_row(audit, acc, ledger_win))


def _record_variance(
    audit: AuditState,
    acc: TableAcc,
    session: TableSession,
    stage: str,
    counted: int | None,
    ledger: int | None,
) -> None:
    amount = (session.opening_variance if stage == "opening" else session.closing_variance) or 0
    flagged = abs(amount) > audit.variance_threshold
    audit.variances.append(
        {
            "table": acc.table.pk,
            "table_name": acc.table.name,
            "session": session.pk,
            "stage": stage,
            "counted": counted,
            "ledger": ledger,
            "amount": amount,
            "flagged": flagged,
        }
    )


def _table_row(audit: AuditState, acc: TableAcc, ledger_win: int) -> shape.TableData:
    table = acc.table
    sessions = acc.sessions
    opener = sessions[0].opening_inventory if sessions else None
    last = sessions[-1] if sessions else None
    is_open = last is not None and last.closed_at is None
    if last is None:
        closer = None
    elif is_open:
        closer = int(Table.objects.filter(pk=table.pk).values_list("tray__balance", flat=True).get())
    else:
        closer = last.closing_inventory
    win = (
        table_win(opener=opener, closer=closer, fills=acc.slip_fills, credits=acc.slip_credits)
        if opener is not None and closer is not None
        else None
    )
    # Chips that left the tray for the drop (sold for cash, lent on markers) are in the count's
    # win but not in play: the drop pays for them (win and hold, tables.audit.compute.win).
    to_drop = acc.tray_by_kind.get(CASH_BUY_IN, 0) + acc.tray_by_kind.get(MARKER, 0)
    variance = win - ledger_win - to_drop if win is not None else None
    recorded = sum((s.closing_variance or 0) for s in sessions) + sum(
        s.opening_variance for s in sessions[1:]
    )
    flagged = variance is not None and abs(variance) > audit.variance_threshold
    if flagged and variance is not None:
        audit.add(
            shape.finding(
                "count_variance",
                "warning",
                f"{table.name}: the count's win {format_dollars(win)} differs from the ledger's "
                f"{format_dollars(ledger_win)} by {format_dollars(variance)} "
                f"(threshold {format_dollars(audit.variance_threshold)}).",
                table=table.pk,
                table_name=table.name,
                amount=variance,
                evidence={"win": win, "ledger_win": ledger_win, "recorded_variance": recorded},
            )
        )
    if variance is not None and variance != recorded:
        audit.add(
            shape.finding(
                "variance_unexplained",
                "critical",
                f"{table.name}: count and ledger differ by {format_dollars(variance)}, but the sessions "
                f"recorded {format_dollars(recorded)} of count variances.",
                table=table.pk,
                table_name=table.name,
                amount=variance - recorded,
                evidence={"variance": variance, "recorded_variance": recorded},
            )
        )
    # The house's win from play is the rounds' (README "Handle, win, theo, decisions"), as the pit
    # and the ratings show it; the count's win above is checked against the ledger, not used here.
    house_win = acc.win
    theo = round(acc.theo) if table.game == "faro" else None
    return {
        "id": table.pk,
        "name": table.name,
        "game": table.game,
        # The card room's result-keyed tables name the game they deal (Gops, Old Maid …).
        "variant": _variant_name(table),
        "sessions": len(sessions),
        "open": is_open,
        "opener": opener,
        "closer": closer,
        "fills": acc.slip_fills,
        "credits": acc.slip_credits,
        "win": win,
        "ledger_win": ledger_win,
        "variance": variance,
        "recorded_variance": recorded,
        "variance_flagged": flagged,
        "rake": acc.rake,
        "house_win": house_win,
        "handle": acc.handle,
        "hold_pct": shape.pct(house_win, acc.handle),
        "theo": theo,
        "theo_hold_pct": shape.pct(acc.theo, acc.handle) if theo is not None else None,
        "theo_band": shape.band(acc.theo, acc.theo_var, acc.handle)
        if theo is not None
        else {"low_pct": None, "high_pct": None},
        "rounds": acc.rounds,
        "bets": acc.bets,
    }


def _variant_name(table: Table) -> str | None:
    """Display name of a stakes table's ``rules.variant``; None for the engine games."""
    if table.game != "stakes":
        return None
    from tables.games.stakes import VARIANTS

    key = str((table.rules or {}).get("variant", ""))
    return VARIANTS[key][0] if key in VARIANTS else key or None
