"""Corrections through the HTTP API (API.md "Rounds", GAMES.md; issue 20 item 9).

Each voided case checks "as if the voided actions had never been made" against the table as it
stood before them: every balance the round can move, the round's public state, a clean replay,
and the reversal records that made it so (one reversing transfer per voided transfer).
"""

from __future__ import annotations

from typing import Any

from django.db.models import F

from casino.models import Player
from ledger.gaming_day import gaming_day_for
from ledger.models import Transfer
from ledger.selectors import get_balance, get_trial_balance
from ledger.services import Leg, close_gaming_day, post_transfer
from tables.accounts import layout_code
from tables.games.registry import engine_for
from tables.models import Correction, Round, RoundAction
from tables.replay import check_round
from tables.round_state import fold
from tests.factories import ApiFloor, table_money

TRAY = 1_000_000


class Table:
    """One table of ``game`` with players seated, and the correction calls of API.md."""

    def __init__(self, floor: ApiFloor, *, game: str, players: int, ante: int = 0, rules: Any = None):
        self.floor = floor
        table = floor.open_table(
            game=game, min_bet=100, max_bet=10_000, ante=ante, rules=rules, inventory=TRAY
        )
        self.id = int(table["id"])
        self.players = [floor.new_player(buy_in=50_000) for _ in range(players)]
        for seat, player in enumerate(self.players, start=1):
            floor.seat(self.id, player, seat)

    def money(self) -> dict[str, int]:
        return table_money(self.id, self.players)

    def ask(self, round_id: int, void: Any, reason: str = "mis-keyed", status: int = 201) -> Any:
        body = {"void": void, "reason": reason}
        return self.floor.post(self.floor.dealer, f"rounds/{round_id}/corrections", body, status)

    def approve(self, correction_id: int, status: int = 200, by: Any = None) -> Any:
        return self.floor.post(by or self.floor.pit_boss, f"corrections/{correction_id}/approve", {}, status)

    def void(self, round_id: int, void: Any) -> dict[str, Any]:
        asked = self.ask(round_id, void)
        assert asked["status"] == "pending"
        return self.approve(asked["id"])


def assert_as_if_never(round_id: int, *, money: dict[str, int], state: dict[str, Any], t: Table) -> None:
    """The ledger and the replay are those of the round without the voided actions."""
    assert t.money() == money
    round_ = Round.objects.get(pk=round_id)
    assert round_.state == state
    result = check_round(round_)
    assert result.ok, result.problems
    assert engine_for(round_.game).public_state(fold(round_)) == state
    trial = get_trial_balance()
    assert trial.total_debits == trial.total_credits


def assert_reversed(correction_id: int) -> None:
    """Every transfer of the voided actions has exactly one reversal, pointing at it."""
    correction = Correction.objects.get(pk=correction_id)
    assert correction.status == "approved"
    voided = RoundAction.all_objects.filter(voided_by=correction)
    originals = {a.transfer_id for a in voided if a.transfer_id}
    reversals = Transfer.objects.filter(pk__in=correction.reversals)
    assert {r.reverses_id for r in reversals} >= originals
    assert all(r.kind == "reversal" for r in reversals)
    assert len(correction.reversals) == len({r.reverses_id for r in reversals})


