"""The pit view's ratings figures per table: an hourly win/hold chart, the dealer's pace, occupancy.

The chart is inline SVG drawn here, on the server, from ``tables.ratings.selectors`` (the rows
the ratings task writes), so it refreshes with the pit's 5-second partial and needs no chart
library or CDN; its markup is written in Python for speed (``hourly_chart``; ``bench/run-markup``
shows why). A bar per hour of the gaming day that had play: its height is the house's win that
hour (up in green, down in red); a dot marks its hold (win / handle). An hour without play draws
nothing: its bar had no height to see or to point at, and such bars (a closed table's every
hour, an open one's hours still to come) were most of the pit poll's bytes (issue 22).
Every figure for all tables comes from five grouped queries, however many tables there are.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass

from django.utils import timezone
from django.utils.html import escape
from django.utils.safestring import SafeString, mark_safe

from casino.money import format_dollars
from ledger.gaming_day import gaming_day_for
from tables.models import Table
from tables.ratings.selectors import Hour, dealers_performance, tables_hours

WIDTH, HEIGHT = 288, 96  # the SVG's user units; the card scales it to its width
PLOT_TOP, PLOT_BOTTOM = 6, 80  # bars between these; hour labels below
HOLD_SPAN = 0.5  # the dot scale: a hold of ±50 % reaches the top or bottom of the plot


@dataclass(frozen=True, slots=True)
class TableFigures:
    chart: SafeString
    win_today: int
    handle_today: int
    hold_today: float | None
    occupancy_now: float | None  # average players seated so far this hour
    dealer_pace: float | None  # the dealer's decisions per hour on shift today, at all their tables
    dealer_decisions: int
    dealer_minutes: int  # time they held any table: two tables at once count once (dealers_performance)

    @property
    def hold_text(self) -> str:
        return _hold_text(self.hold_today)

    @property
    def occupancy_text(self) -> str:
        return "—" if self.occupancy_now is None else f"{self.occupancy_now:.2f}"


def _hold_text(hold: float | None) -> str:
    return "—" if hold is None else f"{hold * 100:.1f} %"


def _current_index(hours: Sequence[Hour], now: dt.datetime) -> int | None:
    for index, hour in enumerate(hours):
        if hour.hour <= now < hour.hour + dt.timedelta(hours=1):
            return index
    return None


@dataclass(frozen=True, slots=True)
class HourSlot:
    """What one hour's place in a chart is, whatever the table: the same for every table's chart."""

    label: str  # the hour's start in casino time, e.g. "22:00"
    x: str  # the bar's left edge
    cx: str  # the hold dot's centre
    future: bool  # later than the hour now running
    tick: str  # the hour label under the plot ("18"), or ""


_IDLE = (0, 0, None, 0, 0)  # win, handle, hold, decisions, occupancy of an hour without play


def _tip(label: str, hour: Hour) -> str:
    return (
        f"{label} · win {format_dollars(hour.win)} · handle {format_dollars(hour.handle)}"
        f" · hold {_hold_text(hour.hold)} · {hour.decisions} decisions · occupancy {hour.occupancy:g}"
    )


def hour_slots(hours: Sequence[Hour], moment: dt.datetime) -> tuple[HourSlot, ...]:
    """Every hour's place in the chart, worked out once for a whole floor of charts."""
    slot = WIDTH / max(len(hours), 1)
    current = _current_index(hours, moment)
    places = []
    for index, hour in enumerate(hours):
        local = timezone.localtime(hour.hour)
        label = f"{local:%H:%M}"
        tick = f"{local:%H}" if local.minute == 0 and local.hour % 6 == 0 else ""
        future = current is not None and index > current
        places.append(
            HourSlot(
                label=label,
                x=f"{index * slot + 1:.2f}",
                cx=f"{index * slot + slot / 2:.2f}",
                future=future,
                tick=tick,
            )
        )
    return tuple(places)


@dataclass(frozen=True, slots=True)
class Plot:
    """A chart's shapes in the SVG's units: the zero line, a bar per hour with play (kind, x, top,
    height, hour, win, tooltip), a hold dot per such hour (cx, cy, hold) and the hour ticks (x, hour)."""

    zero_at: str
    width: str
    bars: list[tuple[str, str, str, str, str, int, str]]
    dots: list[tuple[str, str, str]]
    ticks: list[tuple[str, str]]


