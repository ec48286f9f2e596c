"""The pit refresh reads the whole floor in a fixed number of queries, and its figures did not change.

The oracle ``per_table_figures`` is the pit's former way of reading a table (its sessions, then two
aggregates per session, the live round and the seats one table at a time), kept here so the
prefetched reads are checked against it on a floor with every kind of session, fill and credit.
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass
from typing import Any

import pytest
from django.db import connection
from django.db.models import Q, Sum
from django.test import Client
from django.test.utils import CaptureQueriesContext

from casino.models import Role, User
from casino.money import format_dollars
from casino.services import buy_in, create_player
from ledger.models import Account
from ledger.services import ensure_system_accounts
from tables import services
from tables.console.pit.floor import forget_shared_floor
from tables.console.selectors import list_floor, tonight_start, win_so_far, win_tonight
from tables.models import LIVE_ROUND_STATUSES, Round, Seat, Table, TableSession
from tables.rounds import start_round
from tables.slips.models import Slip
from tables.slips.services import sign_slip
from tests import factories

pytestmark = pytest.mark.django_db

OPENING = 100_000


@dataclass
class Pit:
    boss: User
    dealer: User
    cashier: User
    made: int = 0

    def _serial(self) -> int:
        self.made += 1
        return self.made

    def table(self) -> Table:
        name = f"Pit {self._serial()} {factories.RUN}"
        table = services.create_table(actor=self.boss, name=name, game="faro", min_bet=500, max_bet=50_000)
        return services.assign_dealer(actor=self.boss, table_id=table.pk, dealer_id=self.dealer.pk)

    def open(self, table: Table, count: int = OPENING) -> TableSession:
        return services.open_table(actor=self.dealer, table_id=table.pk, opening_inventory=count)

    def tray(self, table: Table) -> int:
        return Account.objects.get(pk=table.tray_id).balance

    def close(self, table: Table, *, short: int = 0) -> TableSession:
        count = self.tray(table) - short
        return services.close_table(actor=self.dealer, table_id=table.pk, closing_inventory=count)

    def ask(self, table: Table, kind: str, amount: int, verdict: str = "approve") -> Slip:
        """A fill or credit the dealer asks for, then refused, left ``pending``, or approved by the
        side the chips leave (the cage issues a fill, the pit boss releases a credit) and a fill
        signed for by the dealer and the pit boss, so that its chips reach the tray."""
        slip = services.request_tray_change(actor=self.dealer, table_id=table.pk, kind=kind, amount=amount)
        approver = self.cashier if kind == "fill" else self.boss
        decide = {"approve": services.approve_tray_request, "refuse": services.refuse_tray_request}
        if verdict in decide:
            decide[verdict](actor=approver, table_id=table.pk, request_id=slip.pk, kind=kind)
        if verdict == "approve" and kind == "fill":
            for signer in (self.dealer, self.boss):
                sign_slip(actor=signer, slip_id=slip.pk)
        return Slip.objects.get(pk=slip.pk)

    def deal(self, table: Table) -> Round:
        for _ in range(2):
            username = f"punter{self._serial()}-{factories.RUN}"
            player = create_player(
                actor=self.cashier, username=username, password=factories.PASSWORD, name=username
            )
            buy_in(actor=self.cashier, player=player, amount=50_000)
            services.seat_player(actor=self.dealer, table_id=table.pk, player_id=player.pk)
        return start_round(actor=self.dealer, table_id=table.pk, shoe="electronic")


@pytest.fixture
def pit(db: None) -> Pit:
    ensure_system_accounts()
    return Pit(
        boss=factories.staff(Role.PIT_BOSS),
        dealer=factories.staff(Role.DEALER),
        cashier=factories.staff(Role.CASHIER),
    )


def move(model: Any, pk: int, **times: dt.datetime) -> None:
    """Put a row's timestamps where a test needs them (``auto_now_add`` fields included)."""
    model.objects.filter(pk=pk).update(**times)


