"""Issue 44 item 4: a NUL character in any page's query or form is a 400 page in words.

PostgreSQL cannot take NUL in text, so ``/cage/?q=%00`` and the console's seat search reached
the database and answered 500. ``casino.nul_guard`` refuses NUL on every HTML path before any
view runs; the API keeps its own JSON 400 (casino/api/parsers.py and its fields).
"""

from __future__ import annotations

from typing import Any

import pytest
from django.test import Client

from casino.models import Role, User
from casino.nul_guard import MESSAGE
from tests.console.conftest import Floor, build_floor
from tests.factories import PASSWORD, staff

WORDS = "What was sent holds a NUL character"


@pytest.fixture
def floor(db: None) -> Floor:
    return build_floor(prefix="nul")


def _as(user: User) -> Client:
    client = Client(raise_request_exception=False)  # a 500 is an answer to see, not a test crash
    client.force_login(user)
    return client


def _seat_search(floor: Floor, query: str) -> str:
    return f"/console/tables/{floor.faro.pk}/players/?{query}"


def _refused_in_words(response: Any) -> str:
    assert response.status_code == 400, (response.status_code, response.content[:300])
    assert response["Content-Type"].startswith("text/html")
    page = response.content.decode()
    assert "<html" in page
    assert WORDS in page
    assert "Text Casekeeper cannot read" in page
    return page


@pytest.mark.django_db
def test_a_nul_in_the_cages_search_is_a_400_page(floor: Floor) -> None:
    response = _as(floor.cashier).get("/cage/?q=%00")

    page = _refused_in_words(response)
    assert "Cass Cashier · Cashier" in page  # the console's own frame, for the person signed in


@pytest.mark.django_db
@pytest.mark.parametrize("query", ["q=%00", "q=kate%00", "q%00=kate"])
def test_a_nul_in_the_consoles_seat_search_is_a_400_in_place_of_the_screen(floor: Floor, query: str) -> None:
    response = _as(floor.dealer).get(_seat_search(floor, query), HTTP_HX_REQUEST="true")

    _refused_in_words(response)
    assert response["HX-Retarget"] == "body"  # htmx shows the refusal instead of the results box
    assert response["HX-Reswap"] == "innerHTML"


@pytest.mark.django_db
def test_the_seat_search_still_answers_without_a_nul(floor: Floor) -> None:
    response = _as(floor.dealer).get(_seat_search(floor, "q=kate"), HTTP_HX_REQUEST="true")

    assert response.status_code == 200
    assert "Kate Elder" in response.content.decode()


@pytest.mark.django_db
def test_a_nul_in_a_posted_form_is_a_400_page_and_changes_nothing(floor: Floor) -> None:
    client = Client(raise_request_exception=False)

    form = {"username": f"{floor.dealer.username}\x00", "password": PASSWORD}
    response = client.post("/console/login/", form)

    _refused_in_words(response)
    assert "_auth_user_id" not in client.session


@pytest.mark.django_db
def test_a_nul_in_a_cage_form_changes_no_balance(floor: Floor) -> None:
    kate = floor.kate
    kate.wallet.refresh_from_db()
    before = kate.wallet.balance
    form = {"amount": "100\x00"}  # a scanner or a paste left a NUL after the digits
    response = _as(floor.cashier).post(f"/cage/players/{kate.pk}/buy-in/", form)

    _refused_in_words(response)
    kate.wallet.refresh_from_db()
    assert kate.wallet.balance == before


@pytest.mark.django_db
def test_the_admin_answers_in_its_own_style(floor: Floor) -> None:
    response = _as(staff(Role.ADMIN, is_staff=True, is_superuser=True)).get("/admin/casino/user/?q=%00")

    page = _refused_in_words(response)
    assert 'id="site-name"' in page  # the admin's own header


@pytest.mark.django_db
def test_the_api_keeps_its_own_json_refusal(floor: Floor) -> None:
    client = _as(floor.cashier)

    response = client.get("/api/v1/players?search=%00")

    assert response.status_code == 400
    assert response["Content-Type"].startswith("application/json")
    assert response.json()["error"]["code"] == "invalid"
    assert MESSAGE not in response.content.decode()
