"""Issue 44 item 16 on the pit's screen: a correction refused for want of chips names the short
account as people say it ("Kate Elder's layout at Faro cr"), never "Layout of player 9 at
table 2", on a tablet held either way.

Nothing on the floor empties a layout behind its deal; moving the chips by hand stands in for
any shortfall, so the pit's approval meets the ledger's refusal.
"""

from __future__ import annotations

import re
from typing import Any

import pytest

from ledger.services import Leg, post_transfer
from tables.accounts import layout_code
from tables.corrections import request_correction
from tables.models import Correction
from tables.rounds import apply_round_action, start_round
from tables.services import seat_player
from tests.browser import PORTRAIT, TABLET, no_sideways_scroll, on_screen, open_page, receipt, shot, sign_in
from tests.console.conftest import Floor, build_floor

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def world(transactional_db: None) -> Floor:
    return build_floor(prefix="cr")


def _correction_short_of_chips(world: Floor) -> None:
    """Kate's $25 bet on Q, her layout emptied by hand, and the dealer asking to void the bet."""
    world.open_faro()
    seat_player(actor=world.dealer, table_id=world.faro.pk, player_id=world.kate.pk)
    deal = start_round(actor=world.dealer, table_id=world.faro.pk, shoe="manual")
    bet = {"type": "bet", "player": world.kate.pk, "ranks": ["Q"], "amount": 2_500}
    apply_round_action(actor=world.dealer, round_id=deal.pk, action=bet)
    layout = layout_code(world.faro.pk, world.kate.pk)
    post_transfer(key="stand-in", kind="test", legs=[Leg(debit=layout, credit="cage", amount=2_500)])
    request_correction(actor=world.dealer, round_id=deal.pk, void="last", reason="the bet was Wyatt's")


@pytest.mark.parametrize("viewport", [TABLET, PORTRAIT], ids=["tablet", "portrait"])
def test_the_pit_reads_a_refused_correction_with_the_short_layout_named_in_words(
    browser: Any, live_server: Any, world: Floor, viewport: dict[str, int]
) -> None:
    _correction_short_of_chips(world)
    boss = open_page(browser, live_server, viewport)
    sign_in(boss, world.pit_boss.username)
    boss.get_by_test_id("corrections-count").click()  # the count opens the list
    approve = boss.get_by_role("button", name=f"Approve the correction of {world.faro.name} deal #1")
    approve.scroll_into_view_if_needed()
    approve.click()

    refusal = receipt(boss).filter(has_text="has $0.00 available")
    refusal.wait_for()
    words = refusal.inner_text()
    assert "Kate Elder's layout at Faro cr has $0.00 available; this transfer needs $25.00 more." in words
    assert not re.search(r"\b(player|table) \d", words, re.IGNORECASE), words
    refusal.scroll_into_view_if_needed()
    on_screen(refusal)
    no_sideways_scroll(boss)
    shot(boss, f"correction-refused-{viewport['width']}")
    # Refused, nothing moved: the correction still waits for the pit.
    assert Correction.objects.get().status == "pending"
    assert boss.get_by_test_id("pending-correction").count() == 1
