"""A Faro bet from the bet form is answered with what it changed (``tables.console.dealer.answers``),
drawn exactly as the whole screen draws it; anything else still gets the whole screen."""

from __future__ import annotations

import re
from typing import Any

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from tables.console.dealer.answers import PLACED_EVENT
from tables.games.cards import RANKS
from tables.models import RoundAction
from tables.round_state import context_of
from tests.browser import confirmed, dealer_at_faro, live_faro_deal, open_page, place_bet
from tests.console.conftest import Floor
from tests.console.test_faro_tap_cost import SAVEPOINTS
from tests.console.test_views import faro_url, live_faro, post, table_url, text, token

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


def _dealer_with_a_bet_on_the_queen(browser: Any, live_server: Any, world: Floor) -> Any:
    """A dealer's tablet at a live Faro deal, Kate Elder's $25 on Q placed from the bet form."""
    live_faro_deal(world)
    page = open_page(browser, live_server)
    dealer_at_faro(page, world)
    place_bet(page, "Kate Elder", ["Q"], "25")
    confirmed(page, "Kate Elder bet $25.00 on Q")
    return page


def _drawn(page: Any) -> dict[str, Any]:
    """What a Faro screen shows of its bets, chips, players and forms, read off the page."""
    return {
        "bets": page.locator("#bets").inner_text(),
        "chips": page.locator("#layout-chips [data-testid=chip]").evaluate_all(
            "chips => chips.map(c => [c.dataset.bet, c.title, c.getAttribute('style')])"
        ),
        "players": page.locator("#bet-form .bet-players").inner_text(),
        "seats": page.locator("#seats .seat-list").inner_text(),
        "correction": page.locator("#correction label.pick").first.inner_text(),
        "versions": page.locator("input[name=version]").evaluate_all("inputs => inputs.map(i => i.value)"),
    }


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


def test_a_dealing_answers_forms_carry_one_csrf_token_that_the_next_tap_may_post(
    floor: Floor, as_user: Any
) -> None:
    """A turn's answer redraws its forms; Django masks the CSRF token once for the answer, and a
    client that checks CSRF as a browser does posts the next tap with it."""
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    client.get(table_url(floor), HTTP_HX_REQUEST="true")  # the screen sets the CSRF cookie
    checked = Client(enforce_csrf_checks=True)
    checked.force_login(floor.dealer)
    checked.cookies["csrftoken"] = client.cookies["csrftoken"].value
    answer = checked.post(
        faro_url(floor, round_, "turn"),
        {"version": "0", "token": token(), "csrfmiddlewaretoken": client.cookies["csrftoken"].value},
        HTTP_HX_REQUEST="true",
        HTTP_HX_TRIGGER="deal-form",
    )
    assert answer.status_code == 200
    masked = re.findall(r'name="csrfmiddlewaretoken" value="([^"]+)"', text(answer))
    assert len(masked) == 3  # the bet form, "Deal turn" and the correction (no bet: no take-down)
    assert len(set(masked)) == 1
    body = {"player": floor.kate.pk, "ranks": ["Q"], "amount": "500", "version": "1", "token": token()}
    bet = checked.post(
        faro_url(floor, round_, "bet"), {**body, "csrfmiddlewaretoken": masked[0]}, HTTP_HX_REQUEST="true"
    )
    assert bet.status_code == 200
    assert "Kate Elder bet $5.00 on Q." in text(bet)


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


FROM_TAKE_DOWN = {"HTTP_HX_TRIGGER": "take-down"}


