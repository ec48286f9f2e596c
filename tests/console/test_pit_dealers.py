"""Issue 44 item 15: a pit boss swaps relief dealers in from the pit, and each card tells who
dealt the table when (on the casino's clock, by name).

The pit had no way to assign a dealer (only ``POST /api/v1/tables/{id}/assign``). Its dealer form
posts to the same service as the API, ``tables.services.assign_dealer``, which ends the table's
open ``DealerShift`` and starts the next: the history the card shows and the API lists.
"""

from __future__ import annotations

import datetime as dt
import re
import secrets
from typing import Any

import pytest

from casino.models import ActionLog, Role
from tables import services
from tables.console.pit.floor import SHIFTS_SHOWN, forget_shared_floor
from tables.models import DealerShift, Table
from tests import factories
from tests.console.conftest import Floor
from tests.console.test_views import post, text

pytestmark = pytest.mark.django_db


def swap(client: Any, table: Table, dealer_id: object, **extra: Any) -> Any:
    return post(client, f"/pit/tables/{table.pk}/dealer/", {"dealer": dealer_id}, **extra)


def card_of(page: str, table: Table) -> str:
    found = re.search(rf'aria-labelledby="pit-table-{table.pk}">(.*?)</article>', page, re.S)
    assert found is not None, table.name
    return found.group(1)


def history(card: str) -> list[str]:
    """The card's "who dealt" list, each line as read (tags dropped)."""
    listed = re.search(r'data-testid="dealer-history">(.*?)</ol>', card, re.S)
    assert listed is not None
    return [re.sub(r"<[^>]+>", "", line) for line in re.findall(r"<li>(.*?)</li>", listed.group(1))]


def relief_offered(card: str) -> list[str]:
    return re.findall(r'<option value="\d+">([^<]*)</option>', card.split('name="dealer"', 1)[-1])


@pytest.fixture
def relief(floor: Floor) -> Any:
    """A dealer who deals no table: the pit's relief."""
    return factories.staff(Role.DEALER, username="crelief", name="Rita Relief")


def test_a_pit_boss_swaps_a_relief_dealer_in_and_back_and_the_card_lists_both(
    floor: Floor, relief: Any, as_user: Any
) -> None:
    boss = as_user(floor.pit_boss)
    before = card_of(text(boss.get("/pit/")), floor.faro)
    assert relief_offered(before) == ["Dion Dealer", "Rita Relief"]  # Dana deals the Faro
    assert history(before)[0].startswith("Dana Dealer since ")

    answer = swap(boss, floor.faro, relief.pk)

    assert answer.status_code == 200, text(answer)
    assert "Rita Relief now deals Faro c." in text(answer)
    assert "Before: Dana Dealer." in text(answer)
    floor.faro.refresh_from_db()
    assert floor.faro.dealer_id == relief.pk
    shifts = list(DealerShift.objects.filter(table=floor.faro).order_by("pk"))
    assert [(s.dealer_id, s.ended_at is None) for s in shifts] == [
        (floor.dealer.pk, False),
        (relief.pk, True),
    ]
    assert shifts[1].assigned_by_id == floor.pit_boss.pk
    logged = ActionLog.objects.get(action="table.dealer_assigned", data__to=relief.pk)  # the service's
    assert (logged.actor_id, logged.data["from"]) == (floor.pit_boss.pk, floor.dealer.pk)
    card = card_of(text(answer), floor.faro)
    assert re.search(r"<dt>Dealer</dt><dd>Rita Relief</dd>", card)
    assert relief_offered(card) == ["Dana Dealer", "Dion Dealer"]  # Dana is free to swap back

    back = swap(boss, floor.faro, floor.dealer.pk)

    assert back.status_code == 200, text(back)
    assert "Dana Dealer now deals Faro c." in text(back)
    lines = history(card_of(text(back), floor.faro))
    assert re.fullmatch(r"Dana Dealer since \d\d:\d\d", lines[0])
    assert re.fullmatch(r"Rita Relief \d\d:\d\d – \d\d:\d\d", lines[1])
    assert re.fullmatch(r"Dana Dealer \d\d:\d\d – \d\d:\d\d", lines[2])


