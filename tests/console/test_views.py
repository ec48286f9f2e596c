"""The console and pit views through Django's test client: who may see what, errors in place,
and one-time tokens that make a double tap post once."""

from __future__ import annotations

import secrets
from html import unescape
from typing import Any

import pytest
from django.conf import settings
from django.test import Client

from casino.models import IdempotencyRecord, Role
from tables.models import RefusedAction, Round, RoundAction, Seat, TableSession
from tables.rounds import start_round
from tables.services import request_tray_change, seat_player
from tables.slips.models import Slip
from tests import factories
from tests.console.conftest import PASSWORD, Floor

pytestmark = pytest.mark.django_db


def token() -> str:
    return secrets.token_urlsafe(18)


def post(
    client: Client, path: str, data: dict[str, Any] | None = None, *, htmx: bool = True, **extra: Any
) -> Any:
    body = {"token": token(), **(data or {})}
    headers = {"HTTP_HX_REQUEST": "true"} if htmx else {}
    return client.post(path, body, **headers, **extra)


def text(response: Any) -> str:
    return response.content.decode()


def table_url(floor: Floor, suffix: str = "") -> str:
    return f"/console/tables/{floor.faro.pk}/{suffix}"


def live_faro(floor: Floor, *, shoe: str = "electronic") -> Round:
    floor.open_faro()
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk)
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.wyatt.pk)
    return start_round(actor=floor.dealer, table_id=floor.faro.pk, shoe=shoe)


# --------------------------------------------------------------------------- signing in and roles


def test_sign_in_sends_a_dealer_to_their_tables_and_a_pit_boss_to_the_pit(floor: Floor) -> None:
    client = Client()
    page = client.get("/console/login/")
    assert page.status_code == 200
    assert 'name="csrfmiddlewaretoken"' in text(page)
    reply = client.post("/console/login/", {"username": floor.dealer.username, "password": PASSWORD})
    assert reply.status_code == 302
    assert reply["Location"] == "/console/"
    home = client.get("/console/")
    assert floor.faro.name in text(home)

    boss = Client()
    boss.post("/console/login/", {"username": floor.pit_boss.username, "password": PASSWORD})
    assert boss.get("/console/")["Location"] == "/pit/"
    assert boss.get("/pit/").status_code == 200


def test_wrong_password_is_refused_on_the_page(floor: Floor) -> None:
    reply = Client().post("/console/login/", {"username": floor.dealer.username, "password": "nope"})
    assert reply.status_code == 200
    assert "do not match" in text(reply)


def test_the_root_goes_to_the_console() -> None:
    assert Client().get("/")["Location"] == "/console/"


def test_anonymous_visitors_are_sent_to_sign_in(floor: Floor) -> None:
    reply = Client().get(table_url(floor))
    assert reply.status_code == 302
    assert reply["Location"].startswith("/console/login/?next=")
    htmx = Client().post(table_url(floor, "open/"), {"token": token()}, HTTP_HX_REQUEST="true")
    assert htmx.status_code == 204
    assert htmx["HX-Redirect"] == "/console/login/"


def test_other_roles_get_a_polite_403(floor: Floor, as_user: Any) -> None:
    """The pit is not the auditor's; /console/ sends them home (tests/console/test_role_homes.py)."""
    reply = as_user(floor.auditor).get("/pit/")
    assert reply.status_code == 403
    assert "Not for this account" in text(reply)
    assert 'href="/audit/"' in reply.content.decode()  # the auditor's nav, on the refusal too


def test_dealers_see_only_their_own_tables(floor: Floor, as_user: Any) -> None:
    other = as_user(floor.other_dealer)
    assert floor.faro.name not in text(other.get("/console/"))
    reply = other.get(table_url(floor))
    assert reply.status_code == 403
    assert "is not assigned to you" in text(reply)
    refused = post(other, table_url(floor, "open/"), {"chip_10000": "1"})
    assert refused.status_code == 403
    assert not TableSession.objects.exists()


def test_a_missing_table_is_a_polite_404(floor: Floor, as_user: Any) -> None:
    reply = as_user(floor.dealer).get("/console/tables/999999/")
    assert reply.status_code == 404
    assert "No such table" in text(reply)


def test_pit_boss_cannot_use_the_dealer_console(floor: Floor, as_user: Any) -> None:
    reply = as_user(floor.pit_boss).get(table_url(floor))
    assert reply.status_code == 403


# --------------------------------------------------------------------------- sessions


