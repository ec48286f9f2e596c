"""The forms the console offers for a manual deal of Fan Tan, Newmarket and Tonk, drawn from the
engine's ``legal_actions``: which forms each shoe and tracking mode gives, and that a keyed
deal's form is one the engine accepts."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest
from django.http import QueryDict

from casino.errors import ValidationFailed
from tables.console.dealer.cards import card_label
from tables.console.dealer.games import COUNT_ONLY, KEYED_DEAL, Offer, offers, payload_from
from tables.console.dealer.keying import initials, input_name
from tables.games.base import TableContext
from tables.games.cards import FULL_DECK
from tables.games.registry import engine_for

PLAYERS = {"fan_tan": 3, "newmarket": 3, "tonk": 2}
NAMES = {10: "Kate Elder", 20: "Wyatt Earp", 30: "Doc Holliday", 40: "Belle Starr"}
GAMES = sorted(PLAYERS)


def start(game: str, players: int, *, electronic: bool = False) -> tuple[Any, Any]:
    engine = engine_for(game)
    seats = {seat: seat * 10 for seat in range(1, players + 1)}
    ctx = TableContext(
        rules={},
        seats=seats,
        min_bet=100,
        max_bet=5_000,
        ante=100,
        deck=tuple(FULL_DECK) if electronic else None,
    )
    state, _ = engine.start(ctx)
    return engine, state


def offered(game: str, engine: Any, state: Any) -> list[Offer]:
    return offers(game, engine.legal_actions(state), NAMES, engine.public_state(state))


def by_kind(made: list[Offer]) -> dict[str, Offer]:
    """The offers by kind, for kinds offered once."""
    return {offer.kind: offer for offer in made}


def keyed_form(action: Offer, deck: Sequence[str]) -> QueryDict:
    """Fill the keyed-deal form as the dealer would, pile by pile, from ``deck`` in order."""
    data = QueryDict(mutable=True)
    data["action"] = action.key
    field = action.fields[0]
    cards = iter(deck)
    for slot in field.slots:
        data.setlist(input_name(field.name, slot.key), [next(cards) for _ in range(slot.size)])
    return data


def open_cards(action: Offer, name: str) -> list[str]:
    spec = next(f for f in action.fields if f.name == name)
    return [c["code"] for row in spec.picker for c in row["cards"] if not c["out"]]


# --------------------------------------------------------------------------- the deal


@pytest.mark.parametrize("game", GAMES)
def test_an_electronic_deal_is_one_button_with_nothing_to_key(game: str) -> None:
    engine, state = start(game, PLAYERS[game], electronic=True)
    (deal,) = offered(game, engine, state)
    assert (deal.kind, deal.label, deal.one_tap) == ("deal", "Deal the cards", True)


@pytest.mark.parametrize("game", GAMES)
def test_a_manual_deal_offers_keying_every_hand_or_count_only(game: str) -> None:
    engine, state = start(game, PLAYERS[game])
    made = offered(game, engine, state)
    assert [offer.kind for offer in made] == [KEYED_DEAL, COUNT_ONLY]
    keyed, count_only = made
    assert keyed.label == "Key every hand"
    assert keyed.style == "primary"
    assert [f.kind for f in keyed.fields] == ["hands"]
    assert count_only.label == "Cards dealt, hands not keyed (count-only)"
    # Count-only keys nothing but Tonk's upcard (and, if shown, a tonk on the deal).
    fields = [(f.name, f.required) for f in count_only.fields]
    assert fields == ([("upcard", True), ("tonks", False)] if game == "tonk" else [])


@pytest.mark.parametrize(
    ("game", "players", "piles"),
    [
        ("fan_tan", 3, [("20", 18), ("30", 17), ("10", 17)]),
        ("fan_tan", 8, [(str(p), 7 if i < 4 else 6) for i, p in enumerate([20, 30, 40, 50, 60, 70, 80, 10])]),
        ("newmarket", 3, [("20", 13), ("30", 13), ("10", 13), ("widow", 13)]),
        ("newmarket", 4, [("20", 11), ("30", 11), ("40", 10), ("10", 10), ("widow", 10)]),
        ("tonk", 2, [("20", 5), ("10", 5), ("upcard", 1)]),
        ("tonk", 4, [("20", 5), ("30", 5), ("40", 5), ("10", 5), ("upcard", 1)]),
    ],
)
def test_the_piles_follow_the_deal_from_the_dealers_left(
    game: str, players: int, piles: list[tuple[str, int]]
) -> None:
    engine, state = start(game, players)
    keyed = by_kind(offered(game, engine, state))[KEYED_DEAL]
    slots = keyed.fields[0].slots
    assert [(slot.key, slot.size) for slot in slots] == piles
    assert slots[0].label == NAMES.get(int(piles[0][0]), f"Player {piles[0][0]}")
    assert [slot.alone for slot in slots] == [slot.key == "upcard" for slot in slots]


@pytest.mark.parametrize("game", GAMES)
def test_a_complete_keyed_form_is_a_deal_the_engine_accepts_with_full_tracking(game: str) -> None:
    engine, state = start(game, PLAYERS[game])
    keyed = by_kind(offered(game, engine, state))[KEYED_DEAL]
    payload = payload_from(keyed, keyed_form(keyed, FULL_DECK))
    assert payload["type"] == "deal"
    assert not {"needs", "count", "choices"} & set(payload)  # the hints stay behind
    dealt, _ = engine.apply(state, payload)
    assert engine.public_state(dealt)["tracking"] == "full"
    if game == "tonk":
        assert payload["upcard"] == FULL_DECK[10]
        assert "upcard" not in payload["hands"]
    if game == "newmarket":
        assert len(payload["hands"]["widow"]) == 13


@pytest.mark.parametrize("game", GAMES)
def test_an_incomplete_hand_is_refused_before_the_engine_naming_the_hand(game: str) -> None:
    engine, state = start(game, PLAYERS[game])
    keyed = by_kind(offered(game, engine, state))[KEYED_DEAL]
    data = keyed_form(keyed, FULL_DECK)
    first = keyed.fields[0].slots[0]
    name = input_name("hands", first.key)
    data.setlist(name, data.getlist(name)[:-1])
    with pytest.raises(ValidationFailed, match=f"{first.label} {first.size - 1} of {first.size}"):
        payload_from(keyed, data)


def test_initials_mark_greyed_cards() -> None:
    assert initials("Kate Elder") == "KE"
    assert initials("") == "?"


# --------------------------------------------------------------------------- play after the deal


def fan_tan_deck() -> list[str]:
    """Dealer's left (18 cards) holds 7♠, the only seven; the next player holds 6♠ and 8♠."""
    rest = [c for c in FULL_DECK if c not in {"7S", "6S", "8S", "7H", "7D", "7C"}]
    return ["7S", *rest[:17], "6S", "8S", *rest[17:32], "7H", "7D", "7C", *rest[32:]]


