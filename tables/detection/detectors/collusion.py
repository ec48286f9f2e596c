"""Collusion and chip dumping, from each player's net result in each settled round.

Chance model. In a pot or stakes round the outcome decides how many players win and how
many lose; which players they are is, for honest players, exchangeable: each of the ``m``
players dealt in wins with probability ``|winners| / m`` and loses with ``|losers| / m``.
Farmer is left out: its farmer collects from every busted player by rule and keeps the deal
while the farm is not won, so one seat wins round after round without anyone cheating.
In Faro (the house game) a player's deal is compared with every Faro player-deal of the
window: the share of non-zero results that were wins. A player's wins over a set of rounds
is then a sum of Bernoulli trials with their own probabilities, judged by its exact tail
(``tables.detection.stats``).

* ``chip_flow`` (pot and stakes games) — an ordered pair ``a → b`` sharing rounds where
  ``a`` paid ``b`` in at least ``DETECT_FLOW_MIN_ROUNDS`` rounds and ``b`` paid ``a`` in at
  most ``DETECT_FLOW_MAX_REVERSE`` of the rounds either paid the other, and either
  - *by wins*: over their shared rounds ``b`` won more than chance (P <= ``DETECT_FLOW_P``)
    and ``a`` won less (P <= ``DETECT_FLOW_P``): soft play moves ``a``'s wins to ``b``.
    Requiring both sides keeps a merely lucky player's table-mates (who all pay the lucky
    one) out of it; or
  - *by amounts*: when ``b`` wins, ``a`` is the loser who pays the most more often than
    chance (each loser equally likely; rounds where the largest loss is shared say nothing)
    with P <= ``DETECT_FLOW_TOP_P``, while ``a`` is not the largest payer to the other
    winners too (P > ``DETECT_FLOW_TOP_ELSEWHERE_P``): dumping — losing big to one partner.
  Flows are split in proportion: a loser's loss goes to the winners by their shares.
* ``dealer_affinity`` — a player's wins in the rounds one dealer dealt beyond chance
  (P <= ``DETECT_AFFINITY_P``) while the same player's wins under other dealers are not
  (P > ``DETECT_AFFINITY_ELSEWHERE_P``, at least ``DETECT_AFFINITY_MIN_OTHER_ROUNDS`` rounds).
* ``never_loses`` — a player who never lost a round a given dealer dealt, over at least
  ``DETECT_NEVER_LOSES_MIN_ROUNDS`` rounds, when the chance of that is at most
  ``DETECT_NEVER_LOSES_P``.
"""

from __future__ import annotations

import math
from collections import Counter, defaultdict
from dataclasses import dataclass, field

from casino.money import format_dollars
from tables.detection.base import Finding, Window, multiple_testing, threshold, window_evidence
from tables.detection.data import RoundResults, settled_rounds
from tables.detection.stats import benjamini_hochberg, bh_adjusted, rounded, tail_at_least, tail_at_most

KINDS = ("chip_flow", "dealer_affinity", "never_loses")
UNEQUAL_SEATS = ("farmer",)  # games whose seats are not exchangeable (see above)


@dataclass(slots=True)
class Trial:
    round_id: int
    table_id: int
    dealer_id: int
    game: str
    result: int
    p_win: float
    p_lose: float


@dataclass
class PairFlow:
    rounds: list[int] = field(default_factory=list)  # rounds a paid b
    amount: int = 0
    tables: Counter[int] = field(default_factory=Counter)
    top_chances: list[float] = field(default_factory=list)  # rounds where the largest loss was one player's
    top_hits: int = 0  # ... and that player was a


