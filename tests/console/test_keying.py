"""The action builders for a manual deal of Fan Tan, Newmarket and Tonk: which forms the console
offers for each shoe and tracking mode, and that a keyed deal's form is one the engine accepts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from django.http import QueryDict

from casino.errors import ValidationFailed
from tables.console.games import KEYED_DEAL, Action, Board, legal_actions, payload_from
from tables.console.keying import even_deal, initials, input_name
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


def offered(
    game: str, public: Mapping[str, Any], *, shoe: str, hands: Mapping[int, list[str]] | None = None
) -> dict[str, Action]:
    board = Board(names=NAMES, shoe=shoe, hands=dict(hands or {}))
    return {action.key: action for action in legal_actions(game, public, board)}


def keyed_form(action: Action, deck: Sequence[str]) -> QueryDict:
    """Fill the keyed-deal form as the dealer would, pile by pile, from ``deck`` in order."""
    data = QueryDict(mutable=True)
    data["action"] = action.key
    field = action.fields[0]
    cards = iter(deck)
    for slot in field.slots:
        data.setlist(input_name(field.name, slot.key), [next(cards) for _ in range(slot.size)])
    return data


def open_cards(action: Action, name: str) -> list[str]:
    spec = next(f for f in action.fields if f.name == name)
    return [c["code"] for row in spec.picker for c in row["cards"] if not c["out"]]


# --------------------------------------------------------------------------- the deal


@pytest.mark.parametrize("game", GAMES)
def test_an_electronic_deal_is_one_button_with_nothing_to_key(game: str) -> None:
    engine, state = start(game, PLAYERS[game], electronic=True)
    actions = offered(game, engine.public_state(state), shoe="electronic")
    assert list(actions) == ["deal"]
    assert actions["deal"].fields == ()


@pytest.mark.parametrize("game", GAMES)
def test_a_manual_deal_offers_keying_every_hand_or_count_only(game: str) -> None:
    engine, state = start(game, PLAYERS[game])
    actions = offered(game, engine.public_state(state), shoe="manual")
    assert list(actions) == [KEYED_DEAL, "deal"]
    keyed, count_only = actions[KEYED_DEAL], actions["deal"]
    assert keyed.label == "Key every hand"
    assert keyed.primary
    assert [f.kind for f in keyed.fields] == ["hands"]
    assert count_only.label == "Cards dealt, hands not keyed (count-only)"
    # Count-only keys nothing but Tonk's upcard, which starts the discard pile.
    assert [f.name for f in count_only.fields] == (["upcard"] if game == "tonk" else [])


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
    keyed = offered(game, engine.public_state(state), shoe="manual")[KEYED_DEAL]
    slots = keyed.fields[0].slots
    assert [(slot.key, slot.size) for slot in slots] == piles
    assert slots[0].label == NAMES.get(int(piles[0][0]), f"Player {piles[0][0]}")
    assert [slot.alone for slot in slots] == [slot.key == "upcard" for slot in slots]


@pytest.mark.parametrize("game", GAMES)
def test_a_complete_keyed_form_is_a_deal_the_engine_accepts_with_full_tracking(game: str) -> None:
    engine, state = start(game, PLAYERS[game])
    keyed = offered(game, engine.public_state(state), shoe="manual")[KEYED_DEAL]
    payload = payload_from(keyed, keyed_form(keyed, FULL_DECK))
    assert payload["type"] == "deal"
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
    keyed = offered(game, engine.public_state(state), shoe="manual")[KEYED_DEAL]
    data = keyed_form(keyed, FULL_DECK)
    first = keyed.fields[0].slots[0]
    name = input_name("hands", first.key)
    data.setlist(name, data.getlist(name)[:-1])
    with pytest.raises(ValidationFailed, match=f"{first.label} {first.size - 1} of {first.size}"):
        payload_from(keyed, data)


def test_piles_as_even_as_they_go_and_initials_for_greyed_cards() -> None:
    assert even_deal(52, 3) == [18, 17, 17]
    assert even_deal(52, 4) == [13, 13, 13, 13]
    assert sum(even_deal(52, 9)) == 52
    assert initials("Kate Elder") == "KE"
    assert initials("") == "?"


# --------------------------------------------------------------------------- play after the deal


def fan_tan_deck() -> list[str]:
    """Dealer's left (18 cards) holds 7♠, the only seven; the next player holds 6♠ and 8♠."""
    rest = [c for c in FULL_DECK if c not in {"7S", "6S", "8S", "7H", "7D", "7C"}]
    return ["7S", *rest[:17], "6S", "8S", *rest[17:32], "7H", "7D", "7C", *rest[32:]]


