"""The pot and stakes games on the console: whole rounds played only through the forms the console
renders, with an electronic shoe and a manual one. At every state on the way each rendered form
is an entry of the engine's ``legal_actions`` (and every entry is rendered), each one-tap button
is an action the engine accepts as it is, and the words on them are words: no snake_case codes,
no bare cents."""

from __future__ import annotations

import re
import secrets
from html import unescape
from typing import Any

import pytest
from django.http import QueryDict
from django.test import Client

from casino.models import Player
from casino.services import buy_in, create_player
from tables.console.dealer.games import (
    COUNT_ONLY,
    KEYED_DEAL,
    Offer,
    entry_key,
    legal_actions_of,
    payload_from,
    round_offers,
)
from tables.console.dealer.keying import input_name
from tables.games.base import without_hints
from tables.games.cards import FULL_DECK
from tables.games.registry import engine_for
from tables.models import RefusedAction, Round, Table
from tables.round_state import engine_state
from tables.services import assign_dealer, create_table, open_table, seat_player
from tests.console.conftest import PASSWORD, Floor

pytestmark = pytest.mark.django_db

# Which offered action a test dealer takes first, per game (the engines decide the rest).
PREFERENCE = {
    "farmer": ["farmer", "deal", "stay", "hit"],
    "fan_tan": ["deal", "play", "pass", "pass-illegal"],
    "newmarket": ["deal", "keep", "close_auction", "play", "pass"],
    "tonk": ["deal", "draw:stock", "discard", "draw:discard"],
    "stakes": ["result"],
}
SNAKE_CASE = re.compile(r"\b[a-z]+_[a-z_]+\b")
BARE_CENTS = re.compile(r"(?<![$\d,.])\d{3,}")  # a number of cents shown as such, not as dollars


def receipt_headline(page: str) -> str:
    """The first line of the receipt the reply shows."""
    found = re.search(r'data-testid="receipt".*?<p>(.*?)</p>', page, re.DOTALL)
    assert found, page[:2000]
    return re.sub(r"<[^>]+>", "", found.group(1)).strip()


def make_table(floor: Floor, game: str, players: int, **spec: Any) -> tuple[Table, list[Player]]:
    table = create_table(
        actor=floor.pit_boss,
        name=f"{game} table",
        game=game,
        min_bet=100,
        max_bet=5_000,
        ante=spec.pop("ante", 100),
        **spec,
    )
    assign_dealer(actor=floor.pit_boss, table_id=table.pk, dealer_id=floor.dealer.pk)
    open_table(actor=floor.dealer, table_id=table.pk, opening_inventory=0)
    seated = [floor.kate, floor.wyatt]
    for n in range(players - 2):
        extra = create_player(
            actor=floor.cashier, username=f"{game}-extra{n}", password=PASSWORD, name=f"Extra {n}"
        )
        buy_in(actor=floor.cashier, player=extra, amount=200_000)
        seated.append(extra)
    for player in seated[:players]:
        seat_player(actor=floor.dealer, table_id=table.pk, player_id=player.pk)
    return table, seated[:players]


def open_cards(picker: Any) -> list[str]:
    return [c["code"] for row in picker for c in row["cards"] if not c["out"]]


def form_for(offer: Offer, round_: Round, step: int) -> dict[str, Any]:
    """Fill an offered form as a dealer would: the first cards that can be picked, the first choice."""
    data: dict[str, Any] = {
        "token": secrets.token_urlsafe(18),
        "action": offer.key,
        "version": round_.version,
    }
    for field in offer.fields:
        if not field.required:
            continue
        if field.kind in ("player", "choice"):
            data[field.name] = field.choices[0][0]
        elif field.kind == "card":
            data[field.name] = open_cards(field.picker)[0]
        elif field.kind == "cards":
            data[field.name] = open_cards(field.picker)[: field.count or 3]
        elif field.kind == "amount":
            assert field.amount is not None
            data[field.name] = f"{field.amount[0] / 100:.2f}"
        elif field.kind == "numbers":
            for index, row in enumerate(field.rows):
                low = row["low"]
                data[f"{field.name}_{row['key']}"] = low if low is not None else (index * 7 + step) % 23
        elif field.kind == "card_map":
            for (key, _), card in zip(field.keys, open_cards(field.picker), strict=False):
                data[f"{field.name}_{key}"] = card
        elif field.kind == "hands":
            cards = iter(FULL_DECK)
            for slot in field.slots:
                data[input_name(field.name, slot.key)] = [next(cards) for _ in range(slot.size)]
    return data