def test_a_voided_faro_bet_is_as_if_never_placed_and_play_goes_on(floor: ApiFloor) -> None:
    t = Table(floor, game="faro", players=1)
    (p,) = t.players
    round_id = floor.start_round(t.id, "manual")["id"]
    floor.act(round_id, {"type": "soda", "card": "3D"})
    before, state = t.money(), floor.round(round_id)["state"]

    floor.act(round_id, {"type": "bet", "player": p, "ranks": ["K"], "amount": 2_000})
    assert t.money() != before
    bet_transfer = RoundAction.objects.get(round_id=round_id, seq=2).transfer_id

    asked = t.ask(round_id, "last", reason="bet keyed for the wrong player")
    assert (asked["void"], asked["from_seq"], asked["requested_by"]) == ("last", 2, floor.dealer.pk)
    assert t.money() != before  # nothing moves on the request
    after = t.approve(asked["id"])
    assert after["state"]["bets"] == []
    assert_as_if_never(round_id, money=before, state=state, t=t)
    assert_reversed(asked["id"])
    assert Transfer.objects.filter(reverses_id=bet_transfer).count() == 1
    assert RoundAction.all_objects.get(round_id=round_id, seq=2).voided_by_id == asked["id"]

    # The table plays on: a new bet and a turn, with versions continuing past the correction.
    assert after["version"] == 3
    played = floor.act(round_id, {"type": "bet", "player": p, "ranks": ["9"], "amount": 1_000})
    assert played["version"] == 4
    floor.act(round_id, {"type": "turn", "cards": ["9S", "KH"]})
    assert check_round(Round.objects.get(pk=round_id)).ok


def test_a_voided_turn_that_paid_takes_the_payout_back_and_its_cards_return_to_the_shoe(
    floor: ApiFloor,
) -> None:
    t = Table(floor, game="faro", players=1)
    (p,) = t.players
    round_id = floor.start_round(t.id, "manual")["id"]
    floor.act(round_id, {"type": "soda", "card": "3D"})
    floor.act(round_id, {"type": "bet", "player": p, "ranks": ["K"], "amount": 2_000})
    before, state = t.money(), floor.round(round_id)["state"]

    paid = floor.act(round_id, {"type": "turn", "cards": ["9S", "KH"]})
    assert [s["kind"] for s in paid["settlements"]][-1:] != []
    assert t.money()[f"wallet:{p}"] == before[f"wallet:{p}"] + 2_000  # the K won

    correction = t.void(round_id, "last")
    assert correction["state"]["turn"] == state["turn"]
    assert_as_if_never(round_id, money=before, state=state, t=t)
    assert_reversed(Correction.objects.get(round_id=round_id).pk)
    # The voided turn's cards are back in the shoe: the right cards can be keyed now.
    floor.act(round_id, {"type": "turn", "cards": ["KH", "9S"]})
    assert t.money()[f"wallet:{p}"] == before[f"wallet:{p}"]  # the K lost this time
    assert check_round(Round.objects.get(pk=round_id)).ok


def _play_until_one_action_wins(floor: ApiFloor, round_id: int) -> dict[str, Any]:
    """Legal moves until the next one ends the round (wins the pot); returns that action."""
    stored = Round.objects.get(pk=round_id)
    engine = engine_for(stored.game)
    state = fold(stored)
    for _ in range(600):
        legal = [a for a in engine.legal_actions(state) if "needs" not in a]
        action = next(a for kind in ("deal", "play", "pass") for a in legal if a["type"] == kind)
        after, _ = engine.apply(state, action)
        if engine.is_over(after):
            return action
        floor.act(round_id, action)
        state = after
    raise AssertionError("the round did not come to its last play")


def test_a_voided_pot_winning_play_reopens_the_round_and_restores_the_pot(floor: ApiFloor) -> None:
    t = Table(floor, game="fan_tan", players=3, ante=100)
    round_id = floor.start_round(t.id, "electronic")["id"]
    winning = _play_until_one_action_wins(floor, round_id)
    before, state = t.money(), floor.round(round_id)["state"]
    pot = "pot:main"
    assert before[pot] > 0
    holds_before = {p: floor.balance(p)["in_play"] for p in t.players}

    won = floor.act(round_id, winning)
    assert won["status"] == "settled"
    assert t.money()[pot] == 0

    reopened = t.void(round_id, "last")
    assert reopened["status"] == "in_play"
    assert_as_if_never(round_id, money=before, state=state, t=t)
    assert_reversed(Correction.objects.get(round_id=round_id).pk)
    # The players' table-stakes reserves are held again, as they were before the play.
    assert {p: floor.balance(p)["in_play"] for p in t.players} == holds_before
    # The same play wins again, and the round settles and is checked like any other.
    assert floor.act(round_id, winning)["status"] == "settled"
    assert t.money()[pot] == 0
    assert check_round(Round.objects.get(pk=round_id)).ok


