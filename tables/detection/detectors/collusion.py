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

* ``chip_flow`` (pot and stakes games) — every ordered pair ``a → b`` that shared at least
  ``DETECT_FLOW_MIN_SHARED`` rounds of the window is tested (who sits with whom does not depend
  on the cards, so leaving out the pairs too short to judge keeps Benjamini–Hochberg's family to
  the pairs that can show anything, without biasing it). ``a`` *paid* ``b`` in a round ``a``
  lost and ``b`` won. Two tests, each exact under exchangeable seats:
  - *by wins* (soft play): of the rounds one of the two paid the other, which way is a fair coin,
    so ``a`` paying ``b`` in ``k`` of ``n`` is Binomial(n, ½) (P <= ``DETECT_FLOW_P``). This uses
    both sides at once: each win soft play moves from ``a`` to ``b`` shifts the count by one on
    both sides of it, so its z is about 1.25 times either player's own (for 4-5 players a round),
    and it does not need each side to be 3 σ out on its own. A merely lucky ``b`` would move it
    too, so it counts only when ``a``'s wins in the rounds ``b`` did *not* win are short as well,
    against ``a``'s table-mates in those same rounds (the round's winners are then among the other
    m − 1 players, each as likely; P <= ``DETECT_FLOW_LUCK_P``): a lucky ``b`` takes wins from
    everyone alike and leaves ``a`` its share of the rest, soft play takes only ``a``'s.
  - *by amounts* (dumping): when ``b`` wins and ``a`` loses, ``a`` is the loser who pays the most
    more often than chance (each loser equally likely; rounds whose largest loss is shared say
    nothing), P <= ``DETECT_FLOW_TOP_P``, while ``a`` is not the largest payer to the other
    winners too (P > ``DETECT_FLOW_TOP_ELSEWHERE_P``: a weak player pays everyone the most).
  Either way the net flow (``a`` to ``b`` less ``b`` to ``a``; a loser's loss goes to the winners
  by their shares) is at least ``DETECT_FLOW_MIN_AMOUNT``. There is no cut on the rounds that go
  back: a dumper who dumps half the time still loses honestly to the partner in other rounds
  (the old 20 % reverse-flow cut excused the bench's half-rate dumper, whose amounts were at
  p = 1e-8); the direction test weighs those rounds instead of dropping the pair for them.
  The pair's p-value is twice the smaller of the two (Bonferroni; a test whose guard fails
  counts as 1), and Benjamini–Hochberg at ``DETECT_FDR`` over every tested pair raises the alerts.
  One cause, one alert: a payer raises one ``chip_flow`` alert, his dumping if found by amounts,
  else his strongest flow by wins; his other one-way flows are listed in it
  (``also_paid_one_way``, see ``_one_cause_per_payer``).
  The luck test cannot do the same for a payer who is merely weak (or plays soft): that payer
  pays every table-mate one way, and soft play half the time can look exactly like it (on tuning
  seed 1 the partner's own share of the rest was no better than the table-mates'), so asking the
  taker to beat the table-mates too would miss such colluders; the direction's tail and BH alone
  keep a weak honest player's table-mates out.
  Requiring "``b`` won more than chance *and* ``a`` less", each at a small P, excuses the dumper:
  at half rates over a week (126 shared rounds) the colluders' sides can sit at p 0.0035 and 0.03.
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
from dataclasses import dataclass

from casino.money import format_dollars
from tables.detection.base import Finding, Window, multiple_testing, one_in, threshold, window_evidence
from tables.detection.data import RoundResults, settled_rounds
from tables.detection.stats import (
    bh_discoveries,
    binomial_upper,
    rounded,
    tail_at_least,
    tail_at_most,
    twice_smaller,
)

KINDS = ("chip_flow", "dealer_affinity", "never_loses")
# evidence that is cents, read in dollars on screens
MONEY = frozenset(
    {"amount_a_to_b", "amount_b_to_a", "net_a_to_b", "result_with_dealer", "result_elsewhere", "result"}
)
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


def detect(window: Window) -> list[Finding]:
    """Pairs and (player, dealer) over the rolling window; each rule's alerts by BH at the FDR."""
    span = window.widened(int(threshold("WINDOW_DAYS")))
    rounds = [r for r in settled_rounds(span) if r.game not in UNEQUAL_SEATS]
    days = {r.round_id: r.day for r in rounds}
    trials = _trials(rounds)
    candidates = chip_flows([r for r in rounds if r.game != "faro"])
    candidates += _dealer_findings(trials)
    fdr = float(threshold("FDR"))
    findings = []
    for kind in KINDS:
        tested = [c for c in candidates if c.kind == kind]
        for i, q in bh_discoveries([c.p_value for c in tested], fdr):
            candidate = tested[i]
            if candidate.finding is not None:
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