def choose(offers: list[Offer], game: str, deal: str) -> Offer:
    def rank(offer: Offer) -> int:
        kind = f"draw:{offer.entry['from']}" if offer.kind == "draw" else offer.kind
        order = [deal, *PREFERENCE[game]]
        return order.index(kind) if kind in order else 99

    def fillable(offer: Offer) -> bool:
        pickers = [f for f in offer.fields if f.kind in ("card", "cards") and f.required]
        return all(open_cards(f.picker) for f in pickers)

    ranked = sorted((o for o in offers if fillable(o)), key=rank)
    assert ranked, f"the console offered nothing playable: {[o.label for o in offers]}"
    return ranked[0]


def rendered_forms(page: str) -> list[tuple[str, str]]:
    """(action key, every label, legend and button text) of each round action form on the page."""
    forms = []
    for form in re.findall(r'<form class="(?:action-form|action-tap|keying)".*?</form>', page, re.DOTALL):
        (key,) = re.findall(r'name="action" value="([^"]+)"', form)
        words = re.findall(r"<(?:button|legend|span|label)[^>]*>([^<]+)", form)
        forms.append((key, unescape(" | ".join(w.strip() for w in words if w.strip()))))
    return forms


def check_every_form(client: Client, table: Table, round_: Round) -> None:
    """The screen renders exactly the engine's legal actions, and each button the engine accepts."""
    page = client.get(f"/console/tables/{table.pk}/").content.decode()
    forms = rendered_forms(page)
    legal = legal_actions_of(round_)
    assert sorted(key.rsplit("-", 1)[1] for key, _ in forms) == sorted(map(entry_key, legal))
    for _, words in forms:
        assert not SNAKE_CASE.search(words), words
        assert not BARE_CENTS.search(words), words
    engine, state = engine_for(round_.game), engine_state(round_)
    names = {p.pk: p.name for p in Player.objects.select_related("user")}
    for offer in round_offers(round_, names):
        if offer.one_tap:
            payload = payload_from(offer, QueryDict())
            assert payload == without_hints(offer.entry)
            engine.apply(state, payload)  # IllegalAction here is the failure


def play_round(
    floor: Floor,
    table: Table,
    client: Client,
    *,
    shoe: str = "electronic",
    deal: str = "deal",
    limit: int = 400,
) -> Round:
    start = client.post(
        f"/console/tables/{table.pk}/deal/",
        {"token": secrets.token_urlsafe(18), "shoe": shoe},
        HTTP_HX_REQUEST="true",
    )
    assert start.status_code == 200, start.content.decode()
    round_ = Round.objects.get(table=table, status__in=["betting", "in_play"])
    names = {p.pk: p.name for p in Player.objects.select_related("user")}
    for step in range(limit):
        round_.refresh_from_db()
        if round_.status == "settled":
            return round_
        check_every_form(client, table, round_)
        offer = choose(round_offers(round_, names), round_.game, deal)
        reply = client.post(
            f"/console/tables/{table.pk}/rounds/{round_.pk}/act/",
            form_for(offer, round_, step),
            HTTP_HX_REQUEST="true",
        )
        assert reply.status_code == 200, (offer.label, reply.content.decode()[:3000])
        headline = receipt_headline(unescape(reply.content.decode()))
        assert not headline.endswith(": done."), headline  # what happened, not that it did
        assert not SNAKE_CASE.search(headline), headline
        assert not BARE_CENTS.search(headline), headline
    raise AssertionError(f"round not settled after {limit} actions: {round_.state}")


@pytest.mark.parametrize(
    ("game", "players", "spec"),
    [
        ("farmer", 3, {"ante": 500}),
        ("fan_tan", 3, {}),
        ("newmarket", 3, {}),
        ("tonk", 2, {"ante": 500}),
        ("stakes", 3, {"rules": {"variant": "gops"}}),
        ("stakes", 2, {"rules": {"variant": "page_one"}}),
    ],
)
def test_a_whole_electronic_round_through_the_offered_actions(
    floor: Floor, as_user: Any, game: str, players: int, spec: dict[str, Any]
) -> None:
    table, _ = make_table(floor, game, players, **spec)
    client = as_user(floor.dealer)
    round_ = play_round(floor, table, client)
    assert round_.status == "settled"
    assert not RefusedAction.objects.exists()
    after = client.get(f"/console/tables/{table.pk}/").content.decode()
    assert f"Deal #{round_.number} is settled" in after


