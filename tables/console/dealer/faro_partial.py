"""Faro taps answered with only what they changed (htmx out-of-band swaps).

Redrawing the whole screen (about ninety bets late in a deal) was most of a console tap's cost
(issue 22). Two taps are answered in part, each only when it went through and came from its form
on a live screen (htmx names the form in ``HX-Trigger``):

A **bet** or a called turn (the bet form) adds one bet and moves one player's chips. It gets back
the receipt and, out of band:

- the round's new version in every form that posts it, and a fresh one-time token for the bet form;
- the new chip on the layout, or the mini chips of its even/odd/high box;
- the bets table's new row and count (the whole table for the deal's first bet);
- the player's chips in the bet form and in the seats panel;
- the correction panel, whose "last action" is now this bet.

A **dealing step** that leaves the deal live (the soda or a turn, from the "Deal turn" form or
the card picker) changes the layout, the bets and the players' chips, but not the seats, the tray's
forms, the limits or the header. It gets back the receipt and, out of band, the bet form whole
(with what the engine now takes a bet on), the dealing panel, the card picker, the bets table, the
casekeeper, every seated player's chips, the tray's balance and the correction panel. The last
turn settles the deal, so it gets the whole screen.

Anything else (a refusal, a replayed token, any other form, a request without htmx) gets the whole
screen. The markup comes from the same writers as the whole screen's. What the screen shows of
other people's doings (a fill the pit approved meanwhile, a new seat) waits for the next whole
screen, as it does after a bet.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.utils.html import escape
from django_htmx.http import reswap, retarget

from casino.selectors import get_player_balances
from tables.console.dealer import faro as faro_screen
from tables.console.dealer import faro_markup, panel_markup
from tables.console.dealer.panel_markup import OOB
from tables.console.idempotency import new_token
from tables.models import Round, ShoeKind, Table

BET_FORM = "bet-form"  # the forms' ids (games/_faro_*.html): htmx sends the tapped one as HX-Trigger
DEAL_FORM = "deal-form"  # an electronic shoe's "Deal turn"
PICKER_FORM = "picker-form"  # a manual shoe's card picker
PLACED_EVENT = "faro-bet-placed"  # console.js clears the bet form's choices on it
# The forms whose taps are answered in part, by the action they post (their ids, as htmx sends them).
FORMS_OF_KINDS = {
    "bet": {BET_FORM},
    "call_turn": {BET_FORM},
    "soda": {DEAL_FORM, PICKER_FORM},
    "turn": {DEAL_FORM, PICKER_FORM},
}
DEALING_KINDS = frozenset({"soda", "turn"})


def wanted(request: HttpRequest, kind: str) -> bool:
    """A tap answered in part: a bet, a called turn or a dealing step, sent by its form (htmx)."""
    htmx = getattr(request, "htmx", None)
    return bool(htmx) and htmx.trigger in FORMS_OF_KINDS.get(kind, ())  # type: ignore[union-attr]


def _oob_input(element_id: str, name: str, value: object) -> str:
    return f'<input type="hidden" id="{element_id}" name="{name}" value="{escape(str(value))}"{OOB}>'


def _versions(saved: Round, first_bet: bool) -> list[str]:
    """The new version in each form of the screen that posts one (the bets table's first bet
    brings its own take-down form)."""
    ids = ["version-bet", "version-deal" if saved.shoe == ShoeKind.ELECTRONIC else "version-picker"]
    if not first_bet:
        ids.append("version-take-down")
    return [_oob_input(element_id, "version", saved.version) for element_id in ids]


def _placed(
    public: Mapping[str, Any], bet: Mapping[str, Any], seats: Mapping[int, int], names: Mapping[int, str]
) -> str:
    """The new bet where the layout shows it: a chip on its cards, or its target box's minis."""
    if bet.get("kind") == "rank":
        chip = faro_screen.newest_chip(public, seats, names)
        return f'<div hx-swap-oob="beforeend:#layout-chips">{faro_markup.chips([chip])}</div>'
    if bet.get("kind") == "target":
        box = next(b for b in faro_screen.target_boxes(public, seats, names) if b["target"] == bet["target"])
        return faro_markup.target_minis(box["target"], box["bets"], oob=True)
    return ""  # a called turn is drawn in the bets table only