def detect(window: Window) -> list[Finding]:
    """Pairs and (player, dealer) over the rolling window; each rule's alerts by BH at the FDR."""
    span = window.widened(int(threshold("WINDOW_DAYS")))
    rounds = [r for r in settled_rounds(span) if r.game not in UNEQUAL_SEATS]
    days = {r.round_id: r.day for r in rounds}
    trials = _trials(rounds)
    candidates = _chip_flows([r for r in rounds if r.game != "faro"], trials)
    candidates += _dealer_findings(trials)
    fdr = float(threshold("FDR"))
    findings = []
    for kind in KINDS:
        tested = [c for c in candidates if c.kind == kind]
        p_values = [c.p_value for c in tested]
        hits = benjamini_hochberg(p_values, fdr)
        for candidate, q, hit in zip(tested, bh_adjusted(p_values), hits, strict=True):
            if hit and candidate.finding is not None:
                finding = candidate.finding
                rounds_of = finding.evidence["rounds"]
                finding.evidence.update(
                    p_value=rounded(candidate.p_value),
                    **multiple_testing(q, fdr),
                    **window_evidence(span, [days[r] for r in rounds_of if r in days], rounds_of),
                )
                findings.append(finding)
    return findings


@dataclass(slots=True)
class Candidate:
    """A subject a rule tested: its p-value, and the finding it becomes if BH picks it."""

    kind: str
    p_value: float
    finding: Finding | None


def _trials(rounds: list[RoundResults]) -> dict[int, list[Trial]]:
    """Each player's rounds with the chance of winning and of losing each one."""
    faro = [r for round_ in rounds if round_.game == "faro" for r in round_.results.values() if r]
    faro_win = sum(1 for r in faro if r > 0) / len(faro) if faro else 0.5
    trials: dict[int, list[Trial]] = defaultdict(list)
    for round_ in rounds:
        m = len(round_.results)
        if not m:
            continue
        if round_.game == "faro":
            p_win, p_lose = faro_win, 1 - faro_win
        else:
            p_win, p_lose = len(round_.winners) / m, len(round_.losers) / m
        for player, result in round_.results.items():
            if round_.game == "faro" and result == 0:
                continue  # did not bet, or everything pushed: no decision to judge
            trials[player].append(
                Trial(round_.round_id, round_.table_id, round_.dealer_id, round_.game, result, p_win, p_lose)
            )
    return trials


