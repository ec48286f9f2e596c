"""Reads of cash compliance: a player's day, the multiple-transaction log, the CTRs, refusals.

Everything here reads the rows ``record_cash`` writes, the project's one definition of cash in
and cash out (the structuring detector and the audit's "Cash reporting" read them too).
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict
from dataclasses import dataclass
from typing import Any

from django.db.models import Exists, OuterRef, Q, QuerySet

from casino.cash.models import CashDay, CashDirection, CashRefusal, CashTransaction, Identification
from casino.cash.services import ctr_line, mtl_line
from casino.models import Player


@dataclass(frozen=True, slots=True)
class CashToday:
    """One player's cash in and cash out on a gaming day (cents), and whether an ID is on file."""

    cash_in: int = 0
    cash_out: int = 0
    identified: bool = False


def cash_days_of(*, player_ids: list[int], day: dt.date) -> dict[int, CashToday]:
    """Each player's cash day, in one query for them all (the pit's seats, the cage's panel).

    A player without a row that day has nothing in or out; every asked player is in the answer.
    """
    if not player_ids:
        return {}
    ids_on_file = Identification.objects.filter(player_id=OuterRef("pk"))
    days = CashDay.objects.filter(player_id=OuterRef("pk"), gaming_day=day)
    rows = Player.objects.filter(pk__in=player_ids).annotate(
        identified=Exists(ids_on_file),
        day_in=days.values("cash_in")[:1],
        day_out=days.values("cash_out")[:1],
    )
    answer = {pk: CashToday() for pk in player_ids}
    for pk, identified, cash_in, cash_out in rows.values_list("pk", "identified", "day_in", "day_out"):
        answer[pk] = CashToday(int(cash_in or 0), int(cash_out or 0), bool(identified))
    return answer


def day_totals(*, player_id: int, day: dt.date) -> tuple[int, int]:
    """The player's cash in and cash out on ``day``, in cents."""
    row = (
        CashDay.objects.filter(player_id=player_id, gaming_day=day).values_list("cash_in", "cash_out").first()
    )
    return (int(row[0]), int(row[1])) if row else (0, 0)


def identification_on_file(*, player_id: int) -> Identification | None:
    """The newest identification recorded for the player, or None."""
    return (
        Identification.objects.filter(player_id=player_id)
        .select_related("recorded_by")
        .order_by("-at")
        .first()
    )


def cash_transactions(*, day: dt.date, player_id: int | None = None) -> QuerySet[CashTransaction]:
    rows = CashTransaction.objects.filter(gaming_day=day).select_related("player__user", "by")
    return rows.filter(player_id=player_id) if player_id is not None else rows


def cash_transactions_between(*, first: dt.date, last: dt.date) -> QuerySet[CashTransaction]:
    """Every cash transaction of the gaming days ``first`` to ``last``, oldest first."""
    return CashTransaction.objects.filter(gaming_day__gte=first, gaming_day__lte=last).order_by("at", "pk")


def cash_activity(*, player: Player, day: dt.date) -> dict[str, Any]:
    """What GET /players/{id}/cash-activity answers, and what the cage's player panel shows."""
    today = cash_days_of(player_ids=[player.pk], day=day)[player.pk]
    entries = cash_transactions(day=day, player_id=player.pk).order_by("at", "pk")
    return {
        "player": player.pk,
        "name": player.name,
        "gaming_day": day,
        "cash_in": today.cash_in,
        "cash_out": today.cash_out,
        "mtl_threshold": mtl_line(),
        "ctr_threshold": ctr_line(),
        "identification_on_file": today.identified,
        "entries": list(entries),
    }


def list_mtl(*, day: dt.date) -> QuerySet[CashTransaction]:
    """The day's multiple-transaction-log lines (each ``mtl`` cash transaction)."""
    return cash_transactions(day=day).filter(mtl=True)


def list_ctrs(*, day: dt.date) -> list[dict[str, Any]]:
    """The day's currency transaction reports: one per player whose cash in or out passed the line.

    Each carries what FinCEN form 112 asks of the casino: the person and their identification
    (part I), the totals in and out and the transactions behind them (part II).
    """
    line = ctr_line()
    days = list(
        CashDay.objects.filter(Q(cash_in__gt=line) | Q(cash_out__gt=line), gaming_day=day)
        .select_related("player__user")
        .order_by("player_id")
    )
    players = [row.player_id for row in days]
    lines: dict[int, list[CashTransaction]] = defaultdict(list)
    for cash in (
        CashTransaction.objects.filter(gaming_day=day, player_id__in=players)
        .select_related("by")
        .order_by("at", "pk")
    ):
        lines[cash.player_id].append(cash)
    ids: dict[int, Identification] = {}
    for identification in Identification.objects.filter(player_id__in=players).order_by("player_id", "-at"):
        ids.setdefault(identification.player_id, identification)
    reports = []
    for row in days:
        directions = [
            name for name, total in (("cash_in", row.cash_in), ("cash_out", row.cash_out)) if total > line
        ]
        wanted = {CashDirection.IN if name == "cash_in" else CashDirection.OUT for name in directions}
        reports.append(
            {
                "player": row.player_id,
                "name": row.player.name,
                "gaming_day": day,
                "identification": ids.get(row.player_id),
                "cash_in": row.cash_in,
                "cash_out": row.cash_out,
                "directions": directions,
                "transactions": [cash for cash in lines[row.player_id] if cash.direction in wanted],
            }
        )
    return reports


def list_refusals(*, day: dt.date) -> QuerySet[CashRefusal]:
    """Cash transactions refused on ``day`` for want of identification."""
    return (
        CashRefusal.objects.filter(gaming_day=day).select_related("player__user", "by").order_by("at", "pk")
    )
