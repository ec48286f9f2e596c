"""The dealer console: sign in, open and close tables, seat players, run rounds of every game.

Every write goes through the same services as the API (``tables.services``,
``tables.rounds``), inside ``run_tap`` so a double tap replays the first outcome. Errors
from the services are shown in place, with their message; refused round actions are
logged with ``log_refused_action`` as the API does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import replace
from functools import wraps
from typing import Any

from django.db.models import Q
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.utils.functional import SimpleLazyObject

from casino.errors import DomainError
from casino.models import Player
from casino.money import format_dollars
from casino.permissions import actor_of, home_screen, may
from casino.selectors import (
    Balance,
    get_balances_with,
    get_player_balance,
    get_player_balances,
    player_names,
    players_named,
    search_players,
)
from casino.signed_in import NotAllowed, signed_in_get, signed_in_post
from ledger.errors import InsufficientFunds
from tables import services
from tables.accounts import WALLET_PREFIX
from tables.console import forms
from tables.console.access import dealer_table, found
from tables.console.dealer import faro as faro_screen
from tables.console.dealer import faro_markup, faro_partial
from tables.console.dealer.cards import card_label
from tables.console.dealer.corrections import describe_action, last_action_words
from tables.console.dealer.drawings import drawing_context, template_for
from tables.console.dealer.games import (
    GAME_TITLES,
    KEYED_DEAL,
    Offer,
    done_words,
    find_offer,
    keying_offer,
    known_hands_of,
    legal_actions_of,
    offers,
    payload_from,
    player_words,
    round_offers,
)
from tables.console.dealer.keying import input_name, keying_screen
from tables.console.dealer.moves import describe_settlements
from tables.console.dealer.opening import open_form, plan_lines, shortfall_words, tray_shortfall
from tables.console.idempotency import Outcome, run_tap
from tables.console.limits import change_limits_work
from tables.console.selectors import tonights_last_deal
from tables.console.taps import SERVICE_ERRORS, Flash, receipt, render_screen
from tables.corrections import in_closed_day, request_correction
from tables.games.cards import RANKS
from tables.games.errors import IllegalAction
from tables.models import (
    LIVE_ROUND_STATUSES,
    Correction,
    Round,
    Seat,
    ShoeKind,
    Table,
    TableSession,
    TableStatus,
)
from tables.rounds import apply_round_action, log_refused_action, start_round
from tables.selectors import (
    SettlementRow,
    get_live_round,
    get_open_session,
    list_pending_tray_requests,
    list_tables,
    round_exists,
)
from tables.services import OpeningPlan

NO_SUCH_DEAL = "No such deal at this table."
FARO_ACTIONS = ("bet", "remove_bet", "soda", "turn", "last_turn", "call_turn")


# What the dealer had chosen in a refused form, so they fix one thing instead of starting over.
type Sticky = dict[str, Any]


# --------------------------------------------------------------------------- the dealer's home


@signed_in_get
def home(request: HttpRequest) -> HttpResponse:
    """Each role lands on its home, the first screen of its nav (``casino.permissions.SCREENS``):
    dealers here, on their tables; everyone else is sent to theirs."""
    screen = home_screen(request.user)
    if screen is None:
        raise NotAllowed("This account has no screen in the console.")
    if screen.url_name != "console:home":
        return redirect(screen.url_name)
    tables = [table for table in list_tables(user=request.user) if table.dealer_id == request.user.pk]
    rows = [{"table": t, "session": get_open_session(t), "round": get_live_round(t)} for t in tables]
    return render(request, "console/home.html", {"rows": rows, "titles": GAME_TITLES})


# --------------------------------------------------------------------------- the table screen


def _seat_rows(table: Table, chips: Mapping[int, Balance] | None = None) -> list[dict[str, Any]]:
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


def _names(table: Table, round_: Round | None) -> tuple[dict[int, str], dict[int, int]]:
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


def _faro_context(
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
        **_bet_chips(table, public.get("chip", 100)),
    }


def _bet_chips(table: Table, chip: int) -> dict[str, Any]:
    """The bet form's chips at the table's limits as they are now, not as the last action saw
    them: a pit boss's change applies to the next bet, so the chips offered must follow it at once."""
    limits = {"min_bet": table.min_bet, "max_bet": table.max_bet}
    return {"limits": limits, "amounts": faro_screen.chip_amounts(table.min_bet, table.max_bet, chip)}


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
    """The table screen's context. After a round action (``after_round_action``): ``table`` is the
    request's own ``dealer_table`` read, ``saved`` the round as the action saved it (the
    table's newest round, live or just settled), so neither is read again, and ``chips`` the
    seated players' chips, read with the tray's balance."""
    table = table or dealer_table(request.user, table_id)
    if saved is not None:
        live = saved.status in LIVE_ROUND_STATUSES
        round_, last_round = (saved, None) if live else (None, saved)
    else:
        round_ = get_live_round(table)
        last_round = None if round_ else tonights_last_deal(table)
    names, seats = _names(table, round_ or last_round)
    sticky = sticky or {}
    context: dict[str, Any] = {
        "table": table,
        "title": GAME_TITLES.get(table.game, table.game),
        "seats": _seat_rows(table, chips),
        "round": round_,
        "last_round": last_round,
        "flash": flash,
        "sticky": sticky,
        # Read only when drawn: a turn's answer shows none, so most taps never build the query.
        "pending": SimpleLazyObject(lambda: list(list_pending_tray_requests(table=table))),
        "names": names,
        "can_change_limits": may(request.user, "table.limits", table=table),
    }
    if table.status != TableStatus.OPEN:
        context["opening"] = open_form(table, opening)
    shown = round_ or last_round
    if shown is not None and shown.status != "void":
        if saved is None:
            context["correction"] = _correction_panel(shown, names)
        else:
            context["correction"] = _correction_after_action(shown, names)
    if shown is not None and shown.game == "faro":
        context["faro"] = _faro_context(shown, names, seats, sticky, table)
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


