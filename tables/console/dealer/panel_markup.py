"""Markup every game's screen shares, written in Python: a form's hidden tokens, a seated
player's chips, the tray's balance, the receipt of the last tap, the inline error and the
correction panel.

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

from django.conf import settings
from django.http import HttpRequest
from django.middleware.csrf import get_token
from django.utils.safestring import SafeString, mark_safe

from casino.money import format_dollars, format_dollars_input
from tables.console.idempotency import new_token
from tables.console.paths import path_to

OOB = ' hx-swap-oob="true"'  # a part a tap's answer sends alone, out of band (``faro_partial``)


_MASKED = "casekeeper_csrf_masked"  # the request's (secret, masked token): ``csrf_token``


def csrf_token(request: HttpRequest) -> str:
    """Django's ``get_token``, masked once per request and secret: a tap's answer has several forms,
    and masking (32 random characters) cost more than writing a form. One masked token for every
    form of an answer is what a template's ``{% csrf_token %}`` gives too; a secret rotated meanwhile
    (signing in) gets a new one."""
    secret = request.META.get("CSRF_COOKIE")
    kept = getattr(request, _MASKED, None)
    if secret is not None and kept is not None and kept[0] == secret:
        return str(kept[1])
    token = get_token(request)
    setattr(request, _MASKED, (request.META.get("CSRF_COOKIE"), token))
    return token


def csrf_input(request: HttpRequest) -> str:
    """The CSRF field, as Django's ``{% csrf_token %}`` writes it."""
    return f'<input type="hidden" name="csrfmiddlewaretoken" value="{escape(csrf_token(request))}">'


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


def tray_balance(balance: int, *, oob: bool = False) -> SafeString:
    """The header's tray balance; a Faro dealing tap's answer sends it alone, out of band."""
    return mark_safe(
        f'\n<strong data-testid="tray" id="tray-balance"{OOB if oob else ""}>'
        f"{escape(format_dollars(balance))}</strong>"
    )


_REPLAYED = ' <span class="muted">(already done — shown again, nothing posted twice)</span>'
_RECEIPT_BUTTONS = (
    '  <button type="button" class="receipt-more btn btn-quiet" data-receipt-more aria-expanded="false"'
    " hidden>more</button>\n"
    '  <button type="button" class="close-receipt" data-close-receipt aria-label="Dismiss">×</button>\n'
)


def _fill_form(request: HttpRequest, table_id: int, cents: int) -> str:
    """The next step when the tray cannot pay: a fill request pre-filled with what it lacks."""
    url = escape(path_to("console:fill", table_id))
    return (
        f'\n  <form class="receipt-fill" method="post" action="{url}" hx-post="{url}" hx-target="#screen"'
        ' hx-swap="outerHTML" hx-disabled-elt="find button" data-testid="request-fill">\n'
        f"    {csrf_input(request)}{token_input()}\n"
        '    <label for="fill-amount"><span>Fill ($)</span><input type="text" inputmode="decimal"'
        f' id="fill-amount" name="amount" value="{escape(format_dollars_input(cents))}" required></label>\n'
        '    <button type="submit" class="btn btn-primary">Request a fill</button>\n'
        "  </form>\n  "
    )


def receipt(request: HttpRequest, flash: Any, table: Any = None) -> SafeString:
    """The answer to the last tap (``taps.Flash``), two lines at most: console.js shows "more" when
    there is more and fades a success after a few seconds, unless it ``stays``; a refusal stays
    until dismissed. A tray that cannot pay gets the fill that lets play go on (``table``: where it
    is asked)."""
    if not flash:
        return mark_safe("\n")
    ok = flash.ok
    fades = ok and not flash.stays
    head = (
        f'\n<div class="receipt {"ok" if ok else "err"}" role="{"status" if ok else "alert"}"'
        f' aria-live="{"polite" if ok else "assertive"}" data-testid="receipt"'
        f"{f' data-fade-after="{settings.RECEIPT_FADE_MS}"' if fades else ''}>\n"
    )
    said = f"{'' if ok else 'Refused: '}{escape(str(flash.headline))}{_REPLAYED if flash.replayed else ''}"
    listed = "".join(f"<li>{escape(str(line))}</li>" for line in flash.lines)
    fill = _fill_form(request, table.pk, flash.fill_cents) if flash.fill_cents and table else ""
    return mark_safe(
        f'{head}  <div class="receipt-body" data-receipt-body>\n    <p>{said}</p>\n'
        f"    {f'<ul>{listed}</ul>' if flash.lines else ''}\n  </div>\n  {fill}\n"
        f"{_RECEIPT_BUTTONS}</div>\n\n"
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
        url = escape(path_to("console:correction", table_id, correction["round"].pk))
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
