"""Issue 44 item 18: the player's history is the API's statement (one selector, one source)."""

from __future__ import annotations

import pytest

from casino.selectors import list_player_transactions
from tables.console.me.views import history_page, moves_of
from tests.console.conftest import Floor
from tests.console.test_me_history_browser import a_night_of_kate

pytestmark = pytest.mark.django_db


def test_the_history_is_the_apis_entries_one_line_a_transfer(floor: Floor) -> None:
    a_night_of_kate(floor)
    lines = list(history_page(floor.kate, None).object_list)
    entries = list(list_player_transactions(player=floor.kate))
    assert [line["transfer_id"] for line in lines] == list(dict.fromkeys(e.transfer_id for e in entries))
    assert sum(line["amount"] for line in lines) == sum(e.amount for e in entries) == 315_000
    balances = [move.balance_after for move in moves_of(lines)]
    assert balances == ["$3,150.00", "$3,450.00", "$3,500.00", "$2,000.00"]


def test_a_page_past_the_end_shows_the_last_page(floor: Floor) -> None:
    assert history_page(floor.kate, "99").number == 1
    assert history_page(floor.kate, "not a page").number == 1
