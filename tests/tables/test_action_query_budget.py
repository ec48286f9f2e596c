"""A round action costs a fixed number of SQL statements, however far the round has gone.

Every game decision goes through ``tables.rounds.apply_round_action``; these pin what one bet,
one turn and one pot payment cost through ``POST /api/v1/rounds/{id}/actions``, so a read
that creeps back in fails here. Counts are as the test sees them: the request's transaction
is a savepoint inside the test's, so BEGIN/COMMIT show up as SAVEPOINT/RELEASE.

A bet on an open layout, or a pot payment from the acting player's reserve (7):
    token · SAVEPOINT · lock the round's table · lock the round (with the actions after the
    version this process has cached, its settlement count, and the wallets of the players
    seated at its table) · the ledger function (no savepoint: a refusal rolls the whole action
    back) · one statement inserting the action (with its transfer) and its settlement rows and
    updating the round · RELEASE. The answer lists only this action's settlements (API.md),
    which the service has in hand: no read of the round's list.
A turn that pays seated players: the same (7); their wallets came with the round's lock. A
turn that moves no chips: no ledger, no settlement rows (6).
A player's first bet at a table finds no layout account: the ledger refuses, the action rolls
back and runs again, opening the layout in a savepoint (not pinned: once per player and table).

A round start with reserves (14, for 2 players as for 4): token · SAVEPOINT · lock the table ·
one read of its rounds and session (a live round? the last carry, number and open session) · the
seats · the pots · INSERT the round · the reserves as one batch (lock the wallets, look up the
keys, one INSERT, one UPDATE of held) · UPDATE the round's holds · the action log · RELEASE. The
answer lists the opening's settlements, which the service has in hand.
A stakes result that settles the round (11): the action's 7, plus
the reserves released as one batch (lock the wallets, lock the holds, two UPDATEs).
"""

from __future__ import annotations

import datetime as dt
from typing import Any

import pytest

from ledger.models import Account, Transfer
from tables.accounts import layout_code
from tables.models import Round, RoundAction
from tables.replay import check_round
from tables.round_state import fold
from tables.state_cache import STATE_CACHE
from tests.factories import ApiFloor

BET = 7
TURN_PAYING = 7
TURN_MOVING_NOTHING = 6
POT_PAYMENT = 7
ROUND_START = 14
STAKES_RESULT = 11
# With an Idempotency-Key: the round's existence, SAVEPOINT, the key's claim (one INSERT … ON
# CONFLICT DO NOTHING), the UPDATE storing the response, RELEASE.
KEYED_BET = BET + 5
# A retry of that request: token, the round's existence, SAVEPOINT, the claim that finds the key
# taken, the record with its row lock, RELEASE.
KEYED_REPLAY = 6

BUY_IN = 100_000
TRAY = 1_000_000


def cards(text: str) -> list[str]:
    return text.split()