def deal(game: str, players: int, deck: Sequence[str] | None) -> tuple[Any, Any, dict[int, list[str]]]:
    """A manual deal, keyed from ``deck`` through the console's form (or count-only if None)."""
    engine, state = start(game, players)
    actions = offered(game, engine.public_state(state), shoe="manual")
    if deck is None:
        payload: dict[str, Any] = {"type": "deal"}
        if game == "tonk":
            payload["upcard"] = "KC"
        state, _ = engine.apply(state, payload)
        return engine, state, {}
    payload = payload_from(actions[KEYED_DEAL], keyed_form(actions[KEYED_DEAL], deck))
    state, _ = engine.apply(state, payload)
    hands = {int(k): list(v) for k, v in payload["hands"].items() if k.isdigit()}
    return engine, state, hands


def test_fan_tan_with_keyed_hands_offers_only_the_cards_held_and_flags_an_illegal_pass() -> None:
    engine, state, hands = deal("fan_tan", 3, fan_tan_deck())
    public = engine.public_state(state)
    assert public["turn"] == 20
    actions = offered("fan_tan", public, shoe="manual", hands=hands)
    assert open_cards(actions["play"], "card") == ["7S"]  # the layout takes any 7; only 7♠ is held
    assert actions["pass"].danger
    assert "illegal" in actions["pass"].label
    assert "penalty" not in actions


def test_fan_tan_count_only_offers_every_card_the_layout_takes_and_keys_penalties() -> None:
    engine, state, _ = deal("fan_tan", 3, None)
    actions = offered("fan_tan", engine.public_state(state), shoe="manual")
    assert sorted(open_cards(actions["play"], "card")) == ["7C", "7D", "7H", "7S"]
    assert not actions["pass"].danger
    state, _ = engine.apply(state, {"type": "pass", "player": 20})
    actions = offered("fan_tan", engine.public_state(state), shoe="manual")
    assert "penalty" in actions


def test_newmarket_with_keyed_hands_leads_only_the_lowest_card_held_of_each_suit() -> None:
    engine, state, hands = deal("newmarket", 3, FULL_DECK)  # 20 holds A♠–K♠
    state, _ = engine.apply(state, {"type": "keep", "player": 10})
    state, _ = engine.apply(state, {"type": "close_auction"})
    actions = offered("newmarket", engine.public_state(state), shoe="manual", hands=hands)
    assert open_cards(actions["play"], "card") == ["2S"]  # aces high: 2♠ is 20's lowest
    state, _ = engine.apply(state, {"type": "play", "player": 20, "card": "2S"})
    run = offered("newmarket", engine.public_state(state), shoe="manual", hands=hands)["play"]
    assert run.fixed == {"player": 20, "card": "3S"}
    assert run.fields == ()


def test_newmarket_count_only_leaves_the_lead_card_to_the_dealer() -> None:
    engine, state, _ = deal("newmarket", 3, None)
    state, _ = engine.apply(state, {"type": "keep", "player": 10})
    state, _ = engine.apply(state, {"type": "close_auction"})
    actions = offered("newmarket", engine.public_state(state), shoe="manual")
    assert len(open_cards(actions["play"], "card")) == 52


def test_tonk_with_keyed_hands_draws_unseen_cards_and_discards_from_the_hand() -> None:
    deck = ["2S", "3S", "9H", "JD", "KC", "4H", "6D", "8C", "10S", "QH", "5C"]
    engine, state, hands = deal("tonk", 2, [*deck, *[c for c in FULL_DECK if c not in deck]])
    public = engine.public_state(state)
    assert public["tracking"] == "full"
    assert public["discard_top"] == "5C"
    actions = offered("tonk", public, shoe="manual", hands=hands)
    stock = open_cards(actions["draw_stock"], "card")
    assert len(stock) == 52 - 11
    assert not set(stock) & set(deck)
    assert "totals" not in [f.name for f in actions["drop"].fields]
    state, _ = engine.apply(state, {"type": "draw", "player": 20, "from": "discard"})
    hands[20].append("5C")
    actions = offered("tonk", engine.public_state(state), shoe="manual", hands=hands)
    # The card just taken from the pile may not go straight back (tonk.py decisions).
    assert sorted(open_cards(actions["discard"], "card")) == sorted(deck[:5])


def test_tonk_count_only_keys_totals_on_a_drop_and_any_unseen_card() -> None:
    engine, state, _ = deal("tonk", 2, None)
    actions = offered("tonk", engine.public_state(state), shoe="manual")
    assert actions["draw_stock"].fields == ()
    assert [f.name for f in actions["drop"].fields] == ["totals"]
