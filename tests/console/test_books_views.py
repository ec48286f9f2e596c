"""The books' screens through Django's test client (issue 46 item 7): the dealer's blind count on
the chip grid, signing from the pit's and the cage's lists with one's own password, and a slip's
history; every refusal said in words, in place, moving nothing."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from django.test import Client

from casino.login_guard import account_failures
from tables.slips.counts import take_count
from tables.slips.models import Slip, SlipKind, SlipSignature
from tables.slips.services import issue_slip, sign_slip
from tables.slips.voids import void_slip
from tests.console.conftest import PASSWORD, Floor

pytestmark = pytest.mark.django_db

TRAY = 1_000_000  # the floor's Faro opens with $10,000.00
EVEN = {"chip_100000": "10"}  # ten $1,000 chips: the tray exactly


def post(client: Client, path: str, data: dict[str, Any], *, token: str | None = None) -> Any:
    body = {"token": token or secrets.token_urlsafe(18), **data}
    return client.post(path, body, HTTP_HX_REQUEST="true")


def text(response: Any) -> str:
    return response.content.decode()


def counts() -> Any:
    """The count slips (opening the table wrote its opener)."""
    return Slip.objects.filter(kind=SlipKind.COUNT)


def count_url(floor: Floor, suffix: str = "") -> str:
    return f"/console/tables/{floor.faro.pk}/count/{suffix}"


def sign_url(slip: Slip) -> str:
    return f"/console/slips/{slip.pk}/sign/"


def a_count(floor: Floor, pieces: dict[str, int]) -> Slip:
    return take_count(actor=floor.dealer, table_id=floor.faro.pk, count=pieces, reason="shift_change")


# --------------------------------------------------------------------------- the dealer's count


def test_the_grid_shows_every_chip_and_not_the_ledgers_tray(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)

    page = as_user(floor.dealer).get(count_url(floor))

    assert page.status_code == 200
    html = text(page)
    for label in ("$0.50", "$1", "$5", "$25", "$100", "$500", "$1,000"):
        assert f'<span class="count-denom">{label}</span>' in html
    assert "$10,000.00" not in html  # blind: the tray is not on the grid
    assert "ledger" not in html.lower()


def test_a_count_answers_with_its_slip_the_expected_tray_and_who_signs(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)

    answer = post(
        as_user(floor.dealer),
        count_url(floor, "take/"),
        {"chip_100000": "9", "chip_10000": "9", "chip_2500": "2", "reason": "spot_check"},  # $9,950.00
    )

    assert answer.status_code == 200, text(answer)
    slip = counts().get()
    assert (slip.kind, slip.reason, slip.amount, slip.expected) == ("count", "spot_check", 995_000, TRAY)
    assert slip.count is not None
    assert slip.count["100000"] == 9
    assert slip.count["50"] == 0
    html = text(answer)
    assert slip.number in html
    assert "$9,950.00" in html
    assert "$10,000.00" in html
    assert "$50.00 short" in html
    assert "Still to sign: Dealer, Pit boss." in html
    assert "995000" not in html


@pytest.mark.parametrize(
    ("typed", "says"),
    [
        ({"chip_2500": "-1"}, "The number of $25 chips must be a whole number from 0 to 100,000."),
        ({"chip_500": "two"}, "The number of $5 chips must be a whole number from 0 to 100,000."),
        ({"chip_500": "2", "reason": "because"}, "Choose why the tray is counted"),
    ],
)
def test_a_bad_count_is_refused_in_words_and_writes_no_slip(
    floor: Floor, as_user: Any, typed: dict[str, str], says: str
) -> None:
    floor.open_faro(TRAY)

    answer = post(as_user(floor.dealer), count_url(floor, "take/"), {"reason": "shift_change", **typed})

    assert answer.status_code == 400
    assert says in text(answer)
    assert 'data-testid="count-grid"' in text(answer)  # the grid again, as typed
    assert not counts().exists()


def test_a_closed_table_is_not_counted_here(floor: Floor, as_user: Any) -> None:
    answer = post(as_user(floor.dealer), count_url(floor, "take/"), {"reason": "shift_change", **EVEN})

    assert answer.status_code == 409
    assert "is not open: its tray is counted when it opens and closes" in text(answer)
    assert not counts().exists()


def test_another_dealers_table_is_not_counted(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)

    page = as_user(floor.other_dealer).get(count_url(floor))
    answer = post(as_user(floor.other_dealer), count_url(floor, "take/"), {"reason": "shift_change", **EVEN})

    assert page.status_code == answer.status_code == 403
    assert "is not assigned to you" in text(answer)
    assert not counts().exists()


def test_a_double_tap_writes_one_count(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)
    client = as_user(floor.dealer)
    token = secrets.token_urlsafe(18)

    first = post(client, count_url(floor, "take/"), {"reason": "shift_change", **EVEN}, token=token)
    again = post(client, count_url(floor, "take/"), {"reason": "shift_change", **EVEN}, token=token)

    assert first.status_code == again.status_code == 200
    assert counts().count() == 1
    assert counts().get().number in text(again)


# --------------------------------------------------------------------------- signing


def test_a_wrong_password_signs_nothing_and_counts_toward_lockout(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)
    slip = a_count(floor, {"100000": 10})

    answer = post(as_user(floor.pit_boss), sign_url(slip), {"password": "guess"})

    assert answer.status_code == 403
    assert "That is not your password: the slip is not signed." in text(answer)
    assert not SlipSignature.objects.exists()
    assert account_failures(floor.pit_boss.username) == 1


def test_the_right_password_signs_and_the_row_says_who_is_left(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)
    slip = a_count(floor, {"100000": 10})

    answer = post(as_user(floor.pit_boss), sign_url(slip), {"password": PASSWORD})

    assert answer.status_code == 200, text(answer)
    assert f"You signed slip {slip.number} as pit boss." in text(answer)
    assert "Still to sign: Dealer." in text(answer)
    assert SlipSignature.objects.get().user == floor.pit_boss


def test_a_large_variance_is_signed_only_with_a_note(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)
    slip = a_count(floor, {"100000": 9, "10000": 9, "2500": 2})  # $50.00 short
    client = as_user(floor.pit_boss)

    prompt = client.get("/pit/slips/")
    refused = post(client, sign_url(slip), {"password": PASSWORD, "note": ""})
    signed = post(client, sign_url(slip), {"password": PASSWORD, "note": "a $50 chip in the float"})

    assert "The count is $50.00 short: a note is required." in text(prompt)
    assert refused.status_code == 400
    assert "The count is $50.00 short: say why in a note before signing." in text(refused)
    assert signed.status_code == 200, text(signed)
    assert SlipSignature.objects.get().note == "a $50 chip in the float"


def test_one_person_signs_once_and_a_void_slip_takes_no_signature(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)
    slip = a_count(floor, {"100000": 10})
    sign_slip(actor=floor.pit_boss, slip_id=slip.pk)
    client = as_user(floor.pit_boss)

    twice = post(client, sign_url(slip), {"password": PASSWORD})
    other = a_count(floor, {"100000": 10})
    void_slip(actor=floor.pit_boss, slip_id=other.pk, reason="counted twice")
    void = post(client, sign_url(other), {"password": PASSWORD})

    assert twice.status_code == 403  # the slip no longer waits for a pit boss
    assert "waits for the signature of: dealer" in text(twice)
    assert void.status_code == 409
    assert f"Slip {other.number} is void" in text(void)
    assert SlipSignature.objects.count() == 1


def test_a_player_may_not_sign(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)
    slip = a_count(floor, {"100000": 10})

    answer = post(as_user(floor.kate.user), sign_url(slip), {"password": PASSWORD})

    assert answer.status_code == 403
    assert not SlipSignature.objects.exists()


# --------------------------------------------------------------------------- the lists


def test_the_pit_lists_only_what_waits_for_a_pit_boss(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)
    waiting = a_count(floor, {"100000": 10})
    done = a_count(floor, {"100000": 10})
    sign_slip(actor=floor.pit_boss, slip_id=done.pk)
    fill = issue_slip(kind=SlipKind.FILL, requested_by=floor.dealer, table=floor.faro, amount=200_000)

    page = as_user(floor.pit_boss).get("/pit/slips/")

    html = text(page)
    assert waiting.number in html
    assert done.number not in html
    assert fill.number not in html  # the cage issues it first
    assert f"/slips/{waiting.pk}/" in html  # its history, a tap away
    assert as_user(floor.dealer).get("/pit/slips/").status_code == 403


def test_the_cage_issues_fills_and_signs_for_credits(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)
    fill = issue_slip(kind=SlipKind.FILL, requested_by=floor.dealer, table=floor.faro, amount=200_000)
    count = a_count(floor, {"100000": 10})
    client = as_user(floor.cashier)

    page = client.get("/cage/slips/waiting/")
    issued = post(client, sign_url(fill), {"password": PASSWORD})

    html = text(page)
    assert fill.number in html
    assert "$2,000.00" in html
    assert f"Issue {fill.number}" in html
    assert count.number not in html
    assert issued.status_code == 200, text(issued)
    fill.refresh_from_db()
    assert fill.status == "issued"
    assert "Still to sign: Dealer, Pit boss." in text(issued)
    assert as_user(floor.pit_boss).get("/cage/slips/waiting/").status_code == 403


# --------------------------------------------------------------------------- a slip's history


def test_a_slips_history_lists_signatures_status_changes_and_a_void(floor: Floor, as_user: Any) -> None:
    floor.open_faro(TRAY)
    signed = a_count(floor, {"100000": 9, "10000": 9, "2500": 2})
    sign_slip(actor=floor.dealer, slip_id=signed.pk)
    sign_slip(actor=floor.pit_boss, slip_id=signed.pk, note="a $50 chip in the float")
    void = a_count(floor, {"100000": 10})
    void_slip(actor=floor.pit_boss, slip_id=void.pk, reason="counted the wrong rack")

    first = text(as_user(floor.cashier).get(f"/slips/{signed.pk}/"))
    second = text(as_user(floor.dealer).get(f"/slips/{void.pk}/"))

    assert "Dana Dealer" in first
    assert "Signed as dealer" in first
    assert "Pat Pitboss" in first
    assert "Signed as pit boss" in first
    assert "a $50 chip in the float" in first
    assert "Signed by everyone it needs" in first
    assert "$50.00 short" in first
    assert "Voided it" in second
    assert "counted the wrong rack" in second
    assert as_user(floor.kate.user).get(f"/slips/{signed.pk}/").status_code == 403
    assert as_user(floor.pit_boss).get("/slips/999999/").status_code == 404
