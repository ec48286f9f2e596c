"""What a dealer's tap answers: the table screen with its receipt, a refusal in place, or, for a
Faro tap from its form on a live screen, only what it changed (htmx out-of-band swaps).

Redrawing the whole screen (about ninety bets late in a deal) was most of a console tap's cost,
so three Faro taps are answered in part, each only when it went through and came from its form
(htmx names the form in ``HX-Trigger``):

- a **bet** or a called turn (the bet form) adds one bet and moves one player's chips: the
  receipt and, out of band, the round's new version in every form that posts it, a new token
  for the bet form, the new chip (or its target box's chips), the bets table's new row and count
  (the whole table for the deal's first bet), the player's chips in the bet form and the seats
  panel, and the correction panel, whose last action is now this bet;
- a **dealing step** that leaves the deal live (the soda or a turn) changes the layout, the
  bets and the players' chips, not the seats, the tray's forms, the limits or the header: the
  receipt and, out of band, the bet form, the dealing panel, the card picker, the bets table, the
  casekeeper, every seated player's chips, the tray's balance and the correction panel;
- a **take-down** (the bets table's one form) takes a bet off the layout and gives its chips
  back: the receipt and, out of band, the bet form (the layout's chips and boxes, the players'
  chips), the bets table with a new token, the dealing form's version, every seated player's
  chips and the correction panel; the tray, the casekeeper and the dealing panel stay.

Each is a partial of ``console/games/faro.html`` (``bet_answer``, ``dealt_answer``,
``taken_down_answer``) drawing the same partials as the whole screen. Anything else (a refusal,
a replayed token, the last turn, which settles the deal, any other form, a request without htmx)
gets the whole screen. What the screen shows of other people's doings (a fill the pit approved
meanwhile, a new seat) waits for the next whole screen.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django_htmx.http import reswap, retarget

from casino.cash.errors import IdentificationRequired
from casino.cash.services import note_refusal
from casino.errors import DomainError
from casino.models import Player
from casino.selectors import get_player_balances, players_named
from ledger.errors import InsufficientFunds, LedgerError
from tables.console.access import dealer_table
from tables.console.dealer import faro as faro_screen
from tables.console.dealer.opening import shortfall_words, tray_shortfall
from tables.console.dealer.screen import Sticky, after_action, correction_panel, names_at, render_table
from tables.console.idempotency import Outcome
from tables.console.taps import Flash
from tables.games.errors import IllegalAction
from tables.models import LIVE_ROUND_STATUSES, Round, Table

BET_FORM = "bet-form"  # the forms' ids (games/faro.html): htmx sends the tapped one as HX-Trigger
DEAL_FORM = "deal-form"  # an electronic shoe's "Deal turn"
PICKER_FORM = "picker-form"  # a manual shoe's card picker
TAKE_DOWN_FORM = "take-down"  # the bets table's one form, which every row's button submits
PLACED_EVENT = "faro-bet-placed"  # console.js clears the bet form's choices on it
# The forms whose taps are answered in part, by the action they post (their ids, as htmx sends them).
FORMS_OF_KINDS = {
    "bet": {BET_FORM},
    "call_turn": {BET_FORM},
    "remove_bet": {TAKE_DOWN_FORM},
    "soda": {DEAL_FORM, PICKER_FORM},
    "turn": {DEAL_FORM, PICKER_FORM},
}
STALE = "The screen was out of date and has been refreshed. Check it and tap again."


def done(request: HttpRequest, table_id: int, outcome: Outcome, form: str) -> HttpResponse:
    """The whole table screen with the receipt of a tap that went through, read afresh."""
    return render_table(request, table_id, flash=Flash.done(outcome, form))


def refused(
    request: HttpRequest,
    table_id: int,
    error: DomainError | LedgerError | IllegalAction,
    *,
    form: str,
    sticky: Sticky | None = None,
) -> HttpResponse:
    """The whole screen, read after the tap rolled back, with the refusal under the form that was
    refused (``sticky``: what the form held, drawn again). A tray that cannot pay a payout is
    offered the fill that lets play go on."""
    message = error.message
    if isinstance(error, IllegalAction):  # the engine names players by id; the dealer, by name
        message = players_named(message)
    if error.code == "stale_round":
        message = STALE
    flash = Flash.refused(error, form, message)
    if isinstance(error, IdentificationRequired):  # rolled back by now: written down, and prompted
        note_refusal(error)
        sticky = {**(sticky or {}), "identify": identification_prompt(error)}
    table = dealer_table(request.user, table_id)
    more = tray_shortfall(error, table)
    if more and isinstance(error, InsufficientFunds):
        flash = replace(flash, headline=shortfall_words(error, table, more), fill_cents=more)
    status = int(getattr(error, "status", 400))
    return render_table(request, table_id, flash=flash, status=status, sticky=sticky, table=table)


def identification_prompt(error: IdentificationRequired) -> dict[str, Any]:
    """What the cash panel shows for a buy-in refused for want of ID: whose, how much, to try again."""
    player = Player.objects.select_related("user").get(pk=error.refusal["player_id"])
    return {"player": player.pk, "name": player.name, "amount": error.refusal["amount"]}


def after_round_action(request: HttpRequest, table: Table, outcome: Outcome, form: str) -> HttpResponse:
    """The whole screen after a round action, from the round it saved (``screen.after_action``)."""
    context = after_action(request, table, outcome.made, Flash.done(outcome, form))
    return render_table(request, table.pk, context=context)


def after_faro_action(request: HttpRequest, table: Table, kind: str, outcome: Outcome) -> HttpResponse:
    """A Faro tap's answer: in part when its form sent it and it went through afresh (``saved``),
    else the whole screen."""
    saved: Round | None = outcome.made
    htmx = getattr(request, "htmx", None)
    from_its_form = bool(htmx) and htmx.trigger in FORMS_OF_KINDS.get(kind, ())  # type: ignore[union-attr]
    if saved is None or not from_its_form:
        return after_round_action(request, table, outcome, kind)
    flash = Flash.done(outcome, kind)
    if kind in ("bet", "call_turn"):
        answer = _in_part(request, "bet_answer", _bet_answer(table, saved, flash))
        answer["HX-Trigger"] = PLACED_EVENT
        return answer
    if saved.status in LIVE_ROUND_STATUSES:
        partial = "taken_down_answer" if kind == "remove_bet" else "dealt_answer"
        return _in_part(request, partial, after_action(request, table, saved, flash))
    return after_round_action(request, table, outcome, kind)  # the deal is over: the whole screen


def _bet_answer(table: Table, saved: Round, flash: Flash) -> dict[str, Any]:
    """What a bet changed, from the round it saved (the engine appends the bet it placed)."""
    names, seats = names_at(table, saved)
    bets = saved.state["bets"]
    bet = bets[-1]
    kind = bet.get("kind")
    box = None
    if kind == "target":
        boxes = faro_screen.target_boxes(saved.state, seats, names)
        box = next(b for b in boxes if b["target"] == bet["target"])
    seat = next((s for s in getattr(table, "active_seats", []) if s.player_id == bet["player"]), None)
    return {
        "table": table,
        "round": saved,
        "flash": flash,
        "faro": {"bets": [faro_screen.bet_row(bet, seats, names)]},
        "first_bet": len(bets) == 1,
        "bets_count": len(bets),
        "new_chips": [faro_screen.newest_chip(saved.state, seats, names)] if kind == "rank" else [],
        "box": box,  # a called turn is drawn in the bets table only
        "seat": _chips_of(seat),
        "correction": correction_panel(saved, names, after_action=True),
    }


def _chips_of(seat: Any) -> dict[str, Any] | None:
    """The betting player's chips, for the bet form's pick and the seats panel."""
    if seat is None:
        return None
    return {"player": seat.player, "balance": get_player_balances(players=[seat.player])[seat.player_id]}


def _in_part(request: HttpRequest, partial: str, context: dict[str, Any]) -> HttpResponse:
    """An answer in part: its first part (the receipt) in the header's slot, the rest out of band."""
    answer = render(request, f"console/games/faro.html#{partial}", context)
    return reswap(retarget(answer, "#head-receipt"), "innerHTML")