def _correction_panel(shown: Round, names: dict[int, str]) -> dict[str, Any] | None:
    """The correction panel's round, its last action in words and whether a correction waits; None
    when the round's gaming day is closed (a live deal carried over the rollover), which refuses
    every correction."""
    if in_closed_day(shown):
        return None
    return {
        "round": shown,
        "last": last_action_words(shown, names),
        "pending": Correction.objects.filter(round=shown, status="pending").exists(),
    }


def _correction_after_action(saved: Round, names: dict[int, str]) -> dict[str, Any]:
    """The correction panel after an action on ``saved``, the round as the action saved it: its last
    action is that one (``last_payload``), no correction waits (an action is refused while one does)
    and its day is open (the action posted into it), so nothing is read."""
    return {"round": saved, "last": describe_action(saved.last_payload, names), "pending": False}


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


def render_table(request: HttpRequest, table_id: int, *, status: int = 200, **screen: Any) -> HttpResponse:
    """The table screen, from ``table_context`` given ``screen`` (its keywords: flash, sticky …)."""
    context = table_context(request, table_id, **screen)
    return render_screen(request, "console/_screen.html", "console/table.html", context, status=status)


@signed_in_get
def table_screen(request: HttpRequest, table_id: int) -> HttpResponse:
    return render_table(request, table_id)


@signed_in_get
def bet_amounts(request: HttpRequest, table_id: int) -> HttpResponse:
    """The Faro bet form's chips, polled: 204 while the limits are what the screen shows, the new
    chips (and header) as soon as a pit boss changes them."""
    table = dealer_table(request.user, table_id)
    if request.GET.get("limits") == f"{table.min_bet}-{table.max_bet}":
        return HttpResponse(status=204)
    round_ = get_live_round(table)
    faro = _bet_chips(table, round_.state.get("chip", 100) if round_ is not None else 100)
    badge = render_to_string("console/_limits_badge.html", {"table": table, "oob": True}, request)
    return HttpResponse(f"{faro_markup.amounts(table.pk, faro, {})}{badge}\n")


# --------------------------------------------------------------------------- one path for every write


