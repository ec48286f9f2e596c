"""Faro dealing integrity: splits against a fair deck, and casekeeper states no deck can give.

A fair 52-card deal has 25 two-card decisions (24 turns and the last turn; the soda and the
hock settle nothing), each a split with probability 3/51 = 1/17: 25/17 = 1.47 splits per
deal, sd 1.19. The pairs of one deck are not independent, so the count is not binomial; its
distribution is computed exactly (``tables.detection.faro_splits``): P(>= 6) = 0.0031,
P(>= 7) = 0.00054, P(>= 8) = 0.00008.

* ``faro_split_rate`` — a dealer's splits over the rolling window (``DETECTION["WINDOW_DAYS"]``)
  against the exact distribution of the total over that many fair deals; a dealer who stacks
  the deck (splits take half of every bet on the rank) stands out after a handful of deals.
  Benjamini-Hochberg over every dealer tested, at ``DETECTION["FDR"]``.
* ``faro_split_deal`` — one of the day's deals with more splits than a fair deck gives, by
  Benjamini-Hochberg over the day's deals at the same rate (on a 300-deal day: 9 or more).
* ``faro_impossible_state`` — a manual-shoe round whose casekeeper or keyed cards show a
  rank dealt more than four times (or a card twice): the engine refuses such cards, so this
  means the stored round was changed behind its back.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any

from ledger.gaming_day import gaming_day_for
from tables.detection.base import Finding, Window, multiple_testing, one_in, threshold, window_evidence
from tables.detection.faro_splits import PAIRS, splits_tail
from tables.detection.stats import bh_discoveries, rounded, tail_at_least, twice_smaller
from tables.games.cards import RANKS
from tables.models import Round, RoundStatus, ShoeKind

KINDS = ("faro_split_rate", "faro_split_deal", "faro_impossible_state")
MONEY: frozenset[str] = frozenset()  # no evidence of these kinds is money
FAIR_SPLITS_PER_DEAL = 25 / 17
FAIR_SPLITS_SD = 1.19
CARDS_PER_RANK = 4


def _splits(state: dict[str, Any]) -> tuple[int, list[int]] | None:
    """(splits, the turn numbers that split) of a completed deal; None if it was not dealt out."""
    turns = state.get("turns") or []
    if len(turns) != PAIRS:  # a dealt-out deal decides every pair under the soda
        return None
    numbers = [int(turn.get("number", i + 1)) for i, turn in enumerate(turns) if turn.get("split")]
    return len(numbers), numbers


def detect(window: Window) -> list[Finding]:
    findings = _split_findings(window)
    findings += _impossible_states(window)
    return findings


def _split_findings(window: Window) -> list[Finding]:
    """Dealers over the rolling window, single deals over the day: exact tails, then BH at the FDR."""
    span = window.widened(int(threshold("WINDOW_DAYS")))
    min_deals = int(threshold("SPLIT_MIN_DEALS"))
    fdr = float(threshold("FDR"))
    per_dealer: dict[int, list[dict[str, Any]]] = defaultdict(list)
    today: list[tuple[int, dict[str, Any]]] = []
    rounds = Round.objects.filter(
        game="faro", status=RoundStatus.SETTLED, ended_at__gte=span.start, ended_at__lt=span.end
    ).order_by("pk")
    for pk, table_id, dealer_id, shoe, state, ended_at in rounds.values_list(
        "pk", "table_id", "started_by_id", "shoe", "state", "ended_at"
    ).iterator(chunk_size=200):
        counted = _splits(state or {})
        if counted is None:
            continue
        splits, turns = counted
        day = gaming_day_for(ended_at)
        deal = {"round": pk, "table": table_id, "shoe": shoe, "splits": splits, "turns": turns, "day": day}
        per_dealer[dealer_id].append(deal)
        if ended_at is not None and ended_at >= window.start:
            today.append((dealer_id, deal))
    findings = _deal_findings(today, fdr, window)
    dealers = [(d, deals) for d, deals in sorted(per_dealer.items()) if len(deals) >= min_deals]
    tests = [_rate_tests(deals) for _d, deals in dealers]
    for i, q in bh_discoveries([tested.p_value for tested in tests], fdr):
        findings.append(_rate_finding(*dealers[i], tests[i], q, fdr, span))
    return findings


@dataclass(frozen=True, slots=True)
class RateTests:
    """A dealer's two split-rate tests, and the count of extreme deals the second one judged."""

    p_total: float
    p_extreme: float
    extreme: int  # SPLIT_EXTREME when tested
    extreme_deals: int

    @property
    def p_value(self) -> float:
        return twice_smaller(self.p_total, self.p_extreme)