def deal(game: str, players: int, deck: Sequence[str] | None) -> tuple[Any, Any]:
    """A manual deal, keyed from ``deck`` through the console's form (or count-only if None)."""
    engine, state = start(game, players)
    made = by_kind(offered(game, engine, state))
    if deck is None:
        payload: dict[str, Any] = {"type": "deal"}
        if game == "tonk":
            payload["upcard"] = "KC"
        state, _ = engine.apply(state, payload)
        return engine, state
    state, _ = engine.apply(state, payload_from(made[KEYED_DEAL], keyed_form(made[KEYED_DEAL], deck)))
    return engine, state


def labels(made: list[Offer], kind: str) -> list[str]:
    return [offer.label for offer in made if offer.kind == kind]


def test_fan_tan_with_keyed_hands_offers_only_the_cards_held_and_flags_an_illegal_pass() -> None:
    engine, state = deal("fan_tan", 3, fan_tan_deck())
    assert engine.public_state(state)["turn"] == 20
    made = offered("fan_tan", engine, state)
    # The layout takes any 7; only 7♠ is held: one button, no picker.
    assert labels(made, "play") == ["Wyatt Earp plays 7♠"]
    assert all(offer.one_tap for offer in made)
    # A pass now is an illegal pass, charged at once: a danger button that says so, no plain pass.
    (passing,) = [offer for offer in made if offer.entry["type"] == "pass"]
    assert passing.kind == "pass-illegal"
    assert passing.style == "danger"
    assert "illegal pass" in passing.label
    assert not labels(made, "penalty")