def _chip_flows(rounds: list[RoundResults], trials: dict[int, list[Trial]]) -> list[Candidate]:
    p_max = float(threshold("FLOW_P"))
    min_rounds = int(threshold("FLOW_MIN_ROUNDS"))
    max_reverse = float(threshold("FLOW_MAX_REVERSE"))
    min_amount = int(threshold("FLOW_MIN_AMOUNT"))
    flows: dict[tuple[int, int], PairFlow] = defaultdict(PairFlow)
    for round_ in rounds:
        gained = sum(r for r in round_.results.values() if r > 0)
        if not gained:
            continue
        losers = round_.losers
        largest = min((round_.results[p] for p in losers), default=0)
        informative = len(losers) > 1 and sum(1 for p in losers if round_.results[p] == largest) == 1
        for loser in losers:
            for winner in round_.winners:
                flow = flows[(loser, winner)]
                flow.rounds.append(round_.round_id)
                flow.amount += -round_.results[loser] * round_.results[winner] // gained
                flow.tables[round_.table_id] += 1
                if informative:
                    flow.top_chances.append(1 / len(losers))
                    flow.top_hits += int(round_.results[loser] == largest)
    as_payer: dict[int, list[tuple[int, PairFlow]]] = defaultdict(list)
    for (a, b), flow in flows.items():
        as_payer[a].append((b, flow))
    by_round = {
        player: {t.round_id: t for t in player_trials if t.game != "faro"}
        for player, player_trials in trials.items()
    }
    findings: list[Candidate] = []
    for (a, b), flow in flows.items():
        k_ab = len(flow.rounds)
        if k_ab < min_rounds or flow.amount < min_amount:
            continue
        k_ba = len(flows[(b, a)].rounds) if (b, a) in flows else 0
        if k_ba > max_reverse * (k_ab + k_ba):
            continue
        shared = sorted(by_round.get(a, {}).keys() & by_round.get(b, {}).keys())
        b_trials = [by_round[b][r] for r in shared]
        a_trials = [by_round[a][r] for r in shared]
        b_wins = sum(1 for t in b_trials if t.result > 0)
        a_wins = sum(1 for t in a_trials if t.result > 0)
        p_b = tail_at_least([t.p_win for t in b_trials], b_wins)
        p_a = tail_at_most([t.p_win for t in a_trials], a_wins)
        by_wins = p_b <= p_max and p_a <= p_max
        p_wins = max(p_a, p_b)  # soft play moves both: an intersection-union test
        p_top = tail_at_least(flow.top_chances, flow.top_hits)
        others = [f for other, f in as_payer[a] if other != b]
        p_top_else = tail_at_least(
            [q for f in others for q in f.top_chances], sum(f.top_hits for f in others)
        )
        by_amounts = (
            flow.top_hits >= min_rounds
            and p_top <= float(threshold("FLOW_TOP_P"))
            and p_top_else > float(threshold("FLOW_TOP_ELSEWHERE_P"))
        )
        p_pair = min(1.0, 2 * min(p_wins, p_top if by_amounts else 1.0))
        if not (by_wins or by_amounts):
            findings.append(Candidate("chip_flow", p_pair, None))
            continue
        reverse = flows[(b, a)].amount if (b, a) in flows else 0
        table_id = flow.tables.most_common(1)[0][0]
        findings.append(
            Candidate(
                "chip_flow",
                p_pair,
                Finding(
                    kind="chip_flow",
                    severity="high" if by_wins and by_amounts else "medium",
                    subject=f"pair:{a}:{b}",
                    summary=(
                        f"Player {a} paid player {b} in {k_ab} of {len(shared)} shared rounds "
                        f"({format_dollars(flow.amount)}), {b} paid {a} in {k_ba}."
                    ),
                    evidence={
                        "pair": [a, b],
                        "from_player": a,
                        "to_player": b,
                        "shared_rounds": len(shared),
                        "rounds_a_paid_b": k_ab,
                        "rounds_b_paid_a": k_ba,
                        "amount_a_to_b": flow.amount,
                        "amount_b_to_a": reverse,
                        "b_wins": b_wins,
                        "b_expected_wins": round(sum(t.p_win for t in b_trials), 2),
                        "b_p_value": rounded(p_b),
                        "a_wins": a_wins,
                        "a_expected_wins": round(sum(t.p_win for t in a_trials), 2),
                        "a_p_value": rounded(p_a),
                        "threshold_p": p_max,
                        "by_wins": by_wins,
                        "rounds_a_paid_most": flow.top_hits,
                        "rounds_a_paid_most_expected": round(sum(flow.top_chances), 2),
                        "top_payer_p_value": rounded(p_top),
                        "top_payer_p_value_to_others": rounded(p_top_else),
                        "by_amounts": by_amounts,
                        "tables": sorted(flow.tables),
                        "rounds": flow.rounds[:200],
                    },
                    table_id=table_id,
                    player_id=b,
                ),
            )
        )
    return findings


def _dealer_findings(trials: dict[int, list[Trial]]) -> list[Candidate]:
    findings: list[Candidate] = []
    for player, player_trials in trials.items():
        by_dealer: dict[int, list[Trial]] = defaultdict(list)
        for trial in player_trials:
            by_dealer[trial.dealer_id].append(trial)
        for dealer, under in by_dealer.items():
            elsewhere = [t for t in player_trials if t.dealer_id != dealer]
            affinity = _affinity(player, dealer, under, elsewhere)
            if affinity is not None:
                findings.append(affinity)
            never = _never_loses(player, dealer, under)
            if never is not None:
                findings.append(never)
    return findings