def test_a_misdeal_voids_the_whole_round_antes_and_all(floor: ApiFloor) -> None:
    t = Table(floor, game="fan_tan", players=3, ante=100)
    before = t.money()
    wallets = {p: floor.balance(p) for p in t.players}
    round_id = floor.start_round(t.id, "electronic")["id"]
    stored = Round.objects.get(pk=round_id)
    engine = engine_for(stored.game)
    state = fold(stored)
    for _ in range(4):
        legal = [a for a in engine.legal_actions(state) if "needs" not in a]
        action = next(a for kind in ("deal", "play", "pass") for a in legal if a["type"] == kind)
        floor.act(round_id, action)
        state, _ = engine.apply(state, action)
    assert t.money() != before

    voided = t.void(round_id, "round")
    assert voided["status"] == "void"
    assert t.money() == {**before, "pot:main": 0}  # the pot account, opened by the antes, is empty again
    for p in t.players:
        now = floor.balance(p)
        assert (now["available"], now["in_play"]) == (wallets[p]["available"], wallets[p]["in_play"])
    assert check_round(Round.objects.get(pk=round_id)).ok
    assert_reversed(Correction.objects.get(round_id=round_id).pk)
    # The table deals on.
    assert floor.start_round(t.id, "electronic")["status"] in {"betting", "in_play"}


def test_a_voided_stakes_result_reopens_the_round_with_its_reserves(floor: ApiFloor) -> None:
    t = Table(floor, game="stakes", players=3, ante=500, rules={"settle": "first_out"})
    round_id = floor.start_round(t.id, "electronic")["id"]
    before, state = t.money(), floor.round(round_id)["state"]
    in_play = {p: floor.balance(p)["in_play"] for p in t.players}
    floor.act(round_id, {"type": "result", "winner": t.players[0]})
    assert t.money() != before
    reopened = t.void(round_id, "last")
    assert reopened["status"] != "settled"
    assert_as_if_never(round_id, money=before, state=state, t=t)
    assert {p: floor.balance(p)["in_play"] for p in t.players} == in_play
    floor.act(round_id, {"type": "result", "winner": t.players[1]})
    assert check_round(Round.objects.get(pk=round_id)).ok


def test_two_people_refusal_moves_nothing_and_one_pending_at_a_time(floor: ApiFloor) -> None:
    t = Table(floor, game="faro", players=1)
    (p,) = t.players
    round_id = floor.start_round(t.id, "manual")["id"]
    floor.act(round_id, {"type": "bet", "player": p, "ranks": ["K"], "amount": 2_000})
    asked = t.ask(round_id, "last")
    again = t.ask(round_id, "last", status=409)
    assert again["error"]["code"] == "correction_pending"
    # The dealer who asked cannot decide it (a dealer is no approver either).
    denied = t.approve(asked["id"], status=403, by=floor.dealer)
    assert denied["error"]["code"] in {"forbidden", "separation_of_duties"}
    money = t.money()
    refused = floor.post(floor.pit_boss, f"corrections/{asked['id']}/refuse", {"note": "the bet stands"}, 200)
    assert (refused["status"], refused["note"]) == ("refused", "the bet stands")
    assert t.money() == money
    assert RoundAction.objects.filter(round_id=round_id).count() == 1
    late = t.approve(asked["id"], status=409)
    assert late["error"]["code"] == "correction_decided"


