"""Audit benchmark: ``run_audit`` on synthetic gaming days of 20, 100 and 200 Faro tables.

    bench/run-audit [--tables 20,100,200] [--rounds 12] [--pdf]
    .venv/bin/python -m bench.audit_bench [...]

Not a test. For each size it builds one gaming day in a throwaway database
(``casekeeper_bench_audit``, recreated from a migrated template), then times
``tables.audit.services.run_audit`` on it and prints a markdown table (also written to
``build/bench/audit.md``).

The night is generated, not simulated through the services (the simulation needs about
two seconds per table-round on the dev machine), but it has a real night's shape, built
from the real pieces: players buy in at the cage, each table opens with a counted bankroll
(``table_issue``), five seated players bet through the Faro engine itself
(``tables.games.faro`` with the simulation's bots, ``tables.simulation.bots.faro_bets``),
each accepted action becomes a ``RoundAction`` row with its ``RoundSettlement`` rows and a
balanced ledger transfer exactly as ``tables.rounds`` would post it, trays get fills when
they run low, dealers change halfway, tables close with a count (5 % of them off by a few
dollars), players cash out. Some players buy their chips with cash at the table instead
(the chips leave the tray, the cash goes into the table's drop box), and after the close the
count team removes and counts every box that took cash (a drop slip each, a few a bill off),
so the audit's drop, win and hold have a real night too. Every round replays and every
transfer balances, so the audit does all of its work, findings included. Rows are written
with COPY (triggers off for the load only, ``session_replication_role = replica``); the audit
then reads them like any other.
"""

from __future__ import annotations

import argparse
import datetime as dt
import hashlib
import json
import os
import random
import time
from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from bench.app_db import (
    ROOT,
    app_env,
    create_database,
    db_url,
    drop_database,
    fresh_database,
    log,
    setup_django,
)
from bench.harness import call_in_child, write_report

OUTPUT = ROOT / "build" / "bench" / "audit.md"
TEMPLATE_DB = "casekeeper_bench_audit_template"
BENCH_DB = "casekeeper_bench_audit"
GOAL_SECONDS = 60.0
PLAYERS_PER_TABLE = 5
OPENING = 2_000_000  # cents in a Faro tray at opening, as tables.simulation.night's spec
SMALL_OPENING = 150_000  # every fourth $5 table opens light, so fills (and credits) happen
COUNT_ERRORS = (-5_000, -1_000, 2_500, 5_000)
CASH_AT_TABLE = 0.1  # each round, a seated player buys $500.00 of chips with cash at the table this often
CASH_BUY_IN = 50_000
DROP_ERRORS = (-2_000, 2_000)  # a box counted a $20 bill off, 5 % of them


def prepare_template() -> None:
    """Migrate once into a template; each size then starts from a copy of it (seconds, not minutes)."""
    fresh_database(TEMPLATE_DB, app_env(db_url(TEMPLATE_DB)), synchronous_commit=True)


# --------------------------------------------------------------------------- the generator
# Everything below runs in a child process, after Django is set up on the bench database.


@dataclass
class Ledger:
    """Transfers and entries as rows for COPY, with balances kept the way post_transfer keeps them."""

    day: dt.date
    balances: dict[int, list[int]] = field(default_factory=lambda: defaultdict(lambda: [0, 0, 0]))
    transfers: list[tuple[Any, ...]] = field(default_factory=list)
    entries: list[tuple[Any, ...]] = field(default_factory=list)
    next_transfer: int = 1
    next_entry: int = 1

    def post(
        self,
        *,
        key: str,
        kind: str,
        legs: Sequence[tuple[int, int, int]],
        at: dt.datetime,
        meta: dict[str, Any],
    ) -> int:
        transfer_id = self.next_transfer
        self.next_transfer += 1
        fingerprint = hashlib.sha256(key.encode()).hexdigest()
        self.transfers.append((transfer_id, key, kind, "", at, self.day, json.dumps(meta), fingerprint, None))
        for leg, (payer, payee, amount) in enumerate(legs):
            for account, signed in ((payer, -amount), (payee, amount)):
                state = self.balances[account]
                state[0] += signed
                if signed < 0:
                    state[1] -= signed
                else:
                    state[2] += signed
                self.entries.append((self.next_entry, transfer_id, account, leg, signed, state[0], None, at))
                self.next_entry += 1
        return transfer_id

    def balance(self, account: int) -> int:
        return self.balances[account][0]


