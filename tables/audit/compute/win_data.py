"""The reads behind win as the regulator reads it (``win.WinFigures``), per table and gaming day,
or per table and shift within one day.

Sources, each by the gaming day its movement is dated in:
* drop: the boxes that went to the table in the day (``DropBox.gaming_day``), counted: the cash
  the count found plus the markers found in them (marker slips in the box, not void);
* fills and credits: the slips as they crossed the tray (the rule of ``tray_slips_of_day``);
* opener and closer: the first session's opening count and the last session's closing count of
  the sessions opened in the day (a table still open: its tray's ledger balance now);
* the ledger: the tray's postings by kind (play, chips sold for cash, markers), and the count
  variances the sessions posted.
By shift, the opener of the first shift is the day's opener and the closer of the last the day's
closer; between shifts the inventory is the tray's ledger balance at the boundary (the counts adjust
the tray, so it runs from count to count), and stays the day's opener before the table first opens
and the day's closer after it last closes, so the shifts add up to the day. The drop falls in the
shift its cash was recorded in (each buy-in into the box at the table then); a box's count variance
in the shift it was removed in; a marker in the shift it was issued in.
"""

from __future__ import annotations

import bisect
import datetime as dt
from collections import defaultdict
from dataclasses import dataclass, field
from typing import Any

from django.conf import settings
from django.db.models import Q, Sum

from casino.replica import read_connection
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from ledger.models import Account
from tables import sql
from tables.audit.compute.win import WinFigures
from tables.credit.services import MARKER_TRANSFER as MARKER
from tables.drop.models import DropBox, DropBoxStatus
from tables.drop.services import CASH_BUY_IN
from tables.models import Table, TableSession, TrayRequest, TrayRequestStatus
from tables.slips.effects import CREDIT, CREDIT_RETURN, FILL
from tables.slips.models import Slip, SlipKind, SlipStatus

# Tray postings that are chips leaving for the drop: sold for cash at the table (CASH_BUY_IN), lent
# on a marker (MARKER), each the transfer kind its service posts.
# Tray postings that are not play (the rest is the house's win from the rounds).
NOT_PLAY = frozenset({FILL, CREDIT, CREDIT_RETURN, "table_issue", "count_variance", CASH_BUY_IN, MARKER})

Key = tuple[int, int]  # (table id, period index): the day's ordinal, or the shift's number


@dataclass
class Periods:
    """How to put a moment or a gaming day into a period: whole gaming days, or one day's shifts."""

    first: dt.date
    last: dt.date
    shifts: list[tuple[str, dt.datetime, dt.datetime]] = field(default_factory=list)

    @property
    def by_shift(self) -> bool:
        return bool(self.shifts)

    def of_day(self, day: dt.date) -> int:
        return day.toordinal()

    def of_moment(self, at: dt.datetime, day: dt.date | None = None) -> int:
        """The shift a moment falls in (clamped into the day), or the gaming day's ordinal."""
        if not self.by_shift:
            return (day or gaming_day_for(at)).toordinal()
        starts = [start for _, start, _ in self.shifts]
        return max(0, bisect.bisect_right(starts, at) - 1)


def shifts_of(day: dt.date) -> list[tuple[str, dt.datetime, dt.datetime]]:
    """``[(name, start, end)]`` of ``WIN_SHIFTS`` from the day's rollover (the last ends at the next)."""
    start, end = gaming_day_bounds(day)
    out = []
    moment = start
    for name, hours in settings.WIN_SHIFTS:
        following = min(moment + dt.timedelta(hours=hours), end)
        out.append((name, moment, following))
        moment = following
    return out


def figures(periods: Periods) -> dict[Key, WinFigures]:
    """Every table's figures in every period of ``periods`` that had any."""
    out: dict[Key, WinFigures] = defaultdict(WinFigures)
    _drop(periods, out)
    _slips(periods, out)
    _sessions(periods, out)
    _tray(periods, out)
    return dict(out)