def perform_tap(
    request: HttpRequest,
    table_id: int,
    *,
    form: str,
    work: Callable[[], dict[str, Any]],
    sticky: Sticky | None = None,
    on_refused: Callable[[IllegalAction], None] | None = None,
    on_done: Callable[[Outcome], HttpResponse] | None = None,
    checked: Table | None = None,
) -> HttpResponse:
    """Run one service call once per form token and show its outcome (or its error) in place.

    ``checked``: the table as the caller's own ``dealer_table`` read it for this tap, so the
    access check is not read again.
    """
    if checked is None:
        dealer_table(request.user, table_id)
    try:
        outcome = run_tap(request, work)
    except SERVICE_ERRORS as error:
        if isinstance(error, IllegalAction) and on_refused is not None:
            on_refused(error)
        message = error.message
        if isinstance(error, IllegalAction):  # services other than a round's action, too
            message = players_named(message)
        if error.code == "stale_round":
            message = "The screen was out of date and has been refreshed. Check it and tap again."
        flash = Flash.refused(error, form, message)
        table = dealer_table(request.user, table_id)
        more = tray_shortfall(error, table)
        if more and isinstance(error, InsufficientFunds):  # offer the fill that lets play go on
            flash = replace(flash, headline=shortfall_words(error, table, more), fill_cents=more)
        return render_table(
            request, table_id, flash=flash, status=int(getattr(error, "status", 400)), sticky=sticky
        )
    if on_done is not None:
        return on_done(outcome)
    return render_table(request, table_id, flash=Flash.done(outcome, form))


def after_round_action(
    request: HttpRequest,
    table: Table,
    saved: Round | None,
    flash: Flash,
    *,
    in_part: Callable[[HttpRequest, dict[str, Any]], HttpResponse] | None = None,
) -> HttpResponse:
    """The screen after a round action, from what the tap read and saved: the table as read for
    its check (an action moves chips to and from the tray, whose balance is read again, but never
    seats, limits or the session) and the round as the action saved it (None: a replayed tap,
    whose round is read). ``in_part`` answers from the screen's context instead of drawing it."""
    seated = [seat.player for seat in getattr(table, "active_seats", [])]
    table.tray.balance, chips = get_balances_with(code=table.tray.code, players=seated)
    if in_part is not None:
        screen = table_context(request, table.pk, flash=flash, table=table, saved=saved, chips=chips)
        return in_part(request, screen)
    return render_table(request, table.pk, flash=flash, table=table, saved=saved, chips=chips)


def table_tap(form: str) -> Callable[[Callable[..., dict[str, Any]]], Callable[..., HttpResponse]]:
    """A console POST whose one service call is the decorated function (``perform_tap``'s work,
    given the request, the table id and the URL's other arguments), shown on ``form``."""

    def decorate(work: Callable[..., dict[str, Any]]) -> Callable[..., HttpResponse]:
        @signed_in_post
        @wraps(work)
        def view(request: HttpRequest, table_id: int, **kwargs: Any) -> HttpResponse:
            return perform_tap(request, table_id, form=form, work=lambda: work(request, table_id, **kwargs))

        return view

    return decorate


# --------------------------------------------------------------------------- sessions


@signed_in_get
def check_opening(request: HttpRequest, table_id: int) -> HttpResponse:
    """The open form's first step: the last closer, the count, the variance and what will post.

    Nothing moves here; the confirm form it shows posts to ``open_table`` with its own token.
    """
    table = dealer_table(request.user, table_id)
    try:
        count = forms.checked(forms.OpenTableForm(request.GET)).cleaned_data["opening_inventory"]
    except DomainError as error:
        return render_table(request, table_id, flash=Flash.refused(error, "open"), status=400)
    return render_table(request, table_id, opening=services.opening_plan(table=table, count=count))


@table_tap("open")
def open_table(request: HttpRequest, table_id: int) -> dict[str, Any]:
    count = forms.checked(forms.OpenTableForm(request.POST)).cleaned_data["opening_inventory"]
    session = services.open_table(actor=actor_of(request), table_id=table_id, opening_inventory=count)
    ledger, variance = session.opening_ledger, session.opening_variance
    posted = OpeningPlan(count, ledger, None, count - ledger - variance, variance)
    return receipt(
        f"{session.table.name} is open with {format_dollars(count)} in the tray.", *plan_lines(posted)
    )


@signed_in_post
def close_table(request: HttpRequest, table_id: int) -> HttpResponse:
    def work() -> dict[str, Any]:
        count = forms.checked(forms.CloseTableForm(request.POST)).cleaned_data["closing_inventory"]
        session = services.close_table(actor=actor_of(request), table_id=table_id, closing_inventory=count)
        return receipt(f"{session.table.name} is closed.", session=session.pk)

    def summary(outcome: Outcome) -> HttpResponse:
        session = TableSession.objects.select_related("table").get(pk=outcome.result["session"])
        context = {"session": session, "table": session.table, "replayed": outcome.replayed}
        return render_screen(request, "console/_summary.html", "console/summary.html", context)

    return perform_tap(request, table_id, form="close", work=work, on_done=summary)


