"""The cage screen: a cashier finds a player, buys in, cashes out, decides fills and credits waiting,
and prints a slip for a buy-in or a cash-out.

It only calls the existing services (``casino.services.buy_in`` / ``cash_out``, the API's, and
the fills and credits slips' services through ``books.transit.transit_decision``: the cage issues
a fill, and shows a credit in transit with a link to sign for it), each once per form
token (``run_tap``): a double tap posts once. Refusals are shown on the same screen, in dollars.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.models import Player, User
from casino.money import format_dollars
from casino.permissions import access_player, actor_of
from casino.selectors import get_player_balance, search_players
from casino.services import buy_in, cash_out
from casino.signed_in import signed_in_get, signed_in_post
from ledger.models import Transfer
from tables.console import forms
from tables.console.access import found, require_screen
from tables.console.books.transit import transit_decision, transit_rows
from tables.console.taps import Flash, receipt, render_screen, tap_flash

CAGE_KINDS = {"buy_in": "Buy-in", "cash_out": "Cash-out"}
SEARCH_LIMIT = 10


def _player(request: HttpRequest, player_id: Any) -> Player | None:
    if player_id in (None, ""):
        return None
    try:
        return access_player(user=request.user, player_id=int(player_id))
    except ValueError:
        return None


def cage_context(
    request: HttpRequest, *, player: Player | None = None, flash: Flash | None = None, slip: int | None = None
) -> dict[str, Any]:
    query = request.GET.get("q", "").strip()
    found = list(search_players(query=query, limit=SEARCH_LIMIT)) if query else []
    return {
        "query": query,
        "results": [(p, get_player_balance(player=p)) for p in found],
        "player": player,
        "balance": get_player_balance(player=player) if player is not None else None,
        "transit": transit_rows(actor_of(request)),
        "flash": flash,
        "slip": slip,
    }


def _render(request: HttpRequest, context: dict[str, Any], status: int = 200) -> HttpResponse:
    return render_screen(request, "cage/_cage.html", "cage/cage.html", context, status=status)


@signed_in_get
def cage_home(request: HttpRequest) -> HttpResponse:
    require_screen(request.user, "cage")
    player = _player(request, request.GET.get("player"))
    return _render(request, cage_context(request, player=player))


def perform_cage_tap(
    request: HttpRequest,
    *,
    form: str,
    work: Callable[[], dict[str, Any]],
    player: Player | None = None,
) -> HttpResponse:
    """Run one service call once per form token; show its receipt, or its refusal, in place."""
    require_screen(request.user, "cage")
    flash, result, status = tap_flash(request, form, work)
    return _render(
        request, cage_context(request, player=player, flash=flash, slip=result.get("slip")), status
    )


@signed_in_post
def move(request: HttpRequest, player_id: int, kind: str) -> HttpResponse:
    """A buy-in or a cash-out (``kind``, a key of ``CAGE_KINDS``, from its URL) for one player."""
    require_screen(request.user, "cage")
    player = access_player(user=request.user, player_id=player_id)
    service = buy_in if kind == "buy_in" else cash_out

    def work() -> dict[str, Any]:
        amount = forms.checked(forms.CageForm(request.POST)).cleaned_data["amount"]
        transfer = service(actor=actor_of(request), player=player, amount=amount)
        available = get_player_balance(player=player).available
        return receipt(
            f"{CAGE_KINDS[kind]} of {format_dollars(amount)} for {player.name}.",
            f"Available now: {format_dollars(available)}. Transfer #{transfer.pk}.",
            slip=transfer.pk,
        )

    return perform_cage_tap(request, form=kind, work=work, player=player)


@signed_in_post
def decide(request: HttpRequest, request_id: int, verdict: str) -> HttpResponse:
    """A fill issued or refused at the cage (a credit is the pit's to release): the slip's first
    signature, never the requester's."""
    work = transit_decision(request, request_id, verdict)
    player = _player(request, request.POST.get("player"))
    return perform_cage_tap(request, form=f"request-{request_id}", work=work, player=player)


@signed_in_get
def slip(request: HttpRequest, transfer_id: int) -> HttpResponse:
    """A printable receipt of one buy-in or cash-out: player, dollars, time, cashier, transfer id."""
    require_screen(request.user, "cage")
    transfer = found(
        Transfer.objects.filter(pk=transfer_id, kind__in=CAGE_KINDS), "No such buy-in or cash-out."
    )
    player = access_player(user=request.user, player_id=int(transfer.meta["player"]))
    cashier = User.objects.filter(pk=transfer.meta.get("staff")).first()
    amount = transfer.entries.filter(account=player.wallet).values_list("amount", flat=True).first() or 0
    context = {
        "transfer": transfer,
        "kind": CAGE_KINDS[transfer.kind],
        "player": player,
        "amount": abs(amount),
        "cashier": cashier,
    }
    return render(request, "cage/slip.html", context)
