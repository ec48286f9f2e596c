"""The cage screen: a cashier finds a player, buys in, cashes out, decides fills and credits waiting,
and prints a slip for a buy-in or a cash-out.

The player's panel shows their cash in and out today against the MTL and CTR lines
(``casino.cash``); a move refused for want of identification opens a form that records it and
makes the move in the same tap. Payments on markers are ``tables.console.cage.markers``'.

It only calls the existing services (``casino.services.buy_in`` / ``cash_out``, the API's, and
the fills and credits slips' services through ``books.transit.transit_decision``: the cage issues
a fill, and shows a credit in transit with a link to sign for it), each once per form
token (``run_tap``): a double tap posts once. Refusals are shown on the same screen, in dollars.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import partial
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse

from casino.cash.errors import IdentificationRequired
from casino.cash.models import IdentificationKind
from casino.cash.selectors import cash_activity
from casino.cash.services import record_identification
from casino.models import Player, User
from casino.money import format_dollars
from casino.permissions import access_player, actor_of
from casino.selectors import get_player_balance, search_players
from casino.services import buy_in, cash_out
from casino.signed_in import signed_in_get, signed_in_post
from ledger.gaming_day import gaming_day_for
from ledger.models import Transfer
from tables.console import forms
from tables.console.access import found, require_screen
from tables.console.books.transit import transit_decision, transit_rows
from tables.console.taps import Flash, receipt, render_screen, tap_flash
from tables.credit.models import RedemptionMethod
from tables.credit.selectors import credit_summary, open_markers_of, past_deadline

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
    request: HttpRequest,
    *,
    player: Player | None = None,
    flash: Flash | None = None,
    slip: int | None = None,
    identify: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """The screen's context; ``identify``: a move refused for want of identification, to retry
    with the identification form (``move_prompt``'s or ``markers.payment_prompt``'s words)."""
    query = request.GET.get("q", "").strip()
    found = list(search_players(query=query, limit=SEARCH_LIMIT)) if query else []
    return {
        "query": query,
        "results": [(p, get_player_balance(player=p)) for p in found],
        "player": player,
        "balance": get_player_balance(player=player) if player is not None else None,
        "cash": cash_today(player) if player is not None else None,
        "credit": credit_summary(player=player) if player is not None else None,
        "markers": marker_rows(player) if player is not None else [],
        "methods": RedemptionMethod.choices,
        "identify": identify,
        "id_kinds": IdentificationKind.choices,
        "transit": transit_rows(actor_of(request)),
        "flash": flash,
        "slip": slip,
    }


def cash_today(player: Player) -> dict[str, Any]:
    """The player's cash in and out today, with the MTL and CTR lines, for the player's panel."""
    activity = cash_activity(player=player, day=gaming_day_for())
    return {
        **activity,
        "rows": [
            {"label": label, "total": activity[key], "mtl": activity[key] > activity["mtl_threshold"],
             "ctr": activity[key] > activity["ctr_threshold"]}
            for label, key in (("Cash in", "cash_in"), ("Cash out", "cash_out"))
        ],
    }  # fmt: skip


def marker_rows(player: Player) -> list[dict[str, Any]]:
    """The player's markers still owed, oldest first, in words: what the cage may redeem."""
    return [
        {
            "id": m.slip_id,
            "form": f"marker-{m.slip_id}",
            "number": m.slip.number,
            "table": m.slip.table.name if m.slip.table else "",
            "day": m.slip.gaming_day,
            "amount": m.amount,
            "outstanding": m.outstanding,
            "past_deadline": past_deadline(m),
        }
        for m in open_markers_of(player=player)
    ]


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
    identify: Callable[[IdentificationRequired], dict[str, Any]] | None = None,
    prompt_kept: dict[str, Any] | None = None,
) -> HttpResponse:
    """Run one service call once per form token; show its receipt, or its refusal, in place.

    ``identify`` turns a refusal for want of identification into the prompt that records it and
    makes the move again; ``prompt_kept`` is that prompt, shown again after any other refusal
    (a date of birth mistyped in it)."""
    require_screen(request.user, "cage")
    refused: list[IdentificationRequired] = []

    def watched() -> dict[str, Any]:
        try:
            return work()
        except IdentificationRequired as error:
            refused.append(error)
            raise

    flash, result, status = tap_flash(request, form, watched)
    prompt = identify(refused[0]) if refused and identify is not None else None
    if prompt is None and not flash.ok:
        prompt = prompt_kept
    context = cage_context(request, player=player, flash=flash, slip=result.get("slip"), identify=prompt)
    return _render(request, context, status)


