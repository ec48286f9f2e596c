"""Issue 46, "Done when": 50 concurrent fill requests across 10 tables get 50 consecutive
numbers, none shared, and the series misses nothing.

Each request is an HTTP call on a thread of its own (its own database connection). The race is
made certain: the series counters are locked until all 50 requests wait on a lock (five per
table queue on their table's row, the first of each on the counter), then let go at once.
"""

from __future__ import annotations

import pytest
from django.utils import timezone

from tables.slips.models import Slip, SlipKind
from tests.factories import ApiFloor, staff, token_for
from tests.races import Post, post_all_at_once

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

TABLES = 10
REQUESTS = 50


def test_fifty_fills_at_ten_tables_at_once_are_numbered_one_to_fifty() -> None:
    floor = ApiFloor()
    tables = [
        floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=0)["id"] for _ in range(TABLES)
    ]
    tokens = [token_for(floor.dealer), token_for(floor.pit_boss), token_for(staff("pit_boss"))]
    posts = [
        Post(
            tokens[index % len(tokens)],
            f"/api/v1/tables/{tables[index % TABLES]}/fills",
            {"amount": 1_000 + index},
        )
        for index in range(REQUESTS)
    ]
    answers = post_all_at_once(posts, hold="LOCK TABLE tables_slipcounter IN SHARE ROW EXCLUSIVE MODE")
    assert [status for status, _ in answers] == [201] * REQUESTS, answers
    year = timezone.now().year
    numbers = sorted(body["number"] for _, body in answers)
    assert numbers == [f"F-{year}-{n:06d}" for n in range(1, REQUESTS + 1)]
    by_table = {table: sum(1 for _, body in answers if body["table"] == table) for table in tables}
    assert set(by_table.values()) == {REQUESTS // TABLES}
    # Each number is on the slip with its own amount: no two requests got one slip.
    amounts = {body["number"]: body["amount"] for _, body in answers}
    assert dict(Slip.objects.filter(kind=SlipKind.FILL).values_list("number", "amount")) == amounts
    assert len(set(amounts.values())) == REQUESTS
    series = floor.get(staff("auditor"), f"slips/series?kind=fill&year={year}")
    assert (series["first"], series["last"]) == (numbers[0], numbers[-1])
    assert (series["issued"], series["void"], series["missing"]) == (REQUESTS, 0, [])
