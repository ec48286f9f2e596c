"""What the Monte Carlo hold null costs a nightly run, measured on this machine, extrapolated to a floor.

    .venv/bin/python -m bench.detection_cost [--tables 200] [--faro-share 0.5] [--deals 8] [--days 7]

Not a test, no database: the null (``tables.detection.faro_null``) is pure Python. It deals a
sample of fair Faro deals with the bench's bot bets, times each deal's null as the detector makes
it (``null_of_deal``: ``DETECTION["MC_DEALS"]`` re-deals, more up to ``MC_MAX_DEALS`` for a deal
whose win is beyond them), and times ``sum_p_values`` over a table's and a dealer's window of
``--days`` x ``--deals`` deals. The nightly run simulates only the day's new deals (older days'
nulls are cached), and tests every table and dealer over the whole window; this prints both
and their total for the floor.
"""

from __future__ import annotations

import argparse
import os
import random
import time

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "casino.settings.local")


def main() -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", type=int, default=200)
    parser.add_argument("--faro-share", type=float, default=0.5, help="share of the tables dealing Faro")
    parser.add_argument("--deals", type=int, default=8, help="Faro deals per table per gaming day")
    parser.add_argument("--days", type=int, default=7)
    parser.add_argument("--sample", type=int, default=60, help="deals timed")
    args = parser.parse_args()
    import django

    django.setup()
    from django.conf import settings

    from tables.detection.faro_null import mc_rng, null_of_deal, sum_p_values
    from tests.detection.test_faro_null import play

    detection = settings.DETECTION
    n = int(detection["MC_DEALS"])
    most = max(n, int(detection["MC_MAX_DEALS"]))
    started = time.perf_counter()
    nulls = []
    for i in range(args.sample):
        ctx, actions, win = play(500 + i)
        nulls.append(
            null_of_deal(
                ctx,
                actions,
                observed=win,
                first=n,
                most=most,
                rng_for=lambda done, i=i: mc_rng(i, 1, f"hold:{done}"),
            )
        )
    per_deal = (time.perf_counter() - started) / args.sample
    re_deals = sum(len(null) for null in nulls)
    grown = sum(1 for null in nulls if len(null) > n)
    window = [nulls[i % len(nulls)] for i in range(args.deals * args.days)]
    draws = int(detection["MC_DRAWS"])
    started = time.perf_counter()
    sum_p_values(window, 10**9, rng=random.Random(1), draws=draws, max_draws=draws)
    per_subject = time.perf_counter() - started
    faro_tables = round(args.tables * args.faro_share)
    new_deals = faro_tables * args.deals
    subjects = faro_tables * 2  # each table and (about) as many dealers
    simulate = new_deals * per_deal
    test = subjects * per_subject
    print(
        f"MC_DEALS {n} (up to {most}): {per_deal * 1000:.0f} ms per deal, {re_deals / args.sample:.0f} "
        f"re-deals per deal ({grown} of {args.sample} deals grew; "
        f"{per_deal * args.sample / re_deals * 1000:.1f} ms per re-deal)"
    )
    print(f"window of {len(window)} deals, {draws} draws: {per_subject * 1000:.0f} ms per subject")
    print(
        f"{args.tables} tables ({faro_tables} Faro, {args.deals} deals a day): {new_deals} new deals "
        f"{simulate:.0f} s + {subjects} subjects over {args.days} days {test:.0f} s = {simulate + test:.0f} s"
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
