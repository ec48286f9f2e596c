"""The dealer console: sign in, open and close tables, seat players, run rounds of every game.

A tap is one shape: its form is read by a Django form (``tables.console.forms``), its one
service call runs inside ``run_tap`` (the same services as the API; a double tap replays the
first receipt), and the answer draws what changed from templates (``answers``): the table screen
with the receipt, a refusal in place under its form, or a Faro tap's changes alone. The taps
that only call a service and show the screen are written as that call (``table_tap``); a round's
taps do their work in ``rounds`` and answer through ``answers``.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render

from casino.errors import DomainError
from casino.money import format_dollars
from casino.permissions import actor_of, home_screen
from casino.selectors import get_player_balance, search_players
from casino.signed_in import NotAllowed, signed_in_get, signed_in_post
from tables import services
from tables.console import forms
from tables.console.access import dealer_table, found
from tables.console.dealer import answers, rounds
from tables.console.dealer.games import GAME_TITLES, KEYED_DEAL
from tables.console.dealer.opening import plan_lines
from tables.console.dealer.screen import bet_chips, render_table
from tables.console.idempotency import Done, run_tap
from tables.console.limits import change_limits_work
from tables.console.taps import SERVICE_ERRORS, Flash, receipt, render_screen
from tables.corrections import request_correction
from tables.drop import services as drop
from tables.models import Seat, TableSession
from tables.selectors import get_live_round, get_open_session, list_tables, round_exists
from tables.services import OpeningPlan

# --------------------------------------------------------------------------- screens


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
    faro = bet_chips(table, round_.state.get("chip", 100) if round_ is not None else 100)
    return render(
        request, "console/games/faro.html#new_amounts", {"table": table, "faro": faro, "sticky": {}}
    )


@signed_in_get
def session_summary(request: HttpRequest, table_id: int, session_id: int) -> HttpResponse:
    table = dealer_table(request.user, table_id)
    closed = TableSession.objects.filter(pk=session_id, table=table, closed_at__isnull=False)
    session = found(closed, "No such closed session at this table.")
    return render(request, "console/summary.html", {"session": session, "table": table, "replayed": False})


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


@signed_in_get
def check_opening(request: HttpRequest, table_id: int) -> HttpResponse:
    """The open form's first step: the last closer, the count, the variance and what will post.

    Nothing moves here; the confirm form it shows posts to ``open_table`` with its own token.
    """
    table = dealer_table(request.user, table_id)
    try:
        count = forms.checked(forms.OpenTableForm(request.GET)).cleaned_data["opening_inventory"]
    except DomainError as error:
        return render_table(request, table_id, flash=Flash.refused(error, "open"), status=400, table=table)
    return render_table(
        request, table_id, opening=services.opening_plan(table=table, count=count), table=table
    )


# --------------------------------------------------------------------------- taps that show the screen


def table_tap(form: str) -> Callable[[Callable[..., Done]], Callable[..., HttpResponse]]:
    """A tap whose work is the decorated function (given the request, the table id and the URL's
    other arguments: read its form, make its one service call, return its ``Done``): the table
    screen answers with the receipt, or with the refusal under ``form``."""

    def decorate(work: Callable[..., Done]) -> Callable[..., HttpResponse]:
        @signed_in_post
        @wraps(work)
        def view(request: HttpRequest, table_id: int, **kwargs: Any) -> HttpResponse:
            return _screen_tap(request, table_id, form, lambda: work(request, table_id, **kwargs))

        return view

    return decorate


def _screen_tap(request: HttpRequest, table_id: int, form: str, work: Callable[[], Done]) -> HttpResponse:
    dealer_table(request.user, table_id)
    try:
        outcome = run_tap(request, work)
    except SERVICE_ERRORS as error:
        return answers.refused(request, table_id, error, form=form)
    return answers.done(request, table_id, outcome, form)


@table_tap("open")
def open_table(request: HttpRequest, table_id: int) -> Done:
    count = forms.checked(forms.OpenTableForm(request.POST)).cleaned_data["opening_inventory"]
    session = services.open_table(actor=actor_of(request), table_id=table_id, opening_inventory=count)
    ledger, variance = session.opening_ledger, session.opening_variance
    posted = OpeningPlan(count, ledger, None, count - ledger - variance, variance)
    opened = f"{session.table.name} is open with {format_dollars(count)} in the tray."
    return Done(receipt(opened, *plan_lines(posted)))


@table_tap("seats")
def seat_player(request: HttpRequest, table_id: int) -> Done:
    form = forms.checked(forms.SeatForm(request.POST))
    seating = services.seat_player(
        actor=actor_of(request),
        table_id=table_id,
        player_id=form.cleaned_data["player"],
        seat=form.cleaned_data["seat"],
    )
    balance = get_player_balance(player=seating.player)
    return Done(
        receipt(
            f"Seated {seating.player.name} in seat {seating.number}.",
            f"Available to play: {format_dollars(balance.available)}.",
        )
    )


@table_tap("seats")
def unseat_player(request: HttpRequest, table_id: int) -> Done:
    player_id = forms.checked(forms.PlayerForm(request.POST)).cleaned_data["player"]
    seating = services.unseat_player(actor=actor_of(request), table_id=table_id, player_id=player_id)
    return Done(receipt(f"{seating.player.name} left seat {seating.number}."))


@table_tap("tray")
def tray_request(request: HttpRequest, table_id: int, kind: str) -> Done:
    amount = forms.checked(forms.TrayRequestForm(request.POST, kind=kind)).cleaned_data["amount"]
    made = services.request_tray_change(actor=actor_of(request), table_id=table_id, kind=kind, amount=amount)
    where = "cage → tray" if kind == "fill" else "tray → cage"
    return Done(
        receipt(
            f"{kind.title()} of {format_dollars(made.amount)} requested ({where}).",
            "Nothing moves until a pit boss or cashier approves it in the pit view.",
        )
    )


@table_tap("cash")
def cash_buy_in(request: HttpRequest, table_id: int) -> Done:
    """A seated player hands the dealer cash: chips to their wallet, the cash into the drop box."""
    form = forms.checked(forms.CashBuyInForm(request.POST))
    made = drop.cash_buy_in(
        actor=actor_of(request),
        table_id=table_id,
        player_id=form.cleaned_data["player"],
        amount=form.cleaned_data["amount"],
    )
    balance = get_player_balance(player=made.player)
    return Done(
        receipt(
            f"{made.player.name} bought {format_dollars(made.amount)} of chips with cash; "
            f"in drop box {made.box.number}.",
            f"{made.player.name} has {format_dollars(balance.available)} available to play.",
            f"Drop box {made.box.number} has {format_dollars(made.box.recorded)} of cash recorded into it.",
        )
    )


@table_tap("limits")
def change_limits(request: HttpRequest, table_id: int) -> Done:
    return Done(change_limits_work(request, table_id))


@table_tap("start")
def start_deal(request: HttpRequest, table_id: int) -> Done:
    return rounds.start_deal(request, table_id)


@signed_in_post
def ask_correction(request: HttpRequest, table_id: int, round_id: int) -> HttpResponse:
    """The dealer's "ask a correction": nothing moves until the pit approves."""
    if not round_exists(round_id, table_id=table_id):
        raise NotAllowed(rounds.NO_SUCH_DEAL, status=404)
    return _screen_tap(request, table_id, "correction", lambda: _ask(request, round_id))