def test_open_table_then_a_double_tap_replays_instead_of_posting_twice(floor: Floor, as_user: Any) -> None:
    """Opened on the chip grid ($10,000.50: ten $1,000 chips and a 50-cent one): the opener slip
    carries the count by chip, and a double tap shows the same slip again."""
    client = as_user(floor.dealer)
    body = {"token": token(), "chip_100000": "10", "chip_50": "1", "chip_2500": ""}
    first = client.post(table_url(floor, "open/"), body, HTTP_HX_REQUEST="true")
    assert first.status_code == 200
    assert "is open with $10,000.50 in the tray" in text(first)
    opener = Slip.objects.get(kind="opener")
    assert opener.count == {"50": 1, "100": 0, "500": 0, "2500": 0, "10000": 0, "50000": 0, "100000": 10}
    assert f'data-testid="slip-number">{opener.number}<' in text(first)
    assert "Still to sign: Dealer, Pit boss." in text(first)
    second = client.post(table_url(floor, "open/"), body, HTTP_HX_REQUEST="true")
    assert second.status_code == 200
    assert "already done" in text(second)
    assert f'data-testid="slip-number">{opener.number}<' in text(second)
    assert TableSession.objects.filter(table=floor.faro).count() == 1
    assert TableSession.objects.get().opening_inventory == 1_000_050
    assert Slip.objects.filter(kind="opener").count() == 1


def test_a_full_page_post_renders_the_whole_page(floor: Floor, as_user: Any) -> None:
    reply = post(as_user(floor.dealer), table_url(floor, "open/"), {"chip_50000": "1"}, htmx=False)
    assert reply.status_code == 200
    assert "<html" in text(reply)


def test_bad_input_is_refused_in_place_and_nothing_moves(floor: Floor, as_user: Any) -> None:
    reply = post(as_user(floor.dealer), table_url(floor, "open/"), {"chip_100000": "9", "chip_2500": "ten"})
    assert reply.status_code == 400
    assert 'data-testid="inline-error"' in text(reply)
    assert "The number of $25 chips must be a whole number from 0 to 100,000." in text(reply)
    assert 'name="chip_100000" value="9"' in text(reply)  # the count as typed, to fix, not type again
    assert not TableSession.objects.exists()
    nothing = post(as_user(floor.dealer), table_url(floor, "open/"), {"chip_100000": ""})
    assert nothing.status_code == 400
    assert "Count the tray: type how many of each chip it holds" in unescape(text(nothing))
    assert not TableSession.objects.exists()


def test_a_form_without_its_one_time_token_is_refused(floor: Floor, as_user: Any) -> None:
    reply = as_user(floor.dealer).post(table_url(floor, "open/"), {"chip_10000": "1"}, HTTP_HX_REQUEST="true")
    assert reply.status_code == 400
    assert "no valid one-time token" in text(reply)
    assert not TableSession.objects.exists()


def test_a_used_token_with_other_values_is_a_conflict(floor: Floor, as_user: Any) -> None:
    client = as_user(floor.dealer)
    used = token()
    client.post(table_url(floor, "open/"), {"token": used, "chip_10000": "1"}, HTTP_HX_REQUEST="true")
    reply = client.post(table_url(floor, "open/"), {"token": used, "chip_10000": "2"}, HTTP_HX_REQUEST="true")
    assert reply.status_code == 409
    assert "already sent with other values" in text(reply)


def test_a_failed_tap_can_be_retried_with_the_same_token(floor: Floor, as_user: Any) -> None:
    client = as_user(floor.dealer)
    used = token()
    bad = client.post(table_url(floor, "open/"), {"token": used, "chip_10000": "x"}, HTTP_HX_REQUEST="true")
    assert bad.status_code == 400
    assert not IdempotencyRecord.objects.exists()
    good = client.post(table_url(floor, "open/"), {"token": used, "chip_10000": "1"}, HTTP_HX_REQUEST="true")
    assert good.status_code == 200
    assert TableSession.objects.count() == 1