class FaroDeal:
    """A manual-shoe Faro deal of three punters, so every turn's outcome is keyed by the test."""

    def __init__(self, floor: ApiFloor) -> None:
        self.floor = floor
        table = floor.open_table(game="faro", min_bet=500, max_bet=50_000, inventory=TRAY)
        self.players = [floor.new_player(buy_in=BUY_IN) for _ in range(3)]
        for player in self.players:
            floor.seat(int(table["id"]), player)
        self.round = floor.start_round(int(table["id"]), "manual")
        self.id = int(self.round["id"])

    def act(self, action: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        self.round = self.floor.act(self.id, {**action, "version": self.round["version"]}, **kwargs)
        return self.round

    def bet(self, player: int, rank: str, amount: int = 500, **kwargs: Any) -> dict[str, Any]:
        return self.act({"type": "bet", "player": player, "ranks": [rank], "amount": amount}, **kwargs)

    def moved(self) -> list[str]:
        """The kinds of what the last action moved: its answer lists only its own settlements."""
        return [s["kind"] for s in self.round["settlements"]]


def test_a_bet_on_an_open_layout(floor: ApiFloor, django_assert_num_queries: Any) -> None:
    deal = FaroDeal(floor)
    p1, _, _ = deal.players
    deal.bet(p1, "K")  # opens p1's layout at this table

    with django_assert_num_queries(BET):
        deal.bet(p1, "Q", amount=700)

    assert deal.moved() == ["bet"]
    assert deal.round["settlements"][-1]["amount"] == 700
    assert deal.round["settlements_count"] == 2
    assert deal.round["version"] == 2


def test_a_first_bet_at_a_table_opens_the_layout_and_is_recorded_once(floor: ApiFloor) -> None:
    """The ledger refuses the unopened layout, the action rolls back and runs again: one of each."""
    deal = FaroDeal(floor)
    p1, _, _ = deal.players
    table_id = deal.round["table"]
    assert not Account.objects.filter(code=layout_code(table_id, p1)).exists()

    deal.bet(p1, "K", amount=700)

    assert Account.objects.get(code=layout_code(table_id, p1)).balance == 700
    assert RoundAction.objects.filter(round_id=deal.id).count() == 1
    assert Transfer.objects.filter(key=f"round:{deal.id}:action:1").count() == 1
    assert [(s["kind"], s["amount"]) for s in deal.round["settlements"]] == [("bet", 700)]
    assert check_round(Round.objects.get(pk=deal.id)).ok


def test_a_turn_that_pays_and_takes(floor: ApiFloor, django_assert_num_queries: Any) -> None:
    deal = FaroDeal(floor)
    p1, p2, _ = deal.players
    deal.bet(p1, "Q")
    deal.bet(p2, "K")
    deal.act({"type": "soda", "card": "3D"})

    with django_assert_num_queries(TURN_PAYING):
        deal.act({"type": "turn", "cards": ["KS", "QH"]})  # K loses, Q wins

    assert sorted(deal.moved()) == ["loss", "win"]
    assert deal.round["settlements_count"] == 2 + 2


def test_a_turn_that_moves_nothing(floor: ApiFloor, django_assert_num_queries: Any) -> None:
    deal = FaroDeal(floor)
    deal.act({"type": "soda", "card": "3D"})

    with django_assert_num_queries(TURN_MOVING_NOTHING):
        deal.act({"type": "turn", "cards": ["KS", "QH"]})

    assert deal.round["state"]["turn"] == 1
    assert deal.round["settlements"] == []
    assert deal.round["settlements_count"] == 0


def test_the_cost_does_not_grow_with_the_round(floor: ApiFloor, django_assert_num_queries: Any) -> None:
    """Late in a deal (dozens of actions and settlements to list) a bet costs what the first did."""
    deal = FaroDeal(floor)
    p1, p2, p3 = deal.players
    deal.act({"type": "soda", "card": "3D"})
    for banker, player in [("KS", "QH"), ("KH", "QD"), ("JS", "10S"), ("JH", "10H"), ("9S", "2S")]:
        deal.bet(p1, "A")
        deal.bet(p2, "4")
        deal.bet(p3, "5", amount=600)
        deal.act({"type": "turn", "cards": [banker, player]})
    assert deal.round["settlements_count"] >= 15

    with django_assert_num_queries(BET):
        early = deal.bet(p1, "A")
    with django_assert_num_queries(TURN_MOVING_NOTHING):
        deal.act({"type": "turn", "cards": ["8S", "6S"]})
    assert len(early["settlements"]) == 1  # the answer does not grow with the deal either


def test_a_pot_payment(floor: ApiFloor, django_assert_num_queries: Any) -> None:
    """A fair Fan Tan pass: one chip from the passer's reserve (a hold) into the pot."""
    table = floor.open_table(game="fan_tan", min_bet=100, max_bet=1_000, ante=100, inventory=TRAY)
    table_id = int(table["id"])
    p1, p2, p3 = (floor.new_player(buy_in=10_000) for _ in range(3))
    for seat, player in enumerate((p1, p2, p3), start=1):
        floor.seat(table_id, player, seat)
    round_ = floor.start_round(table_id, "manual")
    # p1 deals, so play goes p2, p3, p1; p2 holds no 7 and no spade, so its first pass is fair.
    hands = {
        str(p2): cards("AH 2H 3H 4H 5H 6H 8H 9H 10H JH QH KH AD 2D 3D 4D 5D 6D"),
        str(p3): cards("AS 2S 3S 4S 5S 6S 7S 8S 9S 10S JS QS KS 7H 7D 7C 8C"),
        str(p1): cards("8D 9D 10D JD QD KD AC 2C 3C 4C 5C 6C 9C 10C JC QC KC"),
    }
    round_ = floor.act(round_["id"], {"type": "deal", "hands": hands})
    before = round_["settlements_count"]

    with django_assert_num_queries(POT_PAYMENT):
        round_ = floor.act(round_["id"], {"type": "pass", "player": p2, "version": round_["version"]})

    payment = round_["settlements"]
    assert round_["settlements_count"] == before + 1
    assert [(s["kind"], s["to"], s["amount"]) for s in payment] == [("pass", f"pot:{table_id}:main", 100)]
    assert round_["state"]["pot"] == 500 + 100  # antes (the two short hands ante a chip more), the pass


def test_an_idempotent_bet_and_its_replay(floor: ApiFloor, django_assert_num_queries: Any) -> None:
    deal = FaroDeal(floor)
    p1, _, _ = deal.players
    deal.bet(p1, "K")
    body = {"type": "bet", "player": p1, "ranks": ["Q"], "amount": 500, "version": deal.round["version"]}

    with django_assert_num_queries(KEYED_BET):
        first = floor.act(deal.id, body, key="budget-bet-1")
    with django_assert_num_queries(KEYED_REPLAY):
        again = floor.act(deal.id, body, key="budget-bet-1")

    assert again == first
    assert first["version"] == 2


def test_an_unknown_round_is_a_404_with_or_without_a_key(floor: ApiFloor) -> None:
    missing = (Round.objects.order_by("-pk").values_list("pk", flat=True).first() or 0) + 1000
    for key in (None, "budget-missing-1", " "):
        body = floor.act(missing, {"type": "turn"}, status=404, key=key)
        assert body["error"]["code"] == "not_found"


def test_a_state_cached_at_an_older_version_is_caught_up(
    floor: ApiFloor, django_capture_on_commit_callbacks: Any
) -> None:
    """Another worker took the last actions: this process folds only those into its cached state,
    and the result is the state a full replay gives."""
    deal = FaroDeal(floor)
    p1, p2, _ = deal.players
    deal.bet(p1, "Q")
    deal.act({"type": "soda", "card": "3D"})
    stored = Round.objects.get(pk=deal.id)
    at_two = fold(stored)
    deal.bet(p2, "K")
    deal.act({"type": "turn", "cards": ["KS", "QH"]})
    with django_capture_on_commit_callbacks(execute=True):
        STATE_CACHE.put(stored, at_two)  # ``stored`` is at version 2
    assert STATE_CACHE.version_of(deal.id) == 2
    try:
        deal.bet(p1, "J")
    finally:
        STATE_CACHE.forget(deal.id)

    latest = Round.objects.get(pk=deal.id)
    assert latest.version == 5
    assert latest.state == deal.round["state"]
    result = check_round(latest)
    assert result.ok, result.problems


def test_a_cached_state_of_another_round_with_the_same_id_is_never_used(
    floor: ApiFloor, django_capture_on_commit_callbacks: Any
) -> None:
    """A reset database can hand an old id to a new round: its start time and commitment differ."""
    deal = FaroDeal(floor)
    p1, _, _ = deal.players
    deal.bet(p1, "Q")
    stranger = Round.objects.get(pk=deal.id)
    stranger.started_at, stranger.commitment = dt.datetime(2001, 1, 1, tzinfo=dt.UTC), "not-this-round"
    with django_capture_on_commit_callbacks(execute=True):
        STATE_CACHE.put(stranger, object())
    assert STATE_CACHE.version_of(deal.id) == 1
    try:
        deal.bet(p1, "K")  # a foreign state would fail inside the engine
    finally:
        STATE_CACHE.forget(deal.id)

    result = check_round(Round.objects.get(pk=deal.id))
    assert result.ok, result.problems
    assert [b["ranks"] for b in deal.round["state"]["bets"]] == [["Q"], ["K"]]


def _stakes_table(floor: ApiFloor, players: int) -> tuple[int, list[int]]:
    table = floor.open_table(
        game="stakes", min_bet=100, max_bet=1_000, ante=100, inventory=TRAY, rules={"variant": "Crazy Eights"}
    )
    seated = [floor.new_player(buy_in=BUY_IN) for _ in range(players)]
    for seat, player in enumerate(seated, start=1):
        floor.seat(int(table["id"]), player, seat)
    return int(table["id"]), seated


@pytest.mark.parametrize("players", [2, 4])
def test_a_round_start_and_its_settling_cost_the_same_for_any_number_of_players(
    floor: ApiFloor, django_assert_num_queries: Any, players: int
) -> None:
    """A start holds every player's reserve in one batch (tables.rounds → ledger.hold_many) and
    the settling result releases them all in one (void_holds): no statement per player."""
    table_id, seated = _stakes_table(floor, players)
    floor.act(int(floor.start_round(table_id, "manual")["id"]), {"type": "result", "winner": seated[0]})

    with django_assert_num_queries(ROUND_START):
        started = floor.start_round(table_id, "manual")
    with django_assert_num_queries(STAKES_RESULT):
        settled = floor.act(int(started["id"]), {"type": "result", "winner": seated[-1]})

    assert settled["status"] == "settled"
    assert len(settled["settlements"]) == players - 1
    round_ = Round.objects.get(pk=started["id"])
    assert len(round_.holds) == players
    assert check_round(round_).ok
