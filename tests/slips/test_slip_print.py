"""Issue 46 item 3: the printable slip, a print page and a PDF, with the amount in words and figures.

Numbers are written out by ``tables.slips.words`` (ours, tested here); the page and the PDF
both show the number, the kind in words, the table, the gaming day, the chips by denomination,
the amount in words and figures, the count against the ledger, the signatures and any void.
"""

from __future__ import annotations

import html
import io
import re
from typing import Any

import pytest
from django.test import Client
from pypdf import PdfReader

from tables.slips.models import Slip
from tables.slips.words import amount_in_words, amount_in_words_and_figures, number_in_words
from tests.factories import PASSWORD, open_table_for

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("number", "words"),
    [
        (0, "zero"),
        (7, "seven"),
        (13, "thirteen"),
        (20, "twenty"),
        (21, "twenty-one"),
        (99, "ninety-nine"),
        (100, "one hundred"),
        (105, "one hundred five"),
        (1_000, "one thousand"),
        (1_250, "one thousand two hundred fifty"),
        (10_001, "ten thousand one"),
        (900_090, "nine hundred thousand ninety"),
        (1_000_000, "one million"),
        (2_000_017, "two million seventeen"),
        (
            987_654_321_012,
            "nine hundred eighty-seven billion six hundred fifty-four million three hundred twenty-one "
            "thousand twelve",
        ),
    ],
)
def test_whole_numbers_are_written_out(number: int, words: str) -> None:
    assert number_in_words(number) == words


def test_a_negative_number_is_not_written_out() -> None:
    with pytest.raises(ValueError, match="from 0"):
        number_in_words(-1)


@pytest.mark.parametrize(
    ("cents", "words"),
    [
        (125_050, "One thousand two hundred fifty dollars and 50 cents"),
        (100, "One dollar"),
        (101, "One dollar and 1 cent"),
        (5, "Zero dollars and 5 cents"),
        (0, "Zero dollars"),
        (2_500_000, "Twenty-five thousand dollars"),
        (-15_000, "Minus one hundred fifty dollars"),
    ],
)
def test_amounts_are_written_in_dollars_and_cents(cents: int, words: str) -> None:
    assert amount_in_words(cents) == words


def test_an_amount_in_words_and_figures_reads_like_a_cheque() -> None:
    assert (
        amount_in_words_and_figures(125_050)
        == "One thousand two hundred fifty dollars and 50 cents — $1,250.50"
    )


@pytest.fixture
def counted_slip(login: Any, table: Any, dealer: Any, pit_boss: Any) -> Slip:
    """A spot count $100.00 short, signed by the dealer and by the pit boss with a note."""
    open_table_for(table, inventory=125_050)
    count = {"50000": 2, "10000": 1, "2500": 2, "50": 1}  # $1,150.50
    slip = (
        login(dealer)
        .post(f"/api/v1/tables/{table.pk}/counts", {"count": count, "reason": "shift_change"}, format="json")
        .json()
    )
    sign = f"/api/v1/slips/{slip['id']}/sign"
    login(dealer).post(sign, {"password": PASSWORD}, format="json")
    login(pit_boss).post(sign, {"password": PASSWORD, "note": "a $100 chip went home"}, format="json")
    return Slip.objects.get(pk=slip["id"])


def _text(page: str) -> str:
    """The page's words, as a reader sees them (names may carry an apostrophe)."""
    return re.sub(r"\s+", " ", html.unescape(re.sub(r"<[^>]+>", " ", page)))


