"""Issue 48: the cage's "record the ID and pay" for a cash payment on a marker refused for want of
identification, without a browser: a mistyped ID form keeps the prompt and moves nothing."""

from __future__ import annotations

import secrets
from typing import Any

import pytest

from casino.cash.models import Identification
from casino.models import Role
from tables.credit.models import Marker
from tables.credit.services import issue_marker, set_credit_line
from tables.services import seat_player
from tests import factories
from tests.console.conftest import Floor

pytestmark = [pytest.mark.django_db]


def test_a_marker_s_id_prompt_with_a_mistyped_form_stays_and_nothing_is_paid(
    floor: Floor, as_user: Any
) -> None:
    """The cage's "record the ID and pay" for a marker: an ID form missing its address is refused
    in place, the prompt kept with the same payment; neither the ID nor the payment is made."""
    floor.open_faro()
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.wyatt.pk, seat=1)
    set_credit_line(actor=factories.staff(Role.ADMIN), player=floor.wyatt, limit=1_000_000)
    marker = issue_marker(
        actor=floor.pit_boss, table_id=floor.faro.pk, player_id=floor.wyatt.pk, amount=900_000
    )
    client = as_user(floor.cashier)
    body = {"amount": "9000", "method": "cash", "kind": "passport", "number": "P1", "name": "Wyatt Earp"}

    answer = client.post(
        f"/cage/markers/{marker.slip_id}/identify/redeem/",
        {**body, "token": secrets.token_urlsafe(18), "birth_date": "1948-03-19", "address": ""},
        HTTP_HX_REQUEST="true",
    )

    assert answer.status_code == 400
    page = answer.content.decode()
    assert "Record ID and pay $9,000.00 in cash" in page
    assert "Enter the address." in page
    assert Marker.objects.get(pk=marker.pk).outstanding == 900_000
    assert not Identification.objects.filter(player=floor.wyatt).exists()

    answer = client.post(
        f"/cage/markers/{marker.slip_id}/identify/redeem/",
        {**body, "token": secrets.token_urlsafe(18), "birth_date": "1948-03-19", "address": "1 Allen Street"},
        HTTP_HX_REQUEST="true",
    )
    assert answer.status_code == 200
    assert f"$9,000.00 paid in cash on marker {marker.slip.number} by Wyatt Earp." in answer.content.decode()
    assert Marker.objects.get(pk=marker.pk).outstanding == 0
