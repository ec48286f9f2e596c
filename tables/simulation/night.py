"""Drive a whole gaming day through the real services: cage, seats, rounds, fills, counts.

Everything is decided by one seeded ``random.Random`` (and round seeds derived from it),
so the same seed on an empty database replays the same night. ``hooks`` (``NightHooks``,
``tables.simulation.floor``) let a plug-in change the night at fixed points; without them the
night is exactly the clean one. The detection bench's cheats plug in there (``bench/cheats/``,
with a generator of their own); the product's night knows nothing of them.

A night can follow another on the same floor: the cast and tables are found by name, closed
tables open again on their trays and everyone bought in again. ``simulate_night(day=...)``
deals it in a past gaming day (the clock moved there, as the demo deals last night).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import importlib
import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import time_machine
from django.db.models import Count

from casino.cash.models import IdentificationKind
from casino.cash.services import record_identification
from casino.errors import DomainError
from casino.models import Player, Role, User
from casino.services import buy_in, cash_out, create_player
from ledger.errors import LedgerError
from ledger.gaming_day import gaming_day_bounds
from ledger.models import Transfer
from tables import services
from tables.games.errors import IllegalAction
from tables.games.registry import ENGINE_MODULES, engine_for
from tables.models import LIVE_ROUND_STATUSES, Seat, Table, TableStatus
from tables.round_state import engine_state
from tables.rounds import apply_round_action, log_refused_action, start_round
from tables.simulation.bots import chip_amount, faro_bets, pick_action
from tables.simulation.drop import count_the_drop, maybe_cash_buy_in
from tables.simulation.floor import NightHooks, signed_tray_change
from tables.simulation.specs import GAME_MIX, SPECS, STAKES_VARIANTS

ACTION_CAP = 3000  # a round that needs more engine steps than this is a bug, not a long game


@dataclass
class NightConfig:
    tables: int = 12
    players: int = 60
    rounds: int = 12
    seed: int = 1
    count_error_rate: float = 0.0
    games: tuple[str, ...] | None = None
    stakes_rounds: int = 1  # rounds a card-room (stakes) table deals per pass: its deals are quick


@dataclass
class NightSummary:
    tables: int = 0
    rounds: int = 0
    actions: int = 0
    refused: int = 0
    buy_ins: int = 0
    cash_outs: int = 0
    fills: int = 0
    credits: int = 0
    cash_buy_ins: int = 0
    boxes_counted: int = 0
    dealer_changes: int = 0
    count_errors: list[dict[str, Any]] = field(default_factory=list)
    transfers: int = 0
    transfers_by_kind: dict[str, int] = field(default_factory=dict)
    seconds: float = 0.0
    table_ids: list[int] = field(default_factory=list)


def dealer_of(table: Table) -> User:
    """Every simulated table has a dealer assigned before play starts."""
    if table.dealer is None:
        raise RuntimeError(f"{table.name} has no dealer")
    return table.dealer


def available_games() -> tuple[str, ...]:
    found = []
    for game, module in ENGINE_MODULES.items():
        try:
            importlib.import_module(module)
        except ImportError:
            continue
        found.append(game)
    return tuple(found)


class Night:
    def __init__(
        self,
        config: NightConfig,
        progress: Callable[[int], None] | None = None,
        *,
        hooks: NightHooks | None = None,
    ) -> None:
        self.config = config
        self.rng = random.Random(config.seed)
        # Cash at the tables draws from its own stream, so the rest of a seed's night stays as it was.
        self.cash_rng = random.Random(f"{config.seed}:cash")
        self.progress = progress or (lambda _n: None)
        self.summary = NightSummary()
        self.pass_number = 0
        self.hooks = hooks if hooks is not None else NightHooks()
        self.hooks.attach(self)

    # --- the cast ---------------------------------------------------------------------
    def _staff(self, username: str, role: str, name: str) -> User:
        user = User.objects.filter(username=username).first()
        if user is None:
            user = User(username=username, role=role, name=name)
            user.set_unusable_password()
            user.save()
        return user

    def cast(self) -> None:
        self.pit = [self._staff(f"sim-pit-{i}", Role.PIT_BOSS, f"Pit Boss {i}") for i in (1, 2)]
        self.cashier = self._staff("sim-cashier-1", Role.CASHIER, "Cashier 1")
        self.count_team = (
            self._staff("sim-count-1", Role.COUNT_TEAM, "Count Team 1"),
            self._staff("sim-count-2", Role.COUNT_TEAM, "Count Team 2"),
        )
        tables = self.config.tables + self.hooks.extra_tables()
        dealers = tables + max(2, tables // 4)
        self.dealers = [
            self._staff(f"sim-dealer-{i}", Role.DEALER, f"Dealer {i}") for i in range(1, dealers + 1)
        ]
        self.players: list[Player] = []
        for i in range(1, self.config.players + 1):
            username = f"sim-player-{i}"
            player = Player.objects.select_related("wallet", "user").filter(user__username=username).first()
            if player is None:
                player = create_player(
                    actor=self.cashier,
                    username=username,
                    password=f"Sim-{i}-{self.config.seed}-pass!",
                    name=f"Guest {i}",
                )
                # Regulars whose ID the cage has seen: a night's cash past the CTR line goes through
                # (casino.cash), as it does for a known player, and the day's CTRs list it.
                record_identification(
                    actor=self.cashier,
                    player=player,
                    kind=IdentificationKind.DRIVERS_LICENSE,
                    number=f"SIM-{i:06d}",
                    issued_by="NV",
                    name=f"Guest {i}",
                    birth_date=dt.date(1950, 1, 1) + dt.timedelta(days=97 * i % 18_000),
                    address=f"{i} Simulation Way, Las Vegas NV",
                )
            self.players.append(player)

    def tables(self) -> None:
        games = self.config.games or available_games()
        mix = [g for g in GAME_MIX if g in games] or list(games)
        self.table_list: list[Table] = []
        for index in range(self.config.tables):
            game = mix[index % len(mix)]
            spec = SPECS[game]
            name = f"Sim {spec.label} {index + 1}"
            table = Table.objects.filter(name=name).first()
            if table is None:
                rules = dict(spec.rules)
                if game == "stakes":
                    rules["variant"] = STAKES_VARIANTS[index % len(STAKES_VARIANTS)]
                scale = self.rng.choice((1, 1, 2, 5)) if game == "faro" else 1
                table = services.create_table(
                    actor=self.pit[0],
                    name=name,
                    game=game,
                    min_bet=spec.min_bet * scale,
                    max_bet=spec.max_bet * scale,
                    ante=spec.ante,
                    rules=rules,
                )
            self.table_list.append(table)
        self.hooks.add_tables()
        self.summary.tables = len(self.table_list)
        self.summary.table_ids = [t.pk for t in self.table_list]

    # --- money ------------------------------------------------------------------------
    def _buy_in(self, player: Player) -> None:
        amount = self.rng.choice((20_000, 30_000, 50_000, 100_000, 200_000, 300_000))
        buy_in(actor=self.cashier, player=player, amount=amount)
        self.summary.buy_ins += 1

    def available(self, player: Player) -> int:
        """What the player can stake now: their wallet less what reserves hold."""
        player.wallet.refresh_from_db(fields=["balance", "held"])
        return player.wallet.available

    # --- the night --------------------------------------------------------------------
    def open_tables(self) -> None:
        for index, table in enumerate(self.table_list):
            dealer = self.dealers[index]
            services.assign_dealer(actor=self.pit[0], table_id=table.pk, dealer_id=dealer.pk)
            table.refresh_from_db()
            if table.status == TableStatus.OPEN:
                continue
            # an empty tray opens with the game's bankroll, one closed on an earlier night on what it holds
            count = table.tray.balance or SPECS[table.game].opening
            services.open_table(actor=dealer, table_id=table.pk, opening_inventory=count)

    def seat_players(self, table: Table) -> None:
        hooks = self.hooks
        hooks.seat_for(table, self.pass_number)
        seated_here = list(Seat.objects.filter(table=table, left_at__isnull=True).select_related("player"))
        low, high = hooks.seats(table) or SPECS[table.game].seats
        # Some players get up between rounds (never with chips on the layout).
        for seat in seated_here:
            if hooks.manages(seat.player_id):
                continue
            if self.rng.random() < 0.12 and len(seated_here) > low:
                try:
                    services.unseat_player(
                        actor=dealer_of(table), table_id=table.pk, player_id=seat.player_id
                    )
                    seated_here.remove(seat)
                except DomainError:
                    pass
        target = self.rng.randint(low, high)
        free = [
            p
            for p in self.players
            if not hooks.manages(p.pk) and not Seat.objects.filter(player=p, left_at__isnull=True).exists()
        ]
        self.rng.shuffle(free)
        for player in free[: max(target - len(seated_here), 0)]:
            if self.available(player) < table.min_bet * 4 + table.ante * 4:
                self._buy_in(player)
            services.seat_player(actor=dealer_of(table), table_id=table.pk, player_id=player.pk)
            if SPECS[table.game].opening and maybe_cash_buy_in(
                rng=self.cash_rng, table=table, dealer=dealer_of(table), player=player
            ):
                self.summary.cash_buy_ins += 1

    def _act(self, table: Table, round_id: int, action: dict[str, Any]) -> str | None:
        """Play ``action``; the code of its refusal, or None when it was taken."""
        try:
            apply_round_action(actor=dealer_of(table), round_id=round_id, action=action)
        except (IllegalAction, LedgerError, DomainError) as error:
            log_refused_action(actor=dealer_of(table), round_id=round_id, action=action, code=error.code)
            self.summary.refused += 1
            return str(error.code)
        self.summary.actions += 1
        return None

    def play_round(self, table: Table, number: int) -> None:
        seed = hashlib.sha256(f"{self.config.seed}:{table.name}:{number}".encode()).hexdigest()
        seed = self.hooks.round_seed(table, number, seed)
        shoe = self.hooks.shoe_for(table)
        try:
            round_ = start_round(actor=dealer_of(table), table_id=table.pk, shoe=shoe, seed=seed)
        except DomainError:
            return  # too few players can cover the reserve: the table waits
        self.summary.rounds += 1
        engine = engine_for(table.game)
        chip = int(table.rules.get("chip", 100))
        for _ in range(ACTION_CAP):
            round_.refresh_from_db()
            if round_.status not in LIVE_ROUND_STATUSES:
                return
            state = engine_state(round_)
            if table.game == "faro":
                self._faro_step(table, round_.pk, round_.state, chip)
                continue
            legal = engine.legal_actions(state)
            action = pick_action(self.rng, legal)
            if action is None:
                raise RuntimeError(f"round {round_.pk} has no legal action but is not over")
            self._act(table, round_.pk, self.hooks.steer(table, round_, action))
        raise RuntimeError(f"round {round_.pk} did not finish in {ACTION_CAP} actions")

    def _faro_step(self, table: Table, round_id: int, public: dict[str, Any], chip: int) -> None:
        seated = {
            s.player_id: s.player
            for s in Seat.objects.filter(table=table, left_at__isnull=True).select_related("player__wallet")
        }
        budgets = {pid: self.available(p) for pid, p in seated.items()}
        next_action = public.get("next_action")
        if next_action in {"turn", "last_turn"}:
            for bet in faro_bets(self.rng, public, budgets, chip=chip):
                self._act(table, round_id, bet)
            for more in self.hooks.faro_actions(table, public):
                self._act(table, round_id, more)
            if (
                next_action == "last_turn"
                and public.get("can_call_turn")
                and seated
                and self.rng.random() < 0.3
            ):
                player = self.rng.choice(sorted(seated))
                amount = chip_amount(
                    self.rng, low=table.min_bet, high=table.max_bet, chip=chip, budget=budgets[player]
                )
                order = self._call_order(public)
                if amount and order:
                    self._act(
                        table,
                        round_id,
                        {"type": "call_turn", "player": player, "order": order, "amount": amount},
                    )
        dealing: dict[str, Any] = {"type": next_action or "turn"}
        if public.get("shoe") == "manual":
            dealing = self.hooks.deal_cards(public, dealing)
        if self._act(table, round_id, dealing) == "insufficient_funds":
            # the tray cannot pay this turn's winners: the dealer asks for a fill, as a real one
            # would mid-deal, and deals the turn again (it was refused whole)
            self.tray_change(table, "fill", SPECS[table.game].opening // 2)

    def _call_order(self, public: dict[str, Any]) -> list[str] | None:
        left = [
            rank
            for rank, row in (public.get("casekeeper") or {}).items()
            for _ in range(int(row.get("left", 0)))
        ]
        if len(left) != 3:
            return None
        self.rng.shuffle(left)
        return left

    def tray_check(self, table: Table) -> None:
        """Fills when the tray runs low, credits when it runs high: the dealer asks, the cage and
        the pit sign (``signed_tray_change``)."""
        spec = SPECS[table.game]
        if not spec.opening:
            return
        table.tray.refresh_from_db()
        balance = table.tray.balance
        if balance < spec.opening // 4:
            self.tray_change(table, "fill", spec.opening // 2)
        elif balance > spec.opening * 2:
            self.tray_change(table, "credit", spec.opening // 2)

    def tray_change(self, table: Table, kind: str, amount: int) -> None:
        signed_tray_change(
            table=table,
            kind=kind,
            amount=amount,
            dealer=dealer_of(table),
            pit_boss=self.rng.choice(self.pit),
            cashier=self.cashier,
        )
        if kind == "fill":
            self.summary.fills += 1
        else:
            self.summary.credits += 1

    def rotate_dealers(self) -> None:
        """Dealers go on break and come back: each table gets the next free dealer."""
        busy = {t.dealer_id for t in Table.objects.filter(pk__in=self.summary.table_ids)}
        busy |= self.hooks.pinned_dealers()  # pinned dealers stay at their tables, and nobody takes them
        spare = [d for d in self.dealers if d.pk not in busy]
        for table in self.table_list:
            if self.hooks.is_pinned(table):
                continue
            if not spare or self.rng.random() > 0.5:
                continue
            fresh = spare.pop(0)
            spare.append(dealer_of(table))
            services.assign_dealer(actor=self.pit[1], table_id=table.pk, dealer_id=fresh.pk)
            table.refresh_from_db()
            self.summary.dealer_changes += 1

    def close_tables(self) -> None:
        for table in self.table_list:
            table.refresh_from_db()
            self.hooks.before_close(table)
            table.tray.refresh_from_db()
            count = table.tray.balance
            if self.config.count_error_rate and self.rng.random() < self.config.count_error_rate:
                error = self.rng.choice((-5_000, -2_500, -1_000, 1_000, 2_500, 5_000))
                error = max(error, -count)
                count += error
                self.summary.count_errors.append({"table": table.pk, "name": table.name, "error": error})
            count = self.hooks.closing_count(table, count)
            services.close_table(actor=dealer_of(table), table_id=table.pk, closing_inventory=count)
        self.count_drop()

    def count_drop(self) -> None:
        """The count team removes and counts every box that took cash; with count errors on, a box
        is sometimes a bill off."""
        errors = {}
        for table in self.table_list:
            if self.config.count_error_rate and self.cash_rng.random() < self.config.count_error_rate:
                errors[table.pk] = self.cash_rng.choice((-10_000, -2_000, 2_000))
        boxes = count_the_drop(
            tables=self.table_list, team=self.count_team, cashier=self.cashier, errors=errors
        )
        self.summary.boxes_counted += len(boxes)

    def cash_out_everyone(self) -> None:
        for player in self.players:
            if self.hooks.cash_out(player):
                continue
            available = self.available(player)
            if available > 0:
                cash_out(actor=self.cashier, player=player, amount=available)
                self.summary.cash_outs += 1

    def run(self) -> NightSummary:
        started = time.monotonic()
        first_transfer = Transfer.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
        self.cast()
        self.tables()
        self.hooks.plan()
        for player in self.players:
            self._buy_in(player)
        self.hooks.cage_start()
        self.open_tables()
        for number in range(1, self.config.rounds + 1):
            self.pass_number = number
            for table in self.table_list:
                table.refresh_from_db()
                self.seat_players(table)
                deals = self.config.stakes_rounds if table.game == "stakes" else 1
                for deal in range(deals):
                    self.play_round(table, number if deals == 1 else (number - 1) * deals + deal + 1)
                self.tray_check(table)
                self.hooks.after_round(table)
                self.progress(1)
            if number % 4 == 0:
                self.rotate_dealers()
        self.close_tables()
        self.cash_out_everyone()
        made = Transfer.objects.filter(pk__gt=first_transfer)
        self.summary.transfers = made.count()
        self.summary.transfers_by_kind = dict(
            made.values_list("kind").annotate(n=Count("pk")).order_by("kind")
        )
        self.summary.seconds = time.monotonic() - started
        return self.summary


def evening_of(day: dt.date) -> dt.datetime:
    """14 hours into gaming ``day`` (20:00 at a 06:00 rollover): a night dealt there ends inside it."""
    return gaming_day_bounds(day)[0] + dt.timedelta(hours=14)


def simulate_night(
    config: NightConfig,
    progress: Callable[[int], None] | None = None,
    *,
    day: dt.date | None = None,
    hooks: NightHooks | None = None,
) -> NightSummary:
    """Deal the night now, or in the evening of the past gaming ``day`` (the clock moved there);
    ``hooks`` plug into it (``NightHooks``)."""
    if day is None:
        return Night(config, progress, hooks=hooks).run()
    with time_machine.travel(evening_of(day), tick=True):
        return Night(config, progress, hooks=hooks).run()
