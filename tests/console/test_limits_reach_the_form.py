"""Limits are the pit's, and a change reaches the dealer's open Faro bet form at once: the chips
and bounds it offers, not only the header (issue 20 item 11)."""

from __future__ import annotations

import pytest

from tables.rounds import start_round
from tables.services import change_limits, seat_player
from tests.console.conftest import Floor

pytestmark = pytest.mark.django_db


def test_the_bet_form_follows_a_limit_change_made_in_the_pit(floor: Floor, as_user: object) -> None:
    floor.open_faro()
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk)
    start_round(actor=floor.dealer, table_id=floor.faro.pk, shoe="electronic")
    dealer = as_user(floor.dealer)  # type: ignore[operator]
    screen = dealer.get(f"/console/tables/{floor.faro.pk}/").content.decode()
    assert "(limits $5.00 – $500.00)" in screen
    shown = "limits=500-50000"
    assert shown in screen  # what the form polls with

    amounts = f"/console/tables/{floor.faro.pk}/amounts/?{shown}"
    assert dealer.get(amounts, HTTP_HX_REQUEST="true").status_code == 204  # unchanged: no swap

    change_limits(actor=floor.pit_boss, table_id=floor.faro.pk, min_bet=2_500, max_bet=100_000)
    fresh = dealer.get(amounts, HTTP_HX_REQUEST="true")
    assert fresh.status_code == 200
    body = fresh.content.decode()
    assert "(limits $25.00 – $1,000.00)" in body
    assert 'value="500"' not in body  # the old $5 chip is gone from the choices
    assert 'value="2500"' in body
    assert 'value="100000"' in body
    assert 'id="table-limits" data-testid="limits" aria-label="Table limits" hx-swap-oob="true"' in body
    assert "limits=2500-100000" in body  # and it now polls with the new limits

    # A full render after the change offers the same chips (from the table, not the last action).
    again = dealer.get(f"/console/tables/{floor.faro.pk}/").content.decode()
    assert "(limits $25.00 – $1,000.00)" in again
    chips = again.split('id="bet-amounts"', 1)[1].split("</fieldset>", 1)[0]  # the cash panel has its own
    assert 'value="500"' not in chips
    assert 'value="2500"' in chips
