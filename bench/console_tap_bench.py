"""Console tap benchmark: what a dealer's Faro tap costs the server, beside the API's same action.

    bench/run-console [--deals 4] [--keep-db]
    .venv/bin/python -m bench.console_tap_bench [...]

Not a test. It builds two Faro tables in a throwaway database (``casekeeper_bench_console`` on
``BENCH_SERVER_URL``'s server, created, migrated and dropped here), each with a dealer and four
players, and deals ``--deals`` electronic-shoe deals at both at once, in lockstep: every step is
one tap at the console table (Django's test client, signed in, CSRF checked, ``HX-Request`` and
the tapping form's ``HX-Trigger`` as htmx sends them, a one-time form token per tap) and then the
same action at the API table (``POST /api/v1/rounds/{id}/actions`` with a token). Interleaving
the two puts the machine's drift on both alike. A deal: the soda, then four bets and a turn until
the last turn; every fifth turn the dealer's screen is also read whole (``GET`` of the table).

Per kind of tap it reports the CPU time of this process per request (Django and the test client;
PostgreSQL's own CPU is not in it) and the console's ratio to the API's, printed as markdown and
written to ``build/bench/console.md``.
"""

from __future__ import annotations

import argparse
import os
import random
import secrets
import statistics
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from bench import app_db
from bench.harness import write_report

OUTPUT = app_db.ROOT / "build" / "bench" / "console.md"
BENCH_DB = os.environ.get("CONSOLE_BENCH_DB", "casekeeper_bench_console")
ENV = app_db.in_process_env(BENCH_DB, label="console")
OPENING = 5_000_000  # cents in each tray: enough for every payout of the run
BUY_IN = 10_000_000
PASSWORD = "tulip-harbour-9173"  # nobody signs in with it
PLAYERS = 4
BETS_PER_TURN = 4
SCREEN_EVERY = 5  # turns between two reads of the whole screen
WARM_UP_TAPS = 10  # taps of each table before any is timed (imports, caches, prepared statements)
HX = {"HTTP_HX_REQUEST": "true"}
FORM_OF_KIND = {"bet": "bet-form", "soda": "deal-form", "turn": "deal-form", "last_turn": "deal-form"}


def build() -> dict[str, Any]:
    """The two tables, their dealers and players; the API dealer's token."""
    from casino.models import Role
    from casino.services import issue_token
    from ledger.services import ensure_system_accounts
    from tables import services

    ensure_system_accounts()
    boss = app_db.staff("bench-console-pit", Role.PIT_BOSS)
    cashier = app_db.staff("bench-console-cashier", Role.CASHIER)
    made: dict[str, Any] = {}
    for index, side in enumerate(("console", "api")):
        table, dealer = app_db.open_faro_table(index, boss=boss, opening=OPENING)
        players = []
        for seat in range(1, PLAYERS + 1):
            player = app_db.funded_player(
                cashier, username=f"p{index}{seat}", name=f"Guest {seat}", amount=BUY_IN, password=PASSWORD
            )
            services.seat_player(actor=dealer, table_id=table.pk, player_id=player.pk, seat=seat)
            players.append(player.pk)
        made[side] = {"table": table.pk, "dealer": dealer, "players": players}
    made["api"]["token"] = issue_token(user=made["api"]["dealer"])
    return made


class Dealer:
    """One table dealt through one door; ``spent`` keeps each timed request's CPU seconds by kind."""

    def __init__(self, side: str, table: dict[str, Any], spent: dict[str, list[float]]) -> None:
        from django.test import Client

        self.side, self.table, self.spent = side, table, spent
        self.client = Client(enforce_csrf_checks=side == "console")
        self.round_id: int | None = None
        self.version = 0
        self.timed = False
        if side == "console":
            self.client.force_login(table["dealer"])
            self.client.get(f"/console/tables/{table['table']}/", **HX)  # sets the CSRF cookie
            self.csrf = self.client.cookies["csrftoken"].value

    def _post(self, kind: str, url: str, body: dict[str, Any], *, trigger: str = "") -> Any:
        if self.side == "console":
            headers = {**HX, "HTTP_X_CSRFTOKEN": self.csrf}
            if trigger:
                headers["HTTP_HX_TRIGGER"] = trigger
            send = lambda: self.client.post(url, {**body, "token": secrets.token_urlsafe(18)}, **headers)  # noqa: E731
        else:
            auth = {"HTTP_AUTHORIZATION": f"Token {self.table['token']}"}
            send = lambda: self.client.post(url, body, content_type="application/json", **auth)  # noqa: E731
        started = time.process_time()
        answer = send()
        if self.timed:
            self.spent[f"{self.side} {kind}"].append(time.process_time() - started)
        if answer.status_code not in (200, 201):
            raise RuntimeError(f"{self.side} {kind}: {answer.status_code} {answer.content[:300]!r}")
        return answer

    def start(self) -> None:
        from tables.models import Round

        table = self.table["table"]
        if self.side == "console":
            self._post("start", f"/console/tables/{table}/deal/", {"shoe": "electronic"})
        else:
            self._post("start", f"/api/v1/tables/{table}/rounds", {"shoe": "electronic"})
        self.round_id = Round.objects.filter(table_id=table).order_by("-pk").values_list("pk", flat=True)[0]
        self.version = 0

    def act(self, kind: str, action: dict[str, Any]) -> None:
        if self.side == "console":
            url = f"/console/tables/{self.table['table']}/rounds/{self.round_id}/faro/{kind}/"
            self._post(kind, url, {**action, "version": self.version}, trigger=FORM_OF_KIND[kind])
        else:
            url = f"/api/v1/rounds/{self.round_id}/actions"
            self._post(kind, url, {"type": kind, **action, "version": self.version})
        self.version += 1

    def screen(self) -> None:
        if self.side != "console":
            return
        started = time.process_time()
        answer = self.client.get(f"/console/tables/{self.table['table']}/", **HX)
        if self.timed:
            self.spent["console screen"].append(time.process_time() - started)
        assert answer.status_code == 200