def _drop(periods: Periods, out: dict[Key, WinFigures]) -> None:
    """Each cash buy-in's cash in its period, once its box is counted; a box's count variance in
    the period of its last buy-in (a box that took none: its own gaming day); a marker found in a
    counted box in the period it was issued in."""
    start, end = _range(periods)
    buy_ins = _cash_buy_ins(periods)
    boxes = {
        box.pk: box
        for box in DropBox.objects.filter(
            Q(pk__in={box_id for _, box_id, _, _ in buy_ins})
            | Q(gaming_day__range=(periods.first, periods.last))
        )
    }
    for table_id, box_id, at, amount in buy_ins:
        box = boxes.get(box_id)
        acc = out[(table_id, periods.of_moment(at))]
        if box is None or box.status != DropBoxStatus.COUNTED:
            acc.counted = False
            continue
        acc.cash_recorded += amount
        acc.cash_counted += amount
        acc.drop += amount
    counted = {pk: box for pk, box in boxes.items() if box.status == DropBoxStatus.COUNTED}
    last = _last_buy_ins([box for box in counted.values() if box.variance])
    for box in counted.values():
        if not box.variance:
            continue
        last_at = last.get(box.pk)
        if last_at is not None and start <= last_at < end:
            period = periods.of_moment(last_at)
        elif last_at is None and periods.first <= box.gaming_day <= periods.last:
            period = periods.of_moment(gaming_day_bounds(box.gaming_day)[0], box.gaming_day)
        else:
            continue
        acc = out[(box.table_id, period)]
        acc.cash_counted += box.variance
        acc.drop += box.variance
    markers = (
        Slip.objects.filter(kind=SlipKind.MARKER, drop_box_id__in=list(counted), at__gte=start, at__lt=end)
        .exclude(status=SlipStatus.VOID)
        .values_list("drop_box_id", "amount", "at")
    )
    for box_id, amount, at in markers:
        acc = out[(counted[box_id].table_id, periods.of_moment(at))]
        acc.markers_in_drop += amount
        acc.drop += amount


def _range(periods: Periods) -> tuple[dt.datetime, dt.datetime]:
    return gaming_day_bounds(periods.first)[0], gaming_day_bounds(periods.last)[1]


def _cash_buy_ins(periods: Periods) -> list[tuple[int, int, dt.datetime, int]]:
    """``(table, box, at, cents)`` of each cash buy-in between two moments: the chips that left
    the table's tray for cash, and the box the cash went into (the transfer's ``meta``)."""
    with read_connection().cursor() as cursor:
        cursor.execute(
            sql.WIN_CASH_BUY_INS,
            [CASH_BUY_IN, periods.first, periods.last],
        )
        return [(int(a), int(b or 0), c, int(d)) for a, b, c, d in cursor.fetchall()]


def _last_buy_ins(boxes: list[DropBox]) -> dict[int, dt.datetime]:
    """``{box: the moment of its last cash buy-in}``."""
    if not boxes:
        return {}
    with read_connection().cursor() as cursor:
        cursor.execute(
            sql.WIN_LAST_BUY_IN_OF_BOX,
            [CASH_BUY_IN, min(box.gaming_day for box in boxes), [box.pk for box in boxes]],
        )
        return {int(box_id): at for box_id, at in cursor.fetchall()}


def _slips(periods: Periods, out: dict[Key, WinFigures]) -> None:
    """Fills received, credits released, credits voided in transit whose chips came back (and
    one-step ``TrayRequest``s), each by its transfer's day or moment."""
    days = (periods.first, periods.last)
    rows: list[tuple[int, str, int, dt.date, dt.datetime]] = []
    rows += Slip.objects.filter(kind=SlipKind.FILL, receipt_transfer__gaming_day__range=days).values_list(
        "table_id", "kind", "amount", "receipt_transfer__gaming_day", "receipt_transfer__created_at"
    )
    rows += Slip.objects.filter(kind=SlipKind.CREDIT, issue_transfer__gaming_day__range=days).values_list(
        "table_id", "kind", "amount", "issue_transfer__gaming_day", "issue_transfer__created_at"
    )
    rows += [
        (table_id, kind, -amount, day, at)
        for table_id, kind, amount, day, at in Slip.objects.filter(
            kind=SlipKind.CREDIT, return_transfer__gaming_day__range=days
        ).values_list(
            "table_id", "kind", "amount", "return_transfer__gaming_day", "return_transfer__created_at"
        )
    ]
    rows += TrayRequest.objects.filter(
        status=TrayRequestStatus.APPROVED, transfer__gaming_day__range=days
    ).values_list("table_id", "kind", "amount", "transfer__gaming_day", "transfer__created_at")
    for table_id, kind, amount, day, at in rows:
        acc = out[(table_id, periods.of_moment(at, day))]
        if kind == SlipKind.FILL:
            acc.fills += amount
        else:
            acc.credits += amount


