"""A Faro bet from the bet form is answered with what it changed (``tables.console.faro_partial``),
drawn exactly as the whole screen draws it; anything else still gets the whole screen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from tables.console.faro_partial import PLACED_EVENT
from tables.models import RoundAction
from tests.browser import confirmed, dealer_at_faro, live_faro_deal, open_page, place_bet
from tests.console.conftest import Floor
from tests.console.test_faro_tap_cost import SAVEPOINTS
from tests.console.test_views import faro_url, live_faro, post, table_url, text

FROM_BET_FORM = {"HTTP_HX_TRIGGER": "bet-form"}
OOB = ' hx-swap-oob="true"'


def _bet(client: Any, floor: Floor, round_: Any, version: int, **fields: Any) -> Any:
    body = {"player": floor.kate.pk, "amount": "500", "version": str(version), **fields}
    return post(client, faro_url(floor, round_, "bet"), body, **FROM_BET_FORM)


def _one(pattern: str, html: str) -> str:
    found = re.findall(pattern, html, re.S)
    assert len(found) == 1, (pattern, len(found))
    return str(found[0])


def _plain(markup: str) -> str:
    """Without what differs by design: the oob marker and the one-time tokens."""
    markup = markup.replace(OOB, "")
    return re.sub(r'name="(csrfmiddlewaretoken|token)" value="[^"]*"', "", markup)


def _screen(client: Any, floor: Floor) -> str:
    return text(client.get(table_url(floor), HTTP_HX_REQUEST="true"))


def test_a_bet_is_answered_with_what_it_changed_as_the_whole_screen_draws_it(
    floor: Floor, as_user: Any
) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    first = _bet(client, floor, round_, 0, ranks=["3"])
    assert '<section class="panel" aria-labelledby="bets-title" id="bets" hx-swap-oob="true">' in text(first)
    assert 'id="take-down"' in text(first)  # the table's take-down form comes with its first row

    answer = _bet(client, floor, round_, 1, ranks=["Q"], amount="2500")
    partial = text(answer)
    assert answer.status_code == 200
    assert answer["HX-Retarget"] == "#head-receipt"
    assert answer["HX-Reswap"] == "innerHTML"
    assert answer["HX-Trigger"] == PLACED_EVENT
    assert "Kate Elder bet $25.00 on Q." in partial
    assert 'id="screen"' not in partial
    assert 'class="wire' not in partial  # the casekeeper did not change
    assert 'name="ranks"' not in partial  # nor the layout's cards

    screen = _screen(client, floor)
    chip = _one(r'<div hx-swap-oob="beforeend:#layout-chips">(.*?)</div>', partial)
    assert 'data-bet="b2"' in chip
    assert chip in screen
    row = _one(r'<template><tbody hx-swap-oob="beforeend:#bet-rows">(.*?)</tbody></template>', partial)
    assert row in screen
    assert screen.count('data-testid="bet-row"') == 2
    assert _one(r'<span id="bets-count" hx-swap-oob="true">(\d+)</span>', partial) == "2"
    assert '<span id="bets-count">2</span>' in screen
    kate = floor.kate.pk
    pick = _one(rf'(<span id="pick-available-{kate}"[^>]*>.*?</span>)', partial)
    assert _plain(pick) in screen
    assert "$1,970.00" in pick  # $2,000 less $5 and $25 on the layout
    seat = _one(rf'(<span class="nowrap" id="seat-available-{kate}".*?</span></span>)', partial)
    assert _plain(seat) in screen
    assert "$30.00 in play" in seat
    panel = _one(r'(<section class="panel" id="correction".*?</section>)', partial)
    assert _plain(panel) == _plain(_one(r'(<section class="panel" id="correction".*?</section>)', screen))

    versions = re.findall(
        r'<input type="hidden" id="(version-[a-z-]+)" name="version" value="(\d+)"', partial
    )
    assert sorted(versions) == [("version-bet", "2"), ("version-deal", "2"), ("version-take-down", "2")]
    for element_id, value in versions:
        assert f'id="{element_id}" name="version" value="{value}"' in screen
    token = _one(r'<input type="hidden" id="bet-token" name="token" value="([^"]+)"', partial)
    assert re.search(r'id="bet-token" name="token" value="[^"]+"', screen)
    assert token not in screen  # a fresh token each time it is drawn

    target = _bet(client, floor, round_, 2, target="even")
    minis = _one(r'(<span class="mini" id="mini-even" hx-swap-oob="true">.*?</span></span>)', text(target))
    assert _plain(minis) in _screen(client, floor)
    assert 'title="Kate Elder">$5</span>' in minis


def test_the_bet_forms_new_token_and_version_place_the_next_bet(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    answer = text(_bet(client, floor, round_, 0, ranks=["3"]))
    token = _one(r'id="bet-token" name="token" value="([^"]+)"', answer)
    version = _one(r'id="version-bet" name="version" value="(\d+)"', answer)
    body = {"player": floor.wyatt.pk, "ranks": ["K"], "amount": "500", "version": version, "token": token}
    assert "Wyatt Earp bet $5.00 on K." in text(post(client, faro_url(floor, round_, "bet"), body))
    assert RoundAction.objects.filter(round=round_, voided_by__isnull=True).count() == 2


def test_a_refused_bet_from_the_bet_form_gets_the_whole_screen_with_its_reason(
    floor: Floor, as_user: Any
) -> None:
    round_ = live_faro(floor)
    answer = _bet(as_user(floor.dealer), floor, round_, 0, ranks=["3"], amount="60000")
    assert answer.status_code == 400
    assert not answer.has_header("HX-Retarget")
    assert 'id="screen"' in text(answer)
    assert "The table maximum is $500.00" in text(answer)
    assert not RoundAction.objects.filter(round=round_).exists()


def test_the_bets_table_has_one_take_down_form_for_every_row(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    for version, rank in enumerate(("3", "Q", "K")):
        _bet(client, floor, round_, version, ranks=[rank])
    bets = _one(
        r'(<section class="panel" aria-labelledby="bets-title" id="bets">.*?</section>)',
        _screen(client, floor),
    )
    assert bets.count("<form") == 1
    assert bets.count('name="token"') == 1
    assert bets.count('form="take-down" name="bet" value="b') == 3
    take_down = {"bet": "b2", "version": "3"}
    answer = text(post(client, faro_url(floor, round_, "remove_bet"), take_down))
    assert "Bet taken down." in answer
    assert 'id="screen"' in answer  # a take-down redraws the screen
    assert answer.count('data-testid="bet-row"') == 2


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_bets_answered_in_part_leave_the_screen_as_a_reload_draws_it(
    browser: Any, live_server: Any, world: Floor
) -> None:
    live_faro_deal(world)
    page = open_page(browser, live_server)
    dealer_at_faro(page, world)
    place_bet(page, "Kate Elder", ["Q"], "25")
    confirmed(page, "Kate Elder bet $25.00 on Q")
    form = page.locator("#bet-form")
    assert form.locator("input[name=player]:checked").count() == 0  # the choices are cleared
    assert form.locator("input[name=ranks]:checked").count() == 0
    assert form.locator("input[name=amount]:checked").count() == 1  # the chip stays in hand
    assert form.locator("[data-confirm]").is_disabled()
    form.locator(".bet-players label.pick", has_text="Kate Elder").click()
    form.locator("label.target", has_text="Even").click()
    form.locator("[data-confirm]").click()  # the same $25 chip
    confirmed(page, "Kate Elder bet $25.00 on Even")
    place_bet(page, "Kate Elder", ["3", "4"], "5")
    confirmed(page, "Kate Elder bet $5.00 on 3\u20134")

    def drawn() -> dict[str, Any]:
        return {
            "bets": page.locator("#bets").inner_text(),
            "chips": page.locator("#layout-chips [data-testid=chip]").evaluate_all(
                "chips => chips.map(c => [c.dataset.bet, c.title, c.getAttribute('style')])"
            ),
            "even": page.locator("#mini-even").inner_html(),
            "players": page.locator("#bet-form .bet-players").inner_text(),
            "seats": page.locator("#seats .seat-list").inner_text(),
            "correction": page.locator("#correction label.pick").first.inner_text(),
            "versions": page.locator("input[name=version]").evaluate_all(
                "inputs => inputs.map(i => i.value)"
            ),
        }

    after_taps = drawn()
    assert len(after_taps["chips"]) == 2
    assert "Bets on the layout (3)" in after_taps["bets"]
    assert "$1,945.00" in after_taps["players"]
    assert set(after_taps["versions"]) == {"3"}
    page.reload()
    assert drawn() == after_taps

    # The versions the answers brought: a take-down (one form for the table), then a deal.
    page.get_by_role("button", name="Take down Kate Elder's $5.00 on 3\u20134").click()
    confirmed(page, "Bet taken down.")
    assert page.get_by_test_id("bet-row").count() == 2
    place_bet(page, "Kate Elder", ["K"], "5")
    confirmed(page, "Kate Elder bet $5.00 on K")
    page.get_by_test_id("deal-turn").click()
    confirmed(page, "Turn 1:")


def test_a_bet_from_the_bet_form_reads_only_the_players_chips_after_the_action(
    floor: Floor, as_user: Any
) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    _bet(client, floor, round_, 0, ranks=["3"])
    with CaptureQueriesContext(connection) as queries:
        answer = _bet(client, floor, round_, 1, ranks=["Q"])
    assert "Kate Elder bet $5.00 on Q." in text(answer)
    statements = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(SAVEPOINTS)]
    stored = [sql.startswith("UPDATE casino_idempotencyrecord") for sql in statements].index(True)
    after = statements[stored + 1 :]  # once the tap's outcome is stored with its key
    # Pinned (11; the whole screen after a tap is 14): the tap's own work (a session, the table
    # with its seats in one statement, the tap's record, the action), then one read for the
    # answer: the bettor's chips. Neither the tray, the table's requests nor any other part of the
    # screen is read again.
    assert len(after) == 1, after
    assert "ledger_account" in after[0]
    assert len(statements) == 11, "\n".join(sql[:100] for sql in statements)
