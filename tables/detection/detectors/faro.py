"""Faro dealing integrity: splits against a fair deck, and casekeeper states no deck can give.

A fair 52-card deal has 25 two-card decisions (24 turns and the last turn; the soda and the
hock settle nothing), each a split with probability 3/51 = 1/17: 25/17 = 1.47 splits per
deal. The per-deal standard deviation, 1.19, was measured over 400,000 shuffles (the pairs
of one deck are not independent, so it is a little under the binomial's 1.18 … 1.21); the
tail of one deal is P(>= 6) = 0.0032, P(>= 7) = 0.0006, P(>= 8) = 0.00008.

* ``faro_split_rate`` — a dealer's splits over the window's deals, as a z-score against
  ``n x 25/17`` with sd ``1.19 x sqrt(n)``; a dealer who stacks the deck (splits take half
  of every bet on the rank) stands out after a handful of deals.
* ``faro_split_deal`` — one deal with ``DETECT_SPLIT_DEAL_MIN`` splits or more.
* ``faro_impossible_state`` — a manual-shoe round whose casekeeper or keyed cards show a
  rank dealt more than four times (or a card twice): the engine refuses such cards, so this
  means the stored round was changed behind its back.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from typing import Any

from tables.detection.base import Finding, Window, threshold
from tables.detection.stats import normal_upper, rounded
from tables.games.cards import RANKS
from tables.models import Round, RoundStatus, ShoeKind

KINDS = ("faro_split_rate", "faro_split_deal", "faro_impossible_state")
FAIR_SPLITS_PER_DEAL = 25 / 17
FAIR_SPLITS_SD = 1.19
DECISIONS_PER_DEAL = 25
CARDS_PER_RANK = 4


def _splits(state: dict[str, Any]) -> tuple[int, list[int]] | None:
    """(splits, the turn numbers that split) of a completed deal; None if it was not dealt out."""
    turns = state.get("turns") or []
    if len(turns) != DECISIONS_PER_DEAL:
        return None
    numbers = [int(turn.get("number", i + 1)) for i, turn in enumerate(turns) if turn.get("split")]
    return len(numbers), numbers


def detect(window: Window) -> list[Finding]:
    findings = _split_findings(window)
    findings += _impossible_states(window)
    return findings


def _split_findings(window: Window) -> list[Finding]:
    deal_min = int(threshold("SPLIT_DEAL_MIN"))
    z_min = float(threshold("SPLIT_Z"))
    min_deals = int(threshold("SPLIT_MIN_DEALS"))
    findings: list[Finding] = []
    per_dealer: dict[int, list[dict[str, Any]]] = defaultdict(list)
    rounds = Round.objects.filter(
        game="faro", status=RoundStatus.SETTLED, ended_at__gte=window.start, ended_at__lt=window.end
    ).order_by("pk")
    for pk, table_id, dealer_id, shoe, state in rounds.values_list(
        "pk", "table_id", "started_by_id", "shoe", "state"
    ).iterator(chunk_size=200):
        counted = _splits(state or {})
        if counted is None:
            continue
        splits, turns = counted
        deal = {"round": pk, "table": table_id, "shoe": shoe, "splits": splits, "turns": turns}
        per_dealer[dealer_id].append(deal)
        if splits >= deal_min:
            z = (splits - FAIR_SPLITS_PER_DEAL) / FAIR_SPLITS_SD
            findings.append(
                Finding(
                    kind="faro_split_deal",
                    severity="medium",
                    subject=f"round:{pk}",
                    summary=f"{splits} splits in one Faro deal (a fair deck averages 1.47).",
                    evidence={
                        **deal,
                        "expected": round(FAIR_SPLITS_PER_DEAL, 3),
                        "z": round(z, 2),
                        "threshold": deal_min,
                    },
                    table_id=table_id,
                    dealer_id=dealer_id,
                )
            )
    for dealer_id, deals in per_dealer.items():
        n = len(deals)
        if n < min_deals:
            continue
        total = sum(d["splits"] for d in deals)
        expected = n * FAIR_SPLITS_PER_DEAL
        z = (total - expected) / (FAIR_SPLITS_SD * math.sqrt(n))
        if z < z_min:
            continue
        tables = Counter(d["table"] for d in deals)
        findings.append(
            Finding(
                kind="faro_split_rate",
                severity="high" if z >= z_min + 2 else "medium",
                subject=f"dealer:{dealer_id}",
                summary=(
                    f"{total} splits in {n} Faro deals ({total / n:.2f} a deal, fair 1.47): z = {z:.1f}."
                ),
                evidence={
                    "deals": n,
                    "splits": total,
                    "splits_per_deal": round(total / n, 3),
                    "expected": round(expected, 2),
                    "sd": round(FAIR_SPLITS_SD * math.sqrt(n), 3),
                    "z": round(z, 2),
                    "p_value": rounded(normal_upper(z)),
                    "threshold_z": z_min,
                    "tables": sorted(tables),
                    "rounds": sorted(deals, key=lambda d: -d["splits"])[:50],
                },
                table_id=tables.most_common(1)[0][0],
                dealer_id=dealer_id,
            )
        )
    return findings


def _impossible_states(window: Window) -> list[Finding]:
    findings: list[Finding] = []
    rounds = Round.objects.filter(
        game="faro", shoe=ShoeKind.MANUAL, started_at__gte=window.start, started_at__lt=window.end
    ).order_by("pk")
    for round_ in rounds.only("pk", "table_id", "started_by_id", "state", "number").iterator(chunk_size=100):
        problems = _casekeeper_problems(round_.state or {})
        problems += _keyed_card_problems(
            list(round_.actions.order_by("seq").values_list("payload", flat=True))
        )
        if not problems:
            continue
        findings.append(
            Finding(
                kind="faro_impossible_state",
                severity="high",
                subject=f"round:{round_.pk}",
                summary=f"Manual-shoe Faro round {round_.number}: {problems[0]['problem']}.",
                evidence={"round": round_.pk, "number": round_.number, "problems": problems[:20]},
                table_id=round_.table_id,
                dealer_id=round_.started_by_id,
            )
        )
    return findings


def _casekeeper_problems(state: dict[str, Any]) -> list[dict[str, Any]]:
    problems = []
    for rank, row in (state.get("casekeeper") or {}).items():
        if not isinstance(row, dict):
            continue
        dealt = sum(len(row.get(column) or []) for column in ("soda", "losers", "winners", "hock"))
        left = int(row.get("left", CARDS_PER_RANK - dealt))
        if dealt > CARDS_PER_RANK or left < 0 or dealt + left != CARDS_PER_RANK:
            problems.append(
                {
                    "rank": rank,
                    "dealt": dealt,
                    "left": left,
                    "problem": f"the casekeeper shows {dealt} {rank}s dealt and {left} left",
                }
            )
    return problems


def _keyed_card_problems(payloads: list[dict[str, Any]]) -> list[dict[str, Any]]:
    cards: list[str] = []
    for payload in payloads:
        if payload.get("type") == "soda" and isinstance(payload.get("card"), str):
            cards.append(payload["card"].upper())
        elif payload.get("type") in {"turn", "last_turn"} and isinstance(payload.get("cards"), list):
            cards += [str(card).upper() for card in payload["cards"]]
    cards = [("10" + card[1:]) if card.startswith("T") else card for card in cards]
    by_rank = Counter(card[:-1] for card in cards)
    problems = [
        {"rank": rank, "keyed": n, "problem": f"{n} {rank}s were keyed"}
        for rank, n in by_rank.items()
        if rank in RANKS and n > CARDS_PER_RANK
    ]
    problems += [
        {"card": card, "keyed": n, "problem": f"{card} was keyed {n} times"}
        for card, n in Counter(cards).items()
        if n > 1
    ]
    return problems