@pytest.mark.parametrize(
    ("game", "players", "deal"),
    [
        ("farmer", 2, "deal"),
        ("fan_tan", 3, KEYED_DEAL),
        ("fan_tan", 3, COUNT_ONLY),
        ("newmarket", 3, KEYED_DEAL),
        ("newmarket", 3, COUNT_ONLY),
        ("tonk", 2, KEYED_DEAL),
        ("tonk", 2, COUNT_ONLY),
    ],
)
def test_a_whole_manual_round_through_the_offered_actions(
    floor: Floor, as_user: Any, game: str, players: int, deal: str
) -> None:
    """The dealer keys the cards: the 6♥ draw, a deal (every hand, or count-only), cards dealt."""
    table, _ = make_table(floor, game, players, ante=500 if game in ("farmer", "tonk") else 100)
    client = as_user(floor.dealer)
    round_ = play_round(floor, table, client, shoe="manual", deal=deal)
    assert round_.status == "settled"
    assert not RefusedAction.objects.exists()
    if deal != "deal":  # keyed: the engine knew every hand; count-only: it did not
        assert (round_.state["tracking"] == "full") is (deal == KEYED_DEAL)


def deal_electronic_round(client: Any, table: Any) -> Round:
    """The dealer's console starts an electronic round at ``table`` (as the Deal button does)."""
    client.post(
        f"/console/tables/{table.pk}/deal/",
        {"token": secrets.token_urlsafe(18), "shoe": "electronic"},
        HTTP_HX_REQUEST="true",
    )
    return Round.objects.get(table=table)


def test_an_action_not_offered_now_is_refused_in_place(floor: Floor, as_user: Any) -> None:
    table, _ = make_table(floor, "stakes", 2, rules={"variant": "gops"})
    client = as_user(floor.dealer)
    round_ = deal_electronic_round(client, table)
    reply = client.post(
        f"/console/tables/{table.pk}/rounds/{round_.pk}/act/",
        {"token": secrets.token_urlsafe(18), "action": "hit", "version": round_.version},
        HTTP_HX_REQUEST="true",
    )
    assert reply.status_code == 400
    assert "not possible now" in reply.content.decode()


def test_an_entry_no_longer_legal_is_refused_in_words_and_nothing_moves(floor: Floor, as_user: Any) -> None:
    """A button from a screen the round has moved past names an entry the engine no longer lists."""
    table, _ = make_table(floor, "fan_tan", 3)
    client = as_user(floor.dealer)
    round_ = deal_electronic_round(client, table)
    (deal,) = round_offers(round_, {})
    body = {"action": deal.key, "version": round_.version}
    url = f"/console/tables/{table.pk}/rounds/{round_.pk}/act/"
    first = client.post(url, {**body, "token": secrets.token_urlsafe(18)}, HTTP_HX_REQUEST="true")
    assert first.status_code == 200
    again = client.post(url, {**body, "token": secrets.token_urlsafe(18)}, HTTP_HX_REQUEST="true")
    assert again.status_code == 400
    assert "That action is not possible now; the screen has been refreshed." in again.content.decode()
    round_.refresh_from_db()
    assert round_.version == 1


def test_stakes_result_screen_shows_the_result(floor: Floor, as_user: Any) -> None:
    table, seated = make_table(floor, "stakes", 2, rules={"variant": "page_one"})
    client = as_user(floor.dealer)
    round_ = deal_electronic_round(client, table)
    screen = client.get(f"/console/tables/{table.pk}/").content.decode()
    assert "Who went out first?" in screen
    (result,) = round_offers(round_, {})
    reply = client.post(
        f"/console/tables/{table.pk}/rounds/{round_.pk}/act/",
        {
            "token": secrets.token_urlsafe(18),
            "action": result.key,
            "winner": seated[1].pk,
            "version": round_.version,
        },
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert f"Result: {seated[1].name} went out first." in reply
    assert f"Kate Elder paid $1.00 to {seated[1].name}" in reply
    assert f"<strong>{seated[1].name}</strong>" in reply
