"""The report's charts, drawn with matplotlib's Agg backend (no display, thread-safe use).

Each function takes the stored report (tables.audit.report.ReportData) and returns PNG
bytes, so the PDF and the auditors' HTML page show the very same pictures.
"""

from __future__ import annotations

import base64
import datetime as dt
import functools
import io
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import matplotlib

matplotlib.use("Agg")

from matplotlib.figure import Figure
from matplotlib.ticker import FuncFormatter

MAX_BARS = 30  # more tables than this: show the 15 best and 15 worst
WIDTH = 10.4  # inches: the PDF's landscape text width, so 8 pt in the figure is 8 pt on paper
HOUSE = "#1f6f43"
LOSS = "#b03a2e"
THEO = "#2c5d8f"
MUTED = "#8a8f98"
FONT: dict[str, Any] = {"family": "DejaVu Sans", "size": 8}


def _dollars(value: float, _pos: int | None = None) -> str:
    """Axis ticks: -$2.5k, $0, $750, $4M (the sign before the dollar)."""
    dollars = value / 100
    sign = "-" if dollars < 0 else ""
    dollars = abs(dollars)
    for size, suffix in ((1_000_000, "M"), (1000, "k")):
        if dollars >= size:
            return f"{sign}${dollars / size:,.1f}".rstrip("0").rstrip(".") + suffix
    return f"{sign}${dollars:,.0f}"


def _finished(figure: Figure, ax: Any, title: str, dpi: int) -> bytes:
    """Every chart's last strokes: its title on the left, no top or right frame; then the PNG."""
    ax.set_title(title, loc="left", fontweight="bold")
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", dpi=dpi, bbox_inches="tight")
    return buffer.getvalue()


def _styled(draw: Callable[..., bytes]) -> Callable[..., bytes]:
    """Fonts through rc_context, so drawing never leaves global matplotlib state changed."""

    @functools.wraps(draw)
    def wrapper(*args: Any, **kwargs: Any) -> bytes:
        with matplotlib.rc_context({"font.family": FONT["family"], "font.size": FONT["size"]}):
            return draw(*args, **kwargs)

    return wrapper


def _empty(ax: Any, message: str) -> None:
    ax.text(0.5, 0.5, message, ha="center", va="center", color=MUTED, transform=ax.transAxes)
    ax.set_xticks([])
    ax.set_yticks([])


@_styled
def win_by_table(report: Mapping[str, Any], *, dpi: int = 160) -> bytes:
    """House win per table (count win + rake), best at the top, losses in red."""
    tables = sorted(report.get("tables", []), key=lambda t: t["house_win"])
    title = "House win by table"
    if len(tables) > MAX_BARS:
        half = MAX_BARS // 2
        title += f" (the {half} lowest and {half} highest of {len(tables)})"
        tables = tables[:half] + tables[-half:]
    height = max(1.6, 0.16 * len(tables) + 0.8)
    figure = Figure(figsize=(WIDTH, height))
    ax = figure.add_subplot()
    if not tables:
        _empty(ax, "No table had play this day")
    else:
        wins = [t["house_win"] for t in tables]
        ax.barh(
            [t["name"] for t in tables],
            wins,
            color=[HOUSE if w >= 0 else LOSS for w in wins],
            height=0.7,
        )
        ax.axvline(0, color="#333", linewidth=0.8)
        ax.xaxis.set_major_formatter(FuncFormatter(_dollars))
        ax.tick_params(axis="y", labelsize=7)
        ax.grid(axis="x", color="#ddd", linewidth=0.6)
        ax.set_axisbelow(True)
    return _finished(figure, ax, title, dpi)