def test_a_take_down_from_the_bets_table_is_answered_with_what_it_changed_as_the_whole_screen_draws_it(
    floor: Floor, as_user: Any
) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    for version, fields in enumerate(
        ({"ranks": ["3"]}, {"ranks": ["Q"], "player": floor.wyatt.pk}, {"target": "high"})
    ):
        _bet(client, floor, round_, version, **fields)

    with CaptureQueriesContext(connection) as queries:
        answer = post(
            client, faro_url(floor, round_, "remove_bet"), {"bet": "b2", "version": "3"}, **FROM_TAKE_DOWN
        )
    partial = text(answer)
    # The header and the tray panel are not drawn, so the table's waiting fills and credits (slips)
    # are not read, as the whole screen reads them.
    assert not any("tables_slip" in q["sql"] for q in queries.captured_queries)
    assert answer.status_code == 200
    assert answer["HX-Retarget"] == "#head-receipt"
    assert answer["HX-Reswap"] == "innerHTML"
    assert "Bet taken down." in _one(r'<div class="receipt-body" data-receipt-body>(.*?)</div>', partial)
    assert 'id="screen"' not in partial
    assert 'class="table-head"' not in partial
    for unchanged in ("casekeeper", "deal-panel", "tray", "limits"):
        assert f'id="{unchanged}"' not in partial, unchanged

    with CaptureQueriesContext(connection) as queries:
        screen = _screen(client, floor)
    assert any("tables_slip" in q["sql"] for q in queries.captured_queries)
    for name in ("bet form", "bets", "correction"):
        assert _same_part(DEALT_PARTS[name], partial, screen), name
    bets = _one(DEALT_PARTS["bets"], partial)
    assert bets.count('data-testid="bet-row"') == 2
    assert "Take down Wyatt" not in bets
    assert re.search(
        r'id="take-down".*name="token" value="[^"]+".*id="version-take-down" name="version" value="4"',
        bets,
        re.S,
    )
    assert _one(r'(<input type="hidden" id="version-deal"[^>]*>)', partial) == (
        '<input type="hidden" id="version-deal" name="version" value="4" hx-swap-oob="true">'
    )
    wyatt = _one(rf'(<span class="nowrap" id="seat-available-{floor.wyatt.pk}".*?</span>)\n', partial)
    assert OOB in wyatt
    assert _plain(wyatt) in screen  # the chips given back, as the whole screen shows them

    again = _turn(client, floor, round_, 4, **FROM_DEAL_FORM)  # the answer's version deals the next
    assert _one(r"<p>(Turn 1: [^<]*)</p>", text(again))