def _bets(
    request: HttpRequest, table: Table, saved: Round, seats: Mapping[int, int], names: Mapping[int, str]
) -> list[str]:
    """The new bet's row and the count; the whole table (and its take-down form) for the first."""
    bets = saved.state["bets"]
    newest = faro_screen.bet_row(bets[-1], seats, names)
    if len(bets) == 1:
        return [
            faro_markup.bets_panel(
                request, table=table, round_=saved, faro={"bets": [newest]}, flash=None, oob=True
            )
        ]
    row = faro_markup.bet_rows([newest])
    return [
        # In a <template> of its own: a row outside a table is dropped by the HTML parser.
        f'<template><tbody hx-swap-oob="beforeend:#bet-rows">{row}</tbody></template>',
        f'<span id="bets-count"{OOB}>{len(bets)}</span>',
    ]


def _chips_of(request: HttpRequest, table: Table, player: int) -> list[str]:
    """The player's chips, in the bet form's pick and in the seats panel."""
    seat = next((s for s in getattr(table, "active_seats", []) if s.player_id == player), None)
    if seat is None:
        return []
    balance = get_player_balances(players=[seat.player])[player]
    return [
        faro_markup.pick_available(player, balance.available, oob=True),
        panel_markup.seat_balance(player, balance, oob=True),
    ]


def bet_answer(
    request: HttpRequest,
    table: Table,
    saved: Round,
    flash: Any,
    *,
    names: Mapping[int, str],
    seats: Mapping[int, int],
    correction: Mapping[str, Any],
) -> HttpResponse:
    """The receipt (swapped into the header's slot) and what the bet changed, out of band."""
    public = saved.state
    bet = public["bets"][-1]  # the engine appends the bet it placed
    parts = [
        panel_markup.receipt(request, flash, table),
        *_versions(saved, first_bet=len(public["bets"]) == 1),
        _oob_input("bet-token", "token", new_token()),
        _placed(public, bet, seats, names),
        *_bets(request, table, saved, seats, names),
        *_chips_of(request, table, int(bet["player"])),
        panel_markup.correction_panel(
            request, table_id=table.pk, correction=correction, flash=None, oob=True
        ),
    ]
    answer = _receipt_first(parts)
    answer["HX-Trigger"] = PLACED_EVENT
    return answer


def dealt_answer(request: HttpRequest, screen: Mapping[str, Any]) -> HttpResponse:
    """The receipt (swapped into the header's slot) and what a dealing step changed, out of band,
    from the whole screen's context (``screen``): each part drawn by what draws it on the screen."""
    table, flash = screen["table"], screen["flash"]
    panel = faro_markup.panel_args(screen, oob=True)
    parts = [
        panel_markup.receipt(request, flash, table),
        faro_markup.picker_panel(request, **panel),
        faro_markup.keeper_panel(screen["faro"]["casekeeper"], oob=True),
        panel_markup.tray_balance(table.tray.balance, oob=True),
        faro_markup.bet_form(request, seats=screen["seats"], sticky=screen["sticky"], **panel),
        faro_markup.deal_panel(request, **panel),
        faro_markup.bets_panel(request, **panel),
        panel_markup.correction_panel(
            request, table_id=table.pk, correction=screen["correction"], flash=flash, oob=True
        ),
    ]
    parts += [
        panel_markup.seat_balance(row["player"].pk, row["balance"], oob=True) for row in screen["seats"]
    ]
    return _receipt_first(parts)


def _receipt_first(parts: Sequence[str]) -> HttpResponse:
    """An answer in part: its first part (the receipt) in the header's slot, the rest out of band."""
    return reswap(retarget(HttpResponse("\n".join(parts)), "#head-receipt"), "innerHTML")