@_styled
def hold_vs_theoretical(report: Mapping[str, Any], *, dpi: int = 160) -> bytes:
    """Each house-banked table's hold % against its theoretical hold and 95 % band."""
    rows = [t for t in report.get("tables", []) if t.get("theo") is not None and t.get("handle")]
    rows.sort(key=lambda t: t["name"])
    title = "Hold % against theoretical (95 % band)"
    if len(rows) > MAX_BARS:
        rows = sorted(rows, key=lambda t: t["handle"], reverse=True)[:MAX_BARS]
        rows.sort(key=lambda t: t["name"])
        title += f", the {MAX_BARS} busiest tables"
    figure = Figure(figsize=(WIDTH, 2.3))
    ax = figure.add_subplot()
    if not rows:
        _empty(ax, "No house-banked table took bets this day")
    else:
        xs = list(range(len(rows)))
        for x, row in zip(xs, rows, strict=True):
            band = row["theo_band"]
            if band["low_pct"] is not None and band["high_pct"] is not None:
                ax.vlines(x, band["low_pct"], band["high_pct"], color=THEO, alpha=0.35, linewidth=7)
        ax.scatter(
            xs,
            [r["theo_hold_pct"] for r in rows],
            marker="_",
            s=160,
            color=THEO,
            label="theoretical",
            zorder=3,
        )
        outside = [_outside(r) for r in rows]
        ax.scatter(
            xs,
            [r["hold_pct"] for r in rows],
            color=[LOSS if o else HOUSE for o in outside],
            s=22,
            zorder=4,
            label="actual (red: outside the band)",
        )
        ax.axhline(0, color="#333", linewidth=0.6)
        ax.set_xticks(xs)
        many = len(rows) > 15
        ax.set_xticklabels(
            [r["name"] for r in rows],
            rotation=90 if many else 45,
            ha="center" if many else "right",
            fontsize=6 if many else 7,
        )
        ax.yaxis.set_major_formatter(FuncFormatter(lambda v, _p: f"{v:.0f}%"))
        ax.grid(axis="y", color="#ddd", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False, ncols=2)
    return _finished(figure, ax, title, dpi)


def _outside(row: Mapping[str, Any]) -> bool:
    band = row["theo_band"]
    hold = row["hold_pct"]
    if hold is None or band["low_pct"] is None or band["high_pct"] is None:
        return False
    return not band["low_pct"] <= hold <= band["high_pct"]


def _moved(hour: Mapping[str, Any]) -> bool:
    """Whether cash or chips moved at the cage in this hour of the cash flow."""
    return bool(hour["cash_in"] or hour["cash_out"] or hour["fills"] or hour["credits"])


def _last_hour(report: Mapping[str, Any]) -> int:
    """The index of the chart's last hour: the last one in which cash moved, and never one after
    the day's close (a day closed early stops there), so the line does not run on past it."""
    hours: Sequence[Mapping[str, Any]] = report.get("cash_flow", [])
    moved = [i for i, h in enumerate(hours) if _moved(h)]
    last = moved[-1] if moved else -1
    closed_at = (report.get("closed") or {}).get("at")
    if closed_at:
        close = dt.datetime.fromisoformat(closed_at)
        started = [i for i, h in enumerate(hours) if dt.datetime.fromisoformat(h["start"]) <= close]
        last = min(last, started[-1] if started else -1)
    return last


def running_net(report: Mapping[str, Any]) -> list[int]:
    """The running net cash in (buy-ins - cash-outs), hour by hour, up to the last hour with data."""
    hours: Sequence[Mapping[str, Any]] = report.get("cash_flow", [])
    net: list[int] = []
    running = 0
    for h in hours[: _last_hour(report) + 1]:
        running += h["cash_in"] - h["cash_out"]
        net.append(running)
    return net


