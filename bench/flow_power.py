"""How many shared rounds ``chip_flow`` needs to find soft play at a given rate: exact power.

    .venv/bin/python -m bench.flow_power [--rate 0.5] [--rounds 126,252,336] [--players 4,5]

Soft play at rate ``r`` hands ``r`` of the soft player's wins to the partner, in a game with one
winner a round among ``m`` players. Only who won carries evidence (the bench's soft play changes
nothing else), so the likelihood ratio depends on the two players' wins alone, and given their sum
``S`` the partner's share is the most powerful test (``S`` has the same law with and without soft
play). That test is ``chip_flow``'s direction test, Binomial(S, ½). Its power at a p-value line is
then exact: S ~ Binomial(N, 2/m), the partner's wins given S ~ Binomial(S, (1 + r)/2). No rule can
do better on the same rounds, so a row below the recall goal is a limit of the evidence, not of
the rule. The lines: a pair's p is twice its direction p (two tests, Bonferroni), and
Benjamini–Hochberg at ``DETECT_FDR`` 0.01 with two or three true pairs puts the line near a
direction p of 5e-4 over the 8-20 pairs a week of 3-pass nights tests (6 card-room rounds a pass),
and of 5e-5 over the 200 a week of full card-room nights tests (48 rounds a night); 0.0025 and
0.01 show what a looser FDR would buy.
"""

from __future__ import annotations

import argparse

from tables.detection.stats import binomial_pmf, binomial_upper

LINES = (5e-5, 5e-4, 2.5e-3, 1e-2)


def fewest_wins(decided: int, line: float) -> int:
    """The partner's fewest wins among ``decided`` rounds whose direction p (the detector's own
    ``binomial_upper``, falling as the wins grow) is at most ``line``; ``decided + 1`` if none."""
    low, high = 0, decided + 1
    while low < high:
        middle = (low + high) // 2
        if binomial_upper(decided, middle) <= line:
            high = middle
        else:
            low = middle + 1
    return low


def power(rounds: int, players: int, rate: float, line: float) -> float:
    """P(the direction test's p <= line) under soft play at ``rate`` over ``rounds`` shared rounds."""
    total = 0.0
    partner_share = (1 + rate) / 2
    for decided, weight in enumerate(binomial_pmf(rounds, 2 / players)):
        if weight < 1e-12:
            continue
        total += weight * sum(binomial_pmf(decided, partner_share)[fewest_wins(decided, line) :])
    return total


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rate", type=float, default=0.5)
    parser.add_argument("--rounds", default="126,252,336")
    parser.add_argument("--players", default="4,5")
    args = parser.parse_args()
    print(f"| shared rounds | players | power at direction p <= {' / '.join(str(x) for x in LINES)} |")
    print("|---:|---:|---:|")
    for rounds in (int(x) for x in args.rounds.split(",")):
        for players in (int(x) for x in args.players.split(",")):
            figures = " / ".join(f"{power(rounds, players, args.rate, line):.3f}" for line in LINES)
            print(f"| {rounds} | {players} | {figures} |")


if __name__ == "__main__":
    main()
