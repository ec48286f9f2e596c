"""Path ids (casino/converters.py): canonical ASCII decimals only, on the API and the console.

Python's ``int()`` reads ``+7``, `` 7``, ``0_7`` and Arabic-Indic ``٧`` as 7; a URL written
that way must match no route at all (tests/api/test_bad_input.py sends them to every API
endpoint; here the converters themselves and the console).
"""

from __future__ import annotations

import re
from urllib.parse import quote

import pytest
from django.test import Client
from django.urls import reverse

from casino.converters import IdConverter, PlayerRefConverter
from casino.models import Role
from tables.services import assign_dealer, create_table
from tests import factories

ARABIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
LENIENT = ["+7", " 7", "0_7", "07", "٧", "7 ", "7\n", "1_0", "١٠", "-7", "0", str(2**63)]


def _converts(text: str) -> bool:
    """What Django does with a path segment: match the converter's pattern, then to_python."""
    if re.fullmatch(IdConverter.regex, text) is None:
        return False
    try:
        IdConverter().to_python(text)
    except ValueError:
        return False
    return True


@pytest.mark.parametrize("text", LENIENT)
def test_a_number_only_int_reads_is_no_id(text: str) -> None:
    int(text)  # Python reads every one of these as a number

    assert not _converts(text)


def test_canonical_ids_and_me_convert() -> None:
    assert IdConverter().to_python("7") == 7
    assert IdConverter().to_python(str(2**63 - 1)) == 2**63 - 1
    assert PlayerRefConverter().to_python("me") == "me"
    assert PlayerRefConverter().to_python("12") == 12
    assert reverse("player-balance", kwargs={"player_id": "me"}) == "/api/v1/players/me/balance"
    assert reverse("console:table", kwargs={"table_id": 7}) == "/console/tables/7/"


@pytest.mark.django_db
def test_the_console_answers_only_the_canonical_table_id(system_accounts: None) -> None:
    dealer = factories.staff(Role.DEALER)
    boss = factories.staff(Role.PIT_BOSS)
    table = create_table(actor=boss, name="Faro ids", game="faro", min_bet=500, max_bet=5_000)
    assign_dealer(actor=boss, table_id=table.pk, dealer_id=dealer.pk)
    client = Client()
    client.force_login(dealer)
    digits = str(table.pk)

    assert client.get(f"/console/tables/{digits}/").status_code == 200
    for spelled in (
        f"+{digits}",
        f"%20{digits}",
        f"0_{digits}",
        f"0{digits}",
        quote(digits.translate(ARABIC)),
    ):
        page = client.get(f"/console/tables/{spelled}/")
        assert page.status_code == 404, spelled
        assert page["Content-Type"].startswith("text/html")
