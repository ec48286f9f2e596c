"""The dealer's table screen: what it shows, read once per answer (``table_context``), and the one
way it is drawn whole (``render_table``, from ``console/_screen.html``).

After a round action the screen is drawn from what the tap read and saved (``after_action``):
the table as its access check read it and the round as the action saved it, so neither is read
again; only the tray's and the seated players' chips, which the action moved, are.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.utils.functional import SimpleLazyObject

from casino.permissions import may
from casino.selectors import Balance, get_balances_with, get_player_balances, player_names
from tables.console.access import dealer_table
from tables.console.dealer import faro as faro_screen
from tables.console.dealer.corrections import last_action_words
from tables.console.dealer.drawings import drawing_context, template_for
from tables.console.dealer.games import (
    GAME_TITLES,
    Offer,
    keying_offer,
    known_hands_of,
    legal_actions_of,
    offers,
)
from tables.console.dealer.keying import input_name, keying_screen
from tables.console.dealer.opening import open_form
from tables.console.selectors import tonights_last_deal
from tables.console.taps import Flash, render_screen
from tables.console.words import action_words, player_words
from tables.corrections import in_closed_day
from tables.models import LIVE_ROUND_STATUSES, Correction, Round, Table, TableStatus
from tables.selectors import get_live_round, list_pending_tray_requests
from tables.services import OpeningPlan

# The cash buy-in's amount buttons, in cents: the bills a player most often hands over.
CASH_AMOUNTS = (2_000, 10_000, 50_000, 100_000)

# What the dealer had chosen in a refused form, so they fix one thing instead of starting over.
type Sticky = dict[str, Any]


def seat_rows(table: Table, chips: Mapping[int, Balance] | None = None) -> list[dict[str, Any]]:
    """The seated players with their chips (``chips``: as read already, with the tray's balance)."""
    seated = getattr(table, "active_seats", [])
    balances = chips if chips is not None else get_player_balances(players=[seat.player for seat in seated])
    return [
        {
            "seat": seat,
            "player": seat.player,
            "name": seat.player.name,
            "balance": balances[seat.player_id],
            "colour": faro_screen.colour_for_seat(seat.number),
        }
        for seat in seated
    ]


def names_at(table: Table, round_: Round | None) -> tuple[dict[int, str], dict[int, int]]:
    """Player id → name and player id → seat, for everyone seated or dealt into the round."""
    names = {seat.player_id: seat.player.name for seat in getattr(table, "active_seats", [])}
    seats = {seat.player_id: seat.number for seat in getattr(table, "active_seats", [])}
    if round_ is not None:
        for number, pid in round_.context.get("seats", {}).items():
            seats.setdefault(int(pid), int(number))
        missing = [pid for pid in round_.players if pid not in names]
        if missing:  # an empty ``pk__in`` queries nothing, but Django still builds the query
            names.update(player_names(missing))
    return names, seats


def faro_context(
    round_: Round, names: dict[int, str], seats: dict[int, int], sticky: Sticky, table: Table
) -> dict[str, Any]:
    public = round_.state
    legal = legal_actions_of(round_) if round_.status in LIVE_ROUND_STATUSES else []
    return {
        "cells": faro_screen.layout_cells(public, sticky.get("ranks", [])),
        "chips": faro_screen.layout_chips(public, seats, names),
        "targets": faro_screen.target_boxes(public, seats, names, sticky.get("target")),
        "bets": [faro_screen.bet_row(bet, seats, names) for bet in public.get("bets", [])],
        "casekeeper": faro_screen.casekeeper_rows(public),
        "picker": faro_screen.card_picker(legal),
        "call_orders": faro_screen.call_orders(legal, round_.rules),
        "placements": faro_screen.placements(legal),
        "spots": faro_screen.spots(legal),
        "recent_turns": list(reversed(public.get("turns", [])))[:5],
        **bet_chips(table, public.get("chip", 100)),
    }


def bet_chips(table: Table, chip: int) -> dict[str, Any]:
    """The bet form's chips at the table's limits as they are now, not as the last action saw
    them: a pit boss's change applies to the next bet, so the chips offered must follow it at once
    (the form polls for them every ``poll_seconds``)."""
    limits = {"min_bet": table.min_bet, "max_bet": table.max_bet}
    return {
        "limits": limits,
        "amounts": faro_screen.chip_amounts(table.min_bet, table.max_bet, chip),
        "poll_seconds": settings.CONSOLE_POLL_SECONDS,
    }


def table_context(
    request: HttpRequest,
    table_id: int,
    *,
    flash: Flash | None = None,
    sticky: Sticky | None = None,
    opening: OpeningPlan | None = None,
    table: Table | None = None,
    saved: Round | None = None,
    chips: Mapping[int, Balance] | None = None,
) -> dict[str, Any]:
    """The table screen's context. ``table``: the request's own ``dealer_table`` read, if it made
    one. After a round action (``after_action``): ``saved`` the round as the action saved it (the
    table's newest round, live or just settled), so it is not read again, and ``chips`` the seated
    players' chips, read with the tray's balance."""
    table = table or dealer_table(request.user, table_id)
    if saved is not None:
        live = saved.status in LIVE_ROUND_STATUSES
        round_, last_round = (saved, None) if live else (None, saved)
    else:
        round_ = get_live_round(table)
        last_round = None if round_ else tonights_last_deal(table)
    names, seats = names_at(table, round_ or last_round)
    sticky = sticky or {}
    context: dict[str, Any] = {
        "table": table,
        "title": GAME_TITLES.get(table.game, table.game),
        "seats": seat_rows(table, chips),
        "round": round_,
        "last_round": last_round,
        "flash": flash,
        "sticky": sticky,
        # Read only when drawn: a turn's answer shows none, so most taps never build the query.
        "pending": SimpleLazyObject(lambda: list(list_pending_tray_requests(table=table))),
        "names": names,
        "can_change_limits": may(request.user, "table.limits", table=table),
        "cash_amounts": CASH_AMOUNTS,
    }
    if table.status != TableStatus.OPEN:
        context["opening"] = open_form(table, opening)
    shown = round_ or last_round
    if shown is not None and shown.status != "void":
        context["correction"] = correction_panel(shown, names, after_action=saved is not None)
    if shown is not None and shown.game == "faro":
        context["faro"] = faro_context(shown, names, seats, sticky, table)
    elif shown is not None:
        hands = known_hands_of(shown) if round_ is not None else {}
        legal = legal_actions_of(shown) if round_ is not None else []
        context["actions"] = offers(shown.game, legal, names, shown.state)
        context["public"] = shown.state
        context["hands"] = [(player_words(names, pid), cards) for pid, cards in hands.items()]
        context["keying"] = _keying_context(context["actions"], sticky)
        context |= drawing_context(shown, names, hands)
    if shown is not None:
        context["game_template"] = template_for(shown.game)
    return context


def correction_panel(shown: Round, names: dict[int, str], *, after_action: bool) -> dict[str, Any] | None:
    """The correction panel's round, its last action in words and whether a correction waits.

    After an action on ``shown`` (the round as the action saved it) its last action is that one
    (``last_payload``), no correction waits (an action is refused while one does) and its day is
    open (the action posted into it), so nothing is read. Otherwise None when the round's gaming
    day is closed (a live deal carried over the rollover), which refuses every correction."""
    if after_action:
        return {"round": shown, "last": action_words(shown.last_payload, names), "pending": False}
    if in_closed_day(shown):
        return None
    return {
        "round": shown,
        "last": last_action_words(shown, names),
        "pending": Correction.objects.filter(round=shown, status="pending").exists(),
    }


def _keying_context(actions: list[Offer], sticky: Sticky) -> dict[str, Any] | None:
    """A manual deal's two choices: the keying screen (with what a refused post held) and the rest."""
    keyed = keying_offer(actions)
    if keyed is None:
        return None
    field = keyed.fields[0]
    refused_here = sticky.get("action") == keyed.key
    posted = sticky.get("posted", {}) if refused_here else {}
    keyed_cards = {slot.key: posted.get(input_name(field.name, slot.key), []) for slot in field.slots}
    return {
        "action": keyed,
        "slots": keying_screen(field.name, field.slots, keyed_cards),
        "others": [action for action in actions if action is not keyed],
        "open": sticky.get("action", ""),
    }


def after_action(request: HttpRequest, table: Table, saved: Round | None, flash: Flash) -> dict[str, Any]:
    """The screen's context after a round action, from what the tap read and saved: the table as
    read for its check (an action moves chips to and from the tray, whose balance is read again,
    but never seats, limits or the session) and the round as the action saved it (None: a
    replayed tap, whose round is read)."""
    seated = [seat.player for seat in getattr(table, "active_seats", [])]
    table.tray.balance, chips = get_balances_with(code=table.tray.code, players=seated)
    return table_context(request, table.pk, flash=flash, table=table, saved=saved, chips=chips)


def render_table(
    request: HttpRequest,
    table_id: int,
    *,
    status: int = 200,
    context: dict[str, Any] | None = None,
    **screen: Any,
) -> HttpResponse:
    """The table screen, from ``context`` or from ``table_context`` given ``screen`` (its
    keywords: flash, sticky …)."""
    drawn = context if context is not None else table_context(request, table_id, **screen)
    return render_screen(request, "console/_screen.html", "console/table.html", drawn, status=status)
