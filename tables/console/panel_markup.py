"""Markup every game's screen shares, written in Python: a form's hidden tokens, a seated
player's chips, the inline error and the correction panel.

A Faro tap's answer redraws these on every bet and turn (``faro_partial``); drawn by the template
engine they cost several times what the same text costs written here (issue 22). The templates
that used to draw them call these functions through ``console_tags``, so the whole screen and a
tap's answer draw the same markup. Every text is escaped (``html.escape``, as Django's
``escape`` does).
"""

from __future__ import annotations

from collections.abc import Mapping
from html import escape
from typing import Any

from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.urls import reverse
from django.utils.safestring import SafeString, mark_safe

from casino.money import format_dollars
from tables.console.idempotency import new_token

OOB = ' hx-swap-oob="true"'  # a part a tap's answer sends alone, out of band (``faro_partial``)


def csrf_input(request: HttpRequest) -> str:
    """The CSRF field, as Django's ``{% csrf_token %}`` writes it."""
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(get_token(request))}">'


def token_input(element_id: str = "") -> SafeString:
    """A fresh one-time token for one form: a double tap replays the first outcome. ``element_id``:
    the input's id, for a form whose token a partial answer replaces (``faro_partial``)."""
    named = f'id="{escape(element_id)}" ' if element_id else ""
    return mark_safe(f'<input type="hidden" {named}name="token" value="{new_token()}">')


def seat_balance(player_id: int, balance: Any, *, oob: bool = False) -> SafeString:
    """A seated player's chips in the seats panel (``casino.selectors.Balance``); a Faro tap's
    answer sends it alone, out of band, for each player whose chips it moved."""
    in_play = (
        f' <span class="muted">+ {escape(format_dollars(balance.in_play))} in play</span>'
        if balance.in_play
        else ""
    )
    return mark_safe(
        f'\n<span class="nowrap" id="seat-available-{int(player_id)}" title="Available to play"'
        f"{OOB if oob else ''}>{escape(format_dollars(balance.available))}{in_play}</span>\n"
    )


def inline_error(flash: Any, here: Any) -> str:
    """The refusal of the form named ``here``, under that form (empty for any other outcome)."""
    if flash and not flash.ok and flash.form == here:
        headline = escape(str(flash.headline))
        return f'<p class="inline-error" role="alert" data-testid="inline-error">{headline}</p>'
    return ""


def correction_panel(
    request: HttpRequest, *, table_id: int, correction: Mapping[str, Any], flash: Any, oob: bool = False
) -> SafeString:
    """Ask the pit to void the last action or the whole deal, or see that a correction waits."""
    number = escape(str(correction["round"].number))
    head = (
        "\n<section "
        f'class="panel" id="correction" aria-labelledby="correction-title" data-testid="correction-panel"'
        f"{OOB if oob else ''}>\n"
        '  <h2 id="correction-title">Ask a correction</h2>\n'
        f"  {inline_error(flash, 'correction')}\n\n  "
    )
    if correction["pending"]:
        body = (
            '\n    <p data-testid="correction-pending"><span class="badge pending">waiting</span>'
            f" A correction of deal #{number} is waiting for the pit:"
            " play resumes once it is decided.</p>\n  "
        )
    else:
        url = escape(reverse("console:correction", args=[table_id, correction["round"].pk]))
        last = correction["last"]
        last_pick = (
            '<label class="pick"><input type="radio" name="void" value="last" checked> The last action '
            f'<span class="sub">{escape(str(last))}</span></label>'
            if last
            else ""
        )
        body = (
            f'\n  <form method="post" action="{url}" hx-post="{url}" hx-disabled-elt="find button">\n'
            f"    {csrf_input(request)}{token_input()}\n"
            "    <fieldset>\n"
            "      <legend>Void (a pit boss must approve)</legend>\n"
            '      <div class="player-picks">\n'
            f"        {last_pick}\n"
            '        <label class="pick"><input type="radio" name="void" value="round"'
            f"{'' if last else ' checked'}> The whole deal #{number}"
            ' <span class="sub">a misdeal: every ante, bet and pot payment goes back</span></label>\n'
            "      </div>\n"
            "    </fieldset>\n"
            '    <label class="field" for="correction-reason"><span>Why</span>\n'
            '      <input type="text" id="correction-reason" name="reason" maxlength="300" required'
            ' placeholder="e.g. keyed 5♠, the card was 6♠">\n'
            "    </label>\n"
            '    <button type="submit" class="btn">Ask the pit to approve</button>\n'
            "  </form>\n  "
        )
    return mark_safe(f"{head}{body}\n</section>\n")