def test_fan_tan_count_only_offers_every_card_the_layout_takes_and_keys_penalties() -> None:
    engine, state = deal("fan_tan", 3, None)
    made = offered("fan_tan", engine, state)
    assert sorted(labels(made, "play")) == sorted(f"Wyatt Earp plays 7{s}" for s in "♠♥♦♣")
    assert labels(made, "pass") == ["Wyatt Earp passes"]
    state, _ = engine.apply(state, {"type": "pass", "player": 20})
    (penalty,) = [offer for offer in offered("fan_tan", engine, state) if offer.kind == "penalty"]
    assert penalty.label == "Illegal pass caught: Wyatt Earp"
    assert [(f.name, f.kind, f.required) for f in penalty.fields] == [
        ("seven", "card", False),
        ("six_holder", "player", False),
        ("eight_holder", "player", False),
    ]
    assert payload_from(penalty, QueryDict()) == {"type": "penalty", "player": 20}


def test_newmarket_with_keyed_hands_leads_only_the_lowest_card_held_of_each_suit() -> None:
    engine, state = deal("newmarket", 3, FULL_DECK)  # 20 holds A♠–K♠
    state, _ = engine.apply(state, {"type": "keep", "player": 10})
    state, _ = engine.apply(state, {"type": "close_auction"})
    assert labels(offered("newmarket", engine, state), "play") == ["Wyatt Earp plays 2♠"]  # aces high
    state, _ = engine.apply(state, {"type": "play", "player": 20, "card": "2S"})
    (run,) = offered("newmarket", engine, state)
    assert (run.label, run.one_tap) == ("Wyatt Earp plays 3♠", True)


def test_newmarket_count_only_leaves_the_lead_card_to_the_dealer() -> None:
    engine, state = deal("newmarket", 3, None)
    state, _ = engine.apply(state, {"type": "keep", "player": 10})
    state, _ = engine.apply(state, {"type": "close_auction"})
    lead = by_kind(offered("newmarket", engine, state))["play"]
    assert lead.label == "Wyatt Earp leads"
    assert len(open_cards(lead, "card")) == 52


def test_tonk_with_keyed_hands_draws_unseen_cards_and_discards_from_the_hand() -> None:
    deck = ["2S", "3S", "9H", "JD", "KC", "4H", "6D", "8C", "10S", "QH", "5C"]
    engine, state = deal("tonk", 2, [*deck, *[c for c in FULL_DECK if c not in deck]])
    public = engine.public_state(state)
    assert public["tracking"] == "full"
    assert public["discard_top"] == "5C"
    made = offered("tonk", engine, state)
    (stock,) = [offer for offer in made if offer.entry.get("from") == "stock"]
    assert stock.label == "Wyatt Earp draws from the stock"
    assert len(open_cards(stock, "card")) == 52 - 11
    assert not set(open_cards(stock, "card")) & set(deck)
    assert by_kind(made)["drop"].one_tap  # hands known: no totals to key
    state, _ = engine.apply(state, {"type": "draw", "player": 20, "from": "discard"})
    # The card just taken from the pile may not go straight back (tonk.py decisions).
    discards = labels(offered("tonk", engine, state), "discard")
    assert sorted(discards) == sorted(f"Wyatt Earp discards {card_label(card)}" for card in deck[:5])


def test_tonk_count_only_keys_totals_on_a_drop_and_any_unseen_card() -> None:
    engine, state = deal("tonk", 2, None)
    made = offered("tonk", engine, state)
    (stock,) = [offer for offer in made if offer.entry.get("from") == "stock"]
    assert stock.one_tap  # count-only: the card drawn is not keyed
    drop = by_kind(made)["drop"]
    assert [(f.name, f.kind) for f in drop.fields] == [("totals", "numbers")]
    assert [row["name"] for row in drop.fields[0].rows] == ["Wyatt Earp", "Kate Elder"]
    assert all(row["low"] is not None for row in drop.fields[0].rows)  # the engine's bounds
