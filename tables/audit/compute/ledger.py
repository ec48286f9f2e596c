"""Ledger checks: trial balance, zero-sum transfers, stored balances, settlements and reversals.

Each recomputes from the entries what the ledger stores or promises, so a row changed behind
the ledger's back shows up as a critical finding.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.utils import timezone

from casino.money import format_dollars
from ledger.models import Transfer
from ledger.selectors import get_trial_balance
from tables import sql
from tables.audit import report as shape
from tables.audit.compute.state import MAX_FINDINGS_PER_KIND, AuditState, sql_rows


def section_trial_balance(audit: AuditState) -> None:
    """Total debits = total credits, balances sum to 0, summed from the entries themselves.

    As of the day's end (or now, after an early close): from entries rather than the stored
    account totals, so an entry changed behind the ledger's back unbalances it.
    """
    trial = get_trial_balance(as_of=audit.as_of or timezone.now())
    groups: dict[str, shape.PurposeBalance] = {}
    for row in trial.rows:
        group = groups.setdefault(
            row.purpose, {"purpose": row.purpose, "accounts": 0, "debits": 0, "credits": 0, "balance": 0}
        )
        group["accounts"] += 1
        group["debits"] += row.debits
        group["credits"] += row.credits
        group["balance"] += row.balance
    balances = sum(row.balance for row in trial.rows)
    audit.trial_balance = {
        "as_of": (audit.as_of or timezone.now()).isoformat(),
        "total_debits": trial.total_debits,
        "total_credits": trial.total_credits,
        "sum_of_balances": balances,
        "balanced": trial.balanced,
        "by_purpose": sorted(groups.values(), key=lambda g: g["purpose"]),
    }
    audit.check(
        "trial_balance",
        "Trial balance: debits = credits, balances sum to 0",
        len(trial.rows),
        0 if trial.balanced else 1,
    )
    if not trial.balanced:
        audit.add(
            shape.finding(
                "trial_balance_unbalanced",
                "critical",
                f"The trial balance does not balance: debits {format_dollars(trial.total_debits)}, "
                f"credits {format_dollars(trial.total_credits)}, balances sum to {format_dollars(balances)}.",
                amount=trial.total_credits - trial.total_debits,
                evidence={
                    "total_debits": trial.total_debits,
                    "total_credits": trial.total_credits,
                    "sum": balances,
                },
            )
        )


def section_zero_sum(audit: AuditState) -> None:
    """Every transfer of the day has two or more entries summing to 0 (the trigger's rule, rechecked)."""
    checked = sql_rows(sql.AUDIT_TRANSFERS_OF_DAY, [audit.day])[0][0]
    bad = sql_rows(sql.AUDIT_UNBALANCED_TRANSFERS, [audit.day])
    audit.check("zero_sum", "Every transfer's entries sum to 0", int(checked), len(bad))
    for transfer_id, key, kind, total, entries, table_ref, round_ref in bad:
        table_id = int(table_ref) if table_ref else None
        audit.add(
            shape.finding(
                "transfer_not_zero_sum",
                "critical",
                f"Transfer {transfer_id} ({kind}, key {key}) has {entries} entries summing to "
                f"{format_dollars(int(total))}, not $0.00.",
                table=table_id,
                table_name=audit.table_name(table_id),
                round=int(round_ref) if round_ref else None,
                transfer=transfer_id,
                amount=int(total),
                evidence={"key": key, "kind": kind, "entries": int(entries), "sum": int(total)},
            )
        )


def section_account_balances(audit: AuditState) -> None:
    """Every account touched in the day: stored balance and totals equal the sum of its entries."""
    rows = sql_rows(sql.AUDIT_ACCOUNT_SUMS, [audit.day])
    bad = [r for r in rows if (r[2], r[3], r[4]) != (r[5], r[6], r[7])]
    audit.check("account_balances", "Stored balances equal the sum of their entries", len(rows), len(bad))
    for _pk, code, balance, debits, credits, e_balance, e_debits, e_credits in bad:
        audit.add(
            shape.finding(
                "account_balance_mismatch",
                "critical",
                f"Account {code} stores a balance of {format_dollars(balance)}; its entries sum to "
                f"{format_dollars(int(e_balance))}.",
                amount=int(balance) - int(e_balance),
                evidence={
                    "account": code,
                    "stored": {"balance": balance, "debits": debits, "credits": credits},
                    "entries": {
                        "balance": int(e_balance),
                        "debits": int(e_debits),
                        "credits": int(e_credits),
                    },
                },
            )
        )


def section_settlements_vs_ledger(audit: AuditState) -> None:
    """Each round transfer's entries are exactly its RoundSettlement rows' debits and credits.

    Compared per transfer as (count, sum of a hash of each (account, signed amount)), which
    needs no sort of the day's entries; only the transfers that differ are fetched leg by leg.
    A settlement row a correction voided still describes its original transfer, so it takes
    part like any other; the correction's reversal (kind ``reversal``, ``reverses`` a round
    transfer) has no settlement rows and is checked by ``_check_reversals`` instead, and so has
    a closing's split of an unwon pot (``tables.pots``: kind ``pot_split`` with the ``session``
    it closed; it names the pot's last round, but no round action made it).
    """
    rows = sql_rows(sql.AUDIT_SETTLEMENTS_VS_LEDGER, [audit.day, audit.day, audit.day])
    reversals_checked, reversal_problems = _check_reversals(audit)
    bad = sorted(transfer_id for transfer_id, same in rows if not same)
    audit.check(
        "settlements_vs_ledger",
        "Round settlements equal their ledger legs; corrections reverse exactly what they voided",
        len(rows) + reversals_checked,
        len(bad) + reversal_problems,
    )
    if not bad:
        return
    details = sql_rows(
        sql.AUDIT_SETTLEMENT_DIFFERENCES, [bad[:MAX_FINDINGS_PER_KIND], bad[:MAX_FINDINGS_PER_KIND]]
    )
    diffs: dict[int, list[tuple[Any, ...]]] = defaultdict(list)
    for transfer_id, side, payer, payee, amount in details:
        diffs[transfer_id].append((side, payer, payee, amount))
    metas = dict(Transfer.objects.filter(pk__in=bad).values_list("pk", "meta"))
    for transfer_id in bad:
        meta = metas.get(transfer_id) or {}
        table_id = meta.get("table") if isinstance(meta.get("table"), int) else None
        found = diffs.get(transfer_id, [])
        audit.add(
            shape.finding(
                "settlement_ledger_mismatch",
                "critical",
                f"Transfer {transfer_id}'s ledger entries differ from the round's settlement rows.",
                table=table_id,
                table_name=audit.table_name(table_id),
                round=meta.get("round") if isinstance(meta.get("round"), int) else None,
                transfer=transfer_id,
                evidence={
                    "only_in_ledger": [list(d[1:]) for d in found if d[0] == "ledger"],
                    "only_in_settlements": [list(d[1:]) for d in found if d[0] == "settlement"],
                },
            )
        )


def _check_reversals(audit: AuditState) -> tuple[int, int]:
    """The day's reversals of round transfers, and the day's voided settlement rows.

    Each reversal must be the exact mirror of the transfer it reverses (same accounts, every
    amount negated), and that transfer's settlement rows must all be voided: the money came
    back, so the round must no longer count it. Conversely a voided settlement row whose
    transfer no transfer reverses left the money where it was. Returns (checked, failed).
    """
    reversals = sql_rows(sql.AUDIT_REVERSALS, [audit.day])
    unreversed = sql_rows(sql.AUDIT_UNREVERSED_VOIDS, [audit.day])
    failed = 0
    for transfer_id, original, table_ref, round_ref, mirror, rows, live in reversals:
        problems = []
        if not mirror:
            problems.append(f"is not the exact mirror of transfer {original}")
        if not rows:
            problems.append(f"reverses transfer {original}, which has no round settlement rows")
        elif live:
            problems.append(
                f"reverses transfer {original}, but {live} of its {rows} settlement rows are not voided"
            )
        if not problems:
            continue
        failed += 1
        table_id = int(table_ref) if table_ref and table_ref.isdigit() else None
        audit.add(
            shape.finding(
                "reversal_mismatch",
                "critical",
                f"Reversal {transfer_id} " + "; ".join(problems) + ".",
                table=table_id,
                table_name=audit.table_name(table_id),
                round=int(round_ref) if round_ref and round_ref.isdigit() else None,
                transfer=transfer_id,
                evidence={"reverses": original, "mirror": bool(mirror), "rows": rows, "live_rows": live},
            )
        )
    for transfer_id, round_id, correction_id, table_id in unreversed:
        failed += 1
        audit.add(
            shape.finding(
                "reversal_mismatch",
                "critical",
                f"Transfer {transfer_id}'s settlement rows were voided by correction {correction_id}, "
                "but no transfer reverses it: the chips never went back.",
                table=table_id,
                table_name=audit.table_name(table_id),
                round=round_id,
                transfer=transfer_id,
                evidence={"correction": correction_id},
            )
        )
    return len(reversals) + len(unreversed), failed
