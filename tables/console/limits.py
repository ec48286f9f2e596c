"""The limit change, one piece of work for the dealer's tap and the pit's (each shows it its own way)."""

from __future__ import annotations

from typing import Any

from django.http import HttpRequest

from casino.money import format_dollars
from casino.permissions import actor_of
from tables import services
from tables.console import forms
from tables.console.taps import receipt


def change_limits_work(request: HttpRequest, table_id: int) -> dict[str, Any]:
    """The limit change: the console's tap (``dealer.views.change_limits``) and the pit view's
    (``pit.views.limits``)."""
    asked = forms.checked(forms.LimitsForm(request.POST)).cleaned_data
    table = services.change_limits(
        actor=actor_of(request), table_id=table_id, min_bet=asked["min_bet"], max_bet=asked["max_bet"]
    )
    limits = f"{format_dollars(table.min_bet)} \u2013 {format_dollars(table.max_bet)}"
    return receipt(f"Limits at {table.name} are now {limits}.", "Bets already on the layout keep their size.")
