"""A console Faro tap's cost: the screen's loops written in Python (``tables.console.faro_markup``)
escape what people typed, and a round action reads its table once for the check and the screen."""

from __future__ import annotations

import re
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.services import buy_in, create_player
from tables.services import seat_player
from tests.console.conftest import PASSWORD, Floor
from tests.console.test_views import faro_url, live_faro, post, text

SAVEPOINTS = ("SAVEPOINT", "RELEASE SAVEPOINT")  # the test's own transaction nests the tap's
ODD_NAME = 'Bo <b>"Al"</b> & O\'Neil'


def test_a_players_name_is_escaped_wherever_the_faro_screen_draws_it(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    odd = create_player(actor=floor.cashier, username="c.odd", password=PASSWORD, name=ODD_NAME)
    buy_in(actor=floor.cashier, player=odd, amount=100_000)
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=odd.pk)
    client = as_user(floor.dealer)
    post(
        client,
        faro_url(floor, round_, "bet"),
        {"player": odd.pk, "ranks": ["Q"], "amount": "500", "version": "0"},
    )
    post(
        client,
        faro_url(floor, round_, "bet"),
        {"player": odd.pk, "target": "high", "amount": "500", "version": "1"},
    )
    screen = text(
        post(client, faro_url(floor, round_, "bet"), {"player": odd.pk, "ranks": ["2"], "version": "2"})
    )
    assert "<b>" not in screen
    escaped = "Bo &lt;b&gt;&quot;Al&quot;&lt;/b&gt; &amp; O&#x27;Neil"
    assert f'data-name="{escaped}"' in screen  # the bet form's player
    assert f'title="{escaped}: $5.00 on Q"' in screen  # the chip on the layout
    assert (
        f'<span class="mini-chip" style="--chip: #f9a825; --chip-text: #111111" title="{escaped}">$5</span>'
        in screen
    )
    assert f"Take down {escaped}'s $5.00 on Q" in screen  # the bets table's take-down
    assert screen.count('data-testid="bet-row"') == 2


def test_the_layout_greys_out_what_the_shoe_no_longer_holds(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor, shoe="manual")
    client = as_user(floor.dealer)
    post(client, faro_url(floor, round_, "soda"), {"card_0": "QS", "version": "0"})
    post(client, faro_url(floor, round_, "turn"), {"card_0": "QH", "card_1": "QD", "version": "1"})
    screen = text(
        post(client, faro_url(floor, round_, "turn"), {"card_0": "QC", "card_1": "3D", "version": "2"})
    )
    queen = re.search(r'<label class="rank dead" data-rank="Q"[^>]*> <input [^>]*>', screen)
    assert queen is not None
    assert 'disabled aria-label="Q, 0 left, dead"' in queen.group(0)
    assert 'data-card="QC" disabled aria-disabled="true" aria-label="queen of clubs, already out"' in screen
    assert 'data-card="4C" aria-label="4 of clubs">' in screen
    assert (
        'aria-label="Q: 0 left, queen of spades soda, queen of hearts lost, queen of clubs lost, '
        'queen of diamonds won"' in screen
    )


def test_a_bet_tap_reads_its_table_once_and_its_tray_again_for_the_screen(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    first = {"player": floor.kate.pk, "ranks": ["3"], "amount": "500", "version": "0"}
    post(client, faro_url(floor, round_, "bet"), first)  # opens Kate's layout: the next bet is a plain one
    body = {**first, "ranks": ["Q"], "version": "1"}
    with CaptureQueriesContext(connection) as queries:
        answer = post(client, faro_url(floor, round_, "bet"), body)
    assert "Kate Elder bet $5.00 on Q." in text(answer)
    statements = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(SAVEPOINTS)]
    assert sum(sql.startswith('SELECT "tables_table"') for sql in statements) == 1
    assert sum(sql.startswith('SELECT "tables_seat"') for sql in statements) == 1
    tray = floor.faro.tray_id
    assert sum(f'"ledger_account"."id" = {tray}' in sql for sql in statements) == 1
    # Pinned: lower it when the work drops (a session, the tap's record, the action, the screen;
    # the screen after the action reads neither the table nor the round again).
    assert len(statements) == 19, "\n".join(sql[:100] for sql in statements)