def _rate_tests(deals: list[dict[str, Any]]) -> RateTests:
    """The p of the splits' total and the p of the count of extreme deals, both exact.

    The total weighs every deal; a stacker who stacks one deal in four hides in it when his fair
    deals run low (test seed 116's week: 5 stacked deals of 6 splits among 21, total 44 against
    30.9 expected, p 0.013). The count of deals with ``SPLIT_EXTREME`` or more splits (a fair deck:
    P = 0.015 at 5) is Binomial(deals, that chance), and stacked deals stand out in it whatever
    the rest did. The dealer's p-value is twice the smaller (Bonferroni).
    """
    extreme = int(threshold("SPLIT_EXTREME"))
    count = sum(1 for x in deals if x["splits"] >= extreme)
    return RateTests(
        p_total=splits_tail(len(deals), sum(x["splits"] for x in deals)),
        p_extreme=tail_at_least([splits_tail(1, extreme)] * len(deals), count),
        extreme=extreme,
        extreme_deals=count,
    )


def _deal_findings(deals: list[tuple[int, dict[str, Any]]], fdr: float, window: Window) -> list[Finding]:
    """One deal with more splits than a fair deck gives, among the day's deals (BH over them)."""
    p_values = [splits_tail(1, deal["splits"]) for _dealer, deal in deals]
    findings = []
    for i, q in bh_discoveries(p_values, fdr):
        (dealer_id, deal), p = deals[i], p_values[i]
        findings.append(
            Finding(
                kind="faro_split_deal",
                severity="medium",
                subject=f"round:{deal['round']}",
                summary=(
                    f"{deal['splits']} splits in one Faro deal at table {deal['table']} (a fair deck "
                    f"averages 1.47; the chance of as many is {one_in(p)})."
                ),
                evidence={
                    **{k: v for k, v in deal.items() if k != "day"},
                    "expected": round(FAIR_SPLITS_PER_DEAL, 3),
                    "z": round((deal["splits"] - FAIR_SPLITS_PER_DEAL) / FAIR_SPLITS_SD, 2),
                    "p_value": rounded(p),
                    "p_value_method": "exact: the fair deck's split distribution (faro_splits)",
                    **multiple_testing(q, fdr),
                    **window_evidence(window, [deal["day"]], [deal["round"]]),
                },
                table_id=deal["table"],
                dealer_id=dealer_id,
            )
        )
    return findings


def _rate_finding(
    dealer_id: int,
    deals: list[dict[str, Any]],
    tested: RateTests,
    q: float,
    fdr: float,
    span: Window,
) -> Finding:
    n = len(deals)
    total = sum(d["splits"] for d in deals)
    p = tested.p_value
    expected = n * FAIR_SPLITS_PER_DEAL
    z = (total - expected) / (FAIR_SPLITS_SD * math.sqrt(n))
    tables = Counter(d["table"] for d in deals)
    return Finding(
        kind="faro_split_rate",
        severity="high" if p <= fdr / 100 else "medium",
        subject=f"dealer:{dealer_id}",
        summary=(
            f"{total} splits in {n} Faro deals ({total / n:.2f} a deal, fair 1.47), "
            f"{tested.extreme_deals} of them with {tested.extreme} or more, over "
            f"{(span.day - span.first_day).days + 1} days: the chance of as many in fair deals is "
            f"{one_in(p)}."
        ),
        evidence={
            "deals": n,
            "splits": total,
            "splits_per_deal": round(total / n, 3),
            "expected": round(expected, 2),
            "sd": round(FAIR_SPLITS_SD * math.sqrt(n), 3),
            "z": round(z, 2),
            "deals_with_extreme_splits": tested.extreme_deals,
            "extreme_splits": tested.extreme,
            "p_value_total": rounded(tested.p_total),
            "p_value_extreme": rounded(tested.p_extreme),
            "p_value": rounded(p),
            "p_value_method": (
                "exact: the fair deck's split distribution over the deals (faro_splits), and the "
                "count of deals with extreme_splits or more as Binomial; twice the smaller"
            ),
            **multiple_testing(q, fdr),
            **window_evidence(span, [d["day"] for d in deals], [d["round"] for d in deals]),
            "deals_by_splits": [
                {k: v for k, v in d.items() if k != "day"}
                for d in sorted(deals, key=lambda d: -d["splits"])[:50]
            ],
            "tables": sorted(tables),
        },
        table_id=tables.most_common(1)[0][0],
        dealer_id=dealer_id,
    )


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
                summary=(
                    f"Manual-shoe Faro round {round_.number} at table {round_.table_id}: "
                    f"{problems[0]['problem']}."
                ),
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
