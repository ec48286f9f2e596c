"""Reads for tables; ``access_*`` fetch and authorize in one step."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, NamedTuple, TypedDict

from django.db import connection
from django.db.models import Case, Exists, F, OuterRef, Prefetch, Q, QuerySet, Subquery, Sum, When, Window
from django.db.models.functions import RowNumber

from casino.errors import NotFound
from casino.models import Role, User
from casino.permissions import require_staff
from casino.rows import instances_from_row, one_row
from casino.selectors import ids_in
from tables import sql
from tables.models import (
    LIVE_ROUND_STATUSES,
    DealerShift,
    Round,
    RoundSettlement,
    Seat,
    Table,
    TableSession,
    TrayRequest,
    TrayRequestStatus,
)
from tables.slips.models import Slip, SlipKind, SlipSignature, SlipStatus

if TYPE_CHECKING:  # django-stubs' name for a model with annotations (a dev dependency)
    from django_stubs_ext import WithAnnotations

TRANSIT_KINDS = (SlipKind.FILL, SlipKind.CREDIT)


def _tables() -> QuerySet[Table]:
    """Tables with their tray, dealer, seated players (``active_seats``) and open session
    (``open_sessions``, read by ``get_open_session``), for staff and the API; a dealer's screens
    read ``table_with_seats``."""
    return Table.objects.select_related("tray", "dealer").prefetch_related(
        Prefetch(
            "seatings",
            queryset=Seat.objects.filter(left_at__isnull=True)
            .select_related("player__user")
            .order_by("number"),
            to_attr="active_seats",
        ),
        Prefetch(
            "sessions", queryset=TableSession.objects.filter(closed_at__isnull=True), to_attr="open_sessions"
        ),
    )


def table_with_seats(table_id: int) -> Table | None:
    """The table with its tray and seated players (``active_seats``, each with its player's user
    and wallet) in one statement: what ``_tables`` reads but its dealer and session, for a
    dealer's screens and taps (``tables.console.access.dealer_table``). None: no such table."""
    with connection.cursor() as cursor:
        cursor.execute(sql.TABLE_WITH_SEATS, [table_id])
        rows = cursor.fetchall()
    if not rows:
        return None
    table, tray = instances_from_row(rows[0], *sql.TABLE_AND_TRAY)
    table.tray = tray
    seats = []
    for row in rows:
        seat, player, user, wallet = instances_from_row(row[sql.SEATS_FROM :], *sql.SEAT_PARTS)
        if seat is None:
            continue
        player.user, player.wallet = user, wallet
        seat.table, seat.player = table, player
        seats.append(seat)
    table.active_seats = seats
    return table


def list_tables(*, user: Any) -> QuerySet[Table]:
    require_staff(user)
    return _tables().order_by("name")


def list_dealer_shifts(*, table_id: int) -> QuerySet[DealerShift]:
    """Who dealt the table and when, each shift with its dealer (the API pages it newest first)."""
    return DealerShift.objects.filter(table_id=table_id).select_related("dealer")


def recent_dealer_shifts(*, table_ids: Sequence[int], per_table: int) -> dict[int, list[DealerShift]]:
    """Each table's last ``per_table`` dealer shifts, newest first, with their dealers: one read for
    a whole floor, however long the night's rotations have run."""
    newest_first = Window(
        RowNumber(), partition_by=F("table_id"), order_by=[F("started_at").desc(), F("pk").desc()]
    )
    shifts = (
        DealerShift.objects.filter(table_id__in=table_ids)
        .annotate(newest=newest_first)
        .filter(newest__lte=per_table)
        .select_related("dealer")
        .order_by("table_id", "newest")
    )
    by_table: dict[int, list[DealerShift]] = {table_id: [] for table_id in table_ids}
    for shift in shifts:
        by_table[shift.table_id].append(shift)
    return by_table


def list_relief_dealers() -> list[User]:
    """Active dealers who deal no table now: the ones a pit boss can swap in, by name."""
    dealing = Table.objects.filter(dealer_id=OuterRef("pk"))
    return list(
        User.objects.filter(role=Role.DEALER, is_active=True)
        .exclude(Exists(dealing))
        .only("pk", "name", "username")
        .order_by("name", "username")
    )


TABLE_REF = re.compile(r"\b[Tt]able (?P<id>\d+)\b")


