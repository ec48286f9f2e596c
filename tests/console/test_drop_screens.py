"""The drop's screens through Django's test client: the dealer's cash buy-in tap (a double tap
sells once), and the count room (who may open it, removal, a blind count and its receipt)."""

from __future__ import annotations

import secrets
from html import unescape
from typing import Any

import pytest
from django.test import Client

from casino.models import Role
from tables.drop.models import DropBox
from tables.drop.services import cash_buy_in, remove_box
from tables.services import seat_player
from tables.slips.models import Slip
from tests import factories
from tests.console.conftest import Floor

pytestmark = pytest.mark.django_db


def post(client: Client, path: str, data: dict[str, Any], *, token: str | None = None) -> Any:
    return client.post(path, {"token": token or secrets.token_urlsafe(18), **data}, HTTP_HX_REQUEST="true")


def text(response: Any) -> str:
    return unescape(response.content.decode())


def test_a_cash_buy_in_tap_sells_once_and_says_so(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk, seat=1)
    client = as_user(floor.dealer)
    url = f"/console/tables/{floor.faro.pk}/cash/"
    tap = secrets.token_urlsafe(18)

    first = post(client, url, {"player": floor.kate.pk, "amount": "500.00", "other": ""}, token=tap)
    again = post(client, url, {"player": floor.kate.pk, "amount": "500.00", "other": ""}, token=tap)

    box = DropBox.objects.get(table=floor.faro)
    assert first.status_code == 200
    assert f"Kate Elder bought $500.00 of chips with cash; in drop box {box.number}." in text(first)
    assert "already done" in text(again)
    assert box.recorded == 50_000


def test_a_typed_amount_sells_when_no_button_was_tapped(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk, seat=1)

    reply = post(
        as_user(floor.dealer),
        f"/console/tables/{floor.faro.pk}/cash/",
        {"player": floor.kate.pk, "other": "35"},
    )

    assert "Kate Elder bought $35.00 of chips with cash" in text(reply)
    assert DropBox.objects.get(table=floor.faro).recorded == 3_500


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({"other": ""}, "Tap an amount, or type one and tap Sell chips."),
        ({"other": "lots"}, "in dollars"),
        ({"player": "", "amount": "20.00"}, "Choose a player."),
    ],
)
def test_a_refused_cash_buy_in_says_why_under_its_form(
    floor: Floor, as_user: Any, data: dict[str, Any], words: str
) -> None:
    floor.open_faro()
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk, seat=1)

    reply = post(
        as_user(floor.dealer), f"/console/tables/{floor.faro.pk}/cash/", {"player": floor.kate.pk, **data}
    )

    assert reply.status_code == 400
    assert words in text(reply)
    assert not DropBox.objects.exists()


@pytest.fixture
def counter() -> Any:
    return factories.staff(Role.COUNT_TEAM, name="Cora Count")


def test_only_the_count_team_opens_the_count_room(floor: Floor, as_user: Any, counter: Any) -> None:
    assert as_user(counter).get("/count/").status_code == 200
    for user in (floor.dealer, floor.pit_boss, floor.cashier, floor.auditor):
        assert as_user(user).get("/count/").status_code == 403
    assert as_user(counter).get("/console/").url == "/count/"


def test_the_count_room_removes_and_counts_blind(floor: Floor, as_user: Any, counter: Any) -> None:
    floor.open_faro()
    box = cash_buy_in(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk, amount=62_000).box
    client = as_user(counter)
    assert box.number in text(client.get("/count/"))

    removed = post(client, f"/count/boxes/{box.pk}/remove/", {"seal": "S-4411"})
    assert f"Drop box {box.number} removed from {floor.faro.name} under seal S-4411." in text(removed)
    assert "$620.00" not in text(removed)  # the count is blind

    counted = post(client, f"/count/boxes/{box.pk}/count/", {"bill_10000": "6", "bill_1000": "1"})
    page = text(counted)
    slip = Slip.objects.get(kind="drop")
    assert f"Drop slip {slip.number} written: $610.00 counted." in page
    assert "$620.00" in page  # now, and only now
    assert "$10.00 short" in page
    assert (slip.amount, slip.expected) == (61_000, 62_000)


def test_a_second_remove_is_refused_in_words(floor: Floor, as_user: Any, counter: Any) -> None:
    floor.open_faro()
    box = cash_buy_in(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk, amount=1_000).box
    remove_box(actor=counter, box_id=box.pk, seal="S-1")

    reply = post(as_user(counter), f"/count/boxes/{box.pk}/remove/", {"seal": "S-2"})

    assert reply.status_code == 409
    assert f"Drop box {box.number} was already removed from {floor.faro.name}." in text(reply)
