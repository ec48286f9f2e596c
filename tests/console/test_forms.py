"""The console's forms read what was typed into exactly the engine payloads and service arguments
the views sent before, and refuse bad input in the same words."""

from __future__ import annotations

from typing import Any

import pytest
from django import forms as django_forms
from django.http import QueryDict

from casino.errors import ValidationFailed
from tables.console import forms
from tables.models import TrayRequest
from tests.console.conftest import Floor
from tests.console.test_views import post, text


def posted(**fields: Any) -> QueryDict:
    data = QueryDict(mutable=True)
    for name, value in fields.items():
        if isinstance(value, list):
            data.setlist(name, value)
        else:
            data[name] = value
    return data


class Typed(django_forms.Form):
    """A dollar amount as a form types it (the opening count once was one; counts are by chip now)."""

    amount = forms.DollarsField(words="amount", allow_zero=True)


def refusal(form: Any) -> str:
    with pytest.raises(ValidationFailed) as refused:
        forms.checked(form)
    return refused.value.message


@pytest.mark.parametrize(
    ("text", "cents"),
    [("250", 25_000), ("1,234.50", 123_450), ("$5", 500), (" 0.5 ", 50), (".05", 5), ("0", 0)],
)
def test_dollars_are_read_into_cents(text: str, cents: int) -> None:
    form = forms.checked(Typed(posted(amount=text)))
    assert form.cleaned_data["amount"] == cents


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"amount": "ten grand"}, "Enter the amount in dollars, like 250 or 1,234.50."),
        ({"amount": "1.005"}, "Enter the amount in dollars, like 250 or 1,234.50."),
        ({"amount": "-5"}, "Enter the amount in dollars, like 250 or 1,234.50."),
        ({"amount": "１０"}, "Enter the amount in dollars, like 250 or 1,234.50."),
        ({}, "Enter the amount in dollars, like 250 or 1,234.50."),
        ({"amount": "12345678901"}, "The amount is too large."),
    ],
)
def test_bad_dollars_are_refused_in_words(fields: dict[str, str], message: str) -> None:
    assert refusal(Typed(posted(**fields))) == message


def test_zero_is_refused_where_an_amount_must_move() -> None:
    assert (
        refusal(forms.LimitsForm(posted(min_bet="0", max_bet="500")))
        == "The minimum must be more than $0.00."
    )
    assert refusal(forms.LimitsForm(posted(min_bet="5"))) == (
        "Enter the maximum in dollars, like 250 or 1,234.50."
    )
    limits = forms.checked(forms.LimitsForm(posted(min_bet="5", max_bet="500.00"))).cleaned_data
    assert limits == {"min_bet": 500, "max_bet": 50_000}


def test_a_tray_request_names_its_kind_in_its_refusal() -> None:
    assert refusal(forms.TrayRequestForm(posted(amount="x"), kind="fill")) == (
        "Enter the fill amount in dollars, like 250 or 1,234.50."
    )
    assert refusal(forms.TrayRequestForm(posted(kind="credit", amount="0"))) == (
        "The credit amount must be more than $0.00."
    )
    assert refusal(forms.TrayRequestForm(posted(kind="loan", amount="5"))) == "Choose a fill or a credit."
    assert refusal(forms.TrayRequestForm(posted(amount="5"))) == "Choose a fill or a credit."
    asked = forms.checked(forms.TrayRequestForm(posted(kind="credit", amount="2,000"))).cleaned_data
    assert asked == {"kind": "credit", "amount": 200_000}


@pytest.mark.parametrize("player", ["", "kate", "-3", "0"])
def test_a_seat_needs_a_player(player: str) -> None:
    assert refusal(forms.SeatForm(posted(player=player))) == "Choose a player."


def test_a_seat_number_is_optional() -> None:
    assert forms.checked(forms.SeatForm(posted(player="7"))).cleaned_data == {"player": 7, "seat": None}
    assert forms.checked(forms.SeatForm(posted(player="7", seat="3"))).cleaned_data["seat"] == 3


BET = {"player": "12", "ranks": ["K"], "amount": "2500"}


