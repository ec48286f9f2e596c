"""Template helpers for the audit report (HTML page and PDF): cents, percentages, minutes, and the
report's codes (games, finding kinds, account purposes, cash kinds) in the words people read."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django import template
from django.utils.text import capfirst

from casino.money import format_dollars
from ledger.dollars import MINUS
from ledger.models import AccountPurpose
from tables.console.cage.views import CAGE_KINDS
from tables.console.dealer.games import GAME_TITLES

register = template.Library()


# Integer cents as dollars: 123450 → $1,234.50; None → an em dash (casino.money).
register.filter("cents", format_dollars)

# The trial balance's rows are groups of accounts, one per purpose: named as a group.
ACCOUNT_GROUPS: dict[str, str] = {
    AccountPurpose.WALLET: "Player wallets",
    AccountPurpose.TRAY: "Table trays",
    AccountPurpose.LAYOUT: "Chips on the layouts",
    AccountPurpose.POT: "Pots",
    AccountPurpose.CAGE: "The cage",
    AccountPurpose.HOUSE_BANK: "The house bank",
    AccountPurpose.RAKE_REVENUE: "Rake revenue",
    AccountPurpose.HOUSE_WIN: "House win",
    AccountPurpose.SUSPENSE: "Count over/short (suspense)",
    AccountPurpose.TRANSIT: "Chips in transit",
    AccountPurpose.DROP: "Cash in the drop boxes",
    AccountPurpose.COUNT_ROOM: "Cash in the count room",
    AccountPurpose.MARKERS: "Markers: players' debts and the credit extended",
}

# What each finding kind of the audit (tables/audit/compute) is about, as a heading.
FINDING_TITLES = {
    "account_balance_mismatch": "Balance differs from its entries",
    "audit_section_failed": "Section not computed",
    "commitment_mismatch": "Seed does not match its commitment",
    "correction_pending": "Correction still pending",
    "count_variance": "Count variance",
    "credit_ledger_mismatch": "Markers differ from the ledger's receivable",
    "drop_box_overdue": "Drop box not removed",
    "drop_count_variance": "Drop box counted off what was recorded",
    "hold_investigation": "Hold outside its band",
    "ctr_required": "CTR required",
    "ctr_without_identification": "CTR with no identification on file",
    "marker_past_deadline": "Marker past its collection deadline",
    "opening_variance": "Opening count differs",
    "reportable_variance": "Reportable count variance",
    "rake_without_table": "Rake with no table",
    "reversal_mismatch": "Reversal does not mirror its transfer",
    "round_live": "Round still live",
    "round_replay_mismatch": "Round does not replay",
    "settlement_ledger_mismatch": "Settlements differ from the ledger",
    "slip_in_transit": "Slip still in transit",
    "slip_missing": "Slip number missing",
    "slips_ledger_mismatch": "Slips differ from the ledger",
    "table_open": "Table still open",
    "transfer_not_zero_sum": "Transfer does not sum to zero",
    "trial_balance_unbalanced": "Trial balance does not balance",
    "uncounted_table": "Table not counted",
    "variance_unexplained": "Variance not explained",
}


def _words(code: Any, words: Mapping[str, str]) -> str:
    """``code`` in words; a code no table knows yet still reads as words, never with underscores."""
    text = str(code or "")
    return words.get(text) or capfirst(text.replace("_", " "))


@register.filter
def game_name(table: Mapping[str, Any]) -> str:
    """A table row's game as the pit names it: "Fan Tan", "Card room (Gops)"."""
    title = _words(table.get("game"), GAME_TITLES)
    return f"{title} ({table['variant']})" if table.get("variant") else title


@register.filter
def account_group(purpose: Any) -> str:
    """A trial-balance row's accounts: "The cage", "Rake revenue", "Player wallets"."""
    return _words(purpose, ACCOUNT_GROUPS)


@register.filter
def finding_title(kind: Any) -> str:
    """A finding's kind as a heading: "Count variance", "CTR required"."""
    return _words(kind, FINDING_TITLES)


# A slip's kind as the pit says it (tables.slips).
SLIP_KINDS = {"opener": "Opener", "closer": "Closer", "count": "Count", "fill": "Fill", "credit": "Credit"}


@register.filter
def slip_kind(kind: Any) -> str:
    return _words(kind, SLIP_KINDS)


@register.filter
def cash_kind(kind: Any) -> str:
    """An MTL entry's kind as the cage says it: "Buy-in", "Cash-out"."""
    return _words(kind, CAGE_KINDS)


# A cash transaction's kind (casino.cash) as the cage and the pit say it.
CASH_LINE_KINDS = {
    "cage_buy_in": "Buy-in at the cage",
    "table_buy_in": "Cash buy-in at a table",
    "marker_redemption": "Marker redeemed in cash",
    "cage_cash_out": "Cash-out at the cage",
}


@register.filter
def cash_line_kind(kind: Any) -> str:
    return _words(kind, CASH_LINE_KINDS)


@register.filter
def percent(value: Any) -> str:
    """A stored percentage (12.34) as "12.34 %", a negative one with the minus sign that dollars
    use (−25.84 %); None (no handle) → an em dash."""
    if value is None or value == "":
        return "—"
    return f"{float(value):.2f} %".replace("-", MINUS)


@register.filter
def ratio_percent(value: Any) -> str:
    """A ratio (0.0714, a hold) as "7.14 %"; None (no drop) → an em dash."""
    if value is None or value == "":
        return "—"
    return percent(100 * float(value))


@register.filter
def box_status(status: Any) -> str:
    """A drop box's status in words."""
    return _words(
        status, {"at_table": "At the table", "removed": "Waiting for the count", "counted": "Counted"}
    )


@register.filter
def band(theo_band: Mapping[str, Any] | None) -> str:
    """A theoretical-hold band as "−60.8 … 66.1 %"; no handle → an em dash."""
    if not theo_band or theo_band.get("low_pct") is None or theo_band.get("high_pct") is None:
        return "—"
    low, high = (f"{float(theo_band[end]):.1f}".replace("-", MINUS) for end in ("low_pct", "high_pct"))
    return f"{low} … {high} %"


@register.filter
def duration(minutes: Any) -> str:
    """Minutes as "3 h 05"; under an hour "42 min"."""
    if minutes is None:
        return "—"
    hours, rest = divmod(int(minutes), 60)
    return f"{hours} h {rest:02d}" if hours else f"{rest} min"


@register.filter
def joined(values: Any) -> str:
    return ", ".join(str(v) for v in values or ())


@register.filter
def negative(value: Any) -> bool:
    """An amount below zero (shown in the loss colour); no amount is not negative."""
    return isinstance(value, int | float) and value < 0
