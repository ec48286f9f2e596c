"""A console Faro tap's cost: the screen's repeated items written in Python
(``tables.console.dealer.faro_rows``) escape what people typed, and a round action reads its
table once for the check and the screen."""

from __future__ import annotations

import re
from typing import Any

from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.services import buy_in, create_player
from tables.models import RoundAction
from tables.rounds import start_round
from tables.services import assign_dealer, create_table, open_table, seat_player
from tests.console.conftest import PASSWORD, Floor
from tests.console.test_views import faro_url, live_faro, post, table_url, text

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
    # The table, its tray and its seats: one statement (tables.selectors.table_with_seats).
    assert sum("FROM tables_table AS t0" in sql for sql in statements) == 1
    assert not any(sql.startswith(('SELECT "tables_table"', 'SELECT "tables_seat"')) for sql in statements)
    tray = floor.faro.tray.code  # read again with the seated players' chips, in one statement
    chips = [sql for sql in statements if f"FROM ledger_account WHERE code = '{tray}' UNION ALL" in sql]
    assert len(chips) == 1
    # Pinned: lower it when the work drops (a session with its user, the tap's record, the action,
    # the screen; a bet reads nothing of the round before the action, and the screen after it reads
    # neither the table nor the round again, nor the last action and its correction: the action is
    # both).
    assert not any(sql.startswith('SELECT "tables_round"') for sql in statements)
    assert not any('FROM "tables_correction"' in sql for sql in statements)
    assert not any('FROM "tables_tablesession"' in sql for sql in statements)  # the screen shows none
    assert len(statements) == 11, "\n".join(sql[:100] for sql in statements)


def _correction_panel(screen: str) -> str:
    found = re.search(r'<section class="panel" id="correction".*?</section>', screen, re.S)
    assert found is not None, "no correction panel"
    return re.sub(r'name="(csrfmiddlewaretoken|token)" value="[^"]*"', "", found.group(0))


def test_the_correction_panel_after_a_tap_names_that_tap_as_a_fresh_screen_does(
    floor: Floor, as_user: Any
) -> None:
    """The screen after an action words its correction panel from the action it just saved; a
    fresh read of the screen words it from the stored last action. They must say the same."""
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    body = {"player": floor.wyatt.pk, "ranks": ["K"], "amount": "2500", "coppered": "on", "version": "0"}
    after_tap = _correction_panel(text(post(client, faro_url(floor, round_, "bet"), body)))
    fresh = _correction_panel(text(client.get(table_url(floor), HTTP_HX_REQUEST="true")))
    assert after_tap == fresh
    assert "The last action" in after_tap
    assert "Wyatt Earp" in after_tap
    assert "$25.00" in after_tap
    assert "waiting" not in after_tap


def test_a_bet_on_a_deal_of_another_table_is_refused_and_moves_nothing(floor: Floor, as_user: Any) -> None:
    """A bet form reads nothing of the round before the action, so the action itself checks
    that the round in the URL is dealt at the table in the URL."""
    live_faro(floor)
    other = create_table(actor=floor.pit_boss, name="Faro two", game="faro", min_bet=500, max_bet=50_000)
    assign_dealer(actor=floor.pit_boss, table_id=other.pk, dealer_id=floor.dealer.pk)
    open_table(actor=floor.dealer, table_id=other.pk, opening_inventory=1_000_000)
    doc = create_player(actor=floor.cashier, username="c.doc", password=PASSWORD, name="Doc Holliday")
    buy_in(actor=floor.cashier, player=doc, amount=100_000)
    seat_player(actor=floor.dealer, table_id=other.pk, player_id=doc.pk)
    elsewhere = start_round(actor=floor.dealer, table_id=other.pk, shoe="electronic")
    body = {"player": doc.pk, "ranks": ["Q"], "amount": "500", "version": "0"}
    answer = post(as_user(floor.dealer), faro_url(floor, elsewhere, "bet"), body)
    assert answer.status_code == 404
    assert "No such deal at this table." in text(answer)
    assert not RoundAction.objects.filter(round=elsewhere).exists()


def test_a_turns_receipt_names_its_players_without_reading_its_settlements_back(
    floor: Floor, as_user: Any
) -> None:
    """A dealing tap words what it moved from the rows the action wrote (``settlements_made``)
    and names the players from the table read its check made: no settlement or player is read."""
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    ranks = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"]
    for version, rank in enumerate(ranks):
        player = floor.kate if version % 2 else floor.wyatt
        body = {"player": player.pk, "ranks": [rank], "amount": "500", "version": str(version)}
        assert "bet $5.00" in text(post(client, faro_url(floor, round_, "bet"), body))
    with CaptureQueriesContext(connection) as queries:
        screen = text(post(client, faro_url(floor, round_, "turn"), {"version": str(len(ranks))}))
    receipt = re.search(r'data-testid="receipt".*?</div>', screen, re.S)
    assert receipt is not None
    # Every card is bet on, so the turn decides bets of players named in words, never by code
    # (a split's half is "Split: bank took $2.50 from …").
    moved = r"(Paid \$[\d.]+ to|[Bb]ank took \$[\d.]+ from) (Kate Elder|Wyatt Earp)"
    assert re.search(moved, receipt.group(0))
    assert "wallet:" not in receipt.group(0)
    statements = [q["sql"] for q in queries.captured_queries if q["sql"].startswith("SELECT")]
    assert not [sql for sql in statements if "tables_roundsettlement" in sql]
    names_read = [sql for sql in statements if 'FROM "casino_player"' in sql and '"casino_user"' in sql]
    assert not names_read  # (the action itself reads the wallet codes of those it pays)


def test_a_correction_asked_of_a_deal_of_another_table_is_refused(floor: Floor, as_user: Any) -> None:
    """``tables.selectors.round_exists``: the round must be dealt at the table in the URL."""
    round_ = live_faro(floor)
    other = create_table(actor=floor.pit_boss, name="Faro three", game="faro", min_bet=500, max_bet=50_000)
    client = as_user(floor.dealer)
    asked = {"void": "round", "reason": "misdeal"}
    elsewhere = post(client, f"/console/tables/{other.pk}/rounds/{round_.pk}/correction/", asked)
    assert elsewhere.status_code == 404
    assert "No such deal at this table." in text(elsewhere)
    here = post(client, table_url(floor, f"rounds/{round_.pk}/correction/"), asked)
    assert here.status_code == 200
    assert "Correction asked: void the whole deal (misdeal)." in text(here)
