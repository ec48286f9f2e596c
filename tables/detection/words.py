"""An alert's evidence at a glance, in the words a person reads (the pit and the auditors' alerts).

The evidence itself stays as the detectors wrote it (ids, cents, fractions: the API serves it to
machines). A glance picks, per kind, the few figures that say what happened, and writes each in
words: money in dollars, a fraction as a percentage, a probability as "1 in 3,100". A person or
a table is written as the reference the summaries use ("staff 4", "player 12", "table 3"), so
that the screen's one naming pass (``casino.selectors.people_named``, ``tables.selectors.
tables_named``) puts their names in both at once; internal ids (sessions, transfers, rounds)
are left to the API.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from casino.money import format_dollars
from tables.detection.base import minutes_words, one_in
from tables.detection.kinds import MONEY_OF_KIND

GLANCE_FIELDS = 5

# Per kind: the evidence worth a glance, in order, as (key, its words: "{}" is the value, else the
# value follows the words).
GLANCE: dict[str, tuple[tuple[str, str], ...]] = {
    "faro_split_deal": (
        ("splits", "{} splits"),
        ("expected", "a fair deck averages {}"),
        ("p_value", "chance"),
    ),
    "faro_split_rate": (
        ("deals", "{} deals"),
        ("splits", "{} splits"),
        ("splits_per_deal", "{} splits a deal"),
        ("p_value", "chance"),
    ),
    "faro_impossible_state": (),  # the summary names the round and its first problem
    "hold_anomaly": (
        ("handle", "handle"),
        ("win", "house win"),
        ("hold_pct", "hold"),
        ("theo_hold_pct", "theoretical hold"),
        ("p_value", "chance"),
    ),
    "chip_flow": (
        ("from_player", "from"),
        ("to_player", "to"),
        ("net_a_to_b", "net"),
        ("shared_rounds", "{} shared rounds"),
    ),
    "dealer_affinity": (
        ("rounds_with_dealer", "{} rounds with the dealer"),
        ("wins_with_dealer", "{} won"),
        ("result_with_dealer", "result"),
        ("p_value", "chance"),
    ),
    "never_loses": (
        ("rounds_with_dealer", "{} rounds with the dealer"),
        ("result", "won"),
        ("chance", "chance"),
    ),
    "limit_probing": (("refusals", "{} bets refused"), ("threshold", "threshold {} refusals")),
    "just_under_max": (
        ("bets_near_max", "{} bets just under the maximum"),
        ("bets", "{} bets in all"),
        ("share", "{} of them"),
        ("ratio", "counted from {} of the maximum"),
    ),
    "fill_unexplained": (
        ("total", "filled"),
        ("requested_by", "requested by"),
        ("ratio", "tray at {} of its opening or more"),
    ),
    "fill_pair": (
        ("requested_by", "requested by"),
        ("approved_by", "approved by"),
        ("fills", "{} fills"),
        ("share", "{} of the requester's"),
        ("total", "total"),
    ),
    "credit_before_close": (
        ("amount", "credit"),
        ("requested_by", "requested by"),
        ("approved_by", "approved by"),
        ("seconds_before_close", "{} before the count"),
        ("closing_variance", "closing variance"),
    ),
    "short_count": (
        ("variance", "variance"),
        ("threshold", "threshold"),
        ("closing_inventory", "counted"),
        ("closing_ledger", "ledger"),
        ("closed_by", "closed by"),
    ),
    "structuring": (("ctr_threshold", "CTR line"), ("low", "watched from")),
    "minimal_play_cash_out": (
        ("cash_out", "cashed out"),
        ("cash_in", "bought in"),
        ("handle", "handle"),
        ("ratio", "handle {} of the cash-out"),
        ("threshold_ratio", "alert under {}"),
    ),
    "chip_walking": (
        ("cash_in", "bought in"),
        ("handle", "played"),
        ("cash_out", "cashed out"),
        ("unredeemed", "not cashed out"),
    ),
    # Written with a count's slip (tables.slips.alerts), not by a detector.
    "count_variance": (
        ("slip", "slip"),
        ("counted", "counted"),
        ("expected", "ledger"),
        ("variance", "variance"),
    ),
    "reportable_variance": (
        ("slip", "slip"),
        ("counted", "counted"),
        ("expected", "ledger"),
        ("variance", "variance"),
    ),
    # A fill or credit slip in transit too long (tables.slips.transit_alerts), not by a detector.
    "slip_in_transit": (
        ("slip", "slip"),
        ("amount", "amount"),
        ("minutes", "{} minutes in transit"),
    ),
    # A month-to-date hold outside its band (tables.audit.investigations), raised by the audit.
    "hold_investigation": (
        ("drop", "drop"),
        ("win", "win"),
        ("hold_pct", "hold"),
        ("low_pct", "band from"),
        ("high_pct", "to"),
    ),
    # A drop box left at its table too long (tables.drop.overdue), not by a detector.
    "drop_box_overdue": (
        ("box", "box"),
        ("recorded", "recorded"),
        ("days", "{} gaming days at the table"),
    ),
}

# How a key's value reads when it is not money (money is each detector's ``MONEY``).
REFERENCES = {  # an id, as the reference the naming pass puts a name on
    "requested_by": "staff",
    "approved_by": "staff",
    "closed_by": "staff",
    "from_player": "player",
    "to_player": "player",
    "table": "table",
}
FRACTIONS = frozenset({"ratio", "share", "threshold_ratio"})  # 0.5 → 50%
PERCENTAGES = frozenset({"hold_pct", "theo_hold_pct", "low_pct", "high_pct"})  # stored as 12.34 → 12.34%
CHANCES = frozenset({"p_value", "chance"})  # 0.00032 → 1 in 3,100
SECONDS = frozenset({"seconds_before_close"})


def _percent(fraction: float) -> str:
    """0.5 → "50%", 0.545 → "54.5%", 0.0066 → "0.66%": three figures at most, written as the
    summaries beside it write theirs."""
    return f"{100 * fraction:.3g}%"


def _reads(key: str, money: frozenset[str]) -> Callable[[Any], str]:
    """The writer of ``key``'s value."""
    if key in money:
        return format_dollars
    if key in REFERENCES:
        return lambda value: f"{REFERENCES[key]} {value}"
    if key in FRACTIONS:
        return lambda value: _percent(float(value))
    if key in PERCENTAGES:
        return lambda value: f"{float(value):.2f}%"
    if key in CHANCES:
        return lambda value: one_in(float(value))
    if key in SECONDS:
        return lambda value: minutes_words(float(value))
    return lambda value: f"{value:,}" if isinstance(value, int) else str(value)


def evidence_brief(kind: str, evidence: Mapping[str, Any]) -> str:
    """The glance of ``kind``'s evidence: "filled $30,000.00 · requested by staff 54 · tray at 50%
    of its opening or more". Figures the alert does not carry are left out; an unknown kind has
    no glance."""
    money = MONEY_OF_KIND.get(kind, frozenset())
    parts = [
        _phrase(words, _reads(key, money)(evidence[key]))
        for key, words in GLANCE.get(kind, ())
        if isinstance(evidence.get(key), int | float | str) and not isinstance(evidence.get(key), bool)
    ]
    return " · ".join(parts[:GLANCE_FIELDS])


def _phrase(words: str, value: str) -> str:
    """ "{} fills" with 6 → "6 fills"; "requested by" with "staff 4" → "requested by staff 4"."""
    return words.format(value) if "{}" in words else f"{words} {value}"