def move_crossing(slip: Slip, when: dt.datetime) -> None:
    """Put the moment a slip's chips crossed the tray (a fill's receipt, a credit's release) at
    ``when``: that transfer's time, which the ledger's append-only trigger guards, so it is set
    with the triggers off for this statement only."""
    crossed = slip.receipt_transfer_id if slip.kind == "fill" else slip.issue_transfer_id
    with connection.cursor() as cursor:
        cursor.execute("SET session_replication_role = replica")
        try:
            cursor.execute("UPDATE ledger_transfer SET created_at = %s WHERE id = %s", [when, crossed])
        finally:
            cursor.execute("SET session_replication_role = DEFAULT")


# --------------------------------------------------------------------------- the former reads


def per_table_win(table: Table, since: dt.datetime) -> int:
    """Win tonight as the pit used to read it: the sessions, then two aggregates per session."""
    tray = Account.objects.get(pk=table.tray_id).balance
    total = 0
    tonight = TableSession.objects.filter(table=table).filter(
        Q(opened_at__gte=since) | Q(closed_at__isnull=True)
    )
    for session in tonight:
        if session.closed_at is not None and session.win is not None:
            total += session.win
            continue
        slips = Slip.objects.filter(table=table)
        fills = (
            slips.filter(
                kind="fill", status="received", receipt_transfer__created_at__gte=session.opened_at
            ).aggregate(total=Sum("amount"))["total"]
            or 0
        )
        credits = (
            slips.filter(
                kind="credit",
                status__in=("issued", "received"),
                issue_transfer__created_at__gte=session.opened_at,
            ).aggregate(total=Sum("amount"))["total"]
            or 0
        )
        total += tray + credits - session.opening_inventory - fills
    return total


def per_table_figures(table: Table, since: dt.datetime) -> dict[str, Any]:
    live = Round.objects.filter(table=table, status__in=LIVE_ROUND_STATUSES).first()
    return {
        "win_tonight": per_table_win(table, since),
        "tray": Account.objects.get(pk=table.tray_id).balance,
        "live_round": live.pk if live else None,
        "players": Seat.objects.filter(table=table, left_at__isnull=True).count(),
        "session": TableSession.objects.filter(table=table, closed_at__isnull=True)
        .values_list("pk", flat=True)
        .first(),
    }


def card_of(page: str, table: Table) -> dict[str, str]:
    """The pit card of ``table`` as shown: tray, players, live deal and win tonight."""
    found = re.search(rf'aria-labelledby="pit-table-{table.pk}">(.*?)</article>', page, re.S)
    assert found is not None, f"no card for {table.name}"
    card = found.group(1)

    def field(label: str) -> str:
        value = re.search(rf"<dt>{label}</dt><dd[^>]*>(.*?)</dd>", card, re.S)
        assert value is not None, label
        return value.group(1)

    return {
        "tray": field("Tray"),
        "players": field("Players"),
        "live": field("Live deal"),
        "win": field("Win tonight"),
    }


# --------------------------------------------------------------------------- the floor


@dataclass
class Floor:
    two_shifts: Table  # closed earlier tonight, open again, a live deal
    carried_over: Table  # open since yesterday, a closed session yesterday
    no_win_recorded: Table  # closed, but its win column is empty
    never_opened: Table
    quiet: Table  # open, one credit, nobody seated
    expected_two_shifts: int


