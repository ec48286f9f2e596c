"""casino/money.py: the one way dollars become cents and cents become dollars (issue 19, item 6).

Before it, five formatters disagreed: the audit report and alert summaries wrote a loss as
``-$5.00`` and the console as ``−$5.00``, and the detectors divided cents by 100 as a float,
which loses cents on large amounts.
"""

from __future__ import annotations

import pytest

from casino.errors import ValidationFailed
from casino.money import format_dollars, format_dollars_input, parse_dollars
from ledger.errors import in_dollars
from tables.games.payments import dollars as engine_dollars
from tables.templatetags import audit_tags, console_tags

AMOUNTS = [0, 5, -500, 123_450, -123_450, 2**62 + 1]


@pytest.mark.parametrize("cents", AMOUNTS)
def test_every_screen_spells_an_amount_the_same_way(cents: int) -> None:
    expected = format_dollars(cents)

    assert audit_tags.register.filters["cents"](cents) == expected  # the audit report (HTML, PDF)
    assert console_tags.dollars(cents) == expected  # the console, the pit, the player's page
    assert in_dollars(f"needs {cents} cents more") == f"needs {expected} more"  # ledger refusals
    if abs(cents) < 10**15:  # beyond that an engine's message says "that amount"
        assert engine_dollars(cents) == expected  # the game engines' refusals


def test_amounts_are_formatted_from_integers_to_the_last_cent() -> None:
    assert format_dollars(123_450) == "$1,234.50"
    assert format_dollars(-500) == "\u2212$5.00"
    assert format_dollars(2**62 + 1) == "$46,116,860,184,273,879.05"  # a float gives …879.04
    assert format_dollars(None) == format_dollars("") == "—"
    assert format_dollars(2_500, whole_if_even=True) == "$25"
    assert format_dollars(250, whole_if_even=True) == "$2.50"


@pytest.mark.parametrize(
    ("cents", "text"), [(123_450, "1234.50"), (2_500, "25"), (5, "0.05"), (-150, "-1.50"), (None, "")]
)
def test_an_input_field_gets_what_parse_dollars_reads_back(cents: int | None, text: str) -> None:
    assert format_dollars_input(cents) == text
    if cents is not None and cents > 0:
        assert parse_dollars(text) == cents


@pytest.mark.parametrize(
    ("text", "cents"),
    [("250", 25_000), ("1,234.50", 123_450), ("$1,234.5", 123_450), (".05", 5), (" 10 ", 1_000)],
)
def test_dollars_typed_are_read_as_whole_cents(text: str, cents: int) -> None:
    assert parse_dollars(text) == cents


@pytest.mark.parametrize("text", ["1.005", "0.001", "1e3", "12,34", "-5", "5.-", "", "NaN", "１０"])
def test_anything_but_dollars_and_cents_is_refused_in_the_consoles_words(text: str) -> None:
    with pytest.raises(ValidationFailed) as refused:
        parse_dollars(text, field="opening count")

    assert refused.value.message == "Enter the opening count in dollars, like 250 or 1,234.50."
    assert refused.value.fields == {"opening count": text.strip()}


def test_zero_and_too_large_are_refused_unless_zero_is_allowed() -> None:
    with pytest.raises(ValidationFailed, match=r"must be more than \$0\.00"):
        parse_dollars("0.00")
    assert parse_dollars("0", allow_zero=True) == 0
    with pytest.raises(ValidationFailed, match="too large"):
        parse_dollars("12345678901")
