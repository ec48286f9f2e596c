"""Markup benchmark: why a few fragments of the screens are written in Python, not in templates.

    bench/run-markup [--bets 90] [--tables 200] [--samples 100]
    .venv/bin/python -m bench.markup_bench [...]

Not a test, and no database. The screens are templates, but for the fragments every tap or every
floor draws many times over (``tables.console.dealer.faro_rows``: the Faro bet form's players,
cards, spots, chips, even/odd/high and chips to bet, the bets table's rows, the casekeeper, the
card picker and the recent turns; ``tables.console.pit.markup``:
the pit's table cards; ``tables.console.pit.figures``: their hourly charts). Each has a template
twin here (``bench/markup/``), written as the template would be. For each fragment the bench
builds the drawing data of a late Faro deal (twelve turns dealt, ``--bets`` bets on the layout,
from the engine) or of a floor
(``--tables`` cards with their charts), checks that the twin and the Python writer produce the
same bytes (it exits non-zero if not), then times both (``time.process_time``, the median of
``--samples`` renders after a warm-up) and prints them, as markdown, also written to
``build/bench/markup.md``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import platform
import random
import statistics
import time
from collections.abc import Callable
from pathlib import Path
from types import SimpleNamespace
from typing import Any

from bench import app_db
from bench.harness import markdown_table, write_report

OUTPUT = app_db.ROOT / "build" / "bench" / "markup.md"
TWINS = Path(__file__).resolve().parent / "markup"
TURNS = 12  # turns dealt before the bets that stay on the layout
NAMES = {1: "Kate Elder", 2: "Wyatt Earp", 3: "Doc O'Holliday", 4: "Bat <Masterson>"}  # escaped alike


def _engine() -> Any:
    from django.template import Engine

    return Engine(dirs=[str(TWINS)], libraries={"console_tags": "tables.templatetags.console_tags"})


def faro_data(bets: int) -> dict[str, Any]:
    """A late Faro deal's drawing data, as the table screen's context holds it (``screen.faro_context``)."""
    from tables.console.dealer import faro as screen
    from tables.console.dealer.cards import picker_rows
    from tables.games.base import TableContext
    from tables.games.cards import FULL_DECK, RANKS
    from tables.games.faro import ENGINE
    from tables.games.shoe import shuffle

    context = TableContext(
        rules={},
        seats={1: 1, 2: 2, 3: 3, 4: 4},
        min_bet=500,
        max_bet=50_000,
        ante=0,
        deck=shuffle(FULL_DECK, "ab" * 32),
    )
    limits = {"min_bet": 500, "max_bet": 50_000}
    state, _ = ENGINE.start(context)
    rng = random.Random(7)

    def act(action: dict[str, Any]) -> None:
        nonlocal state
        state, _ = ENGINE.apply(state, {**action, "limits": limits})

    def bet() -> None:
        live = [rank for rank in RANKS if rank not in ENGINE.public_state(state).get("dead_ranks", [])]
        coppered = {"coppered": True} if rng.random() < 0.2 else {}
        act(
            {
                "type": "bet",
                "player": rng.randint(1, 4),
                "ranks": [rng.choice(live)],
                "amount": 500,
                **coppered,
            }
        )

    for _ in range(TURNS):  # the casekeeper's beads and the dead ranks of a deal well under way
        for _ in range(4):
            bet()
        act({"type": "turn"})
    while len(ENGINE.public_state(state)["bets"]) < bets:
        bet()
    public, legal = ENGINE.public_state(state), ENGINE.legal_actions(state)
    seats = {player: player for player in NAMES}
    seat_rows = [
        {
            "seat": SimpleNamespace(number=seat),
            "player": SimpleNamespace(pk=player),
            "name": NAMES[player],
            "balance": SimpleNamespace(available=123_450 * seat),
            "colour": screen.colour_for_seat(seat),
        }
        for player, seat in seats.items()
    ]
    return {
        "player_picks": (seat_rows, "2"),
        "targets": screen.target_boxes(public, seats, NAMES, "odd"),
        "amount_picks": (screen.chip_amounts(500, 50_000, 100), "2500"),
        "recent_turns": list(reversed(public["turns"]))[:5],
        "cells": screen.layout_cells(public, ["Q"]),
        "spots": screen.spots(legal),
        "chips": screen.layout_chips(public, seats, NAMES),
        "bet_rows": [screen.bet_row(bet, seats, NAMES) for bet in public["bets"]],
        "keeper": screen.casekeeper_rows(public),
        "picker": picker_rows(FULL_DECK[::2]),  # a manual shoe with half the deck still in it
    }


def floor_data(tables: int) -> dict[str, Any]:
    """A floor's cards as ``pit.floor.render_cards`` hands them to ``card_html``, with their charts."""
    from django.utils import timezone

    from tables.console.paths import per_table
    from tables.console.pit.figures import TableFigures, hour_slots, hourly_chart
    from tables.console.pit.floor import CARD_LINKS, card_view
    from tables.console.pit.markup import relief_options
    from tables.console.selectors import FloorRow
    from tables.ratings.selectors import Hour

    now = timezone.now()
    start = now.replace(minute=0, second=0, microsecond=0) - dt.timedelta(hours=8)
    hours_of_day = [start + dt.timedelta(hours=i) for i in range(24)]
    links = {name: per_table(view) for name, view in CARD_LINKS.items()}
    rng = random.Random(11)
    slots: Any = None
    charts, cards = [], []
    for index in range(tables):
        hours = [
            Hour(at, 50_000, rng.randint(-9_000, 12_000), 0.1, 0, 0, 40, 2.5)
            if i < 8
            else Hour(at, 0, 0, None, 0, 0, 0, 0)
            for i, at in enumerate(hours_of_day)
        ]
        slots = slots or hour_slots(hours, now)
        label = f"Hourly win and hold at Table <{index}>"
        chart = hourly_chart(hours, label=label, slots=slots)
        charts.append({"hours": hours, "label": label})
        figures = TableFigures(chart, 120_000, 900_000, 0.133, 2.5, 61.5, 120, 117)
        dealer = SimpleNamespace(name=f"Dealer {index} 'D'", username=f"d{index}")
        table = SimpleNamespace(
            pk=index + 1,
            name=f"Faro <{index}>",
            status="open",
            get_status_display=lambda: "open",
            rules={},
            dealer=dealer,
            game="faro",
            min_bet=500,
            max_bet=50_000,
            tray=SimpleNamespace(balance=2_000_000),
        )
        row = FloorRow(table=table, session=None, live_round=None, win_tonight=35_000, players=3)  # type: ignore[arg-type]
        history = [(f"Dealer {index}", "since 21:05"), ("Rita & Relief", "18:00 – 21:05")]
        cards.append(card_view(row, figures, links, history))
    options = relief_options([(900 + i, f"Relief <{i}>") for i in range(6)])
    return {"cards": cards, "charts": charts, "slots": slots, "dealers": options}