def tables_named(messages: Sequence[str]) -> list[str]:
    """``messages`` with every "table 5" in them put as the table's name ("Faro 1"), with one read
    for all of them (an alert list's summaries); an id that is no table stays as it was."""
    ids = ids_in(TABLE_REF, messages)
    names = dict(Table.objects.filter(pk__in=ids).values_list("pk", "name")) if ids else {}
    return [
        TABLE_REF.sub(lambda found: names.get(int(found.group("id")), found.group(0)), message)
        for message in messages
    ]


def access_table(*, user: Any, table_id: int) -> Table:
    """The table as ``_tables`` reads it."""
    require_staff(user)
    table = _tables().filter(pk=table_id).first()
    if table is None:
        raise NotFound("No such table.")
    return table


def get_open_session(table: Table) -> TableSession | None:
    sessions = getattr(table, "open_sessions", None)
    if sessions is not None:
        return sessions[0] if sessions else None
    return TableSession.objects.filter(table=table, closed_at__isnull=True).first()


def last_closing_count(table: Table) -> int | None:
    """The tray's count when the table last closed (the next opener's starting point), if ever."""
    return (
        TableSession.objects.filter(table=table, closed_at__isnull=False)
        .order_by("-closed_at")
        .values_list("closing_inventory", flat=True)
        .first()
    )


def list_pending_tray_requests(*, table: Table | None = None) -> QuerySet[Slip]:
    """Fills and credits waiting for their approval (the cage's issue, the pit's release), oldest
    first (``table``: that table's only). ``requested_at`` is the slip's time, as the screens
    that listed the one-step requests read it."""
    waiting = (
        Slip.objects.filter(kind__in=TRANSIT_KINDS, status=SlipStatus.PENDING)
        .annotate(requested_at=F("at"))
        .order_by("at", "pk")
    )
    if table is not None:
        return waiting.filter(table=table)
    return waiting.select_related("table", "requested_by")


def list_transit_slips() -> QuerySet[Slip]:
    """Fills and credits the pit and the cage still have in hand, oldest first: waiting for their
    approval (``pending``) or on their way (``issued``), each with its table and requester."""
    return (
        Slip.objects.filter(kind__in=TRANSIT_KINDS, status__in=(SlipStatus.PENDING, SlipStatus.ISSUED))
        .select_related("table", "requested_by")
        .order_by("at", "pk")
    )


def _tray_moment(kind: str) -> str:
    """The transfer at which a ``kind`` slip's chips crossed the tray: a fill's receipt (they
    reached it), a credit's issue (the pit released them)."""
    return "receipt_transfer" if kind == SlipKind.FILL else "issue_transfer"


def _vouched_by(kind: str) -> Subquery:
    """Who answered for the slip beside its requester: a credit's releasing pit boss; a fill's
    receiving pit boss (its dealer, when the pit boss who signed had asked for it)."""
    signatures = SlipSignature.objects.filter(slip=OuterRef("pk")).exclude(user=OuterRef("requested_by"))
    if kind == SlipKind.FILL:
        signatures = signatures.filter(role__in=(Role.PIT_BOSS, Role.DEALER)).order_by(
            Case(When(role=Role.PIT_BOSS, then=0), default=1), "pk"
        )
    else:
        signatures = signatures.filter(role=Role.PIT_BOSS).order_by("pk")
    return Subquery(signatures.values("user_id")[:1])


class TrayCrossing(TypedDict):
    """What ``approved_slips`` adds to each slip."""

    decided_at: dt.datetime
    tray_transfer_id: int
    approved_by_id: int | None


if TYPE_CHECKING:  # the slips ``approved_slips`` reads, for readers that may not import tables.slips
    CrossedSlips = QuerySet[WithAnnotations[Slip, TrayCrossing]]


def approved_slips(kind: str) -> CrossedSlips:
    """The ``kind`` slips whose chips crossed a tray and still stand: fills received, credits
    released (in transit or received; a void sends them back). Each carries ``decided_at`` (when
    they crossed the tray), ``tray_transfer_id`` (that transfer) and ``approved_by_id``
    (``_vouched_by``), the one-step requests' names for what the detectors and the pit read."""
    crossed = _tray_moment(kind)
    standing = (SlipStatus.RECEIVED,) if kind == SlipKind.FILL else (SlipStatus.ISSUED, SlipStatus.RECEIVED)
    return Slip.objects.filter(kind=kind, status__in=standing).annotate(
        decided_at=F(f"{crossed}__created_at"),
        tray_transfer_id=F(f"{crossed}_id"),
        approved_by_id=_vouched_by(kind),
    )