def test_the_last_bet_taken_down_leaves_no_take_down_form(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    _bet(client, floor, round_, 0, ranks=["3"])
    answer = post(
        client, faro_url(floor, round_, "remove_bet"), {"bet": "b1", "version": "1"}, **FROM_TAKE_DOWN
    )
    bets = _one(DEALT_PARTS["bets"], text(answer))
    assert "No bets down." in bets
    assert 'id="take-down"' not in bets
    first = _bet(client, floor, round_, 2, ranks=["Q"])  # the next bet brings the table and its form back
    assert 'id="take-down"' in text(first)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_bets_answered_in_part_leave_the_screen_as_a_reload_draws_it(
    browser: Any, live_server: Any, world: Floor
) -> None:
    page = _dealer_with_a_bet_on_the_queen(browser, live_server, world)
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
        return {**_drawn(page), "even": page.locator("#mini-even").inner_html()}

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
    # Pinned (9; the whole screen after a tap is 11): the tap's own work (a session, the table
    # with its seats in one statement, the tap's record, the action), then one read for the
    # answer: the bettor's chips. Neither the tray, the table's requests nor any other part of the
    # screen is read again.
    assert len(after) == 1, after
    assert "ledger_account" in after[0]
    assert len(statements) == 9, "\n".join(sql[:100] for sql in statements)


# --------------------------------------------------------------------------- a dealing step in part

FROM_DEAL_FORM = {"HTTP_HX_TRIGGER": "deal-form"}
DEALT_PARTS = {  # each part a dealing step's answer sends, as the whole screen draws it
    "bet form": r'(<form class="panel faro-bet" id="bet-form".*?</form>)',
    "dealing panel": r'(<section class="panel deal-panel" id="deal-panel".*?</section>)',
    "bets": r'(<section class="panel" aria-labelledby="bets-title" id="bets".*?</section>)',
    "casekeeper": r'(<section class="panel" id="casekeeper".*?</section>)',
    "correction": r'(<section class="panel" id="correction".*?</section>)',
    "tray": r'(<strong data-testid="tray" id="tray-balance".*?</strong>)',
}


def _turn(client: Any, floor: Floor, round_: Any, version: int, **extra: Any) -> Any:
    return post(client, faro_url(floor, round_, "turn"), {"version": str(version)}, **extra)


def _same_part(pattern: str, partial: str, screen: str) -> str:
    """The part in the answer, out of band, drawn as the whole screen draws it."""
    part = _one(pattern, partial)
    assert OOB in part.split(">", 1)[0], part[:120]
    assert _plain(part) == _plain(_one(pattern, screen))
    return part


def test_a_turn_from_the_deal_form_is_answered_with_what_it_changed_as_the_whole_screen_draws_it(
    floor: Floor, as_user: Any
) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    for version, fields in enumerate(
        ({"ranks": ["3"]}, {"ranks": ["Q"], "player": floor.wyatt.pk}, {"target": "high"})
    ):
        _bet(client, floor, round_, version, **fields)

    answer = _turn(client, floor, round_, 3, **FROM_DEAL_FORM)
    partial = text(answer)
    assert answer.status_code == 200
    assert answer["HX-Retarget"] == "#head-receipt"
    assert answer["HX-Reswap"] == "innerHTML"
    assert _one(r'<div class="receipt-body" data-receipt-body>\s*<p>(Turn 1: [^<]*)</p>', partial)
    assert 'id="screen"' not in partial
    for unchanged in ("seats", "tray", "limits"):
        assert f'<section class="panel" id="{unchanged}"' not in partial
    assert 'class="table-head"' not in partial  # nor the header, but for its tray's balance

    screen = _screen(client, floor)
    for name, pattern in DEALT_PARTS.items():
        assert _same_part(pattern, partial, screen), name
    form = _one(DEALT_PARTS["bet form"], partial)
    assert '<script id="faro-placements" type="application/json">' in form  # what console.js offers
    assert 'id="version-bet" name="version" value="4"' in form
    deal = _one(DEALT_PARTS["dealing panel"], partial)
    assert "Turn <strong>1</strong>/25" in deal
    assert re.search(r'id="deal-form".*name="token" value="[^"]+"', deal, re.S)  # a fresh token
    for player in (floor.kate, floor.wyatt):
        pattern = rf'(<span class="nowrap" id="seat-available-{player.pk}".*?</span>)\n'
        seat = _one(pattern, partial)
        assert OOB in seat
        assert _plain(seat) in screen

    again = _turn(client, floor, round_, 4, **FROM_DEAL_FORM)  # the answer's version deals the next
    assert _one(r"<p>(Turn 2: [^<]*)</p>", text(again))


def test_a_manual_shoes_dealing_steps_from_the_card_picker_are_answered_in_part(
    floor: Floor, as_user: Any
) -> None:
    round_ = live_faro(floor, shoe="manual")
    client = as_user(floor.dealer)
    picker = {"HTTP_HX_TRIGGER": "picker-form"}
    soda = post(client, faro_url(floor, round_, "soda"), {"card_0": "QS", "version": "0"}, **picker)
    assert "Soda Q\u2660 burned." in text(soda)
    assert soda["HX-Retarget"] == "#head-receipt"
    answer = post(
        client, faro_url(floor, round_, "turn"), {"card_0": "QH", "card_1": "3D", "version": "1"}, **picker
    )
    partial = text(answer)
    assert answer["HX-Retarget"] == "#head-receipt"
    screen = _screen(client, floor)
    picker_part = r'(<section class="panel" aria-labelledby="picker-title" id="card-picker".*?</section>)'
    card_picker = _same_part(picker_part, partial, screen)
    assert 'data-card="QH" disabled aria-disabled="true"' in card_picker  # dealt: no longer offered
    assert 'id="version-picker" name="version" value="2"' in card_picker
    for pattern in DEALT_PARTS.values():
        _same_part(pattern, partial, screen)


def test_the_last_turn_and_a_refused_turn_get_the_whole_screen(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    stale = _turn(client, floor, round_, 7, **FROM_DEAL_FORM)
    assert stale.status_code == 409
    assert not stale.has_header("HX-Retarget")
    assert 'id="screen"' in text(stale)

    for version in range(24):
        assert _turn(client, floor, round_, version, **FROM_DEAL_FORM)["HX-Retarget"] == "#head-receipt"
    last = post(client, faro_url(floor, round_, "last_turn"), {"version": "24"}, **FROM_DEAL_FORM)
    assert last.status_code == 200
    assert not last.has_header("HX-Retarget")
    assert 'id="screen"' in text(last)
    assert "The deal is over." in text(last)


def test_a_turn_in_part_reads_nothing_the_screen_does_not_change(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    # A rank the shoe's first cards (the soda, the first turn's two) do not hold: the turn then
    # moves no chips whatever the shuffle, so the count below does not depend on it.
    dealt = {card[:-1] for card in context_of(round_).deck[:3]}
    _bet(client, floor, round_, 0, ranks=[next(rank for rank in RANKS if rank not in dealt)])
    with CaptureQueriesContext(connection) as queries:
        answer = _turn(client, floor, round_, 1, **FROM_DEAL_FORM)
    assert answer["HX-Retarget"] == "#head-receipt"
    statements = [q["sql"] for q in queries.captured_queries if not q["sql"].startswith(SAVEPOINTS)]
    # Pinned (9): the tap's own work (the session with its user, the table with its seats, the
    # tap's record, the round and its action), then the tray's balance with the seated players'
    # chips (one read) and the round's newest action (the state cache is filled when a transaction
    # commits, and the test's never does). The round is not read before an electronic shoe's turn,
    # and the table's waiting fills and credits (the header and the tray panel) are not read at all.
    assert not any("tables_slip" in sql for sql in statements)
    assert not any(sql.startswith('SELECT "tables_round"') for sql in statements)
    assert len(statements) == 9, "\n".join(sql[:100] for sql in statements)


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_turns_answered_in_part_leave_the_screen_as_a_reload_draws_it(
    browser: Any, live_server: Any, world: Floor
) -> None:
    page = _dealer_with_a_bet_on_the_queen(browser, live_server, world)
    place_bet(page, "Kate Elder", ["3", "4"], "5")
    confirmed(page, "Kate Elder bet $5.00 on 3\u20134")
    for number in (1, 2, 3):
        page.get_by_test_id("deal-turn").click()
        confirmed(page, f"Turn {number}:")
    assert page.locator("#screen").count() == 1  # the screen stayed; its parts were swapped

    def drawn() -> dict[str, Any]:
        return {
            **_drawn(page),
            "tray": page.get_by_test_id("tray").inner_text(),
            "deal": page.locator("#deal-panel").inner_text(),
            "cells": page.locator("#bet-form label.rank input").evaluate_all(
                "cells => cells.map(c => [c.value, c.getAttribute('aria-label'), c.disabled])"
            ),
            "keeper": page.get_by_test_id("casekeeper").inner_html(),
        }

    after_turns = drawn()
    assert "Turn 3/25" in after_turns["deal"].replace("\n", "")
    assert set(after_turns["versions"]) == {"5"}
    page.reload()
    assert drawn() == after_turns

    # The swapped bet form is wired again (console.js): a bet, then a turn from the new forms.
    page.get_by_test_id("deal-turn").click()
    confirmed(page, "Turn 4:")
    live = [
        rank
        for rank in ["A", "2", "5", "6", "7", "8", "9", "10", "J", "K"]
        if page.locator(f'#bet-form label.rank[data-rank="{rank}"]:not(.dead)').count()
    ]
    place_bet(page, "Kate Elder", [live[0]], "5")
    confirmed(page, f"Kate Elder bet $5.00 on {live[0]}")
    form = page.locator("#bet-form")
    assert form.locator("input[name=player]:checked").count() == 0  # cleared by the swapped form's script
    assert form.locator("input[name=ranks]:checked").count() == 0
    place_bet(page, "Kate Elder", [live[1]], "5")  # so the next bet is not refused as one stack on both
    confirmed(page, f"Kate Elder bet $5.00 on {live[1]}")
    page.get_by_test_id("deal-turn").click()
    confirmed(page, "Turn 5:")


def test_a_manual_shoes_turn_posted_without_its_cards_is_refused_and_moves_nothing(
    floor: Floor, as_user: Any
) -> None:
    round_ = live_faro(floor, shoe="manual")
    client = as_user(floor.dealer)
    post(client, faro_url(floor, round_, "soda"), {"card_0": "QS", "version": "0"})
    # The card picker always posts its slots; only a hand-made post lacks them, and the round is
    # then not read before the action: the engine refuses it.
    answer = post(client, faro_url(floor, round_, "turn"), {"version": "1"}, **FROM_DEAL_FORM)
    assert answer.status_code == 400
    assert 'id="screen"' in text(answer)
    assert "Key exactly 2 cards" in text(answer)
    assert RoundAction.objects.filter(round=round_).count() == 1