def plot(hours: Sequence[Hour], slots: Sequence[HourSlot]) -> Plot:
    """Where a chart's bars and dots go: a bar's height is the house's win that hour (up in green,
    down in red), a dot its hold (win / handle); an hour without play draws nothing."""
    slot = WIDTH / max(len(hours), 1)
    highest = max((max(h.win, 0) for h in hours), default=0)
    lowest = max((max(-h.win, 0) for h in hours), default=0)
    span = PLOT_BOTTOM - PLOT_TOP
    # The zero line splits the plot in proportion to the biggest win and the biggest loss.
    zero = PLOT_TOP + span * highest / (highest + lowest) if highest + lowest else PLOT_BOTTOM
    scale = span / (highest + lowest) if highest + lowest else 0.0
    bars, dots = [], []
    for hour, place in zip(hours, slots, strict=True):
        if (hour.win, hour.handle, hour.hold, hour.decisions, hour.occupancy) == _IDLE:
            continue  # no bar, no dot
        height = abs(hour.win) * scale
        top = zero - height if hour.win >= 0 else zero
        kind = "win-pos" if hour.win >= 0 else "win-neg"
        if place.future:
            kind += " future"
        tip = _tip(place.label, hour)
        bars.append((kind, place.x, f"{top:.2f}", f"{height:.2f}", place.label, int(hour.win), tip))
        if hour.hold is not None:
            clipped = max(-HOLD_SPAN, min(HOLD_SPAN, hour.hold))
            y = PLOT_TOP + span * (HOLD_SPAN - clipped) / (2 * HOLD_SPAN)
            dots.append((place.cx, f"{y:.2f}", _hold_text(hour.hold)))
    ticks = [(place.x, place.tick) for place in slots if place.tick]
    return Plot(f"{zero:.2f}", f"{max(slot - 2, 1):.2f}", bars, dots, ticks)


def hourly_chart(
    hours: Sequence[Hour],
    *,
    label: str,
    now: dt.datetime | None = None,
    slots: Sequence[HourSlot] | None = None,
) -> SafeString:
    """Inline SVG: a ``rect.bar`` and a ``circle.hold`` per hour of the gaming day with play.

    ``slots`` (from ``hour_slots`` for the same hours and moment) saves a floor of charts from
    working out the same hour labels and positions for every table. Written here, not in a
    template: a floor draws two hundred of them, and ``bench/run-markup`` shows what a template
    would cost.
    """
    if slots is None or len(slots) != len(hours):
        slots = hour_slots(hours, now or timezone.now())
    shapes = plot(hours, slots)
    said = escape(label)
    parts = [
        f'<svg class="hourly-chart" data-testid="hourly-chart" viewBox="0 0 {WIDTH} {HEIGHT}" role="img"'
        f' aria-label="{said}" preserveAspectRatio="none" xmlns="http://www.w3.org/2000/svg">'
        f"<title>{said}</title>"
        f'<line class="zero" x1="0" x2="{WIDTH}" y1="{shapes.zero_at}" y2="{shapes.zero_at}"></line>'
    ]
    parts += [  # one hour's bar, its tooltip inside
        f'<rect class="bar {kind}" x="{x}" y="{top}" width="{shapes.width}" height="{height}"'
        f' data-hour="{hour}" data-win="{win}"><title>{escape(tip)}</title></rect>'
        for kind, x, top, height, hour, win, tip in shapes.bars
    ]
    parts += [
        f'<circle class="hold" cx="{cx}" cy="{cy}" r="2.2"><title>hold {escape(hold)}</title></circle>'
        for cx, cy, hold in shapes.dots
    ]
    parts += [f'<text class="tick" x="{x}" y="{HEIGHT - 2}">{tick}</text>' for x, tick in shapes.ticks]
    parts.append("</svg>")
    return mark_safe("".join(parts))


def floor_figures(tables: Sequence[Table], *, now: dt.datetime | None = None) -> dict[int, TableFigures]:
    """Per table: tonight's chart and totals, occupancy this hour, and its dealer's pace."""
    moment = now or timezone.now()
    day = gaming_day_for(moment)
    by_table = tables_hours(table_ids=[t.pk for t in tables], day=day, fills_and_credits=False)  # not drawn
    dealers = sorted({t.dealer_id for t in tables if t.dealer_id is not None})
    paces = dealers_performance(dealer_ids=dealers, day=day) if dealers else {}
    figures = {}
    slots: tuple[HourSlot, ...] = ()
    current: int | None = None
    for table in tables:
        hours = by_table[table.pk]
        if not slots:  # every table's hours are the same hours of the same gaming day
            slots = hour_slots(hours, moment)
            current = _current_index(hours, moment)
        handle = sum(h.handle for h in hours)
        win = sum(h.win for h in hours)
        pace = paces.get(table.dealer_id) if table.dealer_id is not None else None
        figures[table.pk] = TableFigures(
            chart=hourly_chart(hours, label=f"Hourly win and hold at {table.name}", now=moment, slots=slots),
            win_today=win,
            handle_today=handle,
            hold_today=round(win / handle, 6) if handle else None,
            occupancy_now=hours[current].occupancy if current is not None else None,
            dealer_pace=pace["decisions_per_hour"] if pace and pace["minutes"] else None,
            dealer_decisions=pace["decisions"] if pace else 0,
            dealer_minutes=pace["minutes"] if pace else 0,
        )
    return figures