@signed_in_get
def session_summary(request: HttpRequest, table_id: int, session_id: int) -> HttpResponse:
    table = dealer_table(request.user, table_id)
    closed = TableSession.objects.filter(pk=session_id, table=table, closed_at__isnull=False)
    session = found(closed, "No such closed session at this table.")
    return render(request, "console/summary.html", {"session": session, "table": table, "replayed": False})


# --------------------------------------------------------------------------- seats


@signed_in_get
def player_search(request: HttpRequest, table_id: int) -> HttpResponse:
    table = dealer_table(request.user, table_id)
    query = request.GET.get("q", "").strip()
    players = list(search_players(query=query, limit=8)) if query else []
    seated = dict(
        Seat.objects.filter(player__in=players, left_at__isnull=True)
        .select_related("table")
        .values_list("player_id", "table__name")
    )
    results = [
        {"player": p, "balance": get_player_balance(player=p), "seated_at": seated.get(p.pk)} for p in players
    ]
    return render(
        request, "console/_player_results.html", {"table": table, "results": results, "query": query}
    )


@table_tap("seats")
def seat_player(request: HttpRequest, table_id: int) -> dict[str, Any]:
    form = forms.checked(forms.SeatForm(request.POST))
    seating = services.seat_player(
        actor=actor_of(request),
        table_id=table_id,
        player_id=form.cleaned_data["player"],
        seat=form.cleaned_data["seat"],
    )
    balance = get_player_balance(player=seating.player)
    return receipt(
        f"Seated {seating.player.name} in seat {seating.number}.",
        f"Available to play: {format_dollars(balance.available)}.",
    )


@table_tap("seats")
def unseat_player(request: HttpRequest, table_id: int) -> dict[str, Any]:
    player_id = forms.checked(forms.PlayerForm(request.POST)).cleaned_data["player"]
    seating = services.unseat_player(actor=actor_of(request), table_id=table_id, player_id=player_id)
    return receipt(f"{seating.player.name} left seat {seating.number}.")


# --------------------------------------------------------------------------- tray and limits


@table_tap("tray")
def tray_request(request: HttpRequest, table_id: int, kind: str) -> dict[str, Any]:
    amount = forms.checked(forms.TrayRequestForm(request.POST, kind=kind)).cleaned_data["amount"]
    made = services.request_tray_change(actor=actor_of(request), table_id=table_id, kind=kind, amount=amount)
    where = "cage → tray" if kind == "fill" else "tray → cage"
    return receipt(
        f"{kind.title()} of {format_dollars(made.amount)} requested ({where}).",
        "Nothing moves until a pit boss or cashier approves it in the pit view.",
    )


change_limits = table_tap("limits")(change_limits_work)


# --------------------------------------------------------------------------- rounds


def _moved(round_: Round, table: Table | None = None) -> list[str]:
    """What the deal's start or an action just moved, in words, from the rows it wrote
    (``settlements_made``: nothing is read back). Players are named from ``table``'s seats (its
    ``dealer_table`` read); anyone else the rows name (a player who left mid-deal) in one read."""
    rows = [SettlementRow(*row) for row in round_.settlements_made]
    by_code: dict[str, str] = {}
    by_id: dict[int, str] = {}
    for seat in getattr(table, "active_seats", []):
        by_code[seat.player.wallet.code] = by_id[seat.player_id] = seat.player.name
    codes = {code for row in rows for code in (row.from_account, row.to_account)}
    wallets = {code for code in codes if code.startswith(WALLET_PREFIX) and code not in by_code}
    ids = {row.player_id for row in rows if row.player_id is not None and row.player_id not in by_id}
    if wallets or ids:
        others = Player.objects.select_related("user", "wallet").filter(
            Q(wallet__code__in=wallets) | Q(pk__in=ids)
        )
        for player in others:
            by_code[player.wallet.code] = by_id[player.pk] = player.name
    return describe_settlements(rows, by_code, by_id)


@table_tap("start")
def start_deal(request: HttpRequest, table_id: int) -> dict[str, Any]:
    shoe = forms.checked(forms.StartDealForm(request.POST)).cleaned_data["shoe"]
    round_ = start_round(actor=actor_of(request), table_id=table_id, shoe=shoe)
    lines = _moved(round_)
    if round_.shoe == ShoeKind.ELECTRONIC:
        lines.insert(0, f"Shoe commitment {round_.commitment[:16]}… published before the first card.")
    title = GAME_TITLES.get(round_.game, round_.game)
    started = f"{title} deal #{round_.number} started ({round_.shoe} shoe)."
    left_out = round_.context.get("sat_out", [])
    if left_out:  # in the headline, and kept on screen: a seat skipped in silence looks like a mistake
        return receipt(f"{started} {not_dealt_in(left_out)}", *lines, stays=True)
    return receipt(started, *lines)