@dataclass
class Rows:
    """RoundAction and RoundSettlement rows for COPY, numbered as they are made."""

    ledger: Ledger
    actions: list[tuple[Any, ...]] = field(default_factory=list)
    settlements: list[tuple[Any, ...]] = field(default_factory=list)
    next_action: int = 1
    next_settlement: int = 1


@dataclass
class RoundWriter:
    """One round's accepted actions, written as tables.rounds writes them (one transfer per action)."""

    rows: Rows
    round_id: int
    table_id: int
    tray: int
    dealer: int
    moment: dt.datetime
    wallet_of: dict[int, int]  # player id -> wallet account id
    wallet_code: dict[int, str]
    layout_of: dict[str, int]  # layout code -> account id
    seq: int = 0

    def code(self, party: str) -> str:
        kind, _, ref = party.partition(":")
        if party == "bank":
            return f"tray:{self.table_id}"
        if kind == "wallet":
            return self.wallet_code[int(ref)]
        return f"layout:{self.table_id}:{int(ref)}"

    def account(self, party: str) -> int:
        kind, _, ref = party.partition(":")
        if party == "bank":
            return self.tray
        if kind == "wallet":
            return self.wallet_of[int(ref)]
        return self.layout_of[self.code(party)]

    def record(self, payload: dict[str, Any], moved: Sequence[Any]) -> None:
        rows = self.rows
        self.seq += 1
        self.moment += dt.timedelta(seconds=3)
        transfer_id = None
        if moved:
            kinds = {s.kind for s in moved}
            transfer_id = rows.ledger.post(
                key=f"round:{self.round_id}:action:{self.seq}",
                kind=kinds.pop() if len(kinds) == 1 else "round_settlement",
                legs=[(self.account(s.payer), self.account(s.payee), s.amount) for s in moved],
                at=self.moment,
                meta={"table": self.table_id, "round": self.round_id, "action": self.seq, "game": "faro"},
            )
        action_id = rows.next_action
        rows.next_action += 1
        rows.actions.append(
            (action_id, self.round_id, self.seq, json.dumps(payload), self.dealer, self.moment, transfer_id)
        )
        for s in moved:
            rows.settlements.append(
                (
                    rows.next_settlement,
                    self.round_id,
                    action_id,
                    transfer_id,
                    s.kind,
                    self.code(s.payer),
                    self.code(s.payee),
                    s.amount,
                    s.player,
                )
            )
            rows.next_settlement += 1


def _copy(cursor: Any, table: str, columns: Sequence[str], rows: Iterable[Sequence[Any]]) -> None:
    with cursor.copy(f"COPY {table} ({', '.join(columns)}) FROM STDIN") as copy:
        for row in rows:
            copy.write_row(row)


def _set_times(cursor: Any, table: str, column: str, values: dict[int, dt.datetime]) -> None:
    """auto_now_add columns get their night-time value after the ORM inserted the rows."""
    if not values:
        return
    items = list(values.items())
    placeholders = ", ".join(["(%s::bigint, %s::timestamptz)"] * len(items))
    params = [value for item in items for value in item]
    cursor.execute(
        f"UPDATE {table} AS t SET {column} = v.at"
        f" FROM (VALUES {placeholders}) AS v(id, at) WHERE t.id = v.id",
        params,
    )


