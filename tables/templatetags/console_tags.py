"""Template helpers for the console and the pit view: dollars, cards, paths, one-time form tokens,
the receipt of the last tap, and the Faro screen's repeated items."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.safestring import SafeString

from casino.money import format_dollars, format_dollars_input
from casino.permissions import screens_for
from tables.console.dealer import faro_rows
from tables.console.dealer.cards import card_name, shown_card, shown_suit
from tables.console.idempotency import new_token
from tables.console.paths import path_to
from tables.console.words import state_words

register = template.Library()


# Cents as dollars (123450 → $1,234.50) and as a dollars input's value (→ 1234.50): casino.money.
dollars = register.filter("dollars", format_dollars)
dollars_input = register.filter("dollars_input", format_dollars_input)


@register.filter
def chip_dollars(cents: int) -> str:
    """A chip's label: whole dollars when even ($25), else with cents ($2.50)."""
    return format_dollars(cents, whole_if_even=True)


# A console URL from Django's own ``reverse``, kept for the process (tables.console.paths).
path = register.simple_tag(path_to, name="path")
# A form's one-time token (tables.console.idempotency): a double tap replays the first outcome.
# Every form carries it: <input type="hidden" name="token" value="{% one_time_token %}">.
one_time_token = register.simple_tag(new_token, name="one_time_token")


card = register.filter("card", shown_card)  # 10H → 10♥


@register.filter
def card_title(code: Any) -> str:
    """10H → ten of hearts (for screen readers)."""
    return card_name(str(code)) if code else ""


card_class = register.filter("card_class", shown_suit)


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    if not mapping:
        return None
    if key in mapping:
        return mapping[key]
    return mapping.get(str(key))


@register.inclusion_tag("console/_receipt.html", takes_context=True)
def receipt(context: template.Context) -> dict[str, Any]:
    """The answer to the last tap (``taps.Flash``) from the screen's context, wherever a screen
    shows it (the dealer's header, the pit, the cage); ``table``: where a tray's fill is asked."""
    return {"flash": context.get("flash"), "table": context.get("table")}


# The Faro screen's repeated items, written in Python for speed (tables.console.dealer.faro_rows).
register.filter("faro_targets", faro_rows.targets)
register.filter("faro_recent_turns", faro_rows.recent_turns)
register.filter("faro_cells", faro_rows.cells)
register.filter("faro_spots", faro_rows.spots)
register.filter("faro_chips", faro_rows.chips)
register.filter("faro_bet_rows", faro_rows.bet_rows)
register.filter("faro_keeper", faro_rows.keeper)
register.filter("faro_picker", faro_rows.picker)


@register.filter
def faro_player_picks(seats: Any, sticky: Any) -> SafeString:
    """The bet form's players, the one a refused bet named (``sticky``) chosen again."""
    return faro_rows.player_picks(seats, (sticky or {}).get("player"))


@register.filter
def faro_amount_picks(amounts: Any, sticky: Any) -> SafeString:
    """The chips to bet with, the one a refused bet named (``sticky``) chosen again."""
    return faro_rows.amount_picks(amounts, (sticky or {}).get("amount"))


@register.filter
def faro_pick_oob(seat: Any) -> SafeString:
    """A betting player's chips in their pick (``seat``: player and balance), for a bet's answer."""
    return faro_rows.pick_available(seat["player"].pk, seat["balance"].available, oob=True)


@register.filter
def faro_minis_oob(box: Any) -> SafeString:
    """A target box's chips, for a bet's answer."""
    return faro_rows.target_minis(box, oob=True)


@register.filter
def secondary_offers(actions: Any) -> list[Any]:
    """The offers kept behind their own control (penalties), in the engine's order."""
    return [action for action in actions or [] if getattr(action, "secondary", False)]


@register.inclusion_tag("console/_nav.html", takes_context=True)
def role_nav(context: template.Context) -> dict[str, Any]:
    """The nav bar of the signed-in person's role: the screens ``casino.permissions.SCREENS`` lets
    them open, so a link the nav shows is never one the screen refuses."""
    user = context.get("user")
    if user is None or not user.is_authenticated:
        return {"links": []}
    request = context.get("request")
    path = request.path if request is not None else ""
    links = []
    for screen in screens_for(user):
        href = reverse(screen.url_name)
        links.append(
            {
                "label": screen.label,
                "href": f"{href}#{screen.fragment}" if screen.fragment else href,
                "current": path == href and not screen.fragment,
            }
        )
    return {"links": links}


@register.filter
def in_words(value: Any) -> str:
    """An engine's state value (a phase, a settle mode, an outcome) in words, never its code."""
    return state_words(value) if value not in (None, "") else ""
