"""The pot and stakes games on the console: whole rounds played only through the actions the
console offers, so every offered action is one the engine accepts."""

from __future__ import annotations

import secrets
from typing import Any

import pytest
from django.test import Client

from casino.models import Player
from casino.services import buy_in, create_player
from tables.console.games import Action, Board, known_hands, legal_actions
from tables.models import RefusedAction, Round, Table
from tables.services import assign_dealer, create_table, open_table, seat_player
from tests.console.conftest import PASSWORD, Floor

pytestmark = pytest.mark.django_db

# Which offered action a test dealer takes first, per game (the engines decide the rest).
PREFERENCE = {
    "farmer": ["farmer", "deal", "stay", "hit"],
    "fan_tan": ["deal", "play", "pass"],
    "newmarket": ["deal", "keep", "close_auction", "play", "pass"],
    "tonk": ["deal", "draw_stock", "discard", "draw_discard"],
    "stakes": ["result"],
}


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


def form_for(action: Action, round_: Round, step: int) -> dict[str, Any]:
    """Fill an offered form as a dealer would: the first card that can be picked, the first choice."""
    data: dict[str, Any] = {
        "token": secrets.token_urlsafe(18),
        "action": action.key,
        "version": round_.version,
    }
    for field in action.fields:
        if field.kind in ("player", "choice") and field.required:
            data[field.name] = field.choices[0][0]
        elif field.kind in ("card", "cards"):
            open_cards = [c["code"] for row in field.picker for c in row["cards"] if not c["out"]]
            data[field.name] = open_cards[0] if field.kind == "card" else open_cards[:3]
        elif field.kind == "money":
            data[field.name] = "1"
        elif field.kind == "scores":
            for index, (pid, _) in enumerate(field.players):
                data[f"{field.name}_{pid}"] = (index * 7 + step) % 23
    return data


def choose(actions: list[Action], game: str) -> Action:
    def playable(action: Action) -> bool:
        pickers = [f for f in action.fields if f.kind in ("card", "cards")]
        return all(any(not c["out"] for row in f.picker for c in row["cards"]) for f in pickers)

    ranked = sorted(
        (a for a in actions if playable(a)),
        key=lambda a: PREFERENCE[game].index(a.key) if a.key in PREFERENCE[game] else 99,
    )
    assert ranked, f"the console offered nothing playable: {[a.key for a in actions]}"
    return ranked[0]


def play_round(
    floor: Floor, table: Table, client: Client, *, shoe: str = "electronic", limit: int = 400
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
        board = Board(names=names, shoe=round_.shoe, hands=known_hands(round_))
        if step % 10 == 0:
            assert client.get(f"/console/tables/{table.pk}/").status_code == 200
        action = choose(legal_actions(round_.game, round_.state, board), round_.game)
        reply = client.post(
            f"/console/tables/{table.pk}/rounds/{round_.pk}/act/",
            form_for(action, round_, step),
            HTTP_HX_REQUEST="true",
        )
        assert reply.status_code == 200, (action, reply.content.decode()[:3000])
        assert ": done." in reply.content.decode()
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


@pytest.mark.parametrize(("game", "players"), [("fan_tan", 3), ("newmarket", 3), ("farmer", 2)])
def test_manual_rounds_start_with_what_the_dealer_keys(
    floor: Floor, as_user: Any, game: str, players: int
) -> None:
    table, _ = make_table(floor, game, players, **({"ante": 500} if game == "farmer" else {}))
    client = as_user(floor.dealer)
    client.post(
        f"/console/tables/{table.pk}/deal/",
        {"token": secrets.token_urlsafe(18), "shoe": "manual"},
        HTTP_HX_REQUEST="true",
    )
    round_ = Round.objects.get(table=table)
    board = Board(names={}, shoe="manual", hands=known_hands(round_))
    first = choose(legal_actions(game, round_.state, board), game)
    reply = client.post(
        f"/console/tables/{table.pk}/rounds/{round_.pk}/act/",
        form_for(first, round_, 0),
        HTTP_HX_REQUEST="true",
    )
    assert reply.status_code == 200, reply.content.decode()[:2000]
    round_.refresh_from_db()
    assert round_.version == 1


def test_an_action_not_offered_now_is_refused_in_place(floor: Floor, as_user: Any) -> None:
    table, _ = make_table(floor, "stakes", 2, rules={"variant": "gops"})
    client = as_user(floor.dealer)
    client.post(
        f"/console/tables/{table.pk}/deal/",
        {"token": secrets.token_urlsafe(18), "shoe": "electronic"},
        HTTP_HX_REQUEST="true",
    )
    round_ = Round.objects.get(table=table)
    reply = client.post(
        f"/console/tables/{table.pk}/rounds/{round_.pk}/act/",
        {"token": secrets.token_urlsafe(18), "action": "hit", "version": round_.version},
        HTTP_HX_REQUEST="true",
    )
    assert reply.status_code == 400
    assert "not possible now" in reply.content.decode()


def test_stakes_result_screen_shows_the_result(floor: Floor, as_user: Any) -> None:
    table, seated = make_table(floor, "stakes", 2, rules={"variant": "page_one"})
    client = as_user(floor.dealer)
    client.post(
        f"/console/tables/{table.pk}/deal/",
        {"token": secrets.token_urlsafe(18), "shoe": "electronic"},
        HTTP_HX_REQUEST="true",
    )
    round_ = Round.objects.get(table=table)
    screen = client.get(f"/console/tables/{table.pk}/").content.decode()
    assert "Who went out first?" in screen
    reply = client.post(
        f"/console/tables/{table.pk}/rounds/{round_.pk}/act/",
        {
            "token": secrets.token_urlsafe(18),
            "action": "result",
            "winner": seated[1].pk,
            "version": round_.version,
        },
        HTTP_HX_REQUEST="true",
    ).content.decode()
    assert "Record the result: done." in reply
    assert f"Kate Elder paid $1.00 to {seated[1].name}" in reply
    assert f"<strong>{seated[1].name}</strong>" in reply