def build_night(params: dict[str, Any]) -> dict[str, Any]:
    """Generate and load one gaming day of ``params['tables']`` Faro tables."""
    import time_machine
    from django.db import connection, transaction

    from casino.models import Player, Role, User
    from ledger.gaming_day import gaming_day_bounds, gaming_day_for
    from ledger.models import Account, AccountKind, AccountPurpose
    from tables.accounts import (
        drop_code,
        layout_code,
        open_count_room,
        open_over_short,
        open_table_cash,
        tray_code,
    )
    from tables.drop.models import DropBox, drop_box_number
    from tables.games.base import TableContext
    from tables.games.cards import FULL_DECK
    from tables.games.errors import IllegalAction
    from tables.games.faro import ENGINE
    from tables.games.shoe import commitment_for, shuffle
    from tables.models import (
        DealerShift,
        Round,
        Seat,
        Table,
        TableSession,
        TrayRequest,
        table_win,
    )
    from tables.simulation.bots import chip_amount, faro_bets
    from tables.simulation.drop import bills_for
    from tables.slips.models import Slip, SlipCounter

    n_tables: int = params["tables"]
    n_rounds: int = params["rounds"]
    rng = random.Random(params.get("seed", 1))
    cash_rng = random.Random(f"{params.get('seed', 1)}:cash")  # the rest of the night stays as it was
    day = gaming_day_for() - dt.timedelta(days=1)
    start, end = gaming_day_bounds(day)
    ledger = Ledger(day=day)
    rules = ENGINE.validate_rules({})
    started = time.monotonic()

    with transaction.atomic():
        cage = Account.objects.get(code="cage").pk
        over_short = open_over_short().pk
        pit = User.objects.create(username="bench-pit", role=Role.PIT_BOSS, name="Pit Boss", password="!")
        cashier = User.objects.create(
            username="bench-cashier", role=Role.CASHIER, name="Cashier", password="!"
        )
        counter = User.objects.create(
            username="bench-count", role=Role.COUNT_TEAM, name="Count Team", password="!"
        )
        table_cash = open_table_cash().pk
        count_room = open_count_room().pk
        n_dealers = n_tables + max(2, n_tables // 4)
        dealers = User.objects.bulk_create(
            [
                User(username=f"bench-dealer-{i}", role=Role.DEALER, name=f"Dealer {i}", password="!")
                for i in range(n_dealers)
            ]
        )
        n_players = n_tables * PLAYERS_PER_TABLE
        player_users = User.objects.bulk_create(
            [
                User(username=f"bench-player-{i}", role=Role.PLAYER, name=f"Guest {i}", password="!")
                for i in range(n_players)
            ]
        )
        wallets = Account.objects.bulk_create(
            [
                Account(
                    code=f"wallet:user:{u.pk}",
                    kind=AccountKind.LIABILITY,
                    purpose=AccountPurpose.WALLET,
                    name=f"Wallet of {u.name}",
                    holder=f"user:{u.pk}",
                )
                for u in player_users
            ]
        )
        players = Player.objects.bulk_create(
            [Player(user=u, wallet=w) for u, w in zip(player_users, wallets, strict=True)]
        )
        wallet_of = {p.pk: w.pk for p, w in zip(players, wallets, strict=True)}

        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence('tables_table', 'id')) FROM generate_series(1, %s)",
                [n_tables],
            )
            table_ids = [row[0] for row in cursor.fetchall()]
        trays = Account.objects.bulk_create(
            [
                Account(
                    code=tray_code(tid),
                    kind=AccountKind.ASSET,
                    purpose=AccountPurpose.TRAY,
                    name=f"Tray {tid}",
                )
                for tid in table_ids
            ]
        )
        tables = Table.objects.bulk_create(
            [
                Table(
                    id=tid,
                    name=f"Bench Faro {i + 1:03d}",
                    game="faro",
                    min_bet=500 * scale,
                    max_bet=50_000 * scale,
                    rules=rules,
                    tray=tray,
                    dealer=dealers[i],
                    status="closed",
                )
                for i, (tid, tray, scale) in enumerate(
                    zip(table_ids, trays, [rng.choice((1, 1, 2, 5)) for _ in table_ids], strict=True)
                )
            ]
        )

        # Each table's first drop box (ids taken now: the cash buy-ins name theirs).
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT nextval(pg_get_serial_sequence('tables_dropbox', 'id')) FROM generate_series(1, %s)",
                [n_tables],
            )
            box_of = {t.pk: row[0] for t, row in zip(tables, cursor.fetchall(), strict=True)}
        drop_of = {
            a.holder: a.pk
            for a in Account.objects.bulk_create(
                [
                    Account(
                        code=drop_code(box_of[t.pk]),
                        kind=AccountKind.ASSET,
                        purpose=AccountPurpose.DROP,
                        name=f"Drop box {drop_box_number(t.pk, 1)} at {t.name}",
                        holder=str(t.pk),
                    )
                    for t in tables
                ]
            )
        }
        recorded: dict[int, int] = defaultdict(int)
        cash_buy_ins = 0

        # The night's timeline: open 1 h in, deal for ten hours, close 30 min before cash-outs.
        opened_at = start + dt.timedelta(hours=1)
        closed_at = start + dt.timedelta(hours=11)
        round_span = (closed_at - opened_at - dt.timedelta(minutes=10)) / n_rounds
        # Cage: every player buys in before the tables open.
        for player in players:
            amount = rng.choice((50_000, 100_000, 200_000, 300_000, 500_000, 1_200_000))
            ledger.post(
                key=f"buy_in:{player.pk}:0",
                kind="buy_in",
                legs=[(cage, wallet_of[player.pk], amount)],
                at=start + dt.timedelta(minutes=30, seconds=rng.randint(0, 1500)),
                meta={"player": player.pk, "staff": cashier.pk},
            )
        openings = [
            SMALL_OPENING if i % 4 == 0 and t.min_bet == 500 else OPENING for i, t in enumerate(tables)
        ]
        sessions = TableSession.objects.bulk_create(
            [
                TableSession(table=t, opened_by=dealers[i], opening_inventory=openings[i], opening_ledger=0)
                for i, t in enumerate(tables)
            ]
        )
        seat_rows: list[Seat] = []
        seated: dict[int, dict[int, int]] = {}
        layouts: list[Account] = []
        for i, table in enumerate(tables):
            group = players[i * PLAYERS_PER_TABLE : (i + 1) * PLAYERS_PER_TABLE]
            seated[table.pk] = {n + 1: p.pk for n, p in enumerate(group)}
            for n, p in enumerate(group):
                seat_rows.append(
                    Seat(table=table, player=p, number=n + 1, seated_by=dealers[i], left_at=closed_at)
                )
                layouts.append(
                    Account(
                        code=layout_code(table.pk, p.pk),
                        kind=AccountKind.LIABILITY,
                        purpose=AccountPurpose.LAYOUT,
                        holder=f"user:{p.user_id}",
                        name=f"Layout {table.pk}:{p.pk}",
                    )
                )
        seats = Seat.objects.bulk_create(seat_rows)
        layout_of = {a.code: a.pk for a in Account.objects.bulk_create(layouts)}
        half = opened_at + (closed_at - opened_at) / 2
        spares = dealers[n_tables:]
        shift_rows: list[DealerShift] = []
        shift_start: list[dt.datetime] = []
        second_dealer: dict[int, int] = {}
        for i, table in enumerate(tables):
            relief = spares[i % len(spares)] if i % 2 == 0 and spares else dealers[i]
            second_dealer[table.pk] = relief.pk
            shift_rows.append(DealerShift(table=table, dealer=dealers[i], ended_at=half, assigned_by=pit))
            shift_rows.append(DealerShift(table=table, dealer=relief, ended_at=closed_at, assigned_by=pit))
            shift_start += [opened_at, half]
        shifts = DealerShift.objects.bulk_create(shift_rows)

        rounds: list[Round] = []
        rows = Rows(ledger=ledger)
        wallet_code = {p.pk: f"wallet:user:{p.user_id}" for p in players}
        tray_requests: list[TrayRequest] = []
        request_times: dict[int, dt.datetime] = {}
        round_times: dict[int, dt.datetime] = {}
        next_round = next_request = 1
        buy_ins = 1
        for i, (table, session) in enumerate(zip(tables, sessions, strict=True)):
            tray = table.tray_id
            ledger.post(
                key=f"table_issue:{session.pk}",
                kind="table_issue",
                legs=[(cage, tray, openings[i])],
                at=opened_at,
                meta={"table": table.pk, "session": session.pk},
            )
            chip = int(rules["chip"])
            limits = {"min_bet": table.min_bet, "max_bet": table.max_bet}
            for number in range(1, n_rounds + 1):
                at = opened_at + round_span * (number - 1) + dt.timedelta(seconds=i % 60)
                dealer = dealers[i].pk if at < half else second_dealer[table.pk]
                # Fills when the tray runs low, credits when it runs high: the dealer asks, the pit signs.
                balance = ledger.balance(tray)
                kind, amount = ("fill", openings[i]) if balance < openings[i] // 2 else (None, 0)
                if balance > openings[i] * 2:
                    kind, amount = "credit", openings[i] // 2
                if kind is not None:
                    request_id = next_request
                    next_request += 1
                    transfer = ledger.post(
                        key=f"{kind}:{request_id}",
                        kind=kind,
                        legs=[(cage, tray, amount)] if kind == "fill" else [(tray, cage, amount)],
                        at=at,
                        meta={
                            "table": table.pk,
                            kind: request_id,
                            "requested_by": dealer,
                            "approved_by": pit.pk,
                        },
                    )
                    tray_requests.append(
                        TrayRequest(
                            id=request_id,
                            table=table,
                            kind=kind,
                            amount=amount,
                            status="approved",
                            requested_by_id=dealer,
                            decided_by=pit,
                            decided_at=at,
                            transfer_id=transfer,
                        )
                    )
                    request_times[request_id] = at
                for pid in seated[table.pk].values():
                    if cash_rng.random() < CASH_AT_TABLE and ledger.balance(tray) > 2 * CASH_BUY_IN:
                        cash_buy_ins += 1
                        ledger.post(
                            key=f"cash_buy_in:{cash_buy_ins}",
                            kind="cash_buy_in",
                            legs=[
                                (tray, wallet_of[pid], CASH_BUY_IN),
                                (table_cash, drop_of[str(table.pk)], CASH_BUY_IN),
                            ],
                            at=at,
                            meta={
                                "table": table.pk,
                                "player": pid,
                                "drop_box": box_of[table.pk],
                                "staff": dealer,
                            },
                        )
                        recorded[table.pk] += CASH_BUY_IN
                    if ledger.balance(wallet_of[pid]) < table.min_bet * 4:
                        ledger.post(
                            key=f"buy_in:{pid}:{buy_ins}",
                            kind="buy_in",
                            legs=[(cage, wallet_of[pid], 300_000)],
                            at=at,
                            meta={"player": pid, "staff": cashier.pk},
                        )
                        buy_ins += 1
                round_id = next_round
                next_round += 1
                seed = hashlib.sha256(f"{params.get('seed', 1)}:{table.pk}:{number}".encode()).hexdigest()
                seats_now = seated[table.pk]
                ctx = TableContext(
                    rules=rules,
                    seats=seats_now,
                    min_bet=table.min_bet,
                    max_bet=table.max_bet,
                    ante=0,
                    deck=shuffle(FULL_DECK, seed),
                )
                state, _opening = ENGINE.start(ctx)
                writer = RoundWriter(
                    rows=rows,
                    round_id=round_id,
                    table_id=table.pk,
                    tray=tray,
                    dealer=dealer,
                    moment=at,
                    wallet_of=wallet_of,
                    wallet_code=wallet_code,
                    layout_of=layout_of,
                )
                while not state.over:
                    public = ENGINE.public_state(state)
                    next_kind = public["next_action"]
                    budgets = {pid: ledger.balance(wallet_of[pid]) for pid in seats_now.values()}
                    bets = faro_bets(rng, public, budgets, chip=chip)
                    if next_kind == "last_turn" and public["can_call_turn"] and rng.random() < 0.3:
                        caller = rng.choice(sorted(seats_now.values()))
                        spent = sum(b["amount"] for b in bets if b["player"] == caller)
                        stake = chip_amount(
                            rng,
                            low=table.min_bet,
                            high=table.max_bet,
                            chip=chip,
                            budget=budgets[caller] - spent,
                        )
                        left = [r for r, row in public["casekeeper"].items() for _ in range(row["left"])]
                        rng.shuffle(left)
                        if stake:
                            bets.append(
                                {"type": "call_turn", "player": caller, "order": left, "amount": stake}
                            )
                    for bet in bets:
                        payload = {**bet, "limits": limits}
                        try:
                            state, moved = ENGINE.apply(state, payload)
                        except IllegalAction:
                            continue
                        writer.record(payload, moved)
                    payload = {"type": next_kind, "limits": limits}
                    state, moved = ENGINE.apply(state, payload)
                    writer.record(payload, moved)
                rounds.append(
                    Round(
                        id=round_id,
                        table=table,
                        game="faro",
                        number=number,
                        status="settled",
                        shoe="electronic",
                        rules=rules,
                        players=[seats_now[s] for s in sorted(seats_now)],
                        context={
                            "seats": {str(n): p for n, p in seats_now.items()},
                            "min_bet": table.min_bet,
                            "max_bet": table.max_bet,
                            "ante": 0,
                            "carry": {},
                        },
                        commitment=commitment_for(seed),
                        seed=seed,
                        state=ENGINE.public_state(state),
                        version=writer.seq,
                        started_by_id=dealer,
                        ended_at=writer.moment,
                        session=session,
                    )
                )
                round_times[round_id] = at
            # Close: the count, sometimes off by a few dollars (posted to over/short as close_table does).
            tray_balance = ledger.balance(tray)
            error = rng.choice(COUNT_ERRORS) if rng.random() < 0.05 else 0
            error = max(error, -tray_balance)
            if error:
                legs = [(over_short, tray, error)] if error > 0 else [(tray, over_short, -error)]
                ledger.post(
                    key=f"closing_variance:{session.pk}",
                    kind="count_variance",
                    legs=legs,
                    at=closed_at,
                    meta={"table": table.pk, "stage": "closing"},
                )
            fills = sum(r.amount for r in tray_requests if r.table_id == table.pk and r.kind == "fill")
            credits = sum(r.amount for r in tray_requests if r.table_id == table.pk and r.kind == "credit")
            session.closing_ledger = tray_balance
            session.closing_inventory = tray_balance + error
            session.closing_variance = error
            session.fills, session.credits = fills, credits
            session.win = table_win(
                opener=openings[i], closer=session.closing_inventory, fills=fills, credits=credits
            )
            session.drop = 0
            session.closed_by_id = second_dealer[table.pk]
            session.closed_at = closed_at
        # The count: every box that took cash, removed after the close and counted into a drop slip
        # the cashier signed (the cash from the count room into the cage, a variance to over/short).
        counted_at = closed_at + dt.timedelta(minutes=20)
        boxes: list[DropBox] = []
        slips: list[Slip] = []
        for table in tables:
            box_id, cash = box_of[table.pk], recorded[table.pk]
            number = drop_box_number(table.pk, 1)
            if not cash:
                boxes.append(DropBox(id=box_id, table=table, sequence=1, number=number, gaming_day=day))
                continue
            found = max(cash + (rng.choice(DROP_ERRORS) if cash_rng.random() < 0.05 else 0), 0)
            count_transfer = ledger.post(
                key=f"drop_count:{box_id}",
                kind="drop_count",
                legs=[(drop_of[str(table.pk)], count_room, cash)],
                at=counted_at,
                meta={"table": table.pk, "drop_box": box_id, "by": counter.pk},
            )
            serial = len(slips) + 1
            legs = [(count_room, cage, min(cash, found))]
            if found > cash:
                legs.append((over_short, cage, found - cash))
            elif cash > found:
                legs.append((count_room, over_short, cash - found))
            slip = Slip(
                id=None,
                kind="drop",
                year=day.year,
                serial=serial,
                number=f"D-{day.year}-{serial:06d}",
                status="final",
                table=table,
                gaming_day=day,
                reason="No markers in the box.",
                count=bills_for(found),
                amount=found,
                expected=cash,
                variance=found - cash,
                requested_by=counter,
                needs=[],
                step=2,
            )
            slip.receipt_transfer_id = ledger.post(
                key=f"slip:drop:{serial}:receipt",
                kind="drop_receipt",
                legs=legs,
                at=counted_at,
                meta={"table": table.pk, "number": slip.number, "by": cashier.pk},
            )
            slips.append(slip)
            boxes.append(
                DropBox(
                    id=box_id,
                    table=table,
                    sequence=1,
                    number=number,
                    gaming_day=day,
                    status="counted",
                    recorded=cash,
                    counted=found,
                    seal=f"B-{box_id}",
                    removed_by=counter,
                    removed_at=counted_at,
                    counted_by=counter,
                    counted_at=counted_at,
                    count_transfer_id=count_transfer,
                )
            )
            boxes.append(
                DropBox(table=table, sequence=2, number=drop_box_number(table.pk, 2), gaming_day=day)
            )
        for player in players:
            balance = ledger.balance(wallet_of[player.pk])
            if balance > 0:
                ledger.post(
                    key=f"cash_out:{player.pk}",
                    kind="cash_out",
                    legs=[(wallet_of[player.pk], cage, balance)],
                    at=end - dt.timedelta(hours=1, seconds=rng.randint(0, 1800)),
                    meta={"player": player.pk, "staff": cashier.pk},
                )
        generated = time.monotonic() - started

        with connection.cursor() as cursor:
            cursor.execute("SET session_replication_role = replica")
            raw = cursor.cursor
            _copy(
                raw,
                "ledger_transfer",
                (
                    "id",
                    "key",
                    "kind",
                    "memo",
                    "created_at",
                    "gaming_day",
                    "meta",
                    "fingerprint",
                    "reverses_id",
                ),
                ledger.transfers,
            )
            _copy(
                raw,
                "ledger_entry",
                (
                    "id",
                    "transfer_id",
                    "account_id",
                    "leg",
                    "amount",
                    "balance_after",
                    "hold_id",
                    "created_at",
                ),
                ledger.entries,
            )
            Round.objects.bulk_create(rounds, batch_size=2000)
            _copy(
                raw,
                "tables_roundaction",
                ("id", "round_id", "seq", "payload", "actor_id", "at", "transfer_id"),
                rows.actions,
            )
            _copy(
                raw,
                "tables_roundsettlement",
                (
                    "id",
                    "round_id",
                    "action_id",
                    "transfer_id",
                    "kind",
                    "from_account",
                    "to_account",
                    "amount",
                    "player_id",
                ),
                rows.settlements,
            )
            TrayRequest.objects.bulk_create(tray_requests)
            with time_machine.travel(counted_at, tick=False):  # auto_now_add: the slip's and box's time
                Slip.objects.bulk_create(slips)
                slip_of = {slip.table_id: slip.pk for slip in slips}
                for box in boxes:
                    if box.status == "counted":
                        box.slip_id = slip_of[box.table_id]
                DropBox.objects.bulk_create(boxes)
            # The first boxes went to the tables at the opening (the triggers that keep a box are off).
            _set_times(
                cursor,
                "tables_dropbox",
                "placed_at",
                {box.pk: opened_at for box in boxes if box.sequence == 1},
            )
            if slips:
                SlipCounter.objects.create(kind="drop", year=day.year, last=len(slips))
            cursor.execute("SET session_replication_role = DEFAULT")
            TableSession.objects.bulk_update(
                sessions,
                [
                    "closing_ledger",
                    "closing_inventory",
                    "closing_variance",
                    "fills",
                    "credits",
                    "win",
                    "drop",
                    "closed_by",
                    "closed_at",
                ],
            )
            _set_times(cursor, "tables_tablesession", "opened_at", {s.pk: opened_at for s in sessions})
            _set_times(cursor, "tables_seat", "seated_at", {s.pk: opened_at for s in seats})
            _set_times(
                cursor,
                "tables_dealershift",
                "started_at",
                {s.pk: t for s, t in zip(shifts, shift_start, strict=True)},
            )
            _set_times(cursor, "tables_trayrequest", "requested_at", request_times)
            _set_times(cursor, "tables_round", "started_at", round_times)
            totals = [(pk, b, d, c) for pk, (b, d, c) in ledger.balances.items()]
            for chunk in range(0, len(totals), 5000):
                part = totals[chunk : chunk + 5000]
                placeholders = ", ".join(["(%s::bigint, %s::bigint, %s::bigint, %s::bigint)"] * len(part))
                cursor.execute(
                    "UPDATE ledger_account AS a SET balance = v.b, debits_posted = v.d, credits_posted = v.c"
                    f" FROM (VALUES {placeholders}) AS v(id, b, d, c) WHERE a.id = v.id",
                    [value for row in part for value in row],
                )
            for table_name in (
                "ledger_transfer",
                "ledger_entry",
                "tables_round",
                "tables_roundaction",
                "tables_roundsettlement",
                "tables_trayrequest",
                "tables_dropbox",
            ):
                cursor.execute(
                    f"SELECT setval(pg_get_serial_sequence('{table_name}', 'id'), "
                    f"(SELECT COALESCE(MAX(id), 1) FROM {table_name}))"
                )
    with connection.cursor() as cursor:
        cursor.execute("ANALYZE")
    return {
        "tables": n_tables,
        "rounds": len(rounds),
        "actions": len(rows.actions),
        "settlements": len(rows.settlements),
        "transfers": len(ledger.transfers),
        "cash_buy_ins": cash_buy_ins,
        "boxes_counted": len(slips),
        "entries": len(ledger.entries),
        "generate_s": generated,
        "load_s": time.monotonic() - started - generated,
        "day": day.isoformat(),
    }


