"""Cheats injected into a simulated night, and the ground truth of what was injected.

Development only: the detection tests and ``bench/run-detection`` use them; the installed
product (``casino``, ``tables``, ``ledger``) holds none of this, and its night knows nothing of
it. ``Injector`` plugs into ``tables.simulation.night`` as its ``NightHooks``:

    bench/run-night --inject split_stacker:0.5,colluders:1 --truth truth.json

(``bench.cheats.night``) plays the night as usual and, on top, the scenarios below, each at its own
rate. Every choice is drawn from a generator seeded from the night's seed
(``random.Random("inject:<seed>")``), so the same seed and scenarios replay the same cheats.
A later night of the same cast (``Injector(cast_seed=...)``) picks the same cheaters as the
first night and plays them with its own draws; the exact shares (the stacker's deals, the cold
deck's turns) count on from the earlier nights.

Scenario (rate: what it means) — what happens — the alerts it should raise:

* ``split_stacker`` (the share of the dealer's Faro deals that are stacked, exactly: 0.5 stacks
  every other deal) — the dealer of
  the first Faro table, kept at that table all night, deals a stacked deck: the round's seed
  is the first of up to 2,000 candidates derived from the night's seed whose deck has at
  least 6 splits (a fair deal has 1.47 on average). Expected ``faro_split_rate`` (dealer);
  tolerated ``faro_split_deal`` and ``hold_anomaly`` for that dealer or table (splits take
  half of every bet on the rank).
* ``colluders`` (the share of the chances taken) — two players sit together all night at a
  Page One table (first out) added for them; whenever the result would name A the winner,
  it names B: A plays soft for B, so A's wins become B's and B never pays A. Expected
  ``chip_flow`` A → B; tolerated ``never_loses``/``dealer_affinity`` for B.
* ``dumper`` (the share of shared rounds dumped) — X dumps chips to Y at a Piquet table
  (points, 10 cents a point) added for them: X's winning scores go to Y, and when Y tops,
  X scores 0 and Y 100-200 points more, so X pays Y the most. Expected ``chip_flow`` X → Y;
  tolerated ``never_loses``/``dealer_affinity`` for Y.
* ``dealer_partner`` (the share of the partner's rounds the dealer steers) — the dealer of
  a Crazy Eights table added for the scenario (kept there) keys their partner as the winner;
  the partner sits there for the first half of the night, then at another card-room table
  (the dumper's or the colluders' if there is one, else Faro).
  Expected ``dealer_affinity`` (player, dealer) and, at rate 1, ``never_loses``; tolerated
  ``chip_flow`` into the partner (their table-mates do pay them one way).
* ``structurer`` (scales the count: ``max(2, round(4 x rate))`` buy-ins today) — one
  buy-in of 90-99 % of ``CTR_THRESHOLD`` dated the previous gaming day and the rest today,
  two deals of Faro, then cash-outs in pieces of 90-99 % of the line. Expected
  ``structuring`` and ``minimal_play_cash_out`` (player).
* ``chip_walker`` (used only to switch it on) — buys in 70 % of the CTR line, plays two
  Faro deals and leaves without cashing out. Expected ``chip_walking`` (player).
* ``limit_prober`` (the chance, each Faro turn, of a probe) — moves to the next Faro table
  every pass; a probe is a bet of the maximum plus a chip (refused, ``limit_exceeded``) and
  then a bet of the maximum minus a chip. Expected ``limit_probing`` and
  ``just_under_max`` (player).
* ``fill_abuser`` (the chance, after each of the dealer's deals, of an unneeded fill) — the
  dealer of the second Faro table (kept there) asks for fills of a quarter of the opening
  bankroll while the tray holds more than half of it, always signed by the same pit boss,
  and has a credit signed right before the closing count. Expected ``fill_unexplained``
  (dealer), ``fill_pair`` (dealer, when they made 3 or more fills: "repeatedly"),
  ``credit_before_close`` (dealer).
* ``short_count`` (the share of Faro tables, at least one) — the closing count is short by
  3-12 times ``AUDIT_VARIANCE_THRESHOLD``. Expected ``short_count`` (table).
* ``cold_deck`` (the share of turns the dealer fixes, exactly) — the dealer of the last Faro table
  (kept there) deals from a manual shoe and keys, for a fixed turn, the banker's card from the
  rank carrying the most money and the player's card from the rank carrying the least; other
  turns take the next card of a fairly shuffled shoe. Expected ``hold_anomaly`` (dealer);
  tolerated ``hold_anomaly`` (table) and ``credit_before_close`` (the table wins so much that
  the honest tray check credits it after the last deal).

The truth file lists every scenario with its subjects and the alert specs it expects and
tolerates (``{"kind": ..., "dealer"|"player"|"table"|"pair": ...}``); ``bench/detection_bench.py``
matches alerts against them.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import math
import random
import secrets
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from casino.cash.services import link_transfer, record_cash
from casino.models import Player
from casino.services import buy_in, cash_out
from ledger.errors import GamingDayClosed
from ledger.gaming_day import gaming_day_for
from ledger.services import Leg, post_transfer
from tables import services
from tables.accounts import CAGE
from tables.games.cards import FULL_DECK, RANKS, rank_of
from tables.games.shoe import shuffle
from tables.models import LIVE_ROUND_STATUSES, Round, RoundAction, Seat, Table
from tables.simulation.floor import Floor, NightHooks, signed_tray_change
from tables.simulation.specs import SPECS

SCENARIOS = (
    "split_stacker",
    "colluders",
    "dumper",
    "dealer_partner",
    "structurer",
    "chip_walker",
    "limit_prober",
    "fill_abuser",
    "short_count",
    "cold_deck",
)
STACK_MIN_SPLITS = 6
STACK_CANDIDATES = 2000
STAKES_TABLES = {  # scenario -> (variant, extra rules) of the table added for it
    "colluders": ("page_one", {}),
    "dumper": ("piquet", {"point_value": 10}),
    "dealer_partner": ("crazy_eights", {}),
}
INJECTED_SEATS = (4, 5)  # players at an added table, the scenario's own included
REPEATED_FILLS = 3
# The scenarios whose one subject is a player, and the alerts each expects about them.
PLAYER_ALERTS = {
    "structurer": ("structuring", "minimal_play_cash_out"),
    "chip_walker": ("chip_walking",),
    "limit_prober": ("limit_probing", "just_under_max"),
}


def parse_inject(text: str) -> dict[str, float]:
    """``"split_stacker:0.5,colluders:1"`` → ``{"split_stacker": 0.5, "colluders": 1.0}``."""
    rates: dict[str, float] = {}
    for part in (p.strip() for p in (text or "").split(",")):
        if not part:
            continue
        name, _, rate = part.partition(":")
        name = name.strip()
        if name not in SCENARIOS:
            raise ValueError(f"Unknown scenario {name!r}; choose from {', '.join(SCENARIOS)}.")
        try:
            value = float(rate) if rate else 1.0
        except ValueError as error:
            raise ValueError(f"The rate of {name} must be a number, not {rate!r}.") from error
        if not 0 < value <= 1:
            raise ValueError(f"The rate of {name} must be in (0, 1], not {value}.")
        rates[name] = value
    return rates


def deal_splits(seed: str) -> int:
    """Splits in the electronic deal of ``seed``: the 25 banker/player pairs after the soda."""
    deck = shuffle(FULL_DECK, seed)
    return sum(rank_of(deck[1 + 2 * k]) == rank_of(deck[2 + 2 * k]) for k in range(25))


@dataclass
class Stint:
    """Where a managed player sits: table per pass (None: not seated)."""

    player: Player
    tables: dict[int, Table | None] = field(default_factory=dict)
    top_up_below: int = 10_000
    top_up: int = 50_000


class Injector(NightHooks):
    """Plays the scenarios on top of a night (a ``Floor``): the night calls its hooks at fixed points.

    ``rates``: scenario -> rate (``parse_inject``). ``cast_seed``: the seed of the cast's first
    night, on a later night of the same cast, so the same players and tables cheat and the exact
    shares count on from the earlier nights; None: a night of its own. One injector, one night:
    ``truth`` after it.
    """

    night: Floor
    rng: random.Random

    def __init__(self, rates: Mapping[str, float], *, cast_seed: int | None = None) -> None:
        self.rates = dict(rates)
        self.cast_seed = cast_seed
        self.gaming_day: dt.date | None = None  # the night's, once it is planned
        self.stints: dict[int, Stint] = {}
        self.pinned: dict[int, int] = {}  # table -> dealer kept there all night
        self.tables_for: dict[str, Table] = {}
        self.roles: dict[str, Any] = {}
        self.stats: dict[str, dict[str, Any]] = {name: {} for name in self.rates}
        self.short_tables: set[int] = set()
        self.before: dict[str, int] = {}  # chances on the cast's earlier nights (``_due``)

    # --- the cast --------------------------------------------------------------------
    def attach(self, night: Floor) -> None:
        self.night = night
        self.rng = random.Random(f"inject:{night.config.seed}")

    def extra_tables(self) -> int:
        return sum(1 for name in STAKES_TABLES if name in self.rates)

    def add_tables(self) -> None:
        """A stakes table for each scenario that needs one, after the night's own tables."""
        spec = SPECS["stakes"]
        for name, (variant, extra) in STAKES_TABLES.items():
            if name not in self.rates:
                continue
            index = len(self.night.table_list) + 1
            label = f"Sim Card room {index}"
            table = Table.objects.filter(name=label).first() or services.create_table(
                actor=self.night.pit[0],
                name=label,
                game="stakes",
                min_bet=spec.min_bet,
                max_bet=spec.max_bet,
                ante=spec.ante,
                rules={**spec.rules, "variant": variant, **extra},
            )
            self.night.table_list.append(table)
            self.tables_for[name] = table

    def plan(self) -> None:
        """Pick the cheats' dealers and players, before the tables open."""
        night = self.night
        self.gaming_day = gaming_day_for()
        faro = [t for t in night.table_list if t.game == "faro"]
        dealer_at = {t.pk: dealer for t, dealer in zip(night.table_list, night.dealers, strict=False)}
        needs_faro = set(SCENARIOS) - STAKES_TABLES.keys()  # all but those with a stakes table of their own
        if needs_faro & self.rates.keys() and len(faro) < 2:
            raise ValueError("Injected Faro scenarios need at least two Faro tables.")

        def pin(name: str, table: Table, **more: Any) -> None:
            """The scenario's table and the dealer who opens it, kept there all night."""
            self.roles[name] = {"table": table, "dealer": dealer_at[table.pk], **more}
            self.pinned[table.pk] = dealer_at[table.pk].pk

        if "split_stacker" in self.rates:
            pin("split_stacker", faro[0])
        if "fill_abuser" in self.rates:
            pin("fill_abuser", faro[1], approver=night.pit[1])
        if "dealer_partner" in self.rates:
            pin("dealer_partner", self.tables_for["dealer_partner"])  # the partner is picked below
        if "cold_deck" in self.rates:
            if faro[-1].pk in self.pinned:
                raise ValueError("cold_deck needs a Faro table of its own: add tables.")
            pin("cold_deck", faro[-1])
        rng = self._cast_rng()
        pool = list(night.players)
        rng.shuffle(pool)
        passes = range(1, night.config.rounds + 1)
        half = math.ceil(night.config.rounds / 2)

        for name in ("colluders", "dumper"):
            if name in self.rates:
                giver, taker = pool.pop(), pool.pop()
                table = self.tables_for[name]
                self.roles[name] = {"table": table, "giver": giver, "taker": taker}
                for player in (giver, taker):
                    self.stints[player.pk] = Stint(player, {n: table for n in passes})
        if "dealer_partner" in self.rates:
            partner = pool.pop()
            table = self.tables_for["dealer_partner"]
            self.roles["dealer_partner"]["player"] = partner
            later = self._elsewhere_for_partner(table, faro[-1])
            self.stints[partner.pk] = Stint(partner, {n: table if n <= half else later for n in passes})
        for name, at in (("structurer", faro[min(2, len(faro) - 1)]), ("chip_walker", faro[-1])):
            if name in self.rates:
                player = pool.pop()
                self.roles[name] = {"player": player, "table": at}
                self.stints[player.pk] = Stint(player, {1: at, 2: at}, top_up_below=0)
        if "limit_prober" in self.rates:
            player = pool.pop()
            self.roles["limit_prober"] = {"player": player}
            self.stints[player.pk] = Stint(
                player,
                {n: faro[(n - 1) % len(faro)] for n in passes},
                top_up_below=0,  # the prober tops up to the table's maximum instead
            )
        if "short_count" in self.rates:
            count = max(1, round(self.rates["short_count"] * len(faro)))
            self.short_tables = {t.pk for t in rng.sample(faro, min(count, len(faro)))}
        if self.cast_seed is not None:
            self.before = self._chances_before()

    def _chances_before(self) -> dict[str, int]:
        """The stacker's deals and the cold deck's turns on the cast's earlier nights, so ``_due``
        keeps the exact share over the nights: a count that started again each night would never
        stack at 0.25 and three deals a night."""
        before = {}
        if "split_stacker" in self.roles:
            before["split_stacker"] = Round.objects.filter(table=self.roles["split_stacker"]["table"]).count()
        if "cold_deck" in self.roles:
            before["cold_deck"] = RoundAction.objects.filter(
                round__table=self.roles["cold_deck"]["table"], payload__type__in=("turn", "last_turn")
            ).count()
        return before

    def _cast_rng(self) -> random.Random:
        """What picks the cheaters: the night's own generator, or on a later night of the same cast
        (``cast_seed``) one seeded as the first night's was; ``plan`` is that generator's first
        use, so the same players and tables are picked while this night's play draws its own."""
        if self.cast_seed is None or self.cast_seed == self.night.config.seed:
            return self.rng
        return random.Random(f"inject:{self.cast_seed}")

    def _elsewhere_for_partner(self, own: Table, fallback: Table) -> Table:
        """Another card-room table for the partner's second half (many quick rounds), else Faro."""
        for name in ("dumper", "colluders"):
            if name in self.tables_for:
                return self.tables_for[name]
        others = [t for t in self.night.table_list if t.game == "stakes" and t.pk != own.pk]
        return others[0] if others else fallback

    def manages(self, player_id: int) -> bool:
        return player_id in self.stints

    def is_pinned(self, table: Table) -> bool:
        return table.pk in self.pinned

    def pinned_dealers(self) -> set[int]:
        return set(self.pinned.values())

    def seats(self, table: Table) -> tuple[int, int] | None:
        return INJECTED_SEATS if table in self.tables_for.values() else None

    # --- the cage ----------------------------------------------------------------------
    def _line(self, low_bp: int = 9_000, high_bp: int = 9_900) -> int:
        """A cash amount of ``low_bp``-``high_bp`` basis points of the CTR line, whole dollars.

        Integer cents throughout (basis points, not a float share), so no rounding decides
        whether an amount lands under the line.
        """
        line = int(settings.CTR_THRESHOLD)
        return self.rng.randint(low_bp, high_bp) * line // 10_000 // 100 * 100

    def cage_start(self) -> None:
        cashier = self.night.cashier
        if "structurer" in self.rates:
            player = self.roles["structurer"]["player"]
            rows = [self._buy_in_yesterday(player)]
            for _ in range(max(2, round(4 * self.rates["structurer"]))):
                amount = self._line()
                transfer = buy_in(actor=cashier, player=player, amount=amount)
                rows.append(
                    {"transfer": transfer.pk, "amount": amount, "day": transfer.gaming_day.isoformat()}
                )
            self.stats["structurer"]["buy_ins"] = rows
        if "chip_walker" in self.rates:
            player = self.roles["chip_walker"]["player"]
            amount = self._line(7_000, 7_000)
            buy_in(actor=cashier, player=player, amount=amount)
            self.stats["chip_walker"]["buy_in"] = amount
        if "limit_prober" in self.rates:
            self._top_up_prober(None)

    def _buy_in_yesterday(self, player: Player) -> dict[str, Any]:
        """A cash-in dated the previous gaming day (structuring across days), else today."""
        amount = self._line()
        at = timezone.now() - dt.timedelta(days=1)
        try:
            with transaction.atomic():  # the cash line, as the cage writes one, then its transfer
                line = record_cash(
                    player=player,
                    direction="in",
                    kind="cage_buy_in",
                    amount=amount,
                    where="Cage",
                    by=self.night.cashier,
                    at=at,
                )
                transfer = post_transfer(
                    key=f"buy_in:{secrets.token_hex(16)}",
                    kind="buy_in",
                    legs=[Leg(debit=CAGE, credit=player.wallet.code, amount=amount)],
                    memo=f"Buy-in by {player.name}",
                    meta={"player": player.pk, "staff": self.night.cashier.pk},
                    at=at,
                )
                link_transfer(cash=line, transfer=transfer)
        except GamingDayClosed:
            transfer = buy_in(actor=self.night.cashier, player=player, amount=amount)
        return {"transfer": transfer.pk, "amount": amount, "day": transfer.gaming_day.isoformat()}

    def cash_out(self, player: Player) -> bool:
        """True when the scenario settles this player's chips itself (or walks off with them)."""
        if "chip_walker" in self.rates and player.pk == self.roles["chip_walker"]["player"].pk:
            return True
        if "structurer" in self.rates and player.pk == self.roles["structurer"]["player"].pk:
            pieces = []
            while True:
                available = self.night.available(player)
                amount = self._line()
                if available < amount:
                    break
                transfer = cash_out(actor=self.night.cashier, player=player, amount=amount)
                pieces.append({"transfer": transfer.pk, "amount": amount})
            if available > 0:
                cash_out(actor=self.night.cashier, player=player, amount=available)
            self.stats["structurer"]["cash_outs"] = pieces
            return True
        return False

    def _top_up_prober(self, table: Table | None) -> None:
        player = self.roles["limit_prober"]["player"]
        need = 3 * (table.max_bet if table else 50_000)
        while self.night.available(player) < need:
            buy_in(actor=self.night.cashier, player=player, amount=500_000)

    # --- seats -----------------------------------------------------------------------
    def seat_for(self, table: Table, number: int) -> None:
        """Seat the scenario's players who belong here this pass; send away those who do not."""
        for stint in self.stints.values():
            current = Seat.objects.filter(player=stint.player, left_at__isnull=True).first()
            wanted = stint.tables.get(number)
            here = wanted is not None and wanted.pk == table.pk
            seated_here = current is not None and current.table_id == table.pk
            if here and stint.top_up_below and self.night.available(stint.player) < stint.top_up_below:
                buy_in(actor=self.night.cashier, player=stint.player, amount=stint.top_up)
            if seated_here and not here:
                services.unseat_player(actor=self.night.pit[0], table_id=table.pk, player_id=stint.player.pk)
                continue
            if not here or seated_here:
                continue
            if current is not None:
                if Round.objects.filter(table_id=current.table_id, status__in=LIVE_ROUND_STATUSES).exists():
                    continue
                services.unseat_player(
                    actor=self.night.pit[0], table_id=current.table_id, player_id=stint.player.pk
                )
            if "limit_prober" in self.rates and stint.player.pk == self.roles["limit_prober"]["player"].pk:
                self._top_up_prober(table)
            services.seat_player(actor=self.night.pit[0], table_id=table.pk, player_id=stint.player.pk)

    # --- the deal ----------------------------------------------------------------------
    def round_seed(self, table: Table, number: int, seed: str) -> str:
        role = self.roles.get("split_stacker")
        if role is None or table.game != "faro" or table.dealer_id != role["dealer"].pk:
            return seed
        stats = self.stats["split_stacker"]
        stats["deals"] = stats.get("deals", 0) + 1
        if not self._due("split_stacker", stats["deals"]):
            return seed
        best, best_splits = seed, deal_splits(seed)
        for i in range(STACK_CANDIDATES):
            if best_splits >= STACK_MIN_SPLITS:
                break
            candidate = hashlib.sha256(
                f"{self.night.config.seed}:{table.name}:{number}:stack:{i}".encode()
            ).hexdigest()
            splits = deal_splits(candidate)
            if splits > best_splits:
                best, best_splits = candidate, splits
        stats["stacked"] = stats.get("stacked", 0) + 1
        stats.setdefault("stacked_splits", []).append(best_splits)
        return best

    def shoe_for(self, table: Table) -> str:
        role = self.roles.get("cold_deck")
        return "manual" if role is not None and role["table"].pk == table.pk else "electronic"

    def deal_cards(self, public: Mapping[str, Any], action: dict[str, Any]) -> dict[str, Any]:
        """The cards a cold-deck dealer keys from the manual shoe for the dealing action due."""
        dealt = {public.get("soda")} | {
            card
            for turn in public.get("turns") or ()
            for card in (turn.get("banker"), turn.get("player"), turn.get("hock"))
        }
        remaining = [card for card in FULL_DECK if card not in dealt]
        self.rng.shuffle(remaining)  # the physical shoe, fairly shuffled
        kind = action.get("type")
        if kind == "soda":
            return {**action, "card": remaining[0]}
        count = 3 if kind == "last_turn" else 2
        cards = remaining[:count]
        self._count("cold_deck", "turns")
        if self._due("cold_deck", self.stats["cold_deck"]["turns"]):
            cards = self._cold(public, remaining, count)
            self._count("cold_deck", "fixed_turns")
        return {**action, "cards": cards}

    @staticmethod
    def _cold(public: Mapping[str, Any], remaining: list[str], count: int) -> list[str]:
        """Banker's card from the rank the layout loses most on, player's from the rank it wins least on."""
        money: dict[str, int] = {}
        for bet in public.get("bets") or ():
            if bet.get("kind") != "rank":
                continue
            sign = -1 if bet.get("coppered") else 1
            for rank in bet.get("ranks") or ():
                money[rank] = money.get(rank, 0) + sign * int(bet.get("amount", 0))
        by_rank: dict[str, list[str]] = {}
        for card in remaining:
            by_rank.setdefault(rank_of(card), []).append(card)
        ranks = sorted(by_rank, key=lambda r: money.get(r, 0))
        banker_rank, player_rank = ranks[-1], ranks[0]
        if banker_rank == player_rank:
            return remaining[:count]
        banker, player = by_rank[banker_rank][0], by_rank[player_rank][0]
        rest = [card for card in remaining if card not in (banker, player)]
        return [banker, player, *rest[: count - 2]]

    def steer(self, table: Table, round_: Round, action: dict[str, Any]) -> dict[str, Any]:
        """The stakes results the scenarios key instead of the honest ones."""
        if action.get("type") != "result":
            return action
        dealt = set(round_.players)
        for name in ("colluders", "dumper", "dealer_partner"):
            role = self.roles.get(name)
            if role is None or role["table"].pk != table.pk:
                continue
            if name == "dealer_partner":
                partner = role["player"].pk
                if partner in dealt and self.rng.random() < self.rates[name]:
                    self._count(name, "steered")
                    return {**action, "winner": partner}
                return action
            giver, taker = role["giver"].pk, role["taker"].pk
            if not {giver, taker} <= dealt or self.rng.random() >= self.rates[name]:
                return action
            if name == "colluders" and action.get("winner") == giver:
                self._count(name, "steered")
                return {**action, "winner": taker}
            if name == "dumper" and isinstance(action.get("scores"), dict):
                scores = {str(k): int(v) for k, v in action["scores"].items()}
                top = max(scores.values())
                if scores[str(giver)] == top or scores[str(taker)] == top:
                    scores[str(taker)] = top + self.rng.randint(100, 200)
                    scores[str(giver)] = 0
                    self._count(name, "steered")
                    return {**action, "scores": scores}
        return action

    def faro_actions(self, table: Table, public: Mapping[str, Any]) -> list[dict[str, Any]]:
        role = self.roles.get("limit_prober")
        if role is None:
            return []
        player = role["player"]
        if not Seat.objects.filter(table=table, player=player, left_at__isnull=True).exists():
            return []
        if self.rng.random() >= self.rates["limit_prober"]:
            return []
        dead = set(public.get("dead_ranks") or ())
        live = [rank for rank in RANKS if rank not in dead]
        if not live:
            return []
        chip = int(table.rules.get("chip", 100))
        if self.night.available(player) < table.max_bet:
            return []
        rank = self.rng.choice(live)
        self._count("limit_prober", "probes")
        return [
            {"type": "bet", "player": player.pk, "ranks": [rank], "amount": table.max_bet + chip},
            {"type": "bet", "player": player.pk, "ranks": [rank], "amount": table.max_bet - chip},
        ]

    # --- the tray ----------------------------------------------------------------------
    def after_round(self, table: Table) -> None:
        """An unneeded fill, asked by the abusing dealer and signed by their pit boss."""
        role = self.roles.get("fill_abuser")
        if role is None or table.dealer_id != role["dealer"].pk:
            return
        opening = SPECS[table.game].opening
        table.tray.refresh_from_db()
        if table.tray.balance < opening // 2 or self.rng.random() >= self.rates["fill_abuser"]:
            return
        fill = signed_tray_change(
            table=table,
            kind="fill",
            amount=opening // 4,
            dealer=role["dealer"],
            pit_boss=role["approver"],
            cashier=self.night.cashier,
        )
        self.stats["fill_abuser"].setdefault("fills", []).append(fill.pk)

    def before_close(self, table: Table) -> None:
        role = self.roles.get("fill_abuser")
        if role is None or table.dealer_id != role["dealer"].pk or not self.stats["fill_abuser"].get("fills"):
            return
        amount = SPECS[table.game].opening // 4
        table.tray.refresh_from_db()
        if table.tray.balance < amount:
            return
        credit = signed_tray_change(
            table=table,
            kind="credit",
            amount=amount,
            dealer=role["dealer"],
            pit_boss=role["approver"],
            cashier=self.night.cashier,
        )
        self.stats["fill_abuser"]["credit"] = credit.pk

    def closing_count(self, table: Table, count: int) -> int:
        if table.pk not in self.short_tables:
            return count
        short = min(self.rng.choice((3, 5, 8, 12)) * int(settings.AUDIT_VARIANCE_THRESHOLD), count)
        self.stats["short_count"].setdefault("tables", []).append(
            {"table": table.pk, "dealer": table.dealer_id, "short": short}
        )
        return count - short

    def _due(self, name: str, n: int) -> bool:
        """Whether the n-th chance is taken: exactly ``rate`` of the chances are (0.5: every other),
        counted on from the cast's earlier nights."""
        rate = self.rates[name]
        n += self.before.get(name, 0)
        return math.floor(n * rate) > math.floor((n - 1) * rate)

    def _count(self, name: str, key: str) -> None:
        self.stats[name][key] = self.stats[name].get(key, 0) + 1

    # --- the truth -----------------------------------------------------------------------
    def truth(self, path: str | None = None) -> dict[str, Any]:
        """The ground truth of the night's scenarios, also written to ``path`` (JSON) if given;
        asked after the night (its gaming day is the one it was planned in)."""
        items = []
        for name, rate in self.rates.items():
            item = self._truth_item(name)
            items.append({"scenario": name, "rate": rate, **item, "stats": self.stats.get(name, {})})
        truth = {
            "seed": self.night.config.seed,
            "inject": self.rates,
            "gaming_day": self.gaming_day.isoformat() if self.gaming_day else None,
            "tables": [t.pk for t in self.night.table_list],
            "scenarios": items,
        }
        if path:
            target = Path(path)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(json.dumps(truth, indent=2, default=str))
        return truth

    def _truth_item(self, name: str) -> dict[str, Any]:
        role = self.roles.get(name, {})
        expected: list[dict[str, Any]] = []
        tolerated: list[dict[str, Any]] = []
        subjects: dict[str, Any] = {}
        if name == "split_stacker":
            dealer, table = role["dealer"].pk, role["table"].pk
            subjects = {"dealer": dealer, "table": table}
            expected = [{"kind": "faro_split_rate", "dealer": dealer}]
            tolerated = [
                {"kind": "faro_split_deal", "dealer": dealer},
                {"kind": "hold_anomaly", "dealer": dealer},
                {"kind": "hold_anomaly", "table": table},
            ]
        elif name in {"colluders", "dumper"}:
            giver, taker = role["giver"].pk, role["taker"].pk
            subjects = {"players": [giver, taker], "table": role["table"].pk}
            expected = [{"kind": "chip_flow", "pair": [giver, taker]}]
            tolerated = [
                {"kind": "never_loses", "player": taker},
                {"kind": "dealer_affinity", "player": taker},
            ]
        elif name == "dealer_partner":
            player, dealer = role["player"].pk, role["dealer"].pk
            subjects = {"player": player, "dealer": dealer, "table": role["table"].pk}
            expected = [{"kind": "dealer_affinity", "player": player, "dealer": dealer}]
            never = {"kind": "never_loses", "player": player, "dealer": dealer}
            (expected if self.rates[name] >= 1 else tolerated).append(never)
            tolerated.append({"kind": "chip_flow", "player": player})
        elif name in PLAYER_ALERTS:
            player = role["player"].pk
            subjects = {"player": player}
            expected = [{"kind": kind, "player": player} for kind in PLAYER_ALERTS[name]]
        elif name == "fill_abuser":
            dealer = role["dealer"].pk
            subjects = {"dealer": dealer, "table": role["table"].pk, "approver": role["approver"].pk}
            fills = self.stats[name].get("fills", [])
            if fills:
                expected.append({"kind": "fill_unexplained", "dealer": dealer})
            (expected if len(fills) >= REPEATED_FILLS else tolerated).append(
                {"kind": "fill_pair", "dealer": dealer}
            )
            if self.stats[name].get("credit"):
                expected.append({"kind": "credit_before_close", "dealer": dealer})
        elif name == "cold_deck":
            dealer, table = role["dealer"].pk, role["table"].pk
            subjects = {"dealer": dealer, "table": table}
            expected = [{"kind": "hold_anomaly", "dealer": dealer}]
            # The table wins so much that the honest tray check credits it after the last deal.
            tolerated = [
                {"kind": "hold_anomaly", "table": table},
                {"kind": "credit_before_close", "dealer": dealer},
            ]
        elif name == "short_count":
            shorted = self.stats[name].get("tables", [])
            subjects = {"tables": [row["table"] for row in shorted]}
            expected = [{"kind": "short_count", "table": row["table"]} for row in shorted]
        return {"subjects": subjects, "expected": expected, "tolerated": tolerated}
