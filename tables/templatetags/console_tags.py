"""Template helpers for the console and the pit view: dollars, cards and one-time form tokens."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from casino.money import format_dollars, format_dollars_input
from casino.permissions import screens_for
from tables.console.dealer import faro_markup, panel_markup
from tables.console.dealer.cards import card_name, shown_card, shown_suit
from tables.console.dealer.games import state_words
from tables.console.dealer.panel_markup import token_input

register = template.Library()


# Cents as dollars (123450 → $1,234.50) and as a dollars input's value (→ 1234.50): casino.money.
dollars = register.filter("dollars", format_dollars)
dollars_input = register.filter("dollars_input", format_dollars_input)


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


form_token = register.simple_tag(token_input, name="form_token")


@register.simple_tag(takes_context=True)
def inline_error(context: template.Context, here: Any) -> str:
    """The refusal of the form named ``here`` under it (``panel_markup.inline_error``)."""
    return mark_safe(panel_markup.inline_error(context.get("flash"), here))  # escaped there


@register.simple_tag
def seat_balance(row: Any) -> SafeString:
    """A seat row's chips (``panel_markup.seat_balance``)."""
    return panel_markup.seat_balance(row["player"].pk, row["balance"])


@register.simple_tag(takes_context=True)
def correction_panel(context: template.Context) -> SafeString:
    """The correction panel (``panel_markup.correction_panel``) from the screen's context."""
    return panel_markup.correction_panel(
        context["request"],
        table_id=context["table"].pk,
        correction=context["correction"],
        flash=context.get("flash"),
    )


FARO_PANELS = {
    "deal": faro_markup.deal_panel,
    "bets": faro_markup.bets_panel,
    "picker": faro_markup.picker_panel,
}


@register.simple_tag(takes_context=True)
def faro_panel(context: template.Context, name: str) -> SafeString:
    """A Faro panel of ``FARO_PANELS`` (``faro_markup``'s dealing panel, bets, card picker) from the
    screen's context."""
    return FARO_PANELS[name](context["request"], **faro_markup.panel_args(context))


@register.simple_tag(takes_context=True)
def faro_keeper_panel(context: template.Context) -> SafeString:
    """The casekeeper (``faro_markup.keeper_panel``) from the screen's context."""
    return faro_markup.keeper_panel(context["faro"]["casekeeper"], oob=False)


@register.simple_tag(takes_context=True)
def receipt(context: template.Context) -> SafeString:
    """The answer to the last tap (``panel_markup.receipt``) from the screen's context."""
    return panel_markup.receipt(context["request"], context.get("flash"), context.get("table"))


@register.simple_tag(takes_context=True)
def tray_balance(context: template.Context) -> SafeString:
    """The header's tray balance (``panel_markup.tray_balance``) from the screen's context."""
    return panel_markup.tray_balance(context["table"].tray.balance)


@register.simple_tag(takes_context=True)
def faro_bet_form(context: template.Context) -> SafeString:
    """The Faro bet form (``faro_markup.bet_form``) from the screen's context."""
    return faro_markup.bet_form(
        context["request"],
        seats=context["seats"],
        sticky=context["sticky"],
        **faro_markup.panel_args(context),
    )


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
