"""Keying a manual deal's hands on the console: it posts once through the round service, the
engine's refusal comes back in place with every card still keyed, and the play screens that
follow offer only the cards a player holds."""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from typing import Any

import pytest
from django.test import Client

from casino.models import Player
from tables.console.dealer.games import Offer, keying_offer, known_hands_of, round_offers
from tables.console.dealer.keying import input_name
from tables.games.cards import FULL_DECK
from tables.models import RefusedAction, Round, RoundAction, RoundSettlement, Table
from tests.console.conftest import Floor
from tests.console.test_games import make_table
from tests.console.test_keying import fan_tan_deck

pytestmark = pytest.mark.django_db

PLAYERS = {"fan_tan": 3, "newmarket": 3, "tonk": 2}


def manual_round(floor: Floor, client: Client, game: str) -> tuple[Table, Round]:
    table, _ = make_table(floor, game, PLAYERS[game], ante=500 if game == "tonk" else 100)
    reply = client.post(
        f"/console/tables/{table.pk}/deal/",
        {"token": secrets.token_urlsafe(18), "shoe": "manual"},
        HTTP_HX_REQUEST="true",
    )
    assert reply.status_code == 200, reply.content.decode()[:2000]
    return table, Round.objects.get(table=table)


def offered(round_: Round) -> list[Offer]:
    names = {p.pk: p.name for p in Player.objects.select_related("user")}
    return round_offers(round_, names)


def keyed_body(round_: Round, deck: Sequence[str], token: str | None = None) -> dict[str, Any]:
    """The keying form as the screen would post it: each pile's cards, in deal order, from ``deck``."""
    action = keying_offer(offered(round_))
    assert action is not None
    body: dict[str, Any] = {
        "token": token or secrets.token_urlsafe(18),
        "action": action.key,
        "version": round_.version,
    }
    cards = iter(deck)
    for slot in action.fields[0].slots:
        body[input_name("hands", slot.key)] = [next(cards) for _ in range(slot.size)]
    return body


def act(client: Client, table: Table, round_: Round, body: dict[str, Any]) -> Any:
    return client.post(f"/console/tables/{table.pk}/rounds/{round_.pk}/act/", body, HTTP_HX_REQUEST="true")


def test_the_manual_deal_screen_offers_both_ways_to_track(floor: Floor, as_user: Any) -> None:
    client = as_user(floor.dealer)
    table, _ = manual_round(floor, client, "fan_tan")
    screen = client.get(f"/console/tables/{table.pk}/").content.decode()
    assert "Key every hand" in screen
    assert "Cards dealt, hands not keyed" in screen
    assert screen.count('data-hand-panel="') == 3  # one picker per player
    assert screen.count('name="hands_') == 3 * 52


def test_a_double_submitted_keyed_deal_deals_once(floor: Floor, as_user: Any) -> None:
    client = as_user(floor.dealer)
    table, round_ = manual_round(floor, client, "fan_tan")
    body = keyed_body(round_, FULL_DECK)
    first, second = act(client, table, round_, body), act(client, table, round_, body)
    assert first.status_code == second.status_code == 200
    assert "Every hand keyed" in first.content.decode()
    assert "already done" in second.content.decode()
    assert RoundAction.objects.filter(round=round_).count() == 1
    round_.refresh_from_db()
    assert round_.version == 1
    assert round_.state["tracking"] == "full"


def test_the_engines_refusal_is_shown_in_place_with_every_card_still_keyed(
    floor: Floor, as_user: Any
) -> None:
    client = as_user(floor.dealer)
    table, round_ = manual_round(floor, client, "tonk")
    deck = ["2S", "3S", "9H", "JD", "KC", "4H", "6D", "8C", "10S", "2S", "5C"]  # 2♠ twice
    reply = act(client, table, round_, keyed_body(round_, deck))
    page = reply.content.decode()
    assert reply.status_code == 400
    keying = page[page.index("data-keying") : page.index('data-testid="choice-count"')]
    assert "2♠ has already been dealt" in keying
    assert 'data-testid="inline-error"' in keying
    assert keying.count(" checked ") == 11  # nothing to key again: only the duplicate to fix
    assert RefusedAction.objects.filter(round=round_, code="card_not_in_shoe").count() == 1
    round_.refresh_from_db()
    assert round_.version == 0


def test_an_incomplete_deal_is_refused_before_the_engine(floor: Floor, as_user: Any) -> None:
    client = as_user(floor.dealer)
    table, round_ = manual_round(floor, client, "newmarket")
    body = keyed_body(round_, FULL_DECK)
    body["hands_widow"] = body["hands_widow"][:-2]
    reply = act(client, table, round_, body)
    assert reply.status_code == 400
    assert "The widow 11 of 13" in reply.content.decode()
    assert not RoundAction.objects.filter(round=round_).exists()


@pytest.mark.parametrize("game", sorted(PLAYERS))
def test_after_a_keyed_deal_the_console_knows_every_hand(floor: Floor, as_user: Any, game: str) -> None:
    client = as_user(floor.dealer)
    table, round_ = manual_round(floor, client, game)
    body = keyed_body(round_, FULL_DECK)
    assert act(client, table, round_, body).status_code == 200
    round_.refresh_from_db()
    keyed = {int(key[len("hands_") :]): list(cards) for key, cards in body.items() if key[6:].isdigit()}
    assert known_hands_of(round_) == keyed
    screen = client.get(f"/console/tables/{table.pk}/").content.decode()
    assert "data-keying" not in screen
    assert "Hands (dealer only)" in screen


def test_a_keyed_fan_tan_deal_offers_only_held_cards_and_charges_an_illegal_pass_at_once(
    floor: Floor, as_user: Any
) -> None:
    client = as_user(floor.dealer)
    table, round_ = manual_round(floor, client, "fan_tan")
    assert act(client, table, round_, keyed_body(round_, fan_tan_deck())).status_code == 200
    round_.refresh_from_db()
    first, second = round_.state["order"][:2]
    made = offered(round_)
    assert [offer.entry["card"] for offer in made if offer.kind == "play"] == ["7S"]
    (illegal_pass,) = [offer for offer in made if offer.kind == "pass-illegal"]
    reply = act(
        client,
        table,
        round_,
        {"token": secrets.token_urlsafe(18), "action": illegal_pass.key, "version": round_.version},
    )
    assert reply.status_code == 200, reply.content.decode()[:2000]
    moved = sorted(
        (s.kind, s.player_id, s.amount, s.to_account)
        for s in RoundSettlement.objects.filter(round=round_, kind__in=["pass", "illegal_pass", "seven_held"])
    )
    pot = RoundSettlement.objects.filter(round=round_, kind="pass").get().to_account
    holder = Player.objects.select_related("wallet").get(pk=second).wallet.code
    # The pass chip and three more to the pot; five each for the 6♠ and 8♠ the next player holds.
    assert moved == [
        ("illegal_pass", first, 300, pot),
        ("pass", first, 100, pot),
        ("seven_held", first, 500, holder),
        ("seven_held", first, 500, holder),
    ]