def test_the_requester_can_never_approve_even_as_an_admin(floor: ApiFloor) -> None:
    from casino.models import Role
    from tests.factories import staff

    t = Table(floor, game="faro", players=1)
    round_id = floor.start_round(t.id, "manual")["id"]
    floor.act(round_id, {"type": "bet", "player": t.players[0], "ranks": ["K"], "amount": 2_000})
    asked = t.ask(round_id, "last")
    Correction.objects.filter(pk=asked["id"]).update(requested_by=staff(Role.ADMIN))
    admin = Correction.objects.get(pk=asked["id"]).requested_by
    body = t.approve(asked["id"], status=403, by=admin)
    assert body["error"]["code"] == "separation_of_duties"


def test_a_correction_is_refused_once_the_round_moved_on_or_its_day_is_closed(floor: ApiFloor) -> None:
    t = Table(floor, game="faro", players=1)
    (p,) = t.players
    round_id = floor.start_round(t.id, "manual")["id"]
    floor.act(round_id, {"type": "bet", "player": p, "ranks": ["K"], "amount": 2_000})
    asked = t.ask(round_id, "last")
    paused = floor.act(round_id, {"type": "bet", "player": p, "ranks": ["Q"], "amount": 1_000}, status=409)
    assert paused["error"]["code"] == "correction_pending"
    # Play is paused while it waits, so only a change outside the API could move the round on.
    Round.objects.filter(pk=round_id).update(version=F("version") + 1)
    stale = t.approve(asked["id"], status=409)
    assert stale["error"]["code"] == "stale_correction"
    floor.post(floor.pit_boss, f"corrections/{asked['id']}/refuse", {}, 200)

    bad = t.ask(round_id, {"from": 99}, status=400)
    assert bad["error"]["code"] == "invalid"
    assert t.ask(round_id, "sideways", status=400)["error"]["code"] == "invalid"
    assert t.ask(round_id, "last", reason="  ", status=400)["error"]["code"] == "invalid"

    close_gaming_day(day=gaming_day_for(Round.objects.get(pk=round_id).started_at))
    closed = t.ask(round_id, "last", status=409)
    assert closed["error"]["code"] == "day_closed"


def test_only_the_assigned_dealer_asks(floor: ApiFloor) -> None:
    t = Table(floor, game="faro", players=1)
    round_id = floor.start_round(t.id, "manual")["id"]
    floor.act(round_id, {"type": "bet", "player": t.players[0], "ranks": ["K"], "amount": 2_000})
    body = floor.post(floor.pit_boss, f"rounds/{round_id}/corrections", {"void": "last", "reason": "x"}, 403)
    assert body["error"]["code"] == "forbidden"
    assert Player.objects.count() == 1


def test_a_faro_misdeal_after_decided_bets_returns_every_chip(floor: ApiFloor) -> None:
    """Issue 44: a bet's return reversed before the loss that emptied its layout was refused
    (409 insufficient_funds): the reversals must run in an order that cannot fail."""
    t = Table(floor, game="faro", players=3)
    a, b, c = t.players
    before = t.money()
    round_id = floor.start_round(t.id, "manual")["id"]
    floor.act(round_id, {"type": "soda", "card": "3D"})
    floor.act(round_id, {"type": "bet", "player": a, "ranks": ["K"], "amount": 2_000})
    floor.act(round_id, {"type": "bet", "player": b, "ranks": ["9"], "amount": 3_000})
    floor.act(round_id, {"type": "bet", "player": c, "ranks": ["5"], "amount": 5_000})
    floor.act(round_id, {"type": "bet", "player": a, "target": "high", "amount": 1_000})
    floor.act(round_id, {"type": "turn", "cards": ["KH", "9S"]})  # a's K loses, b's 9 wins, high loses
    floor.act(round_id, {"type": "bet", "player": a, "ranks": ["Q"], "amount": 2_000})
    floor.act(round_id, {"type": "turn", "cards": ["5C", "QD"]})  # c's 5 loses, a's Q wins
    floor.act(round_id, {"type": "bet", "player": b, "target": "high", "amount": 1_000})
    floor.act(round_id, {"type": "turn", "cards": ["2S", "JH"]})  # b's high wins
    assert t.money() != before

    voided = t.void(round_id, "round")
    assert voided["status"] == "void"
    assert t.money() == before
    assert all(get_balance(code=layout_code(t.id, p)) == 0 for p in t.players)
    assert check_round(Round.objects.get(pk=round_id)).ok
    assert_reversed(Correction.objects.get(round_id=round_id).pk)