def build_and_audit(params: dict[str, Any]) -> dict[str, Any]:
    """In a fresh process on the bench database: build the night, then time run_audit on it."""
    import logging

    setup_django(app_env(params["db_url"]))
    logging.disable(logging.WARNING)
    from django.utils import timezone

    from tables.audit.models import AuditReport
    from tables.audit.render_csv import render_csv_zip
    from tables.audit.render_pdf import render_pdf
    from tables.audit.services import run_audit

    built = build_night(params)
    # On a real floor each round is rated by its own task as it settles (tables.ratings), and
    # the audit reads those rows; the bench's COPY-loaded night has none yet, so rate it here,
    # as the floor would have during the night, and time that apart from the audit.
    from ledger.gaming_day import gaming_day_bounds
    from tables.ratings.services import rate_unrated_rounds

    day_start, day_end = gaming_day_bounds(dt.date.fromisoformat(built["day"]))
    began = time.monotonic()
    rate_unrated_rounds(ended_from=day_start, ended_before=day_end)
    built["rate_s"] = time.monotonic() - began
    report = AuditReport.objects.create(
        gaming_day=dt.date.fromisoformat(built["day"]), requested_at=timezone.now()
    )
    began = time.monotonic()
    done = run_audit(report_id=report.pk)
    audit_s = time.monotonic() - began
    data = done.data
    result = {
        **built,
        "audit_s": audit_s,
        "status": done.status,
        "findings": len(data.get("findings", [])),
        "critical": data.get("summary", {}).get("critical"),
        "checks_failed": data.get("summary", {}).get("checks_failed"),
        "handle": data.get("summary", {}).get("handle"),
        "hold_pct": data.get("summary", {}).get("hold_pct"),
        "theo_hold_pct": data.get("summary", {}).get("theo_hold_pct"),
        "drop": (data.get("win") or {}).get("totals", {}).get("drop"),
        "win_difference": (data.get("win") or {}).get("totals", {}).get("difference"),
        "hold_investigations": len(data.get("hold_investigations", [])),
    }
    # A second run: what a rerun costs (the close is a no-op, the report is replaced).
    began = time.monotonic()
    run_audit(report_id=report.pk)
    result["rerun_s"] = time.monotonic() - began
    if params.get("pdf"):
        began = time.monotonic()
        pdf = render_pdf(data)
        result["pdf_s"] = time.monotonic() - began
        result["pdf_kb"] = len(pdf) // 1024
        began = time.monotonic()
        result["csv_kb"] = len(render_csv_zip(data)) // 1024
        result["csv_s"] = time.monotonic() - began
        target = ROOT / "build" / "bench" / f"audit-{params['tables']}.pdf"
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(pdf)
    return result