def test_the_history_is_told_on_the_casinos_clock(
    floor: Floor, relief: Any, as_user: Any, settings: Any
) -> None:
    """Times in the casino's zone (TIME_ZONE), with the day when it is not today."""
    settings.TIME_ZONE = "Asia/Kolkata"  # UTC+05:30: a UTC time would show other minutes
    swap(as_user(floor.pit_boss), floor.faro, relief.pk)
    first, second = DealerShift.objects.filter(table=floor.faro).order_by("pk")
    began = dt.datetime(2026, 11, 20, 2, 15, tzinfo=dt.UTC)
    swapped = dt.datetime(2026, 11, 20, 3, 5, tzinfo=dt.UTC)
    DealerShift.objects.filter(pk=first.pk).update(started_at=began, ended_at=swapped)
    DealerShift.objects.filter(pk=second.pk).update(started_at=swapped)
    forget_shared_floor()  # the swap's answer shared the floor with the times as they were

    page = text(as_user(floor.pit_boss).get("/pit/live/", HTTP_HX_REQUEST="true"))

    assert history(card_of(page, floor.faro)) == [
        "Rita Relief since 20 Nov 08:35",
        "Dana Dealer 20 Nov 07:45 – 20 Nov 08:35",
    ]


def test_a_card_lists_the_last_few_shifts(floor: Floor, relief: Any, as_user: Any) -> None:
    boss = as_user(floor.pit_boss)
    for dealer in (relief, floor.dealer) * 3:
        assert swap(boss, floor.faro, dealer.pk).status_code == 200
    assert DealerShift.objects.filter(table=floor.faro).count() == 7
    lines = history(card_of(text(boss.get("/pit/")), floor.faro))
    assert len(lines) == SHIFTS_SHOWN
    assert lines[0].startswith("Dana Dealer since ")


def test_a_double_tap_swaps_once(floor: Floor, relief: Any, as_user: Any) -> None:
    boss = as_user(floor.pit_boss)
    token = secrets.token_urlsafe(18)
    for _ in range(2):
        body = {"dealer": relief.pk, "token": token}
        answer = boss.post(f"/pit/tables/{floor.faro.pk}/dealer/", body, HTTP_HX_REQUEST="true")
        assert answer.status_code == 200
    assert DealerShift.objects.filter(table=floor.faro).count() == 2


def test_only_a_pit_boss_swaps_and_bad_choices_change_nothing(
    floor: Floor, relief: Any, as_user: Any
) -> None:
    dealer_sees = as_user(floor.dealer).get("/pit/")
    assert dealer_sees.status_code == 403  # the pit is not the dealer's screen
    assert swap(as_user(floor.dealer), floor.faro, relief.pk).status_code == 403
    cashier = as_user(floor.cashier)
    assert 'data-testid="pit-dealer-form"' not in text(cashier.get("/pit/"))  # the floor, no swaps
    refused = swap(cashier, floor.faro, relief.pk)
    assert refused.status_code == 403
    assert "Only a pit boss may assign a dealer." in text(refused)

    boss = as_user(floor.pit_boss)
    not_a_dealer = swap(boss, floor.faro, floor.cashier.pk)
    assert not_a_dealer.status_code == 404
    assert "No active dealer with that id." in text(not_a_dealer)
    for bad in ("", "Rita", "-3", "1e3", str(2**63)):
        answer = swap(boss, floor.faro, bad)
        assert answer.status_code == 400, bad
        assert "Choose a dealer." in text(answer)
    assert post(boss, "/pit/tables/999999/dealer/", {"dealer": relief.pk}).status_code == 404

    floor.faro.refresh_from_db()
    assert floor.faro.dealer_id == floor.dealer.pk
    assert DealerShift.objects.filter(table=floor.faro).count() == 1


def test_a_floor_with_no_free_dealer_says_so(floor: Floor, as_user: Any) -> None:
    """Dana deals the Faro, Dion a Farmer table: nobody to swap in, and the card says so."""
    farmer = services.create_table(
        actor=floor.pit_boss, name="Farmer c", game="farmer", min_bet=100, max_bet=5_000
    )
    services.assign_dealer(actor=floor.pit_boss, table_id=farmer.pk, dealer_id=floor.other_dealer.pk)
    card = card_of(text(as_user(floor.pit_boss).get("/pit/")), floor.faro)
    assert "No dealer is free to swap in." in card
    assert 'name="dealer"' not in card