def _move_work(
    request: HttpRequest, player: Player, kind: str, *, before: Callable[[], Any] | None = None
) -> Any:
    """The tap's work for a buy-in or a cash-out: the amount from the form, one service call."""
    service = buy_in if kind == "buy_in" else cash_out

    def work() -> dict[str, Any]:
        amount = forms.checked(forms.CageForm(request.POST)).cleaned_data["amount"]
        lines = []
        if before is not None:
            lines.append(before())
        transfer = service(actor=actor_of(request), player=player, amount=amount)
        available = get_player_balance(player=player).available
        return receipt(
            f"{CAGE_KINDS[kind]} of {format_dollars(amount)} for {player.name}.",
            *lines,
            f"Available now: {format_dollars(available)}. Transfer #{transfer.pk}.",
            slip=transfer.pk,
        )

    return work


def move_prompt(kind: str, player_id: int, amount: int) -> dict[str, Any]:
    """The identification prompt for a buy-in or a cash-out refused for want of ID: what it was
    (``label``, ``what``), where its one button posts and what that button says."""
    what = CAGE_KINDS[kind].lower()
    return {
        "label": CAGE_KINDS[kind],
        "what": what,
        "amount": amount,
        "url": reverse(f"cage:identify_{kind}", args=[player_id]),
        "hidden": {},
        "button": f"Record ID and {what} {format_dollars(amount)}",
    }


def _prompt(kind: str) -> Callable[[IdentificationRequired], dict[str, Any]]:
    def prompt(error: IdentificationRequired) -> dict[str, Any]:
        return move_prompt(kind, error.refusal["player_id"], error.refusal["amount"])

    return prompt


def recorded_identification(request: HttpRequest, player: Player) -> str:
    """Record the identification the cashier examined (the prompt's form); its line of the receipt."""
    data = forms.checked(forms.IdentificationForm(request.POST)).cleaned_data
    identification = record_identification(actor=actor_of(request), player=player, **data)
    return f"{identification.get_kind_display()} of {identification.name} recorded."


@signed_in_post
def move(request: HttpRequest, player_id: int, kind: str) -> HttpResponse:
    """A buy-in or a cash-out (``kind``, a key of ``CAGE_KINDS``, from its URL) for one player.
    Refused for want of identification, the screen asks for it (``identify_and_move``)."""
    require_screen(request.user, "cage")
    player = access_player(user=request.user, player_id=player_id)
    work = _move_work(request, player, kind)
    return perform_cage_tap(request, form=kind, work=work, player=player, identify=_prompt(kind))


@signed_in_post
def identify_and_move(request: HttpRequest, player_id: int, kind: str) -> HttpResponse:
    """The identification the cashier examined, recorded, then the refused move made again: one tap."""
    require_screen(request.user, "cage")
    player = access_player(user=request.user, player_id=player_id)

    work = _move_work(request, player, kind, before=partial(recorded_identification, request, player))
    form = forms.CageForm(request.POST)
    kept = move_prompt(kind, player.pk, form.cleaned_data["amount"]) if form.is_valid() else None
    return perform_cage_tap(
        request, form="identify", work=work, player=player, identify=_prompt(kind), prompt_kept=kept
    )


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