def render(results: list[dict[str, Any]], *, rounds: int, pdf: bool) -> str:
    lines = [
        f"## Audit benchmark ({time.strftime('%Y-%m-%d %H:%M')}, {os.cpu_count()} CPUs)",
        "",
        f"Faro tables, {PLAYERS_PER_TABLE} players each, {rounds} deals per table; goal: 200 tables in under "
        f"{GOAL_SECONDS:.0f} s.",
        "",
        "| tables | rounds | actions | settlements | transfers | entries | run_audit | rerun | goal |"
        + (" PDF | CSV |" if pdf else ""),
        "|---:|---:|---:|---:|---:|---:|---:|---:|:--|" + ("---:|---:|" if pdf else ""),
    ]
    for r in results:
        goal = ("met" if r["audit_s"] < GOAL_SECONDS else "MISSED") if r["tables"] == 200 else ""
        row = (
            f"| {r['tables']} | {r['rounds']:,} | {r['actions']:,} | {r['settlements']:,} "
            f"| {r['transfers']:,} | {r['entries']:,} | {r['audit_s']:.1f} s | {r['rerun_s']:.1f} s "
            f"| {goal} |"
        )
        if pdf:
            row += f" {r.get('pdf_s', 0):.1f} s ({r.get('pdf_kb', 0)} kB) | {r.get('csv_s', 0):.2f} s |"
        lines.append(row)
    lines += [
        "",
        "Each report: "
        + "; ".join(
            f"{r['tables']} tables: {r['findings']} findings ({r['critical']} critical), "
            f"hold {r['hold_pct']} % vs theoretical {r['theo_hold_pct']} %"
            for r in results
        )
        + ". The findings are the injected count errors above the threshold and the CTRs of big buy-ins.",
        "",
        "Loading (not timed as part of the audit): "
        + "; ".join(
            f"{r['tables']} tables generated in {r['generate_s']:.0f} s, loaded in {r['load_s']:.0f} s, "
            f"its rounds rated (as the floor does while they settle) in {r['rate_s']:.1f} s, "
            f"{r.get('cash_buy_ins', 0):,} cash buy-ins at the tables, "
            f"{r.get('boxes_counted', 0)} drop boxes counted"
            for r in results
        )
        + ".",
    ]
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--tables", default="20,100,200", help="comma-separated table counts")
    parser.add_argument(
        "--rounds", type=int, default=12, help="Faro deals per table (simulate_night's default)"
    )
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--pdf", action="store_true", help="also time the PDF and CSV renderings")
    parser.add_argument("--keep", action="store_true", help="keep the last bench database")
    args = parser.parse_args(argv)
    sizes = [int(s) for s in args.tables.split(",") if s]
    log("migrating the template database")
    prepare_template()
    results = []
    try:
        for size in sizes:
            create_database(BENCH_DB, template=TEMPLATE_DB)
            log(f"{size} tables: building the night and running the audit")
            result = call_in_child(
                "bench.audit_bench:build_and_audit",
                {
                    "db_url": db_url(BENCH_DB),
                    "tables": size,
                    "rounds": args.rounds,
                    "seed": args.seed,
                    "pdf": args.pdf,
                },
                timeout=3600,
            )
            log(
                f"{size} tables: {result['rounds']} rounds, {result['entries']:,} entries; "
                f"run_audit {result['audit_s']:.1f} s, rerun {result['rerun_s']:.1f} s ({result['status']})"
            )
            results.append(result)
    finally:
        if not args.keep:
            drop_database(BENCH_DB)
        drop_database(TEMPLATE_DB)
    report = render(results, rounds=args.rounds, pdf=args.pdf)
    write_report(report, OUTPUT)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