def test_the_print_page_shows_the_slip_in_words(
    counted_slip: Slip, table: Any, dealer: Any, pit_boss: Any
) -> None:
    client = Client()
    client.force_login(dealer)

    page = client.get(f"/slips/{counted_slip.pk}/print")

    assert page.status_code == 200
    text = _text(page.content.decode())
    assert counted_slip.number in text
    assert "Count of the tray: shift change" in text
    assert table.name in text
    assert counted_slip.gaming_day.isoformat() in text
    assert "$500 purple 2 $1,000.00" in text  # chip, colour, pieces, value
    assert "$0.50 pink 1 $0.50" in text
    assert "$5 red 0 $0.00" in text  # the whole chip set, as the dealer's grid had it
    assert "Total 6 $1,150.50" in text
    assert "One thousand one hundred fifty dollars and 50 cents — $1,150.50" in text
    assert "The ledger's tray $1,250.50" in text
    assert "Variance $100.00 short" in text
    assert f"Dealer {dealer.name}" in text
    assert f"Pit boss {pit_boss.name}" in text
    assert "a $100 chip went home" in text
    assert "Signed by everyone it needs" in text
    assert f'href="/api/v1/slips/{counted_slip.pk}/pdf"' in page.content.decode()


def test_a_void_slip_prints_as_void_with_its_reason(
    login: Any, table: Any, dealer: Any, pit_boss: Any
) -> None:
    open_table_for(table, inventory=100_000)
    slip = (
        login(dealer)
        .post(
            f"/api/v1/tables/{table.pk}/counts",
            {"count": {"10000": 10}, "reason": "spot_check"},
            format="json",
        )
        .json()
    )
    login(pit_boss).post(f"/api/v1/slips/{slip['id']}/void", {"reason": "wrong table"}, format="json")
    client = Client()
    client.force_login(pit_boss)

    text = _text(client.get(f"/slips/{slip['id']}/print").content.decode())

    assert "VOID" in text
    assert f"Voided by {pit_boss.name}" in text
    assert "wrong table" in text
    assert "Still to sign" not in text  # a void slip waits for nobody


def test_the_print_page_is_for_staff(counted_slip: Slip, player: Any) -> None:
    anonymous = Client().get(f"/slips/{counted_slip.pk}/print")
    assert anonymous.status_code == 302
    assert "/login" in anonymous["Location"]
    client = Client()
    client.force_login(player.user)
    assert client.get(f"/slips/{counted_slip.pk}/print").status_code == 403
    staff = Client()
    staff.force_login(counted_slip.requested_by)
    assert staff.get("/slips/999999/print").status_code == 404


def _pdf_text(content: bytes) -> str:
    reader = PdfReader(io.BytesIO(content))
    return re.sub(r"\s+", " ", " ".join(page.extract_text() for page in reader.pages))


@pytest.mark.parametrize("path", ["/api/v1/slips/{id}/pdf", "/api/v1/slips/{id}?format=pdf"])
def test_the_pdf_is_the_slip_on_paper(
    login: Any, counted_slip: Slip, table: Any, auditor: Any, pit_boss: Any, path: str
) -> None:
    answer = login(auditor).get(path.format(id=counted_slip.pk))

    assert answer.status_code == 200
    assert answer["Content-Type"] == "application/pdf"
    assert f'filename="slip-{counted_slip.number}.pdf"' in answer["Content-Disposition"]
    text = _pdf_text(answer.content)
    assert counted_slip.number in text
    assert table.name in text
    assert "One thousand one hundred fifty dollars and 50 cents — $1,150.50" in text
    assert "$100.00 short" in text
    assert pit_boss.name in text
    assert "a $100 chip went home" in text


def test_the_pdf_is_for_staff_and_only_as_pdf_or_json(login: Any, counted_slip: Slip, player: Any) -> None:
    assert login(player.user).get(f"/api/v1/slips/{counted_slip.pk}/pdf").status_code == 403
    as_staff = login(counted_slip.requested_by)
    assert (
        as_staff.get(f"/api/v1/slips/{counted_slip.pk}?format=json").json()["number"] == counted_slip.number
    )
    bad = as_staff.get(f"/api/v1/slips/{counted_slip.pk}?format=xml")
    assert bad.status_code == 400
    assert bad.json()["error"]["code"] == "bad_format"
    assert as_staff.get("/api/v1/slips/999999/pdf").status_code == 404
