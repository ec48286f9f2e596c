"""Issue 48: two cashiers' buy-ins for one player at once cannot both slip under the $10,000 line.

Each buy-in is an HTTP call on a thread of its own (its own database connection, real PostgreSQL).
The race is made certain: the day-totals table is locked until every request waits on it, then let
go at once. The player's day-totals row then serialises them: each reads the total the one before
it left.
"""

from __future__ import annotations

import pytest

from casino.cash.models import CashDay, CashRefusal, CashTransaction
from casino.models import Role
from ledger.gaming_day import gaming_day_for
from tests.factories import PlayerFactory, staff, token_for
from tests.races import Post, post_all_at_once

pytestmark = [pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("system_accounts")]

REQUESTS = 10
AMOUNT = 150_000  # $1,500.00: six make $9,000.00, a seventh would pass $10,000.00


def test_buy_ins_at_once_from_two_cashiers_stop_at_the_ctr_line() -> None:
    cashiers = [staff(Role.CASHIER), staff(Role.CASHIER)]
    player = PlayerFactory(actor=cashiers[0])
    tokens = [token_for(cashier) for cashier in cashiers]
    posts = [
        Post(tokens[index % 2], "/api/v1/cage/buy-ins", {"player": player.pk, "amount": AMOUNT})
        for index in range(REQUESTS)
    ]
    answers = post_all_at_once(posts, hold="LOCK TABLE casino_cashday IN SHARE ROW EXCLUSIVE MODE")
    statuses = sorted(status for status, _ in answers)
    assert statuses == [201] * 6 + [409] * 4, answers
    assert {body["error"]["code"] for status, body in answers if status == 409} == {"identification_required"}
    day = CashDay.objects.get(player=player, gaming_day=gaming_day_for())
    assert (day.cash_in, day.cash_out) == (6 * AMOUNT, 0)
    made = CashTransaction.objects.filter(player=player).order_by("pk")  # the order they took the lock
    assert [line.amount for line in made] == [AMOUNT] * 6
    assert [line.mtl for line in made] == [False, False, True, False, False, False]  # $4,500 passes $3,000
    assert all(line.transfer_id is not None for line in made)
    assert CashRefusal.objects.filter(player=player).count() == 4
    assert (
        sorted(CashRefusal.objects.filter(player=player).values_list("day_total", flat=True)) == [900_000] * 4
    )
    player.wallet.refresh_from_db()
    assert player.wallet.balance == 6 * AMOUNT
