"""Template helpers for the audit report (HTML page and PDF): cents, percentages, minutes."""

from __future__ import annotations

from typing import Any

from django import template

from casino.money import format_dollars

register = template.Library()


# Integer cents as dollars: 123450 → $1,234.50; None → an em dash (casino.money).
register.filter("cents", format_dollars)


@register.filter
def percent(value: Any) -> str:
    """A stored percentage (12.34) as "12.34 %"; None (no handle) → an em dash."""
    if value is None or value == "":
        return "—"
    return f"{float(value):.2f} %"


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
