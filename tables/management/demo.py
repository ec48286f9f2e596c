"""The demo floor: seven tables, a dealer at each, last night dealt and audited, tonight seated.

``load_demo_data`` calls these in order. Every write goes through the services the console
and the API use: tables are created and assigned by the pit boss, opened and closed with
counted trays by each table's dealer, rounds are dealt by ``tables.simulation.night``'s bots, the
past gaming day is closed and audited by ``tables.audit.services``, and one player gets a credit
line and an open marker (``tables.credit.services``). Each step looks at what is
there first, so a second run adds nothing.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.utils import timezone

from casino.models import Player, User
from casino.services import buy_in
from ledger.gaming_day import gaming_day_for
from ledger.models import ClosedGamingDay
from tables import services
from tables.audit.models import AuditReport, AuditStatus
from tables.audit.services import request_audit, run_audit
from tables.credit.models import CreditLine, Marker
from tables.credit.services import issue_marker, set_credit_line
from tables.drop.services import cash_buy_in
from tables.models import Round, RoundStatus, Seat, Table, TableSession, TableStatus
from tables.selectors import last_closing_count
from tables.simulation.drop import count_the_drop
from tables.simulation.night import Night, NightConfig, dealer_of, evening_of

DEMO_SEED = 2026
TOP_UP_BELOW = 20_000  # a player with less than $200 left buys in again tonight
TOP_UP = 50_000
PASS_LENGTH = dt.timedelta(minutes=40)  # last night: one deal per table in each


@dataclass(frozen=True)
class DemoTable:
    name: str
    game: str
    min_bet: int
    max_bet: int
    opener: int  # the counted tray of its first opening (issued from the cage)
    seats_last_night: int
    seats_tonight: int  # 0: left closed, its opening form ready with last night's count
    rounds_last_night: int = 1
    ante: int = 0
    rules: dict[str, Any] = field(default_factory=dict)
    short_at_close: int = 0  # last night's closing count came up this much short
    cash_buy_ins: tuple[int, ...] = ()  # last night: its first seated players bought chips with cash

    def create_kwargs(self) -> dict[str, Any]:
        spec = {"name": self.name, "game": self.game, "min_bet": self.min_bet, "max_bet": self.max_bet}
        return {**spec, "ante": self.ante, "rules": self.rules or None}


TABLES = [
    DemoTable("Faro 1", "faro", 500, 50_000, 2_000_000, 5, 6, cash_buy_ins=(50_000, 20_000)),
    DemoTable("Faro 2", "faro", 1_000, 100_000, 4_000_000, 4, 0),
    DemoTable("Farmer 1", "farmer", 100, 5_000, 100_000, 4, 4, 2, ante=500),
    DemoTable("Fan Tan 1", "fan_tan", 100, 5_000, 100_000, 4, 4, 2, ante=100, cash_buy_ins=(10_000,)),
    DemoTable("Newmarket 1", "newmarket", 100, 5_000, 100_000, 4, 4, 2, ante=100),
    DemoTable("Tonk 1", "tonk", 100, 10_000, 100_000, 3, 3, ante=500, short_at_close=2_500),
    DemoTable("Card room 1", "stakes", 100, 5_000, 50_000, 3, 3, 3, ante=200, rules={"variant": "gops"}),
]


def ensure_tables(*, pit_boss: User, dealers: Sequence[User]) -> list[Table]:
    """The demo tables, each with its own dealer assigned: ``dealers`` in ``TABLES``' order.

    One person dealing every table at once would be on shift seven times over in the audit
    and give every pit card the same pace.
    """
    tables = []
    for spec, dealer in zip(TABLES, dealers, strict=True):
        table = Table.objects.filter(name=spec.name).first()
        if table is None:
            table = services.create_table(actor=pit_boss, **spec.create_kwargs())
        if table.dealer_id != dealer.pk:
            table = services.assign_dealer(actor=pit_boss, table_id=table.pk, dealer_id=dealer.pk)
        tables.append(table)
    return tables


def has_history() -> bool:
    """Whether a demo table was ever opened: then last night is there already."""
    return TableSession.objects.filter(table__name__in=[spec.name for spec in TABLES]).exists()


def last_night_moment() -> dt.datetime:
    """20:00 on the gaming day before today's: in the past, and hours before that day's end."""
    day = gaming_day_for(timezone.now()) - dt.timedelta(days=1)
    if ClosedGamingDay.objects.filter(day=day).exists():
        raise RuntimeError(f"Gaming day {day} is closed already: load the demo into an empty database.")
    return evening_of(day)


def _seat(table: Table, players: list[Player], want: int, *, start: int) -> int:
    """Seat ``want`` players (counting those seated) from ``players``, beginning at ``start``;
    returns where the next table should begin."""
    seated = Seat.objects.filter(table=table, left_at__isnull=True).count()
    busy = set(Seat.objects.filter(left_at__isnull=True).values_list("player_id", flat=True))
    index = start
    while seated < want and index < start + len(players):
        player = players[index % len(players)]
        index += 1
        if player.pk in busy:
            continue
        services.seat_player(actor=dealer_of(table), table_id=table.pk, player_id=player.pk)
        busy.add(player.pk)
        seated += 1
    return index


def deal_last_night(
    *,
    tables: list[Table],
    players: list[Player],
    advance: Callable[[dt.timedelta], Any],
    count_team: tuple[User, User],
    cashier: User,
) -> int:
    """Open every table with its counted tray and seat it, some players buying chips with cash at
    the table, deal a few passes, close on the count; then the count team removes and counts the
    drop boxes (``tables.simulation.drop``), so the audit has a real count and a win row.

    Call it with the clock at last night (``last_night_moment``); ``advance`` moves that clock
    on between passes, so the night has hours. The bots are the simulated night's
    (``Night.play_round``): every round goes through ``tables.rounds`` as the console's do.
    """
    night = Night(NightConfig(seed=DEMO_SEED))
    start = 0
    for spec, table in zip(TABLES, tables, strict=True):
        services.open_table(actor=dealer_of(table), table_id=table.pk, opening_inventory=spec.opener)
        first = start
        start = _seat(table, players, spec.seats_last_night, start=start)
        for offset, amount in enumerate(spec.cash_buy_ins):
            player = players[(first + offset) % len(players)]
            cash_buy_in(actor=dealer_of(table), table_id=table.pk, player_id=player.pk, amount=amount)
    for number in range(1, max(spec.rounds_last_night for spec in TABLES) + 1):
        advance(PASS_LENGTH)
        for spec, table in zip(TABLES, tables, strict=True):
            if number <= spec.rounds_last_night:
                night.play_round(table, number)
    advance(PASS_LENGTH)
    for spec, table in zip(TABLES, tables, strict=True):
        table.tray.refresh_from_db()
        count = table.tray.balance - min(spec.short_at_close, table.tray.balance)
        services.close_table(actor=dealer_of(table), table_id=table.pk, closing_inventory=count)
    advance(PASS_LENGTH)
    count_the_drop(tables=tables, team=count_team, cashier=cashier)
    return Round.objects.filter(table__in=tables, status=RoundStatus.SETTLED).count()


def audit_last_day(*, tables: list[Table], auditor: User) -> AuditReport | None:
    """Close and audit the gaming day of the tables' last closing, unless its report is done.

    Run here rather than left to the beat, so the report is there when the demo starts; the
    task ``request_audit`` also sends finds it done and leaves it as it is.
    """
    last = (
        TableSession.objects.filter(table__in=tables, closed_at__isnull=False).order_by("-closed_at").first()
    )
    if last is None or last.closed_at is None:
        return None
    day = gaming_day_for(last.closed_at)
    if AuditReport.objects.filter(gaming_day=day, status=AuditStatus.DONE).exists():
        return None
    report = request_audit(day=day, actor=auditor)
    return run_audit(report_id=report.pk, task_id=report.task_id)


def open_tonight(*, tables: list[Table], players: list[Player], cashier: User) -> None:
    """Tonight: players short of chips buy in, the tables open on last night's count, players sit."""
    for player in players:
        player.wallet.refresh_from_db()
        if player.wallet.available < TOP_UP_BELOW:
            buy_in(actor=cashier, player=player, amount=TOP_UP)
    start = len(players) // 2  # other faces than last night's first tables
    for spec, table in zip(TABLES, tables, strict=True):
        if not spec.seats_tonight:
            continue
        table.refresh_from_db()
        if table.status == TableStatus.CLOSED:
            count = last_closing_count(table) or spec.opener
            services.open_table(actor=dealer_of(table), table_id=table.pk, opening_inventory=count)
        start = _seat(table, players, spec.seats_tonight, start=start)


DEMO_CREDIT_LINE = 500_000  # $5,000.00
DEMO_MARKER = 100_000  # $1,000.00


def open_credit(*, tables: list[Table], admin: User, pit_boss: User) -> Marker | None:
    """Credit play: an admin gives the first player seated at the first open table a line, and
    the pit boss (not the one who set it) issues a marker there that is still open for the cage
    to redeem. Nothing when the demo already has a credit line."""
    if CreditLine.objects.exists():
        return None
    open_now = Table.objects.filter(pk__in=[t.pk for t in tables], status=TableStatus.OPEN)
    opened = set(open_now.values_list("pk", flat=True))
    table = next((t for t in tables if t.pk in opened), None)  # Faro 1 tonight
    if table is None:
        return None
    seated = Seat.objects.filter(table=table, left_at__isnull=True).select_related("player__user")
    seat = seated.order_by("number").first()
    if seat is None:
        return None
    set_credit_line(actor=admin, player=seat.player, limit=DEMO_CREDIT_LINE)
    return issue_marker(actor=pit_boss, table_id=table.pk, player_id=seat.player_id, amount=DEMO_MARKER)