def chip_flows(rounds: list[RoundResults]) -> list[Candidate]:
    """Every ordered pair that shared ``FLOW_MIN_SHARED`` rounds: its p-value and, if it is one, the
    finding (the module docstring gives the rule)."""
    min_shared = int(threshold("FLOW_MIN_SHARED"))
    shared: dict[tuple[int, int], list[RoundResults]] = defaultdict(list)
    top_as_payer: dict[int, list[tuple[int, float, bool]]] = defaultdict(list)
    for round_ in rounds:
        players = sorted(round_.results)
        for i, a in enumerate(players):
            for b in players[i + 1 :]:
                shared[(a, b)].append(round_)
        for payer, chance, hit in _top_payer_draws(round_):
            top_as_payer[payer].extend((winner, chance, hit) for winner in round_.winners)
    candidates: list[Candidate] = []
    for (a, b), together in shared.items():
        if len(together) < min_shared:
            continue
        for giver, taker in ((a, b), (b, a)):
            elsewhere = [(chance, hit) for winner, chance, hit in top_as_payer[giver] if winner != taker]
            candidates.append(_pair_flow(giver, taker, together, elsewhere))
    return _one_cause_per_payer(candidates)


def _one_cause_per_payer(candidates: list[Candidate]) -> list[Candidate]:
    """One alert per payer. A player who pays one partner on purpose pays every table-mate one way
    too: a dumper scores nothing whenever he or his partner would top, and a soft player hands
    every win away, so he never takes a round back from anyone. Those other flows are the same
    cause, not pairs of their own. The payer's finding is his dumping if one was found by amounts,
    else his flow with the smallest p-value (the partner takes the payer's wins as well as his own,
    so he is paid most often); the rest stay in Benjamini–Hochberg's family (they are real
    departures from chance) but raise no alert, and the finding lists them (``also_paid_one_way``).
    Without this the bench's dumper (tuning seeds 2 and 3) and its soft player at rate 1 (test
    seeds 111-115) raised false ``chip_flow`` alerts on their table-mates."""
    found = sorted(
        ((c, c.finding) for c in candidates if c.finding is not None),
        key=lambda pair: (not pair[1].evidence["by_amounts"], pair[0].p_value),
    )
    kept: dict[int, Finding] = {}
    for candidate, finding in found:
        payer = kept.get(finding.evidence["from_player"])
        if payer is None:
            kept[finding.evidence["from_player"]] = finding
            continue
        payer.evidence.setdefault("also_paid_one_way", []).append(finding.evidence["to_player"])
        candidate.finding = None
    return candidates


def _top_payer_draws(round_: RoundResults) -> list[tuple[int, float, bool]]:
    """(loser, chance, is the largest payer) for each loser of a round whose largest loss was one
    player's among two or more losers: under exchangeable seats each loser is that player with
    chance 1 / losers. Other rounds say nothing about who pays the most."""
    losers = round_.losers
    if len(losers) < 2 or not round_.winners:
        return []
    largest = min(round_.results[p] for p in losers)
    if sum(1 for p in losers if round_.results[p] == largest) != 1:
        return []
    return [(p, 1 / len(losers), round_.results[p] == largest) for p in losers]