def fragments(
    faro: dict[str, Any], floor: dict[str, Any]
) -> list[tuple[str, int, Callable[[], str], Callable[[], str]]]:
    """Each fragment: its name, its number of items, its Python writer and its template twin."""
    from django.template import Context
    from django.utils.safestring import mark_safe

    from tables.console.dealer import faro_rows
    from tables.console.pit.figures import HEIGHT, WIDTH, hourly_chart, plot
    from tables.console.pit.markup import CSRF_SLOT, TOKEN_SLOT, card_html

    engine = _engine()
    made: list[tuple[str, int, Callable[[], str], Callable[[], str]]] = []
    for name, write in (
        ("player_picks", faro_rows.player_picks),
        ("targets", faro_rows.targets),
        ("amount_picks", faro_rows.amount_picks),
        ("recent_turns", faro_rows.recent_turns),
        ("cells", faro_rows.cells),
        ("spots", faro_rows.spots),
        ("chips", faro_rows.chips),
        ("bet_rows", faro_rows.bet_rows),
        ("keeper", faro_rows.keeper),
        ("picker", faro_rows.picker),
    ):
        items, chosen = faro[name] if isinstance(faro[name], tuple) else (faro[name], None)
        twin = engine.get_template(f"faro_rows.html#{name}")
        python = (
            (lambda w=write, i=items, c=chosen: str(w(i, c)))
            if chosen
            else (lambda w=write, i=items: str(w(i)))
        )
        count = sum(len(row["cards"]) for row in items) if name == "picker" else len(items)
        made.append(
            (
                f"Faro {name.replace('_', ' ')}",
                count,
                python,
                lambda twin=twin, items=items, chosen=chosen: twin.render(
                    Context({"items": items, "chosen": chosen})
                ),
            )
        )
    cards, dealers = floor["cards"], floor["dealers"]
    twin_cards = engine.get_template("pit.html#cards")
    made.append(
        (
            "pit cards",
            len(cards),
            lambda: "".join(card_html(c, tray=True, limits=True, admin=True, dealers=dealers) for c in cards),
            lambda: twin_cards.render(
                Context(
                    {
                        "items": cards,
                        "tray": True,
                        "limits": True,
                        "admin": True,
                        "dealers": mark_safe(dealers),
                        "csrf_slot": CSRF_SLOT,
                        "token_slot": TOKEN_SLOT,
                    }
                )
            ),
        )
    )
    charts, slots = floor["charts"], floor["slots"]
    twin_chart = engine.get_template("pit.html#chart")
    sizes = {"width": WIDTH, "view_height": HEIGHT, "tick_y": HEIGHT - 2}
    made.append(
        (
            "pit hourly charts",
            len(charts),
            lambda: "".join(hourly_chart(c["hours"], label=c["label"], slots=slots) for c in charts),
            lambda: "".join(
                twin_chart.render(Context({**sizes, "label": c["label"], "plot": plot(c["hours"], slots)}))
                for c in charts
            ),
        )
    )
    return made