def _state(round_id: int | None) -> dict[str, Any]:
    from tables.models import Round

    return dict(Round.objects.get(pk=round_id).state)


def _bet(rng: random.Random, state: dict[str, Any], players: list[int], side: str) -> dict[str, Any]:
    """A $5 bet on one live rank, by one of the players (the same choice at both tables)."""
    from tables.games.cards import RANKS

    live = [rank for rank in RANKS if rank not in state.get("dead_ranks", [])]
    rank, player = rng.choice(live), rng.choice(players)
    if side == "console":
        return {"player": player, "ranks": rank, "amount": "500"}
    return {"player": player, "ranks": [rank], "amount": 500}


def deal(dealers: list[Dealer], seed: int) -> int:
    """One deal at every table in lockstep; returns the taps made at each."""
    for dealer in dealers:
        dealer.start()
    taps, turns = 1, 0
    rngs = [random.Random(seed) for _ in dealers]
    while True:
        step = _state(dealers[0].round_id).get("next_action")
        if step in ("soda", "turn", "last_turn"):
            for dealer in dealers:
                dealer.act(step, {})
            taps += 1
            if step == "last_turn":
                return taps
            turns += 1
            if turns % SCREEN_EVERY == 0:
                for dealer in dealers:
                    dealer.screen()
        for _ in range(BETS_PER_TURN):
            for dealer, rng in zip(dealers, rngs, strict=True):
                state = _state(dealer.round_id)
                dealer.act("bet", _bet(rng, state, dealer.table["players"], dealer.side))
            taps += 1


def measure(made: dict[str, Any], *, deals: int) -> dict[str, list[float]]:
    spent: dict[str, list[float]] = defaultdict(list)
    dealers = [Dealer(side, made[side], spent) for side in ("console", "api")]
    warm = 0
    while warm < WARM_UP_TAPS:  # a deal untimed first
        warm += deal(dealers, seed=0)
    for dealer in dealers:
        dealer.timed = True
    for number in range(deals):
        app_db.log(f"deal {number + 1} of {deals}")
        deal(dealers, seed=number + 1)
    return spent


def render(spent: dict[str, list[float]], *, deals: int, machine: str) -> str:
    def ms(values: list[float], at: float) -> str:
        return (
            f"{statistics.quantiles(values, n=100)[round(at * 100) - 1] * 1000:.2f}"
            if len(values) > 1
            else "-"
        )

    lines = [
        "# Console tap benchmark",
        "",
        f"{deals} deals at a console Faro table and an API Faro table in lockstep. {machine}; at the"
        f" end: {', '.join(f'{x:.1f}' for x in os.getloadavg())}.",
        "",
        "| tap | taps | CPU mean ms | CPU p50 ms | CPU p90 ms | console ÷ API (p50) |",
        "|---|---:|---:|---:|---:|---:|",
    ]
    for kind in ("bet", "turn", "soda", "last_turn", "start", "screen"):
        for side in ("console", "api"):
            values = spent.get(f"{side} {kind}", [])
            if not values:
                continue
            mean = statistics.fmean(values) * 1000
            api = spent.get(f"api {kind}", [])
            ratio = ""
            if side == "console" and api:
                ratio = f"{statistics.median(values) / statistics.median(api):.2f}"
            cells = [f"{side} {kind}", str(len(values)), f"{mean:.2f}", ms(values, 0.5), ms(values, 0.9)]
            cells.append(ratio)
            lines.append("| " + " | ".join(cells) + " |")
    lines += [
        "",
        "CPU of this process per request (`time.process_time`): the view, the template or markup, the"
        " test client's own encoding and parsing; PostgreSQL runs in its own processes and is not"
        " counted. A console bet and a dealing step are answered in part (`tables.console.dealer`),"
        " the last turn with the whole screen.",
        "",
    ]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--deals", type=int, default=4, help="timed deals at each table")
    parser.add_argument("--keep-db", action="store_true", help=f"keep {BENCH_DB} afterwards")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    args = parser.parse_args(argv)
    machine = app_db.describe_machine()
    app_db.log(f"fresh database {BENCH_DB}")
    app_db.fresh_database(BENCH_DB, ENV)
    app_db.setup_django(ENV, in_process=True)
    try:
        made = build()
        spent = measure(made, deals=args.deals)
        from django.db import connections

        connections.close_all()
    finally:
        if not args.keep_db:
            app_db.drop_database(BENCH_DB)
    write_report(render(spent, deals=args.deals, machine=machine), args.output)
    app_db.log(f"written to {args.output}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
