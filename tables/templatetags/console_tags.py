"""Template helpers for the console and the pit view: dollars, cards and one-time form tokens."""

from __future__ import annotations

from typing import Any

from django import template
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.utils.safestring import SafeString, mark_safe

from casino.money import format_dollars, format_dollars_input
from casino.permissions import screens_for
from tables.console.cards import card_label, card_name, suit_class
from tables.console.games import state_words
from tables.console.idempotency import new_token

register = template.Library()


# Cents as dollars (123450 → $1,234.50) and as a dollars input's value (→ 1234.50): casino.money.
dollars = register.filter("dollars", format_dollars)
dollars_input = register.filter("dollars_input", format_dollars_input)


@register.filter
def chip_dollars(cents: Any) -> str:
    """A short chip label: 2500 → $25, 250 → $2.50."""
    return format_dollars(cents, whole_if_even=True)


@register.filter
def card(code: Any) -> str:
    """10H → 10♥."""
    return card_label(str(code)) if code else "—"


@register.filter
def card_title(code: Any) -> str:
    """10H → ten of hearts (for screen readers)."""
    return card_name(str(code)) if code else ""


@register.filter
def card_class(code: Any) -> str:
    return suit_class(str(code)) if code else ""


@register.filter
def get_item(mapping: Any, key: Any) -> Any:
    if not mapping:
        return None
    if key in mapping:
        return mapping[key]
    return mapping.get(str(key))


@register.simple_tag
def form_token() -> SafeString:
    """A fresh one-time token for one form: a double tap replays the first outcome."""
    return format_html('<input type="hidden" name="token" value="{}">', new_token())


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


# The Faro layout's chips and the bets table grow with the deal (a row or a chip a bet); drawn
# by the template engine they were most of a tap's CPU, since a tap answers with the whole
# screen (issue 22). The markup is the same as the template loops it replaces.
_CHIP = (
    '<span class="chip{}" data-testid="chip" data-bet="{}" style="left: {}%; top: {}%; --i: {}; '
    '--chip: {}; --chip-text: {}" title="{}: {} on {}{}">{}</span>'
)
_BET_ROW = (
    '<tr data-testid="bet-row">\n'
    '<td><span class="dot" style="--chip: {}" aria-hidden="true"></span> {}</td>\n'
    "<td>{}</td>\n"
    "<td>{}{}</td>\n"
    '<td><form method="post" action="{}" hx-post="{}" hx-disabled-elt="find button">'
    '{}<input type="hidden" name="token" value="{}"><input type="hidden" name="version" value="{}">'
    '<input type="hidden" name="bet" value="{}">'
    '<button type="submit" class="btn" aria-label="Take down {}\'s {} on {}">Take down</button>'
    "</form></td>\n</tr>"
)
_COPPERED = mark_safe(' <span class="sub">coppered</span>')  # a constant: nothing to escape


@register.simple_tag
def faro_chips(chips: Any) -> SafeString:
    """Every chip on the Faro layout (``tables.console.faro.layout_chips``), one span each."""
    return format_html_join(
        "\n",
        _CHIP,
        (
            (
                " coppered" if chip.get("coppered") else "",
                chip["id"],
                chip["x"],
                chip["y"],
                chip["stack"],
                chip["colour"].background,
                chip["colour"].text,
                chip["name"],
                format_dollars(chip["amount"]),
                chip["placement"],
                " (coppered)" if chip.get("coppered") else "",
                format_dollars(chip["amount"], whole_if_even=True),
            )
            for chip in chips
        ),
    )


@register.simple_tag(takes_context=True)
def faro_bet_rows(context: template.Context, bets: Any, remove_url: str, version: Any) -> SafeString:
    """The bets table's rows (``tables.console.faro.bet_rows``), each with its take-down form:
    the CSRF field as ``{% csrf_token %}`` writes it, and a one-time token of its own."""
    csrf = context.get("csrf_token")
    csrf_field = (
        format_html('<input type="hidden" name="csrfmiddlewaretoken" value="{}">', csrf)
        if csrf and csrf != "NOTPROVIDED"
        else ""
    )
    return format_html_join(
        "\n",
        _BET_ROW,
        (
            (
                bet["colour"].background,
                bet["name"],
                bet["placement"],
                format_dollars(bet["amount"]),
                _COPPERED if bet.get("coppered") else "",
                remove_url,
                remove_url,
                csrf_field,
                new_token(),
                version,
                bet["id"],
                bet["name"],
                format_dollars(bet["amount"]),
                bet["placement"],
            )
            for bet in bets
        ),
    )