def _faro_win_cashed_out(floor: ApiFloor) -> tuple[Table, int, int, dict[str, int]]:
    """A $20 bet on K wins $20 from the bank and the punter cashes their whole wallet out."""
    t = Table(floor, game="faro", players=1)
    (p,) = t.players
    before = t.money()
    round_id = floor.start_round(t.id, "manual")["id"]
    floor.act(round_id, {"type": "soda", "card": "3D"})
    floor.act(round_id, {"type": "bet", "player": p, "ranks": ["K"], "amount": 2_000})
    floor.act(round_id, {"type": "turn", "cards": ["9S", "KH"]})  # the K wins; the bet rides
    cash = floor.balance(p)["available"]
    floor.post(floor.cashier, "cage/cash-outs", {"player": p, "amount": cash}, 201)
    assert floor.balance(p)["available"] == 0
    return t, p, round_id, before


def test_a_misdeal_goes_back_whole_after_the_punter_cashed_a_win_out(floor: ApiFloor) -> None:
    """The win's reversal cannot post before the bet comes back to the wallet; it waits for it."""
    t, p, round_id, before = _faro_win_cashed_out(floor)
    cashed = before[f"wallet:{p}"]

    assert t.void(round_id, "round")["status"] == "void"
    assert t.money() == {**before, f"wallet:{p}": before[f"wallet:{p}"] - cashed}
    assert get_balance(code=layout_code(t.id, p)) == 0
    assert check_round(Round.objects.get(pk=round_id)).ok


def test_a_correction_short_of_chips_is_refused_in_words_and_moves_nothing(floor: ApiFloor) -> None:
    """Voiding only the paying turn would take back a win the punter has cashed out: refused,
    the wallet named as people say it, nothing moved, and the pit can still refuse it."""
    t, p, round_id, _ = _faro_win_cashed_out(floor)
    money = t.money()
    asked = t.ask(round_id, "last")

    refused = t.approve(asked["id"], status=409)

    punter = Player.objects.select_related("user", "wallet").get(pk=p)
    assert refused["error"] == {
        "code": "insufficient_funds",
        "message": f"Wallet of {punter.name} has $0.00 available; this transfer needs $20.00 more.",
        "fields": {"account": punter.wallet.code, "available": 0, "needed": 2_000},
    }
    assert t.money() == money
    assert Correction.objects.get(pk=asked["id"]).status == "pending"
    assert not Transfer.objects.filter(kind="reversal").exists()
    floor.post(floor.pit_boss, f"corrections/{asked['id']}/refuse", {"note": "the win stands"}, 200)


def test_a_refusal_names_a_layout_by_its_players_and_tables_names(floor: ApiFloor) -> None:
    """Issue 44 item 16: "Layout of player 10 at table 13" reached the pit. Nothing on the floor
    empties a layout behind its round; moving the chips by hand stands in for any shortfall."""
    t = Table(floor, game="faro", players=1)
    (p,) = t.players
    round_id = floor.start_round(t.id, "manual")["id"]
    floor.act(round_id, {"type": "bet", "player": p, "ranks": ["K"], "amount": 2_000})
    layout = layout_code(t.id, p)
    post_transfer(key="stand-in", kind="test", legs=[Leg(debit=layout, credit="cage", amount=2_000)])
    asked = t.ask(round_id, "last")

    refused = t.approve(asked["id"], status=409)

    player, table = Player.objects.get(pk=p).name, floor.table(t.id)["name"]
    assert refused["error"]["message"] == (
        f"{player}'s layout at {table} has $0.00 available; this transfer needs $20.00 more."
    )