def _pair_flow(
    a: int, b: int, together: list[RoundResults], top_elsewhere: list[tuple[float, bool]]
) -> Candidate:
    """Does ``a`` pay ``b`` over the rounds they shared (``together``)? See the module docstring."""
    p_max = float(threshold("FLOW_P"))
    paid: list[int] = []  # rounds a lost and b won
    amount = reverse = 0
    k_ba = 0
    tables: Counter[int] = Counter()
    luck_chances: list[float] = []  # a's chance to win each round b did not win
    a_wins_without_b = 0
    top_chances: list[float] = []
    top_hits = 0
    win_chances: list[float] = []  # each shared round's chance of a win, the same for a and b
    a_wins = b_wins = 0
    for round_ in together:
        results = round_.results
        m = len(results)
        winners = sum(1 for r in results.values() if r > 0)
        gained = sum(r for r in results.values() if r > 0)
        ra, rb = results[a], results[b]
        win_chances.append(winners / m)
        a_wins += ra > 0
        b_wins += rb > 0
        if ra < 0 < rb:
            paid.append(round_.round_id)
            amount += -ra * rb // gained
            tables[round_.table_id] += 1
            for payer, chance, hit in _top_payer_draws(round_):
                if payer == a:
                    top_chances.append(chance)
                    top_hits += int(hit)
        elif rb < 0 < ra:
            k_ba += 1
            reverse += -rb * ra // gained
        if rb <= 0:
            # b did not win: the round's winners are among the other m - 1, each as likely
            luck_chances.append(winners / (m - 1))
            a_wins_without_b += ra > 0
    k_ab = len(paid)
    p_direction = binomial_upper(k_ab + k_ba, k_ab)
    p_luck = tail_at_most(luck_chances, a_wins_without_b)
    p_top = tail_at_least(top_chances, top_hits)
    p_top_else = tail_at_least([c for c, _ in top_elsewhere], sum(1 for _, hit in top_elsewhere if hit))
    not_luck = p_luck <= float(threshold("FLOW_LUCK_P"))
    not_weak_payer = p_top_else > float(threshold("FLOW_TOP_ELSEWHERE_P"))
    p_pair = twice_smaller(p_direction if not_luck else 1.0, p_top if not_weak_payer else 1.0)
    net = amount - reverse
    one_way = net >= int(threshold("FLOW_MIN_AMOUNT"))
    by_wins = one_way and not_luck and p_direction <= p_max
    by_amounts = one_way and not_weak_payer and p_top <= float(threshold("FLOW_TOP_P"))
    if not (by_wins or by_amounts):
        return Candidate("chip_flow", p_pair, None)
    p_a = tail_at_most(win_chances, a_wins)
    p_b = tail_at_least(win_chances, b_wins)
    return Candidate(
        "chip_flow",
        p_pair,
        Finding(
            kind="chip_flow",
            severity="high" if by_wins and by_amounts else "medium",
            subject=f"pair:{a}:{b}",
            summary=(
                f"Player {a} paid player {b} in {k_ab} of {len(together)} shared rounds "
                f"({format_dollars(amount)}); player {b} paid player {a} in {k_ba} "
                f"({format_dollars(reverse)})."
            ),
            evidence={
                "pair": [a, b],
                "from_player": a,
                "to_player": b,
                "shared_rounds": len(together),
                "rounds_a_paid_b": k_ab,
                "rounds_b_paid_a": k_ba,
                "direction_p_value": rounded(p_direction),
                "amount_a_to_b": amount,
                "amount_b_to_a": reverse,
                "net_a_to_b": net,
                "a_wins_when_b_did_not_win": a_wins_without_b,
                "a_expected_wins_when_b_did_not_win": round(sum(luck_chances), 2),
                "luck_p_value": rounded(p_luck),
                "b_wins": b_wins,
                "b_expected_wins": round(sum(win_chances), 2),
                "b_p_value": rounded(p_b),
                "a_wins": a_wins,
                "a_expected_wins": round(sum(win_chances), 2),
                "a_p_value": rounded(p_a),
                "threshold_p": p_max,
                "by_wins": by_wins,
                "rounds_a_paid_most": top_hits,
                "rounds_a_paid_most_expected": round(sum(top_chances), 2),
                "top_payer_p_value": rounded(p_top),
                "top_payer_p_value_to_others": rounded(p_top_else),
                "by_amounts": by_amounts,
                "tables": sorted(tables),
                "rounds": paid[:200],
            },
            table_id=tables.most_common(1)[0][0],
            player_id=b,
        ),
    )


def _dealer_findings(trials: dict[int, list[Trial]]) -> list[Candidate]:
    """Every (player, dealer) that ``dealer_affinity`` and ``never_loses`` test, in that order."""
    findings: list[Candidate] = []
    for player, player_trials in trials.items():
        by_dealer: dict[int, list[Trial]] = defaultdict(list)
        for trial in player_trials:
            by_dealer[trial.dealer_id].append(trial)
        for dealer, under in by_dealer.items():
            elsewhere = [t for t in player_trials if t.dealer_id != dealer]
            tested = (_affinity(player, dealer, under, elsewhere), _never_loses(player, dealer, under))
            findings += [candidate for candidate in tested if candidate is not None]
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
                f"(won {format_dollars(net)}; the chance of never losing is {one_in(chance)})."
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