def not_dealt_in(sat_out: list[dict[str, Any]]) -> str:
    """Who sat the deal out and why (``tables.reserves.SatOut``, as the round's context keeps it)."""
    reasons = [
        f"{entry['name']}, who has {format_dollars(entry['available'])} available"
        f" for a {format_dollars(entry['reserve'])} reserve"
        for entry in sat_out
    ]
    return f"Not dealt in: {'; '.join(reasons)}."


def faro_payload(kind: str, data: QueryDict, read_round: Callable[[], Round]) -> dict[str, Any]:
    """The engine action a Faro form asks for. Only the card picker's dealing step reads the round
    before the action (how many cards its manual shoe keys now); an electronic shoe's "Deal turn"
    posts no card, so it is the bare step, read nowhere but in the action (a manual round sent
    no card is refused there by the engine)."""
    if kind in forms.FARO_FORMS or not forms.keys_cards(data):
        return forms.faro_payload(kind, data)
    round_ = read_round()
    due = round_.shoe == ShoeKind.MANUAL
    needed = faro_screen.cards_to_key(legal_actions_of(round_), kind) if due else None
    return forms.faro_payload(kind, data, needed=needed)


def _faro_headline(kind: str, payload: Mapping[str, Any], round_: Round, names: Mapping[int, str]) -> str:
    public = round_.state
    who = names.get(payload.get("player", 0), "")
    if kind == "bet":
        ranks = sorted(payload.get("ranks", []), key=lambda r: RANKS.index(r) if r in RANKS else 99)
        where = "\u2013".join(ranks) if ranks else faro_screen.TARGET_LABELS[payload["target"]]
        copper = " (coppered)" if payload.get("coppered") else ""
        return f"{who} bet {format_dollars(payload['amount'])} on {where}{copper}."
    if kind == "remove_bet":
        return "Bet taken down."
    if kind == "soda":
        return f"Soda {card_label(public['soda'])} burned."
    if kind == "call_turn":
        return (
            f"{who} called the turn {' · '.join(payload['order'])} for {format_dollars(payload['amount'])}."
        )
    latest = public.get("latest_turn") or {}
    banker, player = card_label(latest.get("banker", "")), card_label(latest.get("player", ""))
    if kind == "last_turn":
        hock = card_label(latest.get("hock", ""))
        return f"Last turn: {banker} loses, {player} wins, hock {hock}. The deal is over."
    split = " Split!" if latest.get("split") else ""
    return f"Turn {latest.get('number')}: {banker} loses, {player} wins.{split}"


def _sticky_bet(data: QueryDict) -> Sticky:
    """The bet form's choices as posted, to draw it again with them after a refusal."""
    typed = {name: data.get(name, "") for name in ("player", "target", "amount", "custom_amount", "order")}
    return {**typed, "ranks": data.getlist("ranks"), "coppered": bool(data.get("coppered"))}


def _round_perform(
    request: HttpRequest,
    table_id: int,
    round_id: int,
    *,
    form: str,
    build: Callable[[Callable[[], Round]], dict[str, Any]],
    headline: Callable[[dict[str, Any], Round], str],
    table: Table,
    sticky: Sticky | None = None,
    partial: Callable[[Round, Flash], HttpResponse] | None = None,
) -> HttpResponse:
    """Apply one round action through ``apply_round_action``; log it if the engine refuses.
    ``table``: the caller's ``dealer_table`` read. ``build`` makes the payload, given a reader of
    the round as it is before the action, for the forms whose payload depends on it. ``partial``:
    the answer to a tap that went through, from the round as it saved it, instead of the screen."""
    attempt: dict[str, Any] = {}

    def work() -> dict[str, Any]:
        payload = build(lambda: found(Round.objects.filter(pk=round_id, table_id=table_id), NO_SUCH_DEAL))
        attempt["payload"] = payload
        version = forms.checked(forms.VersionForm(request.POST)).cleaned_data["version"]
        updated = attempt["saved"] = apply_round_action(
            actor=actor_of(request), round_id=round_id, action=payload, version=version, at_table=table_id
        )
        lines = [] if payload.get("type") in ("bet", "call_turn") else _moved(updated, table)
        if updated.status == "settled":
            lines.append("The round is settled.")
        return receipt(headline(payload, updated), *lines)

    def refused(error: IllegalAction) -> None:
        if "payload" in attempt:
            log_refused_action(
                actor=actor_of(request), round_id=round_id, action=attempt["payload"], code=error.code
            )

    def done(outcome: Outcome) -> HttpResponse:
        flash = Flash.done(outcome, form)
        saved = attempt.get("saved")  # None: a replayed token, whose screen is drawn whole
        if partial is not None and saved is not None:
            return partial(saved, flash)
        return after_round_action(request, table, saved, flash)

    return perform_tap(
        request,
        table_id,
        form=form,
        work=work,
        sticky=sticky,
        on_refused=refused,
        on_done=done,
        checked=table,
    )