def _median_us(render: Callable[[], str], samples: int) -> float:
    render()
    spent = []
    for _ in range(samples):
        started = time.process_time()
        render()
        spent.append(time.process_time() - started)
    return statistics.median(spent) * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--bets", type=int, default=90, help="bets on the layout of the Faro deal")
    parser.add_argument("--tables", type=int, default=200, help="cards on the pit's floor")
    parser.add_argument("--samples", type=int, default=100, help="timed renders of each fragment each way")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    app_db.setup_django(
        app_db.in_process_env("casekeeper_bench_markup_unused", label="markup"), in_process=True
    )
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    when = dt.datetime.now(dt.UTC).strftime("%Y-%m-%d %H:%M UTC")
    machine = f"{when} · {os.cpu_count()} CPUs, Python {platform.python_version()} · load average {load}"
    made = fragments(faro_data(args.bets), floor_data(args.tables))
    rows, differ = [], []
    for name, items, python, template in made:
        if python() != template():
            differ.append(name)
        fast, slow = _median_us(python, args.samples), _median_us(template, args.samples)
        rows.append((name, str(items), f"{fast:,.0f}", f"{slow:,.0f}", f"{slow / fast:.1f}"))
    lines = [
        "# Markup benchmark",
        "",
        f"{machine}. The median of {args.samples} renders of each fragment, CPU time in µs.",
        *markdown_table(
            "Python writer against its template twin (`bench/markup/`), the same bytes:",
            ["fragment", "items", "Python µs", "template µs", "template ÷ Python"],
            rows,
        ),
        "",
    ]
    if differ:
        lines.append(f"**The twin and the writer differ**: {', '.join(differ)}.")
    write_report("\n".join(lines), args.output)
    return 1 if differ else 0


if __name__ == "__main__":
    raise SystemExit(main())