def tray_moves(
    table_ids: Sequence[int], start: dt.datetime, end: dt.datetime
) -> list[tuple[int, dt.datetime, str, int]]:
    """``(table, when, kind, amount)`` of every fill and credit that crossed one of the tables'
    trays in ``[start, end)`` (``approved_slips``' rule, both kinds), and of the one-step
    requests approved then before slips: one query."""
    crossed = Case(
        When(kind=SlipKind.FILL, then=F("receipt_transfer__created_at")),
        default=F("issue_transfer__created_at"),
    )
    standing = Q(kind=SlipKind.FILL, status=SlipStatus.RECEIVED) | Q(
        kind=SlipKind.CREDIT, status__in=(SlipStatus.ISSUED, SlipStatus.RECEIVED)
    )
    slips = (
        Slip.objects.filter(standing, table_id__in=table_ids)
        .annotate(crossed_at=crossed)
        .filter(crossed_at__gte=start, crossed_at__lt=end)
        .values_list("table_id", "crossed_at", "kind", "amount")
    )
    legacy = TrayRequest.objects.filter(
        table_id__in=table_ids, status=TrayRequestStatus.APPROVED, decided_at__gte=start, decided_at__lt=end
    ).values_list("table_id", "decided_at", "kind", "amount")
    return [
        (int(table_id), moment, kind, int(amount))
        for table_id, moment, kind, amount in slips.union(legacy, all=True)
    ]


def _sum(rows: QuerySet[Any]) -> int:
    return int(rows.aggregate(total=Sum("amount"))["total"] or 0)


def approved_total(table_id: int, kind: str, since: dt.datetime) -> int:
    """A table's ``kind`` total since ``since`` (its session's opening), as its tray saw it: fills
    received; credits released, less credits voided in transit whose chips came back in that
    time (one released before ``since`` and returned after it comes back into this session's
    tray). Fills and credits approved in one step before slips (``TrayRequest``) still count."""
    crossed = _tray_moment(kind)
    slips = Slip.objects.filter(kind=kind, table_id=table_id, **{f"{crossed}__created_at__gte": since})
    if kind == SlipKind.FILL:
        slips = slips.filter(status=SlipStatus.RECEIVED)
    total = _sum(slips)
    if kind == SlipKind.CREDIT:
        total -= _sum(
            Slip.objects.filter(kind=kind, table_id=table_id, return_transfer__created_at__gte=since)
        )
    legacy = TrayRequest.objects.filter(
        kind=kind, table_id=table_id, status=TrayRequestStatus.APPROVED, decided_at__gte=since
    )
    return total + _sum(legacy)


def round_exists(round_id: int, *, table_id: int | None = None) -> bool:
    """Whether the round exists (at ``table_id``, if given): a plain read, asked before every API
    action that carries an Idempotency-Key, where the ORM's ``exists()`` cost twice the statement."""
    if table_id is None:
        return one_row(sql.ROUND_EXISTS, [round_id]) is not None
    return one_row(sql.ROUND_EXISTS_AT_TABLE, [round_id, table_id]) is not None


def get_live_round(table: Table) -> Round | None:
    return Round.objects.filter(table=table, status__in=LIVE_ROUND_STATUSES).first()


class SettlementRow(NamedTuple):
    """A settlement as the round API lists it and a console receipt words it (``RoundSettlement``'s
    columns, the order of ``apply_round_action``'s ``settlements_made``)."""

    transfer_id: int
    kind: str
    amount: int
    player_id: int | None
    from_account: str
    to_account: str


SETTLEMENT_COLUMNS = SettlementRow._fields


def round_settlements(*, round_id: int) -> QuerySet[RoundSettlement]:
    """The round's live settlements (a correction's voided ones left out), oldest first."""
    return RoundSettlement.objects.filter(round_id=round_id).order_by("pk")


def list_round_settlements(
    *, round_id: int
) -> QuerySet[RoundSettlement, tuple[int, str, int, int | None, str, str]]:
    """The round's settlements, oldest first, as ``SETTLEMENT_COLUMNS`` tuples."""
    return round_settlements(round_id=round_id).values_list(*SETTLEMENT_COLUMNS)