def _sessions(periods: Periods, out: dict[Key, WinFigures]) -> None:
    start, end = gaming_day_bounds(periods.first)[0], gaming_day_bounds(periods.last)[1]
    sessions = list(
        TableSession.objects.filter(opened_at__gte=start, opened_at__lt=end)
        .select_related("table")
        .order_by("opened_at", "pk")
    )
    by_table_day: dict[tuple[int, dt.date], list[TableSession]] = defaultdict(list)
    for session in sessions:
        by_table_day[(session.table_id, gaming_day_for(session.opened_at))].append(session)
    trays = {s.table_id: s.table.tray_id for s in sessions}
    for (table_id, day), day_sessions in by_table_day.items():
        opener = day_sessions[0].opening_inventory
        last = day_sessions[-1]
        closer = last.closing_inventory if last.closed_at is not None else _balance_now(trays[table_id])
        variances = [(s.opened_at, s.opening_variance) for s in day_sessions[1:] if s.opening_variance] + [
            (s.closed_at, s.closing_variance) for s in day_sessions if s.closed_at and s.closing_variance
        ]
        if not periods.by_shift:
            acc = out[(table_id, periods.of_day(day))]
            acc.opener += opener
            acc.closer += int(closer or 0)
            acc.tray_variance += sum(amount for _, amount in variances if amount)
            continue
        for at, amount in variances:
            out[(table_id, periods.of_moment(at))].tray_variance += int(amount or 0)
        inventory = _boundary_inventory(
            periods,
            tray=trays[table_id],
            opener=opener,
            closer=int(closer or 0),
            opened=day_sessions[0].opened_at,
            closed=last.closed_at,
        )
        for index in range(len(periods.shifts)):
            acc = out[(table_id, index)]
            acc.opener += inventory[index]
            acc.closer += inventory[index + 1]


def _boundary_inventory(
    periods: Periods, *, tray: int, opener: int, closer: int, opened: dt.datetime, closed: dt.datetime | None
) -> list[int]:
    """The tray at each shift boundary, first and last the day's opener and closer."""
    inner = [start for _, start, _ in periods.shifts[1:]]
    out = [opener]
    for moment in inner:
        if moment <= opened:
            out.append(opener)
        elif closed is not None and moment >= closed:
            out.append(closer)
        else:
            out.append(_balance_at(tray, moment))
    out.append(closer)
    return out


def _balance_at(account_id: int, moment: dt.datetime) -> int:
    with read_connection().cursor() as cursor:
        cursor.execute(
            sql.WIN_BALANCE_BEFORE,
            [account_id, moment],
        )
        row = cursor.fetchone()
    return int(row[0]) if row else 0


def _balance_now(account_id: int) -> int:
    return int(Account.objects.filter(pk=account_id).values_list("balance", flat=True).get())


def _tray(periods: Periods, out: dict[Key, WinFigures]) -> None:
    """Play, chips sold for cash and markers lent, from the trays' postings."""
    if periods.by_shift:
        # The shift a posting falls in: how many of the later shifts' starts are at or before it.
        bounds = [start.timestamp() for _, start, _ in periods.shifts[1:]]
        statement = sql.WIN_TRAY_BY_SHIFT
        params: list[Any] = [bounds, periods.first]
    else:
        statement = sql.WIN_TRAY_BY_DAY
        params = [periods.first, periods.last]
    with read_connection().cursor() as cursor:
        cursor.execute(statement, params)
        rows = cursor.fetchall()
    for table_id, period, kind, amount in rows:
        index = int(period) if periods.by_shift else periods.of_day(period)
        acc = out[(int(table_id), index)]
        if kind == CASH_BUY_IN:
            acc.cash_sold -= int(amount)
        elif kind == MARKER:
            acc.markers_issued -= int(amount)
        elif kind not in NOT_PLAY:
            acc.electronic_win += int(amount)


def table_names() -> dict[int, tuple[str, str]]:
    """``{table id: (name, game)}``."""
    return {pk: (name, game) for pk, name, game in Table.objects.values_list("pk", "name", "game")}


def round_spread(first: dt.date, last: dt.date) -> dict[int, tuple[float | None, float, float]]:
    """``{table: (theo or None, theo variance, Σ round win²)}`` of the rounds that ended in the days,
    in cents (and cents²): what ``win.hold_band`` needs."""
    from django.db.models import F

    from tables.ratings.models import RoundStat

    start, end = gaming_day_bounds(first)[0], gaming_day_bounds(last)[1]
    rows = (
        RoundStat.objects.filter(ended_at__gte=start, ended_at__lt=end)
        .values("table_id", "game")
        .annotate(theo=Sum("theo_milli"), theo_var=Sum("theo_variance"), squares=Sum(F("win") * F("win")))
    )
    return {
        int(r["table_id"]): (
            (r["theo"] or 0) / 1000.0 if r["game"] == "faro" else None,
            float(r["theo_var"] or 0),
            float(r["squares"] or 0),
        )
        for r in rows
    }