@pytest.mark.parametrize(
    ("fields", "payload"),
    [
        (BET, {"type": "bet", "player": 12, "amount": 2500, "ranks": ["K"]}),
        (
            {"player": "12", "ranks": ["5", "", "6"], "custom_amount": "1,000.50", "amount": "2500"},
            {"type": "bet", "player": 12, "amount": 100_050, "ranks": ["5", "6"]},
        ),
        (
            {"player": "3", "target": "high", "amount": "500", "coppered": "on"},
            {"type": "bet", "player": 3, "amount": 500, "target": "high", "coppered": True},
        ),
    ],
)
def test_a_faro_bet_becomes_the_engine_payload(fields: dict[str, Any], payload: dict[str, Any]) -> None:
    assert forms.faro_payload("bet", posted(**fields)) == payload


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"ranks": ["K"], "amount": "2500"}, "Choose a player (tap their name)."),
        ({"player": "12", "amount": "2500"}, forms.TAP_A_PLACE),
        ({"player": "12", "ranks": [""], "amount": "x"}, forms.TAP_A_PLACE),  # the place is asked first
        ({"player": "12", "ranks": ["K"]}, "Choose an amount: tap a chip or type one."),
        ({"player": "12", "ranks": ["K"], "amount": "five"}, "Choose an amount: tap a chip or type one."),
        (
            {"player": "12", "ranks": ["K"], "custom_amount": "5.001"},
            "Enter the amount in dollars, like 250 or 1,234.50.",
        ),
        ({"player": "12", "ranks": ["K"], "custom_amount": "0"}, "The amount must be more than $0.00."),
    ],
)
def test_a_faro_bet_is_refused_in_words(fields: dict[str, Any], message: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        forms.faro_payload("bet", posted(**fields))
    assert refused.value.message == message


def test_calling_the_turn_needs_one_tapped_order_then_a_player() -> None:
    called = posted(order="3,Q,7", player="4", amount="1000")
    assert forms.faro_payload("call_turn", called) == {
        "type": "call_turn",
        "player": 4,
        "order": ["3", "Q", "7"],
        "amount": 1000,
    }
    for order in ("", "3,Q", "3,,7", "3,Q,7,8"):
        with pytest.raises(ValidationFailed, match=r"^Tap the order you call: loser, winner, hock\.$"):
            forms.faro_payload("call_turn", posted(order=order, player="4", amount="1000"))
    with pytest.raises(ValidationFailed, match=r"^Choose who calls the turn\.$"):
        forms.faro_payload("call_turn", posted(order="3,Q,7", amount="1000"))


def test_manual_cards_are_keyed_in_order() -> None:
    assert forms.faro_payload("turn", posted()) == {"type": "turn"}
    assert forms.faro_payload("soda", posted(card_0="7D"), needed=1) == {"type": "soda", "card": "7D"}
    turn = posted(card_0="3C", card_1="QH")
    assert forms.faro_payload("turn", turn, needed=2) == {"type": "turn", "cards": ["3C", "QH"]}
    with pytest.raises(ValidationFailed, match=r"^Pick 2 cards on the card picker, in order\.$"):
        forms.faro_payload("turn", posted(card_0="4C"), needed=2)
    with pytest.raises(ValidationFailed, match=r"^Pick 1 card on the card picker, in order\.$"):
        forms.faro_payload("soda", posted(), needed=1)
    assert forms.faro_payload("remove_bet", posted(bet="b3")) == {"type": "remove_bet", "bet": "b3"}


def test_the_round_version_and_the_shoe() -> None:
    assert forms.checked(forms.VersionForm(posted())).cleaned_data["version"] is None
    assert forms.checked(forms.VersionForm(posted(version="4"))).cleaned_data["version"] == 4
    assert forms.checked(forms.StartDealForm(posted())).cleaned_data["shoe"] == "electronic"
    assert forms.checked(forms.StartDealForm(posted(shoe="manual"))).cleaned_data["shoe"] == "manual"
    assert refusal(forms.StartDealForm(posted(shoe="crooked"))) == "Choose the electronic or the manual shoe."


def test_notes_and_corrections_are_handed_on_as_sent() -> None:
    asked = forms.checked(forms.CorrectionForm(posted(void="last", reason=" wrong card "))).cleaned_data
    assert asked == {"void": "last", "reason": " wrong card "}
    assert forms.checked(forms.NoteForm(posted())).cleaned_data["note"] == ""


@pytest.mark.django_db
def test_the_pit_shows_a_form_refusal_in_place(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    boss = as_user(floor.pit_boss)
    url = f"/pit/tables/{floor.faro.pk}/tray/"

    wrong_kind = post(boss, url, {"kind": "bonus", "amount": "100"})
    bad_amount = post(boss, url, {"kind": "credit", "amount": "a lot"})

    assert (wrong_kind.status_code, bad_amount.status_code) == (400, 400)
    assert "Choose a fill or a credit." in text(wrong_kind)
    assert "Enter the credit amount in dollars, like 250 or 1,234.50." in text(bad_amount)
    assert not TrayRequest.objects.exists()


# --------------------------------------------------------------------------- the chip grid


def test_a_tray_count_is_read_by_chip_over_the_whole_set() -> None:
    """Opening and closing are counted on the chip grid: an empty box is none, every chip of the
    set is in the count the service gets."""
    from tables.console.chip_grid import TrayCountForm

    form = forms.checked(TrayCountForm(posted(chip_10000="9", chip_2500="2", chip_50="")))
    assert form.count() == {"50": 0, "100": 0, "500": 0, "2500": 2, "10000": 9, "50000": 0, "100000": 0}


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({}, "Count the tray: type how many of each chip it holds (0 for an empty tray)."),
        ({"chip_2500": "-1"}, "The number of $25 chips must be a whole number from 0 to 100,000."),
        ({"chip_2500": "2.5"}, "The number of $25 chips must be a whole number from 0 to 100,000."),
        ({"chip_50": "100001"}, "The number of $0.50 chips must be a whole number from 0 to 100,000."),
    ],
)
def test_a_tray_count_of_nothing_or_of_bad_pieces_is_refused_in_words(
    fields: dict[str, str], message: str
) -> None:
    from tables.console.chip_grid import TrayCountForm

    assert refusal(TrayCountForm(posted(**fields))) == message


def test_an_empty_tray_is_counted_as_zeros() -> None:
    from tables.console.chip_grid import TrayCountForm

    form = forms.checked(TrayCountForm(posted(chip_100="0")))
    assert sum(form.count().values()) == 0
