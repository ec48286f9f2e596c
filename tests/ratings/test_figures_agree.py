"""One producer of per-round figures (issue 19 item 3): the audit, the pit and the ratings agree.

A small simulated night (every game the simulation deals) and one manual-shoe Faro deal
whose punters take bets down undecided: one before any turn, one after a turn that missed
it, and one stack handed back undecided after the hock. Handle is the chips on decided
bets (README "Handle, win, theo, decisions"), so none of those three is handle; the old
audit counted every chip moved onto the layout and disagreed with the pit.

Then, to the cent, per table and per player: the audit's report (``compute_audit``), the
pit's rated figures (``floor_figures``) and hourly results, and the ratings
(``RoundStat``/``RoundPlayerStat`` and ``GET /players/{id}/ratings``) give the same handle
and win. The round's own numbers are checked by hand first.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Callable
from typing import Any, cast

import pytest
from django.db.models import Sum
from rest_framework.test import APIClient

from casino.models import Player, Role, User
from ledger.gaming_day import gaming_day_for
from tables import services
from tables.audit.compute import compute_audit
from tables.console.pit.figures import floor_figures
from tables.models import Round, RoundStatus, Table
from tables.ratings.models import RoundPlayerStat, RoundStat
from tables.ratings.selectors import table_hours
from tables.rounds import apply_round_action, start_round
from tables.simulation.night import NightConfig, simulate_night
from tests import factories
from tests.factories import staff, token_for
from tests.ratings.floor import punter

pytestmark = [
    pytest.mark.django_db(transaction=True),
    pytest.mark.usefixtures("fast_commits", "system_accounts"),
]

RANKS = ("A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K")
DECK = tuple(rank + suit for suit in ("S", "H", "D", "C") for rank in RANKS)
LAST = ["7C", "8D", "QS"]  # banker, player, hock: the Q bet below is never decided


def _faro_deal_with_bets_taken_down(pit_boss: User, dealer: User, cashier: User) -> dict[str, Any]:
    """A keyed Faro deal; returns the table, the two punters and their hand-worked figures."""
    table = cast(Table, factories.TableFactory(actor=pit_boss, dealer=dealer, game="faro", min_bet=500))
    factories.open_table_for(table, inventory=1_000_000)
    kate, wyatt = punter(cashier, funded=100_000), punter(cashier, funded=100_000)
    for seat, player in enumerate((kate, wyatt), start=1):
        services.seat_player(actor=dealer, table_id=table.pk, player_id=player.pk, seat=seat)
    round_ = start_round(actor=dealer, table_id=table.pk, shoe="manual")
    dealt: list[str] = []

    def act(action: dict[str, Any]) -> dict[str, Any]:
        nonlocal round_
        round_ = apply_round_action(actor=dealer, round_id=round_.pk, action=action)
        return round_.state

    def bet(player: Player, amount: int, rank: str) -> str:
        before = {b["id"] for b in round_.state["bets"]}
        state = act({"type": "bet", "player": player.pk, "amount": amount, "ranks": [rank]})
        (new,) = [b["id"] for b in state["bets"] if b["id"] not in before]
        return str(new)

    def turn(banker: str, player: str) -> None:
        act({"type": "turn", "cards": [banker, player]})
        dealt.extend((banker, player))

    act({"type": "soda", "card": "3D"})
    dealt.append("3D")
    king = bet(kate, 1_000, "K")
    act({"type": "remove_bet", "bet": king})  # taken down before any turn: no handle
    five = bet(kate, 1_000, "5")  # rides through a turn that misses it ...
    bet(wyatt, 2_000, "9")
    turn("9S", "KH")  # wyatt's 9 loses 2 000
    act({"type": "remove_bet", "bet": five})  # ... and is taken down undecided: no handle
    bet(kate, 500, "J")
    turn("5S", "JH")  # kate's J wins 500 and rides until it is decided again or handed back
    rest = [c for c in DECK if c not in dealt and c not in LAST]
    for i in range(0, len(rest), 2):
        turn(rest[i], rest[i + 1])
    assert round_.state["cards_remaining"] == 3
    queen = bet(wyatt, 1_000, "Q")  # one Q left, and it is the hock: handed back undecided
    state = act({"type": "last_turn", "cards": LAST})
    assert round_.status == RoundStatus.SETTLED
    assert queen not in {b["id"] for b in state["bets"]}
    return {"table": table, "round": round_.pk, "kate": kate.pk, "wyatt": wyatt.pk}


def _ratings_by_player(client: APIClient, player_id: int) -> tuple[int, int]:
    handle = result = 0
    url: str | None = f"/api/v1/players/{player_id}/ratings"
    while url:
        body = client.get(url).json()
        handle += sum(row["handle"] for row in body["results"])
        result += sum(row["result"] for row in body["results"])
        url = body["next"]
    return handle, result


def test_the_audit_the_pit_and_the_ratings_agree_to_the_cent(
    ratings_worker: Any, wait_until: Callable[..., None]
) -> None:
    summary = simulate_night(NightConfig(tables=4, players=12, rounds=3, seed=19))
    assert summary.rounds > 0
    pit_boss, dealer, cashier = staff(Role.PIT_BOSS), staff(Role.DEALER), staff(Role.CASHIER)
    deal = _faro_deal_with_bets_taken_down(pit_boss, dealer, cashier)
    settled = Round.objects.filter(status=RoundStatus.SETTLED)
    wait_until(lambda: RoundStat.objects.count() == settled.count(), timeout=300, what="every round rated")

    # The keyed deal, by hand: kate's only decided bet is the J (500), wyatt's the 9 (2 000).
    kate = RoundPlayerStat.objects.get(round_id=deal["round"], player_id=deal["kate"])
    wyatt = RoundPlayerStat.objects.get(round_id=deal["round"], player_id=deal["wyatt"])
    assert (kate.handle, kate.bets) == (500, 1)
    assert (wyatt.handle, wyatt.result, wyatt.bets) == (2_000, -2_000, 1)
    stat = RoundStat.objects.get(round_id=deal["round"])
    assert stat.handle == 2_500
    assert stat.win == -(kate.result + wyatt.result)  # the tray's net is what the punters lost

    day = gaming_day_for()
    report = compute_audit(day=day)
    tables = list(Table.objects.filter(pk__in=[*summary.table_ids, deal["table"].pk]))
    pit = floor_figures(tables)
    rated: dict[int, dict[str, int]] = defaultdict(lambda: {"handle": 0, "win": 0})
    for row in RoundStat.objects.values("table_id").annotate(handle=Sum("handle"), win=Sum("win")):
        rated[row["table_id"]] = {"handle": row["handle"], "win": row["win"]}
    audit_tables = {row["id"]: row for row in report["tables"]}
    for table in tables:
        hours = table_hours(table_id=table.pk, day=day)
        figures = {
            "ratings": rated[table.pk],
            "hourly": {"handle": sum(h.handle for h in hours), "win": sum(h.win for h in hours)},
            "pit": {"handle": pit[table.pk].handle_today, "win": pit[table.pk].win_today},
            "audit": {
                "handle": audit_tables[table.pk]["handle"],
                "win": audit_tables[table.pk]["house_win"],
            },
        }
        assert len({tuple(f.values()) for f in figures.values()}) == 1, (table.name, figures)
    assert audit_tables[deal["table"].pk]["handle"] == 2_500  # the old audit said 5 500

    client = APIClient()
    client.credentials(HTTP_AUTHORIZATION=f"Token {token_for(pit_boss)}")
    audit_players = {row["id"]: row for row in report["players"]}
    played = RoundPlayerStat.objects.values("player_id").annotate(handle=Sum("handle"), result=Sum("result"))
    assert len(played) > 2
    for row in played:
        player_id = row["player_id"]
        figures = {
            "ratings": (row["handle"], row["result"]),
            "sittings": _ratings_by_player(client, player_id),
            "audit": (audit_players[player_id]["handle"], audit_players[player_id]["result"]),
        }
        assert len(set(figures.values())) == 1, (player_id, figures)
    assert audit_players[deal["kate"]]["handle"] == 500  # the old audit said 2 500
    assert report["summary"]["handle"] == sum(rated[t.pk]["handle"] for t in tables)
    assert gaming_day_for() == day  # the night and the checks stayed in one gaming day