def build_floor(pit: Pit) -> Floor:
    since = tonight_start()
    two_shifts, carried_over, no_win, never_opened, quiet = (pit.table() for _ in range(5))

    first = pit.open(two_shifts)
    pit.ask(two_shifts, "fill", 30_000)
    pit.ask(two_shifts, "credit", 10_000)
    pit.ask(two_shifts, "fill", 5_000, "refuse")
    pit.ask(two_shifts, "credit", 7_000, "pending")
    first = pit.close(two_shifts, short=2_000)
    assert first.closing_inventory is not None
    second = pit.open(two_shifts, pit.tray(two_shifts))
    pit.ask(two_shifts, "fill", 20_000)  # fills and credits approved before it opened do not count
    pit.ask(two_shifts, "credit", 15_000)
    pit.ask(two_shifts, "credit", 4_000, "refuse")
    pit.ask(two_shifts, "fill", 6_000, "pending")
    pit.deal(two_shifts)
    expected = (first.closing_inventory + 10_000 - OPENING - 30_000) + (
        pit.tray(two_shifts) + 15_000 - second.opening_inventory - 20_000
    )

    yesterday = pit.open(carried_over, 80_000)
    last_night = pit.ask(carried_over, "fill", 9_000)
    yesterday = pit.close(carried_over)
    move_crossing(last_night, since - dt.timedelta(hours=9))
    move(
        TableSession,
        yesterday.pk,
        opened_at=since - dt.timedelta(hours=10),
        closed_at=since - dt.timedelta(hours=8),
    )
    overnight = pit.open(carried_over, pit.tray(carried_over))
    early = pit.ask(carried_over, "fill", 10_000)
    late = pit.ask(carried_over, "fill", 12_000)
    credit = pit.ask(carried_over, "credit", 3_000)
    move(TableSession, overnight.pk, opened_at=since - dt.timedelta(hours=2))
    move_crossing(early, since - dt.timedelta(hours=3))  # before the session opened
    move_crossing(late, since - dt.timedelta(hours=1))
    move_crossing(credit, since + dt.timedelta(minutes=1))

    pit.open(no_win, 60_000)
    pit.ask(no_win, "fill", 8_000)
    pit.ask(no_win, "credit", 2_500)
    closed = pit.close(no_win, short=1_000)
    TableSession.objects.filter(pk=closed.pk).update(win=None)

    pit.open(quiet, 40_000)
    pit.ask(quiet, "credit", 5_000)
    return Floor(two_shifts, carried_over, no_win, never_opened, quiet, expected)


# --------------------------------------------------------------------------- the figures


def test_the_floor_shows_the_figures_the_per_table_reads_gave(pit: Pit) -> None:
    floor = build_floor(pit)
    since = tonight_start()
    tables = [floor.two_shifts, floor.carried_over, floor.no_win_recorded, floor.never_opened, floor.quiet]
    rows = {row.table.pk: row for row in list_floor(user=pit.boss)}
    assert set(rows) == {t.pk for t in tables}
    for table in tables:
        row = rows[table.pk]
        shown = {
            "win_tonight": row.win_tonight,
            "tray": row.table.tray.balance,
            "live_round": row.live_round.pk if row.live_round else None,
            "players": row.players,
            "session": row.session.pk if row.session else None,
        }
        assert shown == per_table_figures(table, since), table.name
    assert rows[floor.two_shifts.pk].win_tonight == floor.expected_two_shifts
    assert rows[floor.two_shifts.pk].live_round is not None
    assert rows[floor.two_shifts.pk].players == 2
    assert rows[floor.never_opened.pk].win_tonight == 0
    # The overnight session counts the fill approved after it opened, not the one before.
    overnight = TableSession.objects.get(table=floor.carried_over, closed_at__isnull=True)
    tray = pit.tray(floor.carried_over)
    assert rows[floor.carried_over.pk].win_tonight == tray + 3_000 - overnight.opening_inventory - 12_000


def test_the_pit_page_shows_the_same_figures_and_pending_requests(pit: Pit) -> None:
    floor = build_floor(pit)
    since = tonight_start()
    client = Client()
    client.force_login(pit.boss)
    page = client.get("/pit/live/", HTTP_HX_REQUEST="true").content.decode()
    for table in (
        floor.two_shifts,
        floor.carried_over,
        floor.no_win_recorded,
        floor.never_opened,
        floor.quiet,
    ):
        old = per_table_figures(table, since)
        card = card_of(page, table)
        assert card["win"] == format_dollars(old["win_tonight"]), table.name
        assert card["tray"] == format_dollars(old["tray"]), table.name
        assert card["players"] == str(old["players"]), table.name
        if old["live_round"] is None:
            assert "none" in card["live"], table.name
        else:
            live = Round.objects.get(pk=old["live_round"])
            assert card["live"].startswith(f"#{live.number} · {live.state['phase']}"), table.name
    pending = Slip.objects.filter(kind__in=("fill", "credit"), status="pending").count()
    assert pending == 2
    # The list holds the slips pending and those in transit (the credits released and not yet
    # signed for at the cage), each row marked as which.
    in_transit = Slip.objects.filter(kind__in=("fill", "credit"), status="issued").count()
    assert f"Fills and credits pending or in transit ({pending + in_transit})" in page
    assert page.count('data-testid="pending-request"') == pending
    assert page.count('data-testid="transit-slip"') == in_transit