@signed_in_post
def faro_action(request: HttpRequest, table_id: int, round_id: int, kind: str) -> HttpResponse:
    if kind not in FARO_ACTIONS:
        raise NotAllowed("That is not a Faro action.", status=404)
    table = dealer_table(request.user, table_id)
    names, _ = _names(table, None)

    def answer_in_part(saved: Round, flash: Flash) -> HttpResponse:
        if kind in faro_partial.DEALING_KINDS:  # the last turn settles the deal: the whole screen
            dealt = faro_partial.dealt_answer if saved.status in LIVE_ROUND_STATUSES else None
            return after_round_action(request, table, saved, flash, in_part=dealt)
        names, seats = _names(table, saved)
        correction = _correction_after_action(saved, names)
        return faro_partial.bet_answer(
            request, table, saved, flash, names=names, seats=seats, correction=correction
        )

    sticky = _sticky_bet(request.POST) if kind in ("bet", "call_turn") else None
    return _round_perform(
        request,
        table_id,
        round_id,
        form=kind,
        sticky=sticky,
        build=lambda read_round: faro_payload(kind, request.POST, read_round),
        headline=lambda payload, updated: _faro_headline(kind, payload, updated, names),
        table=table,
        partial=answer_in_part if faro_partial.wanted(request, kind) else None,
    )


@signed_in_post
def game_action(request: HttpRequest, table_id: int, round_id: int) -> HttpResponse:
    """Any action of the pot and stakes games: the form names one of the legal actions of now."""
    table = dealer_table(request.user, table_id)
    names, _ = _names(table, None)
    key = request.POST.get("action", "")
    chosen: dict[str, Any] = {}

    def build(read_round: Callable[[], Round]) -> dict[str, Any]:
        # The entry is found again among what the engine accepts now, then filled from the form.
        round_ = read_round()
        names.update(_names(table, round_)[0])
        offer = find_offer(round_offers(round_, names), key)
        chosen.update(offer=offer, before=round_.state, hands=known_hands_of(round_))
        return payload_from(offer, request.POST)

    def headline(payload: dict[str, Any], updated: Round) -> str:
        return done_words(
            updated.game,
            chosen["offer"],
            payload,
            names=names,
            before=chosen["before"],
            after=updated.state,
            hands_before=chosen["hands"],
            hands_after=known_hands_of(updated),
        )

    # A refused keyed deal comes back with every card still keyed, its reason beside it.
    sticky = {"action": key, "posted": dict(request.POST.lists())}
    form = "keying" if key.startswith(f"{KEYED_DEAL}-") else "game"
    return _round_perform(
        request, table_id, round_id, form=form, build=build, headline=headline, sticky=sticky, table=table
    )


@signed_in_post
def ask_correction(request: HttpRequest, table_id: int, round_id: int) -> HttpResponse:
    """The dealer's "ask a correction": nothing moves until the pit approves."""
    if not round_exists(round_id, table_id=table_id):
        raise NotAllowed(NO_SUCH_DEAL, status=404)

    def work() -> dict[str, Any]:
        asked = forms.checked(forms.CorrectionForm(request.POST)).cleaned_data
        made = request_correction(
            actor=actor_of(request), round_id=round_id, void=asked["void"], reason=asked["reason"]
        )
        what = "the whole deal (misdeal)" if made.from_seq is None else "the last action"
        return receipt(
            f"Correction asked: void {what}.",
            "Play is paused for it: nothing moves until a pit boss approves it in the pit view.",
        )

    return perform_tap(request, table_id, form="correction", work=work)
