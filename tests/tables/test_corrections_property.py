"""Corrections of every game, as a property: after any void the ledger is the round replayed
without the voided actions, to the cent (GAMES.md "Corrections"; issue 44).

Each example opens a table of the game, seats funded players and deals a round of random legal
play (the walk of ``tests.games.test_legal_actions``), then voids in the three shapes of API.md:
the last action, from a random action, and the whole round, with play going on between them.
After each approval every account of the ledger (balance and what holds reserve) must equal the
balances before the round plus what the engine settles over the round's opening and the actions
that remain (nothing of it for a whole void), the trial balance must hold, and the round must
replay. The expectation is folded here from the engine alone, never read from the service.

Each example runs in a transaction rolled back at its end (as ``tests/ledger/test_properties.py``),
on a database that starts the same for every example; Hypothesis keeps no example database.
Six examples a game keep the module short enough to run with every change.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import connection, transaction
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

from casino.models import Player
from ledger.models import Account
from ledger.selectors import get_trial_balance
from tables.accounts import WALLET, PartyMap, split_party
from tables.corrections import approve_correction, request_correction
from tables.games.base import Settlement
from tables.games.registry import engine_for
from tables.games.stakes import VARIANTS
from tables.models import Round, RoundStatus
from tables.replay import check_round
from tables.round_state import context_of
from tables.rounds import apply_round_action, start_round
from tables.services import seat_player
from tests.factories import ApiFloor, PlayerFactory, TableFactory, open_table_for
from tests.games.test_legal_actions import PLAYERS, fill, progress

pytestmark = pytest.mark.django_db

FUNDS = 500_000  # each player's buy-in: far above any reserve or run of Faro bets
SEGMENT = 30  # most actions played between two voids; enough for decided Faro bets and won pots
MOST_PLAYERS = 5  # seated at most: every game's rules at work, fewer players to make per example
Money = dict[str, tuple[int, int]]  # account code → (balance, held)


def rules_for(game: str, rng: random.Random) -> dict[str, Any]:
    """A house-rule variant of the game, drawn as ``test_legal_actions`` draws them, with a percent
    rake now and then where a pot is won."""
    if game == "stakes":
        return {"variant": rng.choice(sorted(VARIANTS))}
    if game == "tonk":
        return {"slap": rng.random() < 0.8, "caught_drop_pays": rng.choice([1, 2])}
    if game in ("fan_tan", "farmer") and rng.random() < 0.5:
        return {"rake": {"kind": "percent", "percent": 5, "cap": 50}}
    return {}


@dataclass
class Deal:
    """One table of ``game`` with its round, what the test has played at it and the engine state
    that play reached (folded here, from the round's context and the payloads still standing)."""

    floor: ApiFloor
    game: str
    rng: random.Random
    table_id: int = 0
    players: list[int] = field(default_factory=list)
    round_id: int = 0
    played: list[tuple[int, Mapping[str, Any]]] = field(default_factory=list)  # (seq, payload), live
    state: Any = None

    @property
    def engine(self) -> Any:
        return engine_for(self.game)

    def open(self) -> None:
        """The table opened with a counted tray and its players bought in and seated."""
        fewest, most = PLAYERS[self.game]
        table = TableFactory(
            actor=self.floor.pit_boss,
            dealer=self.floor.dealer,
            game=self.game,
            min_bet=100,
            max_bet=2_000,
            ante=100,
            rules=rules_for(self.game, self.rng),
        )
        open_table_for(table, inventory=1_000_000)
        self.table_id = table.pk
        for _ in range(self.rng.randint(fewest, min(most, MOST_PLAYERS))):
            player = PlayerFactory(actor=self.floor.cashier, funded=FUNDS)
            seat_player(actor=self.floor.dealer, table_id=table.pk, player_id=player.pk)
            self.players.append(player.pk)

    def deal(self, shoe: str) -> None:
        self.round_id = start_round(actor=self.floor.dealer, table_id=self.table_id, shoe=shoe).pk
        self.refold()

    def round(self) -> Round:
        return Round.objects.get(pk=self.round_id)

    def refold(self) -> list[Settlement]:
        """The state of the round's opening and the actions still standing; what they settle."""
        state, moved = self.engine.start(context_of(self.round()))
        moves = list(moved)
        for _, payload in self.played:
            state, moved = self.engine.apply(state, payload)
            moves += moved
        self.state = state
        return moves

    def play(self, steps: int) -> None:
        """Up to ``steps`` random legal actions, fewer if the round ends."""
        for _ in range(steps):
            if self.engine.is_over(self.state):
                return
            entry = progress(self.game, self.engine.legal_actions(self.state), self.rng)
            action = fill(entry, self.state, self.rng, self.players) if "needs" in entry else entry
            done = apply_round_action(actor=self.floor.dealer, round_id=self.round_id, action=action)
            self.played.append((done.version, done.last_payload))
            self.state, _ = self.engine.apply(self.state, done.last_payload)

    def void(self, shape: str) -> None:
        """Ask for a void of ``shape`` and have the pit approve it; remember what stays."""
        if shape == "round":
            void: Any = "round"
        elif shape == "last":
            void = "last"
        else:
            void = {"from": self.rng.choice(self.played)[0]}
        asked = request_correction(actor=self.floor.dealer, round_id=self.round_id, void=void, reason="test")
        approve_correction(actor=self.floor.pit_boss, correction_id=asked.pk)
        first = asked.from_seq
        self.played = [] if first is None else [(seq, p) for seq, p in self.played if seq < first]


def all_money() -> Money:
    rows = Account.objects.values_list("code", "balance", "held")
    return {code: (balance, held) for code, balance, held in rows}


def replayed_money(before: Money, deal: Deal, *, voided: bool) -> Money:
    """The ledger as the round without its voided actions leaves it: ``before`` plus what the
    engine settles over the round's opening and the actions still standing (nothing, for a round
    ``voided`` whole); each dealt-in wallet still holds its reserve less what it paid while the
    round is live."""
    money = Counter({code: balance for code, (balance, _) in before.items()})
    held = Counter({code: held for code, (_, held) in before.items()})
    if not voided:
        moves = deal.refold()
        wallets = dict(Player.objects.filter(pk__in=deal.players).values_list("pk", "wallet__code"))
        parties = PartyMap(deal.table_id, wallets)
        paid: Counter[int] = Counter()
        for move in moves:
            money[parties.code(move.payer)] -= move.amount
            money[parties.code(move.payee)] += move.amount
            kind, ref = split_party(move.payer)
            if kind == WALLET:
                paid[int(ref)] += move.amount
        if not deal.engine.is_over(deal.state):
            for player, reserve in deal.engine.reserve(context_of(deal.round())).items():
                held[wallets[player]] += reserve - paid[player]
    codes = set(money) | set(held)
    return {code: (money[code], held[code]) for code in codes}


def assert_as_replayed(before: Money, deal: Deal, *, voided: bool) -> None:
    after = all_money()
    expected = replayed_money(before, deal, voided=voided)
    for code in set(after) - set(expected):  # layouts and pots the round opened
        expected[code] = (0, 0)
    assert after == expected
    with connection.cursor() as cursor:  # the deferred zero-sum triggers, now rather than at COMMIT
        cursor.execute("SET CONSTRAINTS ALL IMMEDIATE")
        cursor.execute("SET CONSTRAINTS ALL DEFERRED")
    assert get_trial_balance().balanced
    round_ = deal.round()
    assert (round_.status == RoundStatus.VOID) is voided
    result = check_round(round_)
    assert result.ok, result.problems


@pytest.mark.parametrize("game", sorted(PLAYERS))
@settings(
    max_examples=6,
    deadline=None,
    database=None,
    phases=[Phase.explicit, Phase.generate],  # a walk drawn from a seed does not shrink: report it as found
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(
    seed=st.integers(0, 2**64),
    electronic=st.booleans(),
    shapes=st.permutations(["last", "from"]).map(lambda partial: [*partial, "round"]),
    lengths=st.lists(st.integers(1, SEGMENT), min_size=3, max_size=3),
)
def test_property_every_void_leaves_the_ledger_as_the_round_replayed_without_it(
    floor: ApiFloor, game: str, seed: int, electronic: bool, shapes: list[str], lengths: list[int]
) -> None:
    """Play, void the last action or from a random one, play on, void the other way, play on and
    void the whole round; after each approval the ledger is the replay."""
    with transaction.atomic():
        deal = Deal(floor, game, random.Random(seed))
        deal.open()
        before = all_money()
        deal.deal("electronic" if electronic and game != "stakes" else "manual")
        for shape, steps in zip(shapes, lengths, strict=True):
            deal.play(steps)
            if not deal.played and shape != "round":
                continue
            event(f"void {shape} of a {'settled' if deal.engine.is_over(deal.state) else 'live'} round")
            deal.void(shape)
            assert_as_replayed(before, deal, voided=shape == "round")
        transaction.set_rollback(True)
