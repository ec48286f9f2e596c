"""The pit's table cards as markup, written in Python rather than in a template.

A floor draws two hundred cards of fifty-odd texts each, and through the template engine that is
several times what the same markup costs written here: ``bench/run-markup`` renders the cards
from their template twin (``bench/markup/``) and from here, checks both write the same bytes and
prints both times. The grid around the cards is a template (``pit/_floor.html``). Every text is
escaped (``html.escape``, as Django's ``escape`` does); numbers are written as they are; the chart
and the slots are markup already. ``tables.console.pit.floor`` shares what this writes.

A card is a glance (name, status, game, dealer, players, tray, win, the live deal) small enough
for twelve to fit a tablet's screen (issue 44), and a disclosure ("More") with the rest: limits,
occupancy, pace, the hourly chart, who dealt the table, and the forms the reader may use.
"""

from __future__ import annotations

from collections.abc import Sequence
from html import escape
from typing import Any

from django.utils.safestring import mark_safe

from tables.console.pit.figures import TableFigures

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
        shape="tray-form",
    )


def _markers_link(c: dict[str, Any]) -> str:
    """The table's markers page: players' credit available and a marker to issue (tray's readers)."""
    return (
        f'<a class="btn" href="{escape(c["urls"]["markers"])}" data-testid="pit-markers-link">'
        f"Markers at {escape(c['name'])}</a>"
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


def relief_options(dealers: Sequence[tuple[int, str]]) -> str:
    """The dealers free to swap in, as the options every card's dealer form offers (written once)."""
    return "".join(f'<option value="{pk}">{escape(name)}</option>' for pk, name in dealers)


def _dealer_form(c: dict[str, Any], options: str) -> str:
    """Swap a relief dealer in at this table (the API's assign): the dealers who deal no table."""
    pk, name, url = c["pk"], escape(c["name"]), escape(c["urls"]["dealer"])
    if not options:
        return '<p class="muted">No dealer is free to swap in.</p>'
    verb = "Swap in" if c["dealer"] else "Assign"
    return _form(
        url,
        f"dealer{pk}",
        f'        <label for="relief-{pk}"><span>Relief dealer</span>'
        f'<select id="relief-{pk}" name="dealer" required>{options}</select></label>\n'
        f'        <button type="submit" class="btn" aria-label="{verb} a dealer at {name}">{verb}</button>\n',
        test_id="pit-dealer-form",
        shape="dealer-form",
    )


def _dealer_history(c: dict[str, Any]) -> str:
    """Who dealt the table, newest first, with the casino's clock times (``card_view``'s words)."""
    if not c["history"]:
        return '<p class="muted">No dealer yet.</p>'
    rows = "".join(f"<li><strong>{escape(who)}</strong> {escape(when)}</li>" for who, when in c["history"])
    return f'<ol class="history dealer-history" data-testid="dealer-history">{rows}</ol>'


def _form(url: str, name: str, fields: str, *, test_id: str = "", shape: str = "") -> str:
    """A pit form around ``fields``: posted by htmx, answered into the pit, with the CSRF slot and
    the one-time token slot (``name`` on the card) that each answer fills (``floor_cards``).
    ``shape`` is a class for its layout (pit.css)."""
    return (
        f'<form class="limit-form{f" {shape}" if shape else ""}" method="post" action="{url}"'
        f' hx-post="{url}" hx-target="#pit-live"'
        f' hx-disabled-elt="find button"{f' data-testid="{test_id}"' if test_id else ""}>\n'
        f'        <input type="hidden" name="csrfmiddlewaretoken" value="{CSRF_SLOT}">'
        f'<input type="hidden" name="token" value="{TOKEN_SLOT}-{name}">\n'
        f"{fields}"
        "      </form>"
    )


def card_html(c: dict[str, Any], *, tray: bool, limits: bool, admin: bool, dealers: str | None) -> str:
    """One table's card from ``pit_floor.card_view``'s words: the glance, then behind "More" the
    figures, hourly chart, dealers and the forms the reader's role is shown (a fill or credit to
    ask for, limits to set, a dealer to swap in: ``dealers``, the options, None if not theirs)."""
    pk, name, f = c["pk"], escape(c["name"]), c["f"]
    status, status_label = escape(c["status"]), escape(c["status_label"])
    forms = "".join(
        f"\n      {form}"
        for form in (
            _tray_form(c) if tray and c["is_open"] else "",
            _markers_link(c) if tray and c["is_open"] else "",
            _limits_form(c) if limits else "",
            f'<a href="{escape(c["urls"]["admin"])}">Open {name} in the admin</a>' if admin else "",
        )
        if form
    )
    swap = f"\n        {_dealer_form(c, dealers)}" if dealers is not None else ""
    return (
        f'\n    <article class="tcard" data-testid="pit-table" aria-labelledby="pit-table-{pk}">\n'
        f'      <h2 id="pit-table-{pk}">{name} <span class="badge {status}">{status_label}</span></h2>\n'
        '      <dl class="glance">\n'
        f"        <dt>Game</dt><dd>{escape(c['game'])}</dd>\n"
        f"        <dt>Dealer</dt><dd>{_or_none(c['dealer'])}</dd>\n"
        f"        <dt>Players</dt><dd>{c['players']}</dd>\n"
        f"        <dt>Tray</dt><dd>{escape(c['tray'])}</dd>\n"
        f'        <dt>Win tonight</dt><dd data-testid="win-tonight" class="{c["win_class"]}">'
        f"{escape(c['win'])}</dd>\n"
        f"        <dt>Live deal</dt><dd>{_or_none(c['live_deal'])}</dd>\n"
        "      </dl>\n"
        f'      <details class="more" id="more-{pk}">\n'
        '        <summary class="btn btn-quiet">More'
        f'<span class="visually-hidden"> at {name}</span></summary>\n'
        "      <dl>\n"
        f"        <dt>Limits</dt><dd>{escape(c['limits'])}</dd>\n"
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
        f'      <section class="dealers" aria-labelledby="dealers-{pk}">\n'
        f'        <h3 id="dealers-{pk}">Who dealt {name}</h3>\n'
        f"        {_dealer_history(c)}{swap}\n"
        "      </section>"
        f"{forms}\n"
        "      </details>\n"
        "    </article>\n    "
    )
