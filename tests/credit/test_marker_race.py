"""Issue 48: markers racing for the last dollars of one credit line never overdraw it.

Six $300.00 markers for one player with a $1,000.00 line are asked for at once at two tables, each
an HTTP call on a thread of its own (its own database connection). The race is made certain: the
credit lines' table is locked until all six requests wait on a lock (two on the line, four on
their table's row), then let go. The line's row serialises them: three go through, three are
refused with 409 credit_limit, and the ledger owes exactly $900.00.
"""

from __future__ import annotations

import pytest

from casino.models import Role
from ledger.models import Account
from tables.accounts import receivable_code
from tables.credit.models import Marker
from tables.credit.services import set_credit_line
from tests.factories import ApiFloor, PlayerFactory, staff, token_for
from tests.races import Post, post_all_at_once

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

REQUESTS = 6


def test_six_markers_at_once_draw_no_more_than_the_line() -> None:
    floor = ApiFloor()
    tables = [
        floor.open_table(game="faro", min_bet=500, max_bet=20_000, inventory=500_000)["id"] for _ in range(2)
    ]
    player = PlayerFactory(name="Doc Holliday")
    set_credit_line(actor=staff(Role.ADMIN), player=player, limit=100_000)
    token = token_for(floor.pit_boss)
    posts = [
        Post(token, f"/api/v1/tables/{tables[index % 2]}/markers", {"player": player.pk, "amount": 30_000})
        for index in range(REQUESTS)
    ]
    answers = post_all_at_once(posts, hold="LOCK TABLE tables_creditline IN EXCLUSIVE MODE")
    assert sorted(status for status, _ in answers) == [201] * 3 + [409] * 3, answers
    refused = [body["error"] for status, body in answers if status == 409]
    assert {e["code"] for e in refused} == {"credit_limit"}
    assert Marker.objects.count() == 3
    assert Account.objects.get(code=receivable_code(player.pk)).balance == 90_000