def test_close_table_shows_the_summary_and_is_refused_while_a_deal_is_live(
    floor: Floor, as_user: Any
) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    refused = post(client, table_url(floor, "close/"), {"chip_100000": "10"})
    assert refused.status_code == 409
    assert "Finish or void the live round" in text(refused)
    assert 'data-testid="close-grid"' in text(refused)  # the close page again, the count as typed
    assert 'name="chip_100000" value="10"' in text(refused)
    Round.objects.filter(pk=round_.pk).update(status="void")
    grid = client.get(table_url(floor, "close/count/"))
    assert grid.status_code == 200
    assert "$10,000.00" not in text(grid)  # blind: the close page shows nothing of the ledger's tray
    body = {"token": token(), "chip_100000": "10", "chip_10000": "1"}  # $10,100.00
    summary = client.post(table_url(floor, "close/"), body, HTTP_HX_REQUEST="true")
    assert summary.status_code == 200
    page = text(summary)
    assert "is closed" in page
    closer = Slip.objects.get(kind="closer")
    assert (closer.amount, closer.expected, closer.variance) == (1_010_000, 1_000_000, 10_000)
    assert 'data-testid="variance">$100.00 over' in page
    assert f'data-testid="slip-number">{closer.number}<' in page
    assert 'data-testid="slip-variance">$100.00 over' in page
    assert "Still to sign: Dealer, Pit boss." in page
    assert 'data-testid="win" class="win-pos">$100.00' in page
    again = client.post(table_url(floor, "close/"), body, HTTP_HX_REQUEST="true")
    assert "Already closed" in text(again)
    session = TableSession.objects.get()
    again_later = client.get(table_url(floor, f"sessions/{session.pk}/"))
    assert again_later.status_code == 200
    assert f'data-testid="slip-number">{closer.number}<' in text(again_later)


def test_the_close_page_of_a_closed_table_says_so_and_offers_no_grid(floor: Floor, as_user: Any) -> None:
    page = as_user(floor.dealer).get(table_url(floor, "close/count/"))
    assert page.status_code == 200
    assert f"{floor.faro.name} is not open." in text(page)
    assert "count-pieces" not in text(page)
    assert as_user(floor.other_dealer).get(table_url(floor, "close/count/")).status_code == 403


# --------------------------------------------------------------------------- seats, tray, limits