def test_win_tonight_and_win_so_far_read_alone_as_before(pit: Pit) -> None:
    floor = build_floor(pit)
    since = tonight_start()
    for table in Table.objects.select_related("tray").filter(
        pk__in=[floor.two_shifts.pk, floor.carried_over.pk]
    ):
        with CaptureQueriesContext(connection) as queries:
            alone = win_tonight(table, since=since)
        assert alone == per_table_win(table, since)
        assert len(queries) == 1  # the sessions, each with its fills and credits
    session = TableSession.objects.get(table=floor.quiet)  # no annotations: it reads the totals itself
    assert win_so_far(session, 50_000) == 50_000 + 5_000 - 40_000


# --------------------------------------------------------------------------- the query count


def add_busy_table(pit: Pit, index: int) -> Table:
    """A table as a busy night leaves it: most had a shift already, some deal, some wait on a fill."""
    table = pit.table()
    pit.open(table)
    if index % 3:
        pit.ask(table, "fill", 20_000)
        pit.ask(table, "credit", 5_000)
        pit.close(table, short=500)
        pit.open(table, pit.tray(table))
    pit.ask(table, "fill", 10_000)
    pit.ask(table, "credit", 3_000, "refuse")
    if index % 4 == 0:
        pit.ask(table, "fill", 4_000, "pending")
    if index % 2 == 0:
        pit.deal(table)
    return table


def refresh_queries(client: Client, boss: User) -> tuple[int, int, int]:
    """Queries of ``list_floor``, of the polled partial when it renders the floor, and when it
    shares the floor another poll rendered under 2 s before (``tables.console.pit.floor``)."""
    with CaptureQueriesContext(connection) as floor_queries:
        list_floor(user=boss)
    forget_shared_floor()
    with CaptureQueriesContext(connection) as rendered_queries:
        rendered = client.get("/pit/live/", HTTP_HX_REQUEST="true")
    with CaptureQueriesContext(connection) as shared_queries:
        shared = client.get("/pit/live/", HTTP_HX_REQUEST="true")
    assert rendered.status_code == shared.status_code == 200
    return len(floor_queries), len(rendered_queries), len(shared_queries)


# list_floor: tables with tray, dealer and how many players are seated; tonight's sessions with
# their totals (the open one among them); live rounds. The rendered partial adds the session with
# its user (one read), the five reads of the ratings figures (the charts draw no fills or
# credits), every table's last dealer shifts and the dealers free to swap in (issue 44), the
# fill and credit slips pending or in transit (one read with their tables and requesters, as the
# one-step requests were read, so slips kept every count), corrections waiting, alerts and their
# count; sharing a rendered floor leaves the session with its user and the four reads of what
# waits for the pit.
LIST_FLOOR, RENDERED, SHARED = 3, 15, 5


def test_a_pit_refresh_costs_the_same_queries_for_3_15_and_200_tables(pit: Pit) -> None:
    client = Client()
    client.force_login(pit.boss)
    for index in range(3):
        add_busy_table(pit, index)
    assert refresh_queries(client, pit.boss) == (LIST_FLOOR, RENDERED, SHARED)
    for index in range(3, 15):
        add_busy_table(pit, index)
    assert refresh_queries(client, pit.boss) == (LIST_FLOOR, RENDERED, SHARED)
    rows = list_floor(user=pit.boss)
    assert len(rows) == 15
    assert sum(row.live_round is not None for row in rows) == 8
    for _ in range(15, 200):  # the rest of a 200-table floor: made, a dealer assigned, never opened
        pit.table()
    assert refresh_queries(client, pit.boss) == (LIST_FLOOR, RENDERED, SHARED)
    forget_shared_floor()
    page = client.get("/pit/live/", HTTP_HX_REQUEST="true").content.decode()
    assert page.count('data-testid="pit-table"') == 200
    assert page.count('data-testid="hourly-chart"') == 200