def _affinity(player: int, dealer: int, under: list[Trial], elsewhere: list[Trial]) -> Candidate | None:
    """Tested when the player has enough rounds with the dealer and elsewhere (BH counts it)."""
    if len(under) < int(threshold("AFFINITY_MIN_ROUNDS")):
        return None
    if len(elsewhere) < int(threshold("AFFINITY_MIN_OTHER_ROUNDS")):
        return None
    wins = sum(1 for t in under if t.result > 0)
    net = sum(t.result for t in under)
    p_under = tail_at_least([t.p_win for t in under], wins)
    if net <= 0 or p_under > float(threshold("AFFINITY_P")):
        return Candidate("dealer_affinity", p_under, None)
    wins_else = sum(1 for t in elsewhere if t.result > 0)
    p_else = tail_at_least([t.p_win for t in elsewhere], wins_else)
    if p_else <= float(threshold("AFFINITY_ELSEWHERE_P")):
        # wins everywhere: luck or skill or another scheme, not this dealer
        return Candidate("dealer_affinity", p_under, None)
    return Candidate(
        "dealer_affinity",
        p_under,
        _player_under_dealer(
            "dealer_affinity",
            "high" if p_under <= float(threshold("AFFINITY_P")) / 100 else "medium",
            player,
            dealer,
            under,
            summary=(
                f"Player {player} won {wins} of {len(under)} rounds dealt by dealer {dealer} "
                f"({format_dollars(net)}); elsewhere {wins_else} of {len(elsewhere)}."
            ),
            evidence={
                "rounds_with_dealer": len(under),
                "wins_with_dealer": wins,
                "expected_wins_with_dealer": round(sum(t.p_win for t in under), 2),
                "p_value": rounded(p_under),
                "result_with_dealer": net,
                "rounds_elsewhere": len(elsewhere),
                "wins_elsewhere": wins_else,
                "expected_wins_elsewhere": round(sum(t.p_win for t in elsewhere), 2),
                "p_value_elsewhere": rounded(p_else),
                "result_elsewhere": sum(t.result for t in elsewhere),
                "threshold_p": float(threshold("AFFINITY_P")),
            },
        ),
    )


def _never_loses(player: int, dealer: int, under: list[Trial]) -> Candidate | None:
    """Tested when the player has enough rounds with the dealer; a loss makes its p-value 1."""
    if len(under) < int(threshold("NEVER_LOSES_MIN_ROUNDS")):
        return None
    net = sum(t.result for t in under)
    if any(t.result < 0 for t in under) or net <= 0:
        return Candidate("never_loses", 1.0, None)
    chance = math.prod(1 - t.p_lose for t in under)
    if chance > float(threshold("NEVER_LOSES_P")):
        return Candidate("never_loses", chance, None)
    return Candidate(
        "never_loses",
        chance,
        _player_under_dealer(
            "never_loses",
            "high",
            player,
            dealer,
            under,
            summary=(
                f"Player {player} never lost in {len(under)} rounds dealt by dealer {dealer} "
                f"(won {format_dollars(net)}; chance {chance:.1e})."
            ),
            evidence={
                "rounds_with_dealer": len(under),
                "wins": sum(1 for t in under if t.result > 0),
                "losses": 0,
                "result": net,
                "chance": rounded(chance),
                "threshold_p": float(threshold("NEVER_LOSES_P")),
            },
        ),
    )


def _player_under_dealer(
    kind: str,
    severity: str,
    player: int,
    dealer: int,
    under: list[Trial],
    *,
    summary: str,
    evidence: dict[str, object],
) -> Finding:
    """A finding on one player in the rounds one dealer dealt (``under``): placed at the table most
    of them were at, with those tables and the first 200 rounds added to ``evidence``."""
    tables = Counter(t.table_id for t in under)
    return Finding(
        kind=kind,
        severity=severity,
        subject=f"player:{player}:dealer:{dealer}",
        summary=summary,
        evidence={**evidence, "tables": sorted(tables), "rounds": [t.round_id for t in under][:200]},
        table_id=tables.most_common(1)[0][0],
        dealer_id=dealer,
        player_id=player,
    )
