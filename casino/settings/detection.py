"""Cheating-pattern and AML detection (tables.detection; README there): one ``DETECTION`` dict.

Cents for amounts, z-scores and p-values for the statistical rules. The keys are upper case,
as in Django's own dict settings, and each one is read from the environment variable
``DETECT_<KEY>`` (``DETECT_FDR`` sets ``DETECTION["FDR"]``). Detectors read them through
``tables.detection.base.threshold``, so thresholds are tuned here, never in the detectors.
"""

from casino.settings.audit import AUDIT_VARIANCE_THRESHOLD
from casino.settings.environment import env

DETECTION: dict[str, int | float] = {
    # Faro dealing integrity: a dealer's splits over the window against the exact fair tail.
    "SPLIT_MIN_DEALS": env.int("DETECT_SPLIT_MIN_DEALS", default=3),
    # a deal with this many splits or more is extreme (a fair deck: 1.47 on average, P(>= 5) 0.015)
    "SPLIT_EXTREME": env.int("DETECT_SPLIT_EXTREME", default=5),
    # The statistical rules (hold, splits, collusion) read a rolling window of gaming days and
    # raise alerts by Benjamini-Hochberg at this false-discovery rate over every subject tested.
    "WINDOW_DAYS": env.int("DETECT_WINDOW_DAYS", default=7),
    "FDR": env.float("DETECT_FDR", default=0.01),
    # Monte Carlo nulls (tables.detection.faro_null): fair re-deals per Faro deal (more, up to
    # MAX, for a deal whose win is beyond them), draws of a window's sum (more, up to MAX, for a
    # subject far out), and the seed (with the round id).
    "MC_DEALS": env.int("DETECT_MC_DEALS", default=100),
    "MC_MAX_DEALS": env.int("DETECT_MC_MAX_DEALS", default=1_600),
    "MC_DRAWS": env.int("DETECT_MC_DRAWS", default=2_000),
    "MC_MAX_DRAWS": env.int("DETECT_MC_MAX_DRAWS", default=128_000),
    "MC_SEED": env.int("DETECT_MC_SEED", default=1),
    # Hold: a table's or dealer's Faro win against fair deals of its own bets, and its turn orders.
    "HOLD_MIN_HANDLE": env.int("DETECT_HOLD_MIN_HANDLE", default=100_000),
    "HOLD_MIN_ROUNDS": env.int("DETECT_HOLD_MIN_ROUNDS", default=3),
    "HOLD_MIN_TURNS": env.int("DETECT_HOLD_MIN_TURNS", default=20),
    # Collusion and chip dumping (pot and stakes games; Faro for dealer affinity and never-loses).
    # chip_flow tests every ordered pair that shared FLOW_MIN_SHARED rounds: by wins, the rounds one
    # paid the other, a fair coin under exchangeable seats (P <= FLOW_P), unless the payer's wins
    # when the taker did not win are no worse than chance (P > FLOW_LUCK_P: the taker was merely
    # lucky); by amounts, the payer paid the most when the taker won (P <= FLOW_TOP_P) but not when
    # others did (P > FLOW_TOP_ELSEWHERE_P). Either way the net flow is at least FLOW_MIN_AMOUNT.
    "FLOW_MIN_SHARED": env.int("DETECT_FLOW_MIN_SHARED", default=36),
    "FLOW_P": env.float("DETECT_FLOW_P", default=0.003),  # direction (by wins)
    "FLOW_LUCK_P": env.float("DETECT_FLOW_LUCK_P", default=0.2),
    "FLOW_TOP_P": env.float("DETECT_FLOW_TOP_P", default=0.001),  # the largest payer (by amounts)
    "FLOW_TOP_ELSEWHERE_P": env.float("DETECT_FLOW_TOP_ELSEWHERE_P", default=0.05),
    "FLOW_MIN_AMOUNT": env.int("DETECT_FLOW_MIN_AMOUNT", default=1_000),  # net, a to b
    "AFFINITY_P": env.float("DETECT_AFFINITY_P", default=0.0001),
    "AFFINITY_ELSEWHERE_P": env.float("DETECT_AFFINITY_ELSEWHERE_P", default=0.01),
    "AFFINITY_MIN_ROUNDS": env.int("DETECT_AFFINITY_MIN_ROUNDS", default=6),
    "AFFINITY_MIN_OTHER_ROUNDS": env.int("DETECT_AFFINITY_MIN_OTHER_ROUNDS", default=3),
    "NEVER_LOSES_P": env.float("DETECT_NEVER_LOSES_P", default=0.0001),
    "NEVER_LOSES_MIN_ROUNDS": env.int("DETECT_NEVER_LOSES_MIN_ROUNDS", default=6),
    # Betting limits.
    "LIMIT_REFUSALS": env.int("DETECT_LIMIT_REFUSALS", default=3),
    "UNDER_MAX_RATIO": env.float("DETECT_UNDER_MAX_RATIO", default=0.9),
    "UNDER_MAX_MIN_BETS": env.int("DETECT_UNDER_MAX_MIN_BETS", default=4),
    "UNDER_MAX_MIN_TABLES": env.int("DETECT_UNDER_MAX_MIN_TABLES", default=2),
    # Fills and credits.
    "FILL_NEED_RATIO": env.float("DETECT_FILL_NEED_RATIO", default=0.5),  # tray / opening count
    "FILL_PAIR_MIN": env.int("DETECT_FILL_PAIR_MIN", default=3),
    "FILL_PAIR_SHARE": env.float("DETECT_FILL_PAIR_SHARE", default=0.75),
    "FILL_PAIR_DAYS": env.int("DETECT_FILL_PAIR_DAYS", default=7),
    "CREDIT_CLOSE_MIN": env.int("DETECT_CREDIT_CLOSE_MIN", default=100_000),
    "SHORT_COUNT": env.int("DETECT_SHORT_COUNT", default=AUDIT_VARIANCE_THRESHOLD),
    # AML (CTR_THRESHOLD in casino.settings.audit is the reporting line).
    "STRUCTURING_LOW": env.float("DETECT_STRUCTURING_LOW", default=0.8),  # share of the CTR line
    "STRUCTURING_MIN_COUNT": env.int("DETECT_STRUCTURING_MIN_COUNT", default=2),
    "STRUCTURING_DAYS": env.int("DETECT_STRUCTURING_DAYS", default=2),
    # ...and at least this many of them in one direction on one gaming day: one day's cash in pieces.
    "STRUCTURING_SPLIT_MIN": env.int("DETECT_STRUCTURING_SPLIT_MIN", default=2),
    "MINPLAY_MIN_CASH_OUT": env.int("DETECT_MINPLAY_MIN_CASH_OUT", default=500_000),
    "MINPLAY_RATIO": env.float("DETECT_MINPLAY_RATIO", default=0.1),  # handle / cash-out
    "WALK_MIN_BUY_IN": env.int("DETECT_WALK_MIN_BUY_IN", default=500_000),
    "WALK_PLAY_RATIO": env.float("DETECT_WALK_PLAY_RATIO", default=0.25),  # handle / buy-in
    "WALK_UNREDEEMED_RATIO": env.float("DETECT_WALK_UNREDEEMED_RATIO", default=0.5),
    # Beat (casino.settings.celery): the day that just ended, this many minutes after the
    # rollover (after its audit); and the day in progress every LIVE_MINUTES (0: no live runs).
    "MINUTES_AFTER_ROLLOVER": env.int("DETECT_MINUTES_AFTER_ROLLOVER", default=45),
    "LIVE_MINUTES": env.int("DETECT_LIVE_MINUTES", default=15),
}
