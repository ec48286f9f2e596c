"""An action's answer lists only what that action moved; ``GET /rounds/{id}/settlements`` pages
through them all (API.md "Rounds"), so a tap late in a deal answers as small as an early one."""

from __future__ import annotations

import json
from typing import Any

from casino.models import Player
from tests.factories import ApiFloor, token_for

BUY_IN = 1_000_000
TRAY = 10_000_000


def long_faro_deal(floor: ApiFloor) -> tuple[int, list[int], list[dict[str, Any]]]:
    """A manual-shoe Faro deal of 80 actions: a soda, then (three bets, a turn) again and again.

    Returns the round id, the players and every answer in order.
    """
    table = floor.open_table(game="faro", min_bet=500, max_bet=50_000, inventory=TRAY)
    players = [floor.new_player(buy_in=BUY_IN) for _ in range(3)]
    for player in players:
        floor.seat(int(table["id"]), player)
    round_ = floor.start_round(int(table["id"]), "manual")
    answers: list[dict[str, Any]] = []

    def act(action: dict[str, Any]) -> None:
        nonlocal round_
        round_ = floor.act(round_["id"], {**action, "version": round_["version"]})
        answers.append(round_)

    act({"type": "soda", "card": "AS"})
    # Banker and player cards that never hit the ranks bet on (2, 3, 4): every turn a "no action".
    pairs = [
        (f"{rank}{suit}", f"{rank}{other}") for rank in "56789" for suit, other in (("S", "H"), ("D", "C"))
    ]
    pairs += [("10S", "10H"), ("10D", "10C"), ("JS", "JH"), ("JD", "JC"), ("QS", "QH"), ("QD", "QC")]
    pairs += [("KS", "KH"), ("KD", "KC"), ("AH", "AD")]
    assert len(pairs) == 19
    for banker, dealt in pairs:
        for player, rank in zip(players, ("2", "3", "4"), strict=True):
            act({"type": "bet", "player": player, "ranks": [rank], "amount": 500})
        act({"type": "turn", "cards": [banker, dealt]})
    return int(round_["id"]), players, answers


def test_an_answer_lists_its_own_settlements_and_the_round_total(floor: ApiFloor) -> None:
    round_id, _, answers = long_faro_deal(floor)
    assert len(answers) == 77
    # Every bet lists its one settlement; every (splitless, winless) turn none; the count grows.
    assert all(len(a["settlements"]) == 1 for a in answers[1:] if (a["version"] - 1) % 4 != 0)
    assert all(a["settlements"] == [] for a in answers if (a["version"] - 1) % 4 == 0)
    assert [a["settlements_count"] for a in answers[:5]] == [0, 1, 2, 3, 3]
    assert answers[-1]["settlements_count"] == 3 * 19
    # The 5th answer and the 77th differ in their state only (more cards shown), not in settlements.
    fifth, late = answers[5], answers[-2]  # both bets
    assert len(fifth["settlements"]) == len(late["settlements"]) == 1
    # Same size but for the digits of the ids in them (a transfer id may gain a digit).
    assert abs(len(json.dumps(fifth["settlements"])) - len(json.dumps(late["settlements"]))) <= 4
    # A GET lists every settlement, in the order they were made.
    every = floor.round(round_id)
    assert every["settlements_count"] == len(every["settlements"]) == 3 * 19
    made = [s for a in answers for s in a["settlements"]]
    assert every["settlements"] == made


def test_the_settlements_page_through_oldest_first(floor: ApiFloor) -> None:
    round_id, players, _ = long_faro_deal(floor)
    every = floor.round(round_id)["settlements"]
    paged: list[dict[str, Any]] = []
    client = floor.client(floor.pit_boss)
    url: str | None = f"/api/v1/rounds/{round_id}/settlements?limit=10"
    pages = 0
    while url is not None:
        body = floor.expect(client.get(url), 200)
        assert set(body) == {"results", "next"}
        assert len(body["results"]) <= 10
        paged += body["results"]
        url, pages = body["next"], pages + 1
    assert pages == 6
    assert paged == every
    assert {s["kind"] for s in paged} == {"bet"}
    assert {s["player"] for s in paged} == set(players)
    assert {s["to"] for s in paged if s["player"] == players[0]} == {
        f"layout:{floor.table_ids[0]}:{players[0]}"
    }


def test_the_settlements_list_is_for_staff_and_refuses_bad_input(floor: ApiFloor) -> None:
    round_id, players, _ = long_faro_deal(floor)
    dealer = floor.client(floor.dealer)
    assert len(floor.expect(dealer.get(f"/api/v1/rounds/{round_id}/settlements"), 200)["results"]) == 50

    from rest_framework.test import APIClient

    punter = APIClient()
    punter.credentials(HTTP_AUTHORIZATION=f"Token {token_for(Player.objects.get(pk=players[0]).user)}")
    assert floor.expect(punter.get(f"/api/v1/rounds/{round_id}/settlements"), 403)["error"]["code"]
    assert floor.expect(APIClient().get(f"/api/v1/rounds/{round_id}/settlements"), 401)
    missing = floor.expect(dealer.get(f"/api/v1/rounds/{round_id + 1000}/settlements"), 404)
    assert missing["error"]["code"] == "not_found"
    for query in ("limit=0", "limit=abc", "cursor=not-a-cursor"):
        refused = floor.expect(dealer.get(f"/api/v1/rounds/{round_id}/settlements?{query}"), 400)
        assert refused["error"]["code"] in {"invalid", "invalid_cursor"}