def _ask(request: HttpRequest, round_id: int) -> Done:
    asked = forms.checked(forms.CorrectionForm(request.POST)).cleaned_data
    made = request_correction(
        actor=actor_of(request), round_id=round_id, void=asked["void"], reason=asked["reason"]
    )
    what = "the whole deal (misdeal)" if made.from_seq is None else "the last action"
    return Done(
        receipt(
            f"Correction asked: void {what}.",
            "Play is paused for it: nothing moves until a pit boss approves it in the pit view.",
        )
    )


# --------------------------------------------------------------------------- taps with answers of their own


@signed_in_post
def close_table(request: HttpRequest, table_id: int) -> HttpResponse:
    """Closing with the counted tray: the session's summary, or the refusal on the table screen."""
    dealer_table(request.user, table_id)
    try:
        outcome = run_tap(request, lambda: _close(request, table_id))
    except SERVICE_ERRORS as error:
        return answers.refused(request, table_id, error, form="close")
    session = TableSession.objects.select_related("table").get(pk=outcome.result["session"])
    context = {"session": session, "table": session.table, "replayed": outcome.replayed}
    return render_screen(request, "console/_summary.html", "console/summary.html", context)


def _close(request: HttpRequest, table_id: int) -> Done:
    count = forms.checked(forms.CloseTableForm(request.POST)).cleaned_data["closing_inventory"]
    session = services.close_table(actor=actor_of(request), table_id=table_id, closing_inventory=count)
    return Done(receipt(f"{session.table.name} is closed.", session=session.pk))


@signed_in_post
def faro_action(request: HttpRequest, table_id: int, round_id: int, kind: str) -> HttpResponse:
    if kind not in rounds.FARO_ACTIONS:
        raise NotAllowed("That is not a Faro action.", status=404)
    table = dealer_table(request.user, table_id)
    try:
        outcome = run_tap(request, lambda: rounds.faro_action(request, table, round_id, kind))
    except SERVICE_ERRORS as error:
        rounds.log_refused(request, round_id, error)
        sticky = _sticky_bet(request) if kind in ("bet", "call_turn") else None
        return answers.refused(request, table_id, error, form=kind, sticky=sticky)
    return answers.after_faro_action(request, table, kind, outcome)


def _sticky_bet(request: HttpRequest) -> dict[str, Any]:
    """The bet form's choices as posted, to draw it again with them after a refusal."""
    data = request.POST
    typed = {name: data.get(name, "") for name in ("player", "target", "amount", "custom_amount", "order")}
    return {**typed, "ranks": data.getlist("ranks"), "coppered": bool(data.get("coppered"))}


@signed_in_post
def game_action(request: HttpRequest, table_id: int, round_id: int) -> HttpResponse:
    """Any action of the pot and stakes games: the form names one of the legal actions of now."""
    table = dealer_table(request.user, table_id)
    key = request.POST.get("action", "")
    form = "keying" if key.startswith(f"{KEYED_DEAL}-") else "game"
    try:
        outcome = run_tap(request, lambda: rounds.game_action(request, table, round_id))
    except SERVICE_ERRORS as error:
        rounds.log_refused(request, round_id, error)
        # A refused keyed deal comes back with every card still keyed, its reason beside it.
        sticky = {"action": key, "posted": dict(request.POST.lists())}
        return answers.refused(request, table_id, error, form=form, sticky=sticky)
    return answers.after_round_action(request, table, outcome, form)
