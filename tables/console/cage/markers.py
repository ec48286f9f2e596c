"""The cage takes payments on a player's markers, in cash or in chips from the wallet.

A cash payment that takes the player's cash in today past the CTR line with no identification on
file is refused (``casino.cash``); the screen then offers the same prompt as a refused buy-in:
record the ID examined and the same payment goes through, in one tap.
"""

from __future__ import annotations

from functools import partial
from typing import Any

from django import forms as django_forms
from django.http import HttpRequest, HttpResponse
from django.urls import reverse

from casino.cash.errors import IdentificationRequired
from casino.models import Player
from casino.money import format_dollars
from casino.permissions import access_player, actor_of
from casino.signed_in import signed_in_post
from tables.console import forms
from tables.console.access import found, require_screen
from tables.console.cage.views import perform_cage_tap, recorded_identification
from tables.console.taps import receipt
from tables.credit.models import Marker, RedemptionMethod
from tables.credit.selectors import credit_summary
from tables.credit.services import redeem_marker

PAY_HOW = "Choose how the marker is paid: cash or chips."


class RedeemForm(django_forms.Form):
    """A payment on a marker: dollars, in cash or in the player's chips."""

    amount = forms.DollarsField(words="payment")
    method = django_forms.ChoiceField(
        choices=RedemptionMethod.choices,
        error_messages={"required": PAY_HOW, "invalid_choice": PAY_HOW},
    )


def _marker(request: HttpRequest, marker_id: int) -> tuple[Marker, Player]:
    require_screen(request.user, "cage")
    marker = found(Marker.objects.select_related("slip").filter(slip_id=marker_id), "No such marker.")
    return marker, access_player(user=request.user, player_id=marker.player_id)


def payment_prompt(marker: Marker, amount: int) -> dict[str, Any]:
    """The identification prompt for a cash payment on ``marker`` refused for want of ID: its one
    button records the ID and pays the same dollars in cash."""
    what = f"cash payment on marker {marker.slip.number}"
    return {
        "label": "A cash payment",
        "what": what,
        "amount": amount,
        "url": reverse("cage:identify_redeem_marker", args=[marker.slip_id]),
        "hidden": {"method": RedemptionMethod.CASH.value},
        "button": f"Record ID and pay {format_dollars(amount)} in cash",
    }


def _pay(request: HttpRequest, marker: Marker, player: Player, before: Any = None) -> Any:
    """The tap's work: the payment from the form, one ``redeem_marker`` call, a receipt in words
    (after ``before``'s line, the identification recorded, when there is one)."""

    def work() -> dict[str, Any]:
        asked = forms.checked(RedeemForm(request.POST)).cleaned_data
        lines = [before()] if before is not None else []
        paid = redeem_marker(
            actor=actor_of(request), marker_id=marker.slip_id, amount=asked["amount"], method=asked["method"]
        )
        left = credit_summary(player=player)
        how = "in cash" if asked["method"] == RedemptionMethod.CASH else "in chips from the wallet"
        return receipt(
            f"{format_dollars(asked['amount'])} paid {how} on marker {marker.slip.number} by {player.name}.",
            *lines,
            f"Still owed on it: {format_dollars(paid.outstanding)}. "
            f"{player.name} owes {format_dollars(left.outstanding)} in all; "
            f"{format_dollars(left.available)} of credit available.",
        )

    return work


def _prompt_for(marker: Marker) -> Any:
    def prompt(error: IdentificationRequired) -> dict[str, Any]:
        return payment_prompt(marker, error.refusal["amount"])

    return prompt


@signed_in_post
def redeem(request: HttpRequest, marker_id: int) -> HttpResponse:
    """A cashier takes a payment on one of the chosen player's markers (cash or chips)."""
    marker, player = _marker(request, marker_id)
    return perform_cage_tap(
        request,
        form=f"marker-{marker_id}",
        work=_pay(request, marker, player),
        player=player,
        identify=_prompt_for(marker),
    )


@signed_in_post
def identify_and_redeem(request: HttpRequest, marker_id: int) -> HttpResponse:
    """The identification the cashier examined, recorded, then the refused cash payment made
    again: one tap."""
    marker, player = _marker(request, marker_id)
    work = _pay(request, marker, player, before=partial(recorded_identification, request, player))
    form = RedeemForm(request.POST)
    kept = payment_prompt(marker, form.cleaned_data["amount"]) if form.is_valid() else None
    return perform_cage_tap(
        request, form="identify", work=work, player=player, identify=_prompt_for(marker), prompt_kept=kept
    )