def test_search_and_seat_and_unseat_players(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    client = as_user(floor.dealer)
    found = client.get(table_url(floor, "players/"), {"q": "kate"}, HTTP_HX_REQUEST="true")
    assert "Kate Elder" in text(found)
    assert "$2,000.00" in text(found)
    seated = post(client, table_url(floor, "seat/"), {"player": floor.kate.pk})
    assert "Seated Kate Elder in seat 1." in text(seated)
    assert "Available to play: $2,000.00." in text(seated)
    again = client.get(table_url(floor, "players/"), {"q": "kate"}, HTTP_HX_REQUEST="true")
    assert f"at {floor.faro.name}" in text(again)
    left = post(client, table_url(floor, "unseat/"), {"player": floor.kate.pk})
    assert "Kate Elder left seat 1." in text(left)
    assert not Seat.objects.filter(left_at__isnull=True).exists()


def test_seating_at_a_closed_table_is_refused_in_place(floor: Floor, as_user: Any) -> None:
    reply = post(as_user(floor.dealer), table_url(floor, "seat/"), {"player": floor.kate.pk})
    assert reply.status_code == 409
    assert "open it before seating players" in text(reply)


def test_fill_requested_in_the_console_and_issued_at_the_cage(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    dealer = as_user(floor.dealer)
    body = {"token": token(), "amount": "2,000"}
    made = dealer.post(table_url(floor, "fill/"), body, HTTP_HX_REQUEST="true")
    assert "Fill of $2,000.00 requested (cage → tray)." in text(made)
    dealer.post(table_url(floor, "fill/"), body, HTTP_HX_REQUEST="true")
    fill = Slip.objects.get(kind="fill")
    assert fill.status == "pending"
    screen = text(dealer.get(table_url(floor)))
    assert '<span class="badge pending">1 awaiting approval</span>' in screen  # the header
    assert '<span class="badge pending">fill</span> $2,000.00' in screen  # the tray panel's list

    # A fill is the cage's to issue: the pit shows it waiting, without the pit boss's buttons.
    pit = text(as_user(floor.pit_boss).get("/pit/"))
    assert f"{fill.number} — waiting for the cage to issue it" in pit
    assert f"Approve fill of $2,000.00 for {floor.faro.name}" not in pit
    cashier = as_user(floor.cashier)
    assert f"Approve fill of $2,000.00 for {floor.faro.name}" in text(cashier.get("/cage/"))
    tray_before = floor.faro.tray.balance
    issued = post(cashier, f"/cage/requests/{fill.pk}/approve/")
    assert issued.status_code == 200
    assert f"Issued: fill {fill.number} of $2,000.00 for {floor.faro.name}." in text(issued)
    waits = "waiting for the dealer's and a pit boss's signatures"
    assert f"$2,000.00 in transit (cage → transit → tray): {waits}." in unescape(text(issued))
    fill.refresh_from_db()
    assert fill.status == "issued"
    floor.faro.tray.refresh_from_db()
    assert floor.faro.tray.balance == tray_before  # in transit: not the tray's until signed for
    pit = text(as_user(floor.pit_boss).get("/pit/"))
    state = (
        f"{fill.number} — issued, in transit: waiting for the dealer&#x27;s and a pit boss&#x27;s signatures"
    )
    assert state in pit
    assert 'href="/pit/slips/" data-testid="sign-slip"' in pit
    twice = post(cashier, f"/cage/requests/{fill.pk}/approve/")
    assert twice.status_code == 409
    assert "already" in text(twice)


def test_a_pit_boss_cannot_release_their_own_credit_but_another_pit_boss_can_refuse_it(
    floor: Floor, as_user: Any
) -> None:
    floor.open_faro()
    credit = request_tray_change(actor=floor.pit_boss, table_id=floor.faro.pk, kind="credit", amount=50_000)
    boss = as_user(floor.pit_boss)
    assert "You asked for this" in text(boss.get("/pit/live/"))
    own = post(boss, f"/pit/requests/{credit.pk}/approve/")
    assert own.status_code == 403
    assert "someone else must approve or refuse it" in text(own)
    other = as_user(factories.staff(Role.PIT_BOSS))
    refused = post(other, f"/pit/requests/{credit.pk}/refuse/", {"note": "count again"})
    assert f"Refused: credit {credit.number} of $500.00" in text(refused)
    slip = Slip.objects.get(pk=credit.pk)
    assert (slip.status, slip.void_reason) == ("void", "Refused by the pit: count again")


def test_dealers_cannot_reach_the_pit(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    fill = request_tray_change(actor=floor.dealer, table_id=floor.faro.pk, kind="fill", amount=10_000)
    dealer = as_user(floor.dealer)
    assert dealer.get("/pit/").status_code == 403
    assert post(dealer, f"/pit/requests/{fill.pk}/approve/").status_code == 403
    assert Slip.objects.get(pk=fill.pk).status == "pending"


def test_limits_are_the_pits_not_the_dealers(floor: Floor, as_user: Any) -> None:
    dealer = as_user(floor.dealer)
    assert 'id="limits-title"' not in text(dealer.get(table_url(floor)))
    console = post(dealer, table_url(floor, "limits/"), {"min_bet": "10", "max_bet": "1,000"})
    assert "Only a pit boss or an admin may change a table&#x27;s limits." in text(console)
    assert "Limits $5.00 \u2013 $500.00" in text(console)
    pit = post(
        as_user(floor.pit_boss), f"/pit/tables/{floor.faro.pk}/limits/", {"min_bet": "25", "max_bet": "2000"}
    )
    assert "are now $25.00 \u2013 $2,000.00" in text(pit)
    cashier = post(
        as_user(floor.cashier), f"/pit/tables/{floor.faro.pk}/limits/", {"min_bet": "1", "max_bet": "2"}
    )
    assert cashier.status_code == 403
    bad = post(
        as_user(floor.pit_boss), f"/pit/tables/{floor.faro.pk}/limits/", {"min_bet": "50", "max_bet": "20"}
    )
    assert bad.status_code == 400
    assert "The maximum bet ($20.00) must be at least the minimum bet ($50.00)." in text(bad)


def test_the_pit_polls_a_partial_and_shows_win_tonight(floor: Floor, as_user: Any) -> None:
    live_faro(floor)
    boss = as_user(floor.pit_boss)
    page = text(boss.get("/pit/"))
    # console.js skips a poll while someone types
    assert f'hx-trigger="every {settings.CONSOLE_POLL_SECONDS}s"' in page
    live = text(boss.get("/pit/live/", HTTP_HX_REQUEST="true"))
    assert "<html" not in live
    assert "#1 · betting · turn 0/25" in live
    assert 'data-testid="win-tonight" class="win-pos">$0.00' in live
    assert "/admin/tables/table/" in page


# --------------------------------------------------------------------------- faro


def faro_url(floor: Floor, round_: Round, kind: str) -> str:
    return table_url(floor, f"rounds/{round_.pk}/faro/{kind}/")


def test_the_faro_screen_draws_the_layout_and_the_casekeeper(floor: Floor, as_user: Any) -> None:
    live_faro(floor)
    page = text(as_user(floor.dealer).get(table_url(floor)))
    assert page.count('name="ranks"') == 13
    assert 'data-rank="7"' in page
    assert page.count('class="wire') == 13
    assert "Deal turn" in page
    assert 'id="faro-placements"' in page
    assert "Limits $5.00 \u2013 $500.00" in page


def test_a_bet_over_the_limit_is_refused_in_place_and_logged(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    body = {"player": floor.kate.pk, "ranks": ["K"], "custom_amount": "600", "version": "0"}
    reply = post(as_user(floor.dealer), faro_url(floor, round_, "bet"), body)
    assert reply.status_code == 400
    page = text(reply)
    assert "The table maximum is $500.00." in page
    assert 'value="600"' in page  # what the dealer typed stays, to be corrected
    assert not RoundAction.objects.exists()
    refused = RefusedAction.objects.get()
    assert (refused.code, refused.player_id) == ("limit_exceeded", floor.kate.pk)


def test_a_bad_placement_is_refused_with_the_reason(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    body = {"player": floor.kate.pk, "ranks": ["K", "5"], "amount": "500", "version": "0"}
    reply = post(as_user(floor.dealer), faro_url(floor, round_, "bet"), body)
    assert reply.status_code == 400
    assert "One stack cannot cover 5-K on the layout." in text(reply)


def test_a_double_tapped_bet_is_placed_once(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    body = {"token": token(), "player": floor.kate.pk, "ranks": ["Q"], "amount": "2500", "version": "0"}
    first = client.post(faro_url(floor, round_, "bet"), body, HTTP_HX_REQUEST="true")
    assert "Kate Elder bet $25.00 on Q." in text(first)
    second = client.post(faro_url(floor, round_, "bet"), body, HTTP_HX_REQUEST="true")
    assert "already done" in text(second)
    round_.refresh_from_db()
    assert len(round_.state["bets"]) == 1
    assert RoundAction.objects.count() == 1


def test_a_stale_screen_is_refreshed_not_applied(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    post(client, faro_url(floor, round_, "turn"), {"version": "0"})
    stale = post(client, faro_url(floor, round_, "turn"), {"version": "0"})
    assert stale.status_code == 409
    assert "The screen was out of date" in text(stale)
    round_.refresh_from_db()
    assert round_.state["turn"] == 1


def test_turns_say_what_moved(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor, shoe="manual")
    client = as_user(floor.dealer)
    assert "Soda 7♦ burned." in text(
        post(client, faro_url(floor, round_, "soda"), {"card_0": "7D", "version": "0"})
    )
    post(
        client,
        faro_url(floor, round_, "bet"),
        {"player": floor.kate.pk, "ranks": ["Q"], "amount": "1000", "version": "1"},
    )
    post(
        client,
        faro_url(floor, round_, "bet"),
        {"player": floor.wyatt.pk, "target": "high", "amount": "500", "version": "2"},
    )
    reply = text(
        post(client, faro_url(floor, round_, "turn"), {"card_0": "3C", "card_1": "QH", "version": "3"})
    )
    assert "Turn 1: 3♣ loses, Q♥ wins." in reply
    assert "Paid $10.00 to Kate Elder" in reply
    assert "Paid $5.00 to Wyatt Earp" in reply
    assert "Returned $5.00 to Wyatt Earp" in reply
    # The picker greys out cards already out of the shoe.
    assert 'data-card="QH" disabled' in reply
    missing = post(client, faro_url(floor, round_, "turn"), {"card_0": "4C", "version": "4"})
    assert "Pick 2 cards on the card picker" in text(missing)


def test_taking_a_bet_down_returns_it(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    client = as_user(floor.dealer)
    post(
        client,
        faro_url(floor, round_, "bet"),
        {
            "player": floor.wyatt.pk,
            "ranks": ["9", "8", "5", "6"],
            "amount": "500",
            "coppered": "1",
            "version": "0",
        },
    )
    round_.refresh_from_db()
    assert round_.state["bets"][0]["coppered"] is True
    reply = text(post(client, faro_url(floor, round_, "remove_bet"), {"bet": "b1", "version": "1"}))
    assert "Returned $5.00 to Wyatt Earp (bet removed)" in reply


def test_unknown_faro_action_is_a_404_page(floor: Floor, as_user: Any) -> None:
    round_ = live_faro(floor)
    assert post(as_user(floor.dealer), faro_url(floor, round_, "shuffle")).status_code == 404
