"""Betting-limit abuse: probing the maximum, and betting just under it across tables.

* ``limit_probing`` — a player with at least ``DETECT_LIMIT_REFUSALS`` bets refused over the
  table maximum (``limit_exceeded``, kept in ``RefusedAction``) in the gaming day.
* ``just_under_max`` — a player with at least ``DETECT_UNDER_MAX_MIN_BETS`` accepted bets
  of ``DETECT_UNDER_MAX_RATIO`` of the maximum or more but under it, at
  ``DETECT_UNDER_MAX_MIN_TABLES`` tables or more: the pattern of someone keeping each bet
  under a reporting or surveillance line. The maximum is the one the engine applied to the
  bet (``limits`` injected into the accepted action).
"""

from __future__ import annotations

from collections import Counter, defaultdict
from typing import Any

from casino.money import format_dollars
from tables.detection.base import Finding, Window, threshold
from tables.models import RefusedAction, RoundAction

KINDS = ("limit_probing", "just_under_max")
MONEY: frozenset[str] = frozenset()  # no evidence of these kinds is money
OVER_LIMIT_CODES = ("limit_exceeded",)


def detect(window: Window) -> list[Finding]:
    return _probing(window) + _under_max(window)


def _probing(window: Window) -> list[Finding]:
    minimum = int(threshold("LIMIT_REFUSALS"))
    refusals: dict[int, list[dict[str, Any]]] = defaultdict(list)
    for pk, player_id, table_id, round_id, payload, at in (
        RefusedAction.objects.filter(
            code__in=OVER_LIMIT_CODES, player__isnull=False, at__gte=window.start, at__lt=window.end
        )
        .order_by("pk")
        .values_list("pk", "player_id", "table_id", "round_id", "payload", "at")
    ):
        refusals[player_id].append(
            {
                "refused_action": pk,
                "table": table_id,
                "round": round_id,
                "amount": (payload or {}).get("amount"),
                "at": at.isoformat(),
            }
        )
    findings = []
    for player_id, attempts in refusals.items():
        if len(attempts) < minimum:
            continue
        tables = Counter(a["table"] for a in attempts)
        findings.append(
            Finding(
                kind="limit_probing",
                severity="medium" if len(attempts) < 2 * minimum else "high",
                subject=f"player:{player_id}",
                summary=f"Player {player_id} had {len(attempts)} bets refused over the table maximum.",
                evidence={
                    "refusals": len(attempts),
                    "tables": sorted(tables),
                    "threshold": minimum,
                    "attempts": attempts[:100],
                },
                table_id=tables.most_common(1)[0][0],
                player_id=player_id,
            )
        )
    return findings


def _under_max(window: Window) -> list[Finding]:
    ratio = float(threshold("UNDER_MAX_RATIO"))
    min_bets = int(threshold("UNDER_MAX_MIN_BETS"))
    min_tables = int(threshold("UNDER_MAX_MIN_TABLES"))
    near: dict[int, list[dict[str, Any]]] = defaultdict(list)
    bets: Counter[int] = Counter()
    actions = RoundAction.objects.filter(
        at__gte=window.start,
        at__lt=window.end,
        round__game="faro",
        payload__type__in=["bet", "call_turn"],
    ).order_by("pk")
    for pk, round_id, table_id, payload in actions.values_list(
        "pk", "round_id", "round__table_id", "payload"
    ).iterator(chunk_size=2000):
        player, amount = payload.get("player"), payload.get("amount")
        maximum = (payload.get("limits") or {}).get("max_bet")
        if not isinstance(player, int) or not isinstance(amount, int) or not isinstance(maximum, int):
            continue
        bets[player] += 1
        if ratio * maximum <= amount < maximum:
            near[player].append(
                {"action": pk, "round": round_id, "table": table_id, "amount": amount, "max_bet": maximum}
            )
    findings = []
    for player, rows in near.items():
        tables = Counter(r["table"] for r in rows)
        if len(rows) < min_bets or len(tables) < min_tables:
            continue
        findings.append(
            Finding(
                kind="just_under_max",
                severity="medium",
                subject=f"player:{player}",
                summary=(
                    f"Player {player} bet just under the maximum {len(rows)} times at "
                    f"{len(tables)} tables ({format_dollars(sum(r['amount'] for r in rows))})."
                ),
                evidence={
                    "bets_near_max": len(rows),
                    "bets": bets[player],
                    "share": round(len(rows) / bets[player], 3),
                    "ratio": ratio,
                    "tables": sorted(tables),
                    "bets_list": rows[:100],
                },
                table_id=tables.most_common(1)[0][0],
                player_id=player,
            )
        )
    return findings