@_styled
def cash_flow(report: Mapping[str, Any], *, dpi: int = 160) -> bytes:
    """The cage hour by hour: buy-ins up, cash-outs down, and the running net."""
    hours: Sequence[Mapping[str, Any]] = report.get("cash_flow", [])
    figure = Figure(figsize=(WIDTH, 2.0))
    ax = figure.add_subplot()
    if not any(_moved(h) for h in hours):
        _empty(ax, "No cash moved this day")
    else:
        xs = list(range(len(hours)))
        cash_in = [h["cash_in"] for h in hours]
        cash_out = [-h["cash_out"] for h in hours]
        ax.bar(xs, cash_in, color=HOUSE, width=0.8, label="buy-ins")
        ax.bar(xs, cash_out, color=LOSS, width=0.8, label="cash-outs")
        net = running_net(report)
        line_xs = xs[: len(net)]
        ax.plot(
            line_xs, net, color=THEO, linewidth=1.6, marker="o", markersize=2.5, label="net cash in (running)"
        )
        fills = [h["fills"] - h["credits"] for h in hours[: len(net)]]
        if any(fills):
            ax.plot(line_xs, fills, color=MUTED, linewidth=1, linestyle="--", label="fills - credits")
        ax.axhline(0, color="#333", linewidth=0.6)
        ax.set_xticks(xs[::2])
        ax.set_xticklabels([h["hour"] for h in hours][::2], fontsize=7)
        ax.yaxis.set_major_formatter(FuncFormatter(_dollars))
        ax.grid(axis="y", color="#ddd", linewidth=0.6)
        ax.set_axisbelow(True)
        ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False, ncols=4)
    return _finished(figure, ax, "The day's cash flow at the cage (casino time)", dpi)


@_styled
def win_and_hold(report: Mapping[str, Any], *, dpi: int = 160) -> bytes:
    """Each table's win as the regulator reads it (bars) against the ledger's win (ticks), with
    its hold written at the bar's end."""
    rows = sorted((report.get("win") or {}).get("by_table", []), key=lambda r: r["win"])
    title = "Win and hold by table (drop-based), with the ledger's win"
    if len(rows) > MAX_BARS:
        half = MAX_BARS // 2
        title += f" (the {half} lowest and {half} highest of {len(rows)})"
        rows = rows[:half] + rows[-half:]
    figure = Figure(figsize=(WIDTH, max(1.6, 0.18 * len(rows) + 0.8)))
    ax = figure.add_subplot()
    if not rows:
        _empty(ax, "No table had a drop or play this day")
        return _finished(figure, ax, title, dpi)
    ys = list(range(len(rows)))
    wins = [r["win"] for r in rows]
    ax.barh(ys, wins, color=[HOUSE if w >= 0 else LOSS for w in wins], height=0.7, label="win (drop-based)")
    ax.scatter(
        [r["electronic_win"] for r in rows], ys, marker="|", s=120, color=THEO, zorder=3, label="ledger's win"
    )
    for y, row in zip(ys, rows, strict=True):
        hold = row["hold"]
        words = "no drop" if hold is None else f"hold {100 * hold:.1f}%"
        ax.annotate(  # right of the bar's far end, or of zero for a loss: clear of the names
            words,
            (max(row["win"], row["electronic_win"], 0), y),
            xytext=(4, 0),
            textcoords="offset points",
            ha="left",
            va="center",
            fontsize=6,
            color=MUTED,
        )
    ax.set_yticks(ys)
    ax.set_yticklabels([r["label"] for r in rows], fontsize=7)
    ax.axvline(0, color="#333", linewidth=0.8)
    ax.xaxis.set_major_formatter(FuncFormatter(_dollars))
    ax.grid(axis="x", color="#ddd", linewidth=0.6)
    ax.set_axisbelow(True)
    ax.legend(loc="lower right", bbox_to_anchor=(1.0, 1.0), fontsize=7, frameon=False, ncols=2)
    return _finished(figure, ax, title, dpi)


def data_uri(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def all_charts(report: Mapping[str, Any], *, dpi: int = 160) -> dict[str, str]:
    """The charts as data URIs, keyed as the templates use them (win and hold only for a report
    that has them)."""
    charts = {
        "win_by_table": data_uri(win_by_table(report, dpi=dpi)),
        "hold_vs_theo": data_uri(hold_vs_theoretical(report, dpi=dpi)),
        "cash_flow": data_uri(cash_flow(report, dpi=dpi)),
    }
    if report.get("win"):
        charts["win_and_hold"] = data_uri(win_and_hold(report, dpi=dpi))
    return charts
