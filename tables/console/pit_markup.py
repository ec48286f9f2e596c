"""The pit's table cards as markup, written in Python rather than a template loop (issue 22).

The template engine took 74 to 97 ms of CPU to place 200 cards' fifty-odd variables, tags and
filters each, about a third of a render; this takes 4 to 10. Every text is escaped
(``html.escape``, as Django's ``escape`` does); numbers are written as they are; the chart and the
slots are markup already. The whitespace is the former template's (``pit/_floor.html``), so the
page is the same byte for byte. ``tables.console.pit_floor`` shares what this writes.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from django.utils.safestring import mark_safe

from tables.console.floor_figures import TableFigures

# Markup no escaped text can contain (``<`` is escaped): the slots are the cards' own, filled for
# each answer with its CSRF token and one-time token prefix.
CSRF_SLOT = mark_safe("<pit-csrf-slot>")
TOKEN_SLOT = mark_safe("<pit-token-slot>")

_MUTED_NONE = '<span class="muted">none</span>'
_MUTED_DASH = '<span class="muted">—</span>'


def _or_none(text: str | None) -> str:
    return escape(text) if text else _MUTED_NONE


def _pace(f: TableFigures) -> str:
    if f.dealer_pace is None:
        return _MUTED_DASH
    return (
        f"{f.dealer_pace} decisions/hour"
        f' <span class="muted">({f.dealer_decisions} in {f.dealer_minutes} min)</span>'
    )


def _tray_form(c: dict[str, Any]) -> str:
    """Ask the cage for a fill or a credit at this table (an open table only)."""
    pk, name, url = c["pk"], escape(c["name"]), escape(c["urls"]["tray"])
    return _form(
        url,
        f"tray{pk}",
        f'        <label for="tray-kind-{pk}"><span>Ask for</span><select id="tray-kind-{pk}" name="kind">'
        '<option value="fill">Fill (cage → tray)</option>'
        '<option value="credit">Credit (tray → cage)</option></select></label>\n'
        f'        <label for="tray-amount-{pk}"><span>Amount ($)</span>'
        f'<input type="text" inputmode="decimal" id="tray-amount-{pk}" name="amount" required></label>\n'
        f'        <button type="submit" class="btn" aria-label="Ask for a fill or credit at {name}">'
        "Ask</button>\n",
        test_id="pit-tray-request",
    )


def _limits_form(c: dict[str, Any]) -> str:
    """Set the table's minimum and maximum bet, filled in with the limits now."""
    pk, name, url = c["pk"], escape(c["name"]), escape(c["urls"]["limits"])
    low, high = escape(c["min_input"]), escape(c["max_input"])
    return _form(
        url,
        f"limits{pk}",
        f'        <label for="min-{pk}"><span>Min ($)</span><input type="text" inputmode="decimal"'
        f' id="min-{pk}" name="min_bet" value="{low}" required></label>\n'
        f'        <label for="max-{pk}"><span>Max ($)</span><input type="text" inputmode="decimal"'
        f' id="max-{pk}" name="max_bet" value="{high}" required></label>\n'
        f'        <button type="submit" class="btn" aria-label="Change limits at {name}">Set</button>\n',
    )


def _form(url: str, name: str, fields: str, *, test_id: str = "") -> str:
    """A pit form around ``fields``: posted by htmx, answered into the pit, with the CSRF slot and
    the one-time token slot (``name`` on the card) that each answer fills (``floor_cards``)."""
    return (
        f'<form class="limit-form" method="post" action="{url}" hx-post="{url}" hx-target="#pit-live"'
        f' hx-disabled-elt="find button"{f' data-testid="{test_id}"' if test_id else ""}>\n'
        f'        <input type="hidden" name="csrfmiddlewaretoken" value="{CSRF_SLOT}">'
        f'<input type="hidden" name="token" value="{TOKEN_SLOT}-{name}">\n'
        f"{fields}"
        "      </form>"
    )


def _own_lines(form: str) -> str:
    """A form where the template's ``{% if %}`` block put it: on lines of its own, or nothing."""
    return f"\n      {form}\n      " if form else ""


def grid_html(cards: Sequence[str]) -> str:
    """The cards under their heading, as the pit's live partial places them."""
    return f'\n  <h2>Tables</h2>\n  <div class="grid-cards">\n    {"".join(cards)}\n  </div>\n'


def card_html(c: dict[str, Any], *, tray: bool, limits: bool, admin: bool) -> str:
    """One table's card from ``pit_floor.card_view``'s words: figures, hourly chart, and the forms
    the reader's role is shown (a fill or credit to ask for, limits to set, the admin link)."""
    pk, name, f = c["pk"], escape(c["name"]), c["f"]
    status, status_label = escape(c["status"]), escape(c["status_label"])
    tray_form = _tray_form(c) if tray and c["is_open"] else ""
    limits_form = _limits_form(c) if limits else ""
    admin_link = f'<a href="{escape(c["urls"]["admin"])}">Open {name} in the admin</a>' if admin else ""
    return (
        f'\n    <article class="tcard" data-testid="pit-table" aria-labelledby="pit-table-{pk}">\n'
        f'      <h2 id="pit-table-{pk}">{name} <span class="badge {status}">{status_label}</span></h2>\n'
        "      <dl>\n"
        f"        <dt>Game</dt><dd>{escape(c['game'])}</dd>\n"
        f"        <dt>Dealer</dt><dd>{_or_none(c['dealer'])}</dd>\n"
        f"        <dt>Limits</dt><dd>{escape(c['limits'])}</dd>\n"
        f"        <dt>Tray</dt><dd>{escape(c['tray'])}</dd>\n"
        f"        <dt>Players</dt><dd>{c['players']}</dd>\n"
        f"        <dt>Live deal</dt><dd>{_or_none(c['live_deal'])}</dd>\n"
        f'        <dt>Win tonight</dt><dd data-testid="win-tonight" class="{c["win_class"]}">'
        f"{escape(c['win'])}</dd>\n"
        f'        <dt>Occupancy</dt><dd data-testid="occupancy">'
        f"{c['players']} seated · {escape(f.occupancy_text)} average this hour</dd>\n"
        f'        <dt>Dealer pace</dt><dd data-testid="dealer-pace">{_pace(f)}</dd>\n'
        "      </dl>\n"
        f'      <figure class="hourly" data-testid="hourly" aria-labelledby="hourly-{pk}">\n'
        f"        {f.chart}\n"
        f'        <figcaption id="hourly-{pk}">Rated rounds today:'
        f' win <strong class="{c["today_class"]}">{escape(c["today_win"])}</strong>'
        f" on {escape(c['today_handle'])} handle · hold {escape(f.hold_text)}"
        ' <span class="muted">(bars: win per hour; dots: hold)</span></figcaption>\n'
        "      </figure>\n"
        f"      {_own_lines(tray_form)}\n"
        f"      {_own_lines(limits_form)}\n"
        f"      {admin_link}\n"
        "    </article>\n    "
    )
