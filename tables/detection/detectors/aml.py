"""Anti-money-laundering patterns at the cage: structuring, chip walking, minimal play.

Cash transactions are ``casino.cash``'s rows (cash in: buy-ins at the cage and at tables, markers
redeemed in cash; cash out: the cage's cash-outs), by their gaming day; play is the ratings'
per-round handle and result (``RoundPlayerStat``). The CTR line
is ``CTR_THRESHOLD`` (a day's cash in or out *above* it is reported).

* ``structuring`` — at least ``DETECT_STRUCTURING_MIN_COUNT`` cash-ins (or cash-outs) each
  between ``DETECT_STRUCTURING_LOW`` of the CTR line and the line itself, within
  ``DETECT_STRUCTURING_DAYS`` gaming days ending with this one (one of them this day), at least
  ``DETECT_STRUCTURING_SPLIT_MIN`` of them on one gaming day: one day's cash in pieces, each under
  the line. A player who wins and cashes out everything once a night, just under the line two
  nights running, is not structuring (two such honest winners were flagged on the test seeds'
  half-rate week); the pieces of a day are.
* ``minimal_play_cash_out`` — cash-outs of at least ``DETECT_MINPLAY_MIN_CASH_OUT`` in the
  day against a handle of at most ``DETECT_MINPLAY_RATIO`` of them: cash turned into a
  casino payout with hardly any gaming.
* ``chip_walking`` — buy-ins of at least ``DETECT_WALK_MIN_BUY_IN``, a handle of at most
  ``DETECT_WALK_PLAY_RATIO`` of them, and at the end of the day at least
  ``DETECT_WALK_UNREDEEMED_RATIO`` of them neither lost at the tables nor cashed out at this
  cage: the chips left with the player, to be redeemed elsewhere or by someone else. Only
  once the day is over (not in live runs, when players still hold their chips).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings

from casino.cash.models import CashDirection
from casino.cash.selectors import cash_transactions_between
from casino.money import format_dollars
from tables.detection.base import Finding, Window, counted, threshold
from tables.detection.data import settled_rounds

KINDS = ("structuring", "minimal_play_cash_out", "chip_walking")
# evidence that is cents, read in dollars on screens
MONEY = frozenset({"ctr_threshold", "low", "cash_in", "cash_out", "handle", "result", "unredeemed"})
DIRECTIONS = {"buy_in": "cash_in", "cash_out": "cash_out"}
# casino.cash's directions as the kinds the evidence has always named them by
DIRECTION_KINDS: dict[str, str] = {CashDirection.IN: "buy_in", CashDirection.OUT: "cash_out"}


@dataclass
class Cash:
    transactions: list[dict[str, Any]] = field(default_factory=list)

    def of(self, kind: str, *, day: Any = None) -> list[dict[str, Any]]:
        return [t for t in self.transactions if t["kind"] == kind and (day is None or t["day"] == day)]

    def total(self, kind: str, *, day: Any = None) -> int:
        return sum(t["amount"] for t in self.of(kind, day=day))


def cash_by_player(window: Window) -> dict[int, Cash]:
    """Every player's cash transactions of the window's days: the rows ``casino.cash.record_cash``
    writes (the cage's buy-ins and cash-outs, cash buy-ins at tables, markers redeemed in cash),
    the one definition of cash in and cash out the MTL, the CTRs and the audit read too."""
    cash: dict[int, Cash] = defaultdict(Cash)
    rows = cash_transactions_between(first=window.first_day, last=window.day)
    for player, transfer_id, direction, amount, day, at, staff in rows.values_list(
        "player_id", "transfer_id", "direction", "amount", "gaming_day", "at", "by_id"
    ):
        cash[player].transactions.append(
            {
                "transfer": transfer_id,
                "kind": DIRECTION_KINDS[direction],
                "amount": int(amount),
                "day": day,
                "at": at.isoformat(),
                "staff": staff,
            }
        )
    return cash


def detect(window: Window) -> list[Finding]:
    wide = window.widened(int(threshold("STRUCTURING_DAYS")))
    cash = cash_by_player(wide)
    # each player's play in the day (a player who did not play reads zeros and no tables)
    play: dict[int, dict[str, Any]] = defaultdict(lambda: {"handle": 0, "result": 0, "tables": set()})
    for round_ in settled_rounds(window):
        for player, result in round_.results.items():
            row = play[player]
            row["handle"] += round_.handles.get(player, 0)
            row["result"] += result
            row["tables"].add(round_.table_id)
    findings = []
    for player, money in cash.items():
        found = [_structuring(window, player, money), _minimal_play(window, player, money, play[player])]
        if not window.live:  # players still hold their chips while the day is in progress
            found.append(_chip_walking(window, player, money, play[player]))
        findings += [finding for finding in found if finding is not None]
    return findings


def _json_days(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{**row, "day": row["day"].isoformat()} for row in rows]


def _structuring(window: Window, player: int, money: Cash) -> Finding | None:
    line = int(settings.CTR_THRESHOLD)
    low = float(threshold("STRUCTURING_LOW")) * line
    minimum = int(threshold("STRUCTURING_MIN_COUNT"))
    split_min = int(threshold("STRUCTURING_SPLIT_MIN"))
    flagged: dict[str, list[dict[str, Any]]] = {}
    split_days: set[Any] = set()
    for kind, direction in DIRECTIONS.items():
        near = [t for t in money.of(kind) if low <= t["amount"] <= line]
        per_day = Counter(t["day"] for t in near)
        split = {day for day, count in per_day.items() if count >= split_min}
        if len(near) >= minimum and split and window.day in per_day:
            flagged[direction] = near
            split_days |= split
    if not flagged:
        return None
    count = sum(len(rows) for rows in flagged.values())
    days = {t["day"] for rows in flagged.values() for t in rows}
    return Finding(
        kind="structuring",
        severity="high" if count >= 3 or len(days) > 1 else "medium",
        subject=f"player:{player}",
        summary=(
            f"Player {player}: {count} cash transactions just under the {format_dollars(line)} CTR line "
            f"({', '.join(f'{len(rows)} {d.replace("_", "-")}s' for d, rows in flagged.items())}) "
            f"over {counted(len(days), 'gaming day')}, in pieces on {len(split_days)} of them."
        ),
        evidence={
            "ctr_threshold": line,
            "low": round(low),
            "days": sorted(d.isoformat() for d in days),
            "split_days": sorted(d.isoformat() for d in split_days),
            **{
                direction: {
                    "count": len(rows),
                    "total": sum(t["amount"] for t in rows),
                    "transactions": _json_days(rows),
                }
                for direction, rows in flagged.items()
            },
            "daily_totals": {
                day.isoformat(): {
                    "cash_in": money.total("buy_in", day=day),
                    "cash_out": money.total("cash_out", day=day),
                }
                for day in sorted({t["day"] for t in money.transactions})
            },
        },
        player_id=player,
    )


def _minimal_play(window: Window, player: int, money: Cash, play: dict[str, Any]) -> Finding | None:
    cashed = money.total("cash_out", day=window.day)
    if cashed < int(threshold("MINPLAY_MIN_CASH_OUT")):
        return None
    handle: int = play["handle"]
    ratio = float(threshold("MINPLAY_RATIO"))
    if handle > ratio * cashed:
        return None
    return Finding(
        kind="minimal_play_cash_out",
        severity="medium",
        subject=f"player:{player}",
        summary=(
            f"Player {player} cashed out {format_dollars(cashed)} "
            f"after a handle of only {format_dollars(handle)}."
        ),
        evidence={
            "cash_out": cashed,
            "cash_in": money.total("buy_in", day=window.day),
            "handle": handle,
            "result": play["result"],
            "ratio": round(handle / cashed, 4),
            "threshold_ratio": ratio,
            "tables": sorted(play["tables"]),
            "transactions": _json_days(money.of("cash_out", day=window.day)),
        },
        player_id=player,
    )


def _chip_walking(window: Window, player: int, money: Cash, play: dict[str, Any]) -> Finding | None:
    bought = money.total("buy_in", day=window.day)
    if bought < int(threshold("WALK_MIN_BUY_IN")):
        return None
    handle: int = play["handle"]
    result: int = play["result"]
    if handle > float(threshold("WALK_PLAY_RATIO")) * bought:
        return None
    cashed = money.total("cash_out", day=window.day)
    unredeemed = bought + result - cashed
    if unredeemed < float(threshold("WALK_UNREDEEMED_RATIO")) * bought:
        return None
    return Finding(
        kind="chip_walking",
        severity="high",
        subject=f"player:{player}",
        summary=(
            f"Player {player} bought {format_dollars(bought)} in chips, "
            f"played {format_dollars(handle)} and left with "
            f"{format_dollars(unredeemed)} not cashed out here."
        ),
        evidence={
            "cash_in": bought,
            "handle": handle,
            "result": result,
            "cash_out": cashed,
            "unredeemed": unredeemed,
            "tables": sorted(play["tables"]),
            "transactions": _json_days(money.of("buy_in", day=window.day)),
        },
        player_id=player,
    )
