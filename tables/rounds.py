"""Rounds: run an engine and post what it settles through the ledger, atomically.

A round's state is the fold of its actions (tables.round_state); the folded state of the
latest version is kept in-process (tables.state_cache), so an action costs one engine step.
"""

from __future__ import annotations

import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from celery import current_app
from django.db import transaction
from django.utils import timezone

from casino.action_log import record_action
from casino.errors import Conflict, NotFound, ValidationFailed
from casino.models import Player, User
from casino.observability.metrics import REFUSED_ACTIONS
from casino.permissions import require
from casino.rows import instance_from_row, plain_values
from casino.selectors import holder_of, players_named
from casino.task_sending import send_task_after_commit
from ledger.errors import UnknownAccount
from ledger.kept_cursor import kept_cursor
from ledger.models import Transfer
from ledger.services import Leg, post_transfer, void_holds
from tables import sql
from tables.accounts import (
    LAYOUT,
    POT,
    WALLET,
    PartyMap,
    open_layout,
    open_pot,
    pot_name,
    split_party,
    table_pots,
)
from tables.games.base import Settlement, seats_from_left_of
from tables.games.errors import IllegalAction
from tables.games.input_checks import is_int
from tables.games.registry import engine_for
from tables.games.shoe import commitment_for, shuffle
from tables.locks import lock_table, lock_table_of_round, share_round
from tables.models import (
    LIVE_ROUND_STATUSES,
    RefusedAction,
    Round,
    RoundSettlement,
    RoundStatus,
    Seat,
    ShoeKind,
    Table,
    TableStatus,
)
from tables.reserves import dealt_in, hold_reserves
from tables.round_state import context_of, deck_for, derive_seed, engine_state
from tables.state_cache import STATE_CACHE

RATE_ROUND_TASK = "tables.tasks.rate_round_task"
RESERVED_ACTION_KEYS = ("limits", "version")


class StaleRound(Conflict):
    code = "stale_round"


@dataclass(frozen=True, slots=True)
class _LockedRound:
    """What an action reads with its round's lock, in one statement."""

    round: Round
    newer: tuple[int, list[dict[str, Any]]]  # (since, payloads) for ``engine_state``
    correction_pending: bool
    settled_before: int  # the round's live settlements so far
    seated: dict[int, str]  # player id → wallet code, for everyone seated at the table now


def _lock_round(round_id: int) -> _LockedRound:
    """Lock the round (its table is locked first) and fetch, in the same statement, the actions
    after the version this process has cached of it (all of them for a round not seen here),
    whether a correction of it waits for approval, its settlement count and who sits at its
    table. Its stored public state is not fetched: the action recomputes it.
    """
    since = STATE_CACHE.version_of(round_id)
    cursor = kept_cursor()
    cursor.execute(sql.LOCK_ROUND, [since, round_id])
    row = cursor.fetchone()
    if row is None:
        raise NotFound("No such round.")
    *fields, payloads, correction_pending, settled, seated = row
    return _LockedRound(
        round=instance_from_row(Round, sql.LOCKED_ROUND_FIELDS, fields),
        newer=(since, _json(payloads)),
        correction_pending=bool(correction_pending),
        settled_before=int(settled),
        seated={int(player): str(code) for player, code in _json(seated).items()},
    )


class _Accounts:
    """The ledger side of a round's settlements: codes (tables.accounts.PartyMap) and hold ids.

    ``wallets`` (player id → wallet code) must cover every wallet a settlement touches; layouts
    and pots are named from ids alone and opened only when the ledger reports one missing.
    """

    def __init__(self, *, table: Table, round_: Round, wallets: Mapping[int, str]) -> None:
        self.table = table
        self.round = round_
        self.parties = PartyMap(table.pk, wallets)

    def leg(self, settlement: Settlement) -> Leg:
        hold_id = None
        kind, ref = split_party(settlement.payer)
        if kind == WALLET:
            hold_id = self.round.holds.get(ref)
        return Leg(
            debit=self.parties.code(settlement.payer),
            credit=self.parties.code(settlement.payee),
            amount=settlement.amount,
            hold_id=hold_id,
        )

    def open_layouts_and_pots(self, settlements: Sequence[Settlement]) -> None:
        """Open the layouts and pots these settlements touch (each exists after its first use)."""
        parties = dict.fromkeys(split_party(party) for s in settlements for party in (s.payer, s.payee))
        owners = Player.objects.in_bulk([int(ref) for kind, ref in parties if kind == LAYOUT])
        for kind, ref in parties:
            if kind == LAYOUT:
                player = owners[int(ref)]
                open_layout(table_id=self.table.pk, player_id=player.pk, holder=holder_of(player))
            elif kind == POT:
                open_pot(table_id=self.table.pk, name=ref)


def _post_settlements(
    *,
    accounts: _Accounts,
    round_: Round,
    seq: int,
    settlements: Sequence[Settlement],
    key: str,
    savepoint: bool = True,
) -> tuple[Transfer | None, list[Leg]]:
    """One transfer per action: its legs are simultaneous, so a pot may be filled and won at once.

    The round's layouts and pots almost always exist already, so the transfer is posted first
    and they are opened only if the ledger refuses it for an unknown account (it then moved
    nothing, in its own savepoint); checking first would cost a query on every action. Without
    ``savepoint`` that refusal spoils the caller's transaction, so it is raised for the caller
    to roll back (``apply_round_action`` then runs the action again with one).
    """
    if not settlements:
        return None, []
    legs = [accounts.leg(s) for s in settlements]
    kinds = {s.kind for s in settlements}
    kind = kinds.pop() if len(kinds) == 1 else "round_settlement"

    def post() -> Transfer:
        return post_transfer(
            key=key,
            kind=kind,
            legs=legs,
            memo=f"{round_.get_game_display()} round {round_.number} at {accounts.table.name}",
            meta={"table": accounts.table.pk, "round": round_.pk, "action": seq, "game": round_.game},
            savepoint=savepoint,
        )

    try:
        return post(), legs
    except UnknownAccount:
        if not savepoint:
            raise
        accounts.open_layouts_and_pots(settlements)
        return post(), legs


def _settlement_values(
    round_: Round, transfer: Transfer, settlements: Sequence[Settlement], legs: Sequence[Leg]
) -> list[dict[str, Any]]:
    """One row per leg (a ``RoundSettlement``'s attributes), beside the transfer: what the round
    API lists and the audit replays."""
    return [
        {
            "round_id": round_.pk,
            "transfer_id": transfer.pk,
            "kind": s.kind,
            "from_account": leg.debit,
            "to_account": leg.credit,
            "amount": s.amount,
            "player_id": s.player,
        }
        for s, leg in zip(settlements, legs, strict=True)
    ]


def _write_action(
    round_: Round, action: Mapping[str, Any], rows: Sequence[Mapping[str, Any]], changed: Sequence[str]
) -> None:
    """Insert ``action`` and its settlement ``rows`` (each a ``RoundAction``'s or a
    ``RoundSettlement``'s attributes) and save the round's ``changed`` fields in one statement:
    spelled as three through the ORM, they cost a tap more client CPU to build than PostgreSQL
    spends running them (issue 22), and so would the instances. The values are the ones
    ``save`` would send (``casino.rows.plain_values``)."""
    fields = [sql.ROUND_FIELDS[name] for name in dict.fromkeys(changed)]  # finish_round names "status" again
    params = plain_values(sql.ACTION_FIELDS, action)
    for row in rows:
        params += plain_values(sql.SETTLEMENT_FIELDS, row)
    params += plain_values(fields, {field.attname: getattr(round_, field.attname) for field in fields})
    kept_cursor().execute(sql.write_action(len(rows), tuple(f.name for f in fields)), [*params, round_.pk])


def _pot_balances(table: Table) -> dict[str, int]:
    return {pot_name(code): balance for code, balance in table_pots(table.pk).values_list("code", "balance")}


def _deal_order(public: Mapping[str, Any], seats: Mapping[int, int]) -> list[int]:
    """Players from the dealer position's left: the order odd cents are handed out in."""
    dealer_seat = public.get("dealer_seat")
    if dealer_seat is None and public.get("farmer") is not None:
        dealer_seat = next((s for s, p in seats.items() if p == public["farmer"]), None)
    if dealer_seat is None:
        dealer_seat = max(seats)  # lowest seat first
    return seats_from_left_of(int(dealer_seat), seats)


def _table_facts(table_id: int) -> tuple[bool, Any, int, int | None]:
    """Whether the table has a live round, the last settled round's carry, the last round's
    number and the open session's id: four reads a round start used to make one by one."""
    cursor = kept_cursor()
    cursor.execute(sql.TABLE_FACTS, {"t": table_id})
    live, carry, number, session_id = cursor.fetchone()
    return bool(live), carry, int(number), session_id


def _json(value: Any) -> Any:
    return json.loads(value) if isinstance(value, str) else value


@transaction.atomic
def start_round(*, actor: User, table_id: int, shoe: str, seed: str | None = None) -> Round:
    """Deal a new round: reserves held, antes posted, the deck committed before any card.

    ``seed`` is for simulations only (a reproducible night); the API never passes one, so
    live seeds come from ``secrets`` and cannot be predicted.
    """
    table = lock_table(table_id=table_id)
    require(actor, "round.deal", table=table)
    if shoe not in ShoeKind.values:
        raise ValidationFailed("shoe must be 'electronic' or 'manual'.", fields={"shoe": shoe})
    if table.status != TableStatus.OPEN:
        raise Conflict(f"{table.name} is closed.", code="table_closed")
    live, previous_carry, last_number, session_id = _table_facts(table.pk)
    if live:
        raise Conflict("This table already has a live round.", code="round_live")
    engine = engine_for(table.game)
    seated = {
        seat.number: seat.player
        for seat in Seat.objects.filter(table=table, left_at__isnull=True).select_related(
            "player__wallet", "player__user"
        )
    }
    carry = dict(_json(previous_carry) or {})
    pots = _pot_balances(table)
    if pots:
        carry["pots"] = pots
    # The limits, ante and carry the engine is dealt with, kept in the round's context beside the seats.
    terms = {"min_bet": table.min_bet, "max_bet": table.max_bet, "ante": table.ante, "carry": carry}
    try:
        # the engine's reserve, and who sat out
        seats, sat_out = dealt_in(engine, seated, {"rules": table.rules, **terms})
    except IllegalAction as error:  # e.g. too few players for this game
        raise Conflict(error.message, code=error.code) from error
    electronic = shoe == ShoeKind.ELECTRONIC
    seed = "" if not electronic else seed or secrets.token_hex(32)
    extra_seeds = [derive_seed(seed, "farmer-draw")] if electronic and table.game == "farmer" else []
    round_ = Round(
        table=table,
        game=table.game,
        number=last_number + 1,
        shoe=shoe,
        rules=table.rules,
        context={
            "seats": {str(n): p for n, p in seats.items()},
            **terms,
            **({"sat_out": [s.as_dict() for s in sat_out]} if sat_out else {}),
        },
        commitment=commitment_for(seed) if seed else "",
        seed=seed,
        extra_seeds=extra_seeds,
        started_by=actor,
        session_id=session_id,
    )
    ctx = context_of(round_)
    try:
        state, opening = engine.start(ctx)
    except IllegalAction as error:
        raise Conflict(error.message, code=error.code) from error
    public = engine.public_state(state)
    round_.players = _deal_order(public, seats) if seats else []
    round_.state = public
    round_.status = status_of(engine, state, public)
    round_.save()
    wallets = {p.pk: p.wallet.code for p in seated.values()}
    memo = f"Reserve for round {round_.number} at {table.name}"
    round_.holds = hold_reserves(round_, engine.reserve(ctx) if seats else {}, wallets, memo=memo)
    if round_.holds:
        round_.save(update_fields=["holds"])
    accounts = _Accounts(table=table, round_=round_, wallets=wallets)
    transfer, legs = _post_settlements(
        accounts=accounts, round_=round_, seq=0, settlements=opening, key=f"round:{round_.pk}:start"
    )
    if transfer is not None:
        rows = _settlement_values(round_, transfer, opening, legs)
        RoundSettlement.objects.bulk_create([RoundSettlement(**row) for row in rows])
    if engine.is_over(state):
        round_.save(update_fields=finish_round(round_, engine, state))
    STATE_CACHE.put(round_, state)
    record_action(
        actor=actor, action="round.started", obj=round_, data={"shoe": shoe, "players": round_.players}
    )
    # A new round's settlements are its opening's: the answer lists them without reading them back.
    round_.settlements_made = _made(transfer, opening, legs)
    round_.settlements_count = len(round_.settlements_made)
    return round_


def status_of(engine: Any, state: Any, public: Mapping[str, Any]) -> str:
    if engine.is_over(state):
        return RoundStatus.SETTLED
    # Before the first card of the deal the round is open for bets; afterwards it is in play.
    before_first_card = public.get("phase") in {"betting", "soda"} and not public.get("turns")
    return RoundStatus.BETTING if before_first_card else RoundStatus.IN_PLAY


def finish_round(round_: Round, engine: Any, state: Any) -> list[str]:
    """Release what is left of every reserve and remember what the next round inherits.

    Returns the fields it set, for the caller to save with its own (one UPDATE of the round).
    """
    void_holds(hold_ids=list(round_.holds.values()))
    round_.status = RoundStatus.SETTLED
    round_.ended_at = timezone.now()
    round_.carry = engine.carry_out(state)
    # After commit, without holding the action up if the broker is down (a failed send is
    # logged); the ratings sweep (rate_unrated_rounds_task) rates a round whose send failed.
    # Nobody reads this task's result, so none is stored (and none is subscribed to here).
    # By name: ratings sit above rounds (tasks.py imports both), so rounds never import them.
    send_task_after_commit(current_app.signature(RATE_ROUND_TASK), args=[round_.pk], ignore_result=True)
    return ["status", "ended_at", "carry"]


def _clean_payload(action: Any) -> dict[str, Any]:
    if not isinstance(action, dict):
        raise IllegalAction("illegal_action", "An action must be a JSON object with a 'type'.")
    if not isinstance(action.get("type"), str):
        raise IllegalAction("illegal_action", "An action needs a 'type' (a string).")
    return {k: v for k, v in action.items() if k not in RESERVED_ACTION_KEYS}


def apply_round_action(
    *, actor: User, round_id: int, action: Any, version: Any = None, at_table: int | None = None
) -> Round:
    """One action = one transaction: the engine step, its chips and the new state together.

    The table is locked, then the round (tables.locks order), then the ledger accounts by
    ``post_transfer``. The returned round is what was saved, so callers need not read it again;
    it carries ``settlements_made`` (this action's rows),
    ``settlements_count`` (the round's live total) and ``last_payload`` (the action as recorded).

    Any refusal rolls the whole action back, so the ledger call needs no savepoint of its own;
    the one refusal that is not final, a layout or pot not opened yet (a player's first bet at
    this table, a pot's first chip), runs the action again, opening them in a savepoint.

    ``at_table``: the table the caller's URL names; a round dealt elsewhere is then not found.
    """
    try:
        return _apply_round_action(
            actor=actor, round_id=round_id, action=action, version=version, at_table=at_table
        )
    except UnknownAccount:
        return _apply_round_action(
            actor=actor, round_id=round_id, action=action, version=version, at_table=at_table, savepoint=True
        )


@transaction.atomic
def _apply_round_action(
    *, actor: User, round_id: int, action: Any, version: Any, at_table: int | None, savepoint: bool = False
) -> Round:
    table = lock_table_of_round(round_id=round_id)
    if table is None:
        raise NotFound("No such round.")
    if at_table is not None and table.pk != at_table:
        raise NotFound("No such deal at this table.")
    locked = _lock_round(round_id)
    round_ = locked.round
    require(actor, "round.deal", table=table)
    if version is not None and not is_int(version):
        raise ValidationFailed("version must be an integer.", fields={"version": version})
    if version is not None and version != round_.version:
        raise StaleRound(f"The round is at version {round_.version}, not {version}; reload it.")
    if locked.correction_pending:
        raise Conflict(
            "A correction of this deal is waiting for the pit's approval; play resumes once it is decided.",
            code="correction_pending",
        )
    if round_.status not in LIVE_ROUND_STATUSES:
        if round_.game == "stakes" and round_.status == RoundStatus.SETTLED:
            # A result settles a stakes round at once; GAMES.md makes a second result a 400.
            raise IllegalAction("illegal_action", "This round already has its result; it is settled.")
        raise Conflict(f"The round is {round_.status}.", code="round_over")
    payload = _clean_payload(action)
    _check_seated(table, payload, locked.seated)
    payload["limits"] = {"min_bet": table.min_bet, "max_bet": table.max_bet}
    engine = engine_for(round_.game)
    state = engine_state(round_, newer=locked.newer)
    try:
        new_state, moved = engine.apply(state, payload)
    except IllegalAction as error:  # the engine names players by id; whoever reads it, by name
        raise IllegalAction(error.code, players_named(error.message), error.fields) from error
    seq = round_.version + 1
    accounts = _Accounts(table=table, round_=round_, wallets=_wallets_of(moved, seated=locked.seated))
    transfer, legs = _post_settlements(
        accounts=accounts,
        round_=round_,
        seq=seq,
        settlements=moved,
        key=f"round:{round_.pk}:action:{seq}",
        savepoint=savepoint,
    )
    recorded = {
        "round_id": round_.pk,
        "seq": seq,
        "payload": payload,
        "actor_id": actor.pk,
        "at": timezone.now(),
        "transfer_id": None if transfer is None else transfer.pk,
    }
    rows = [] if transfer is None else _settlement_values(round_, transfer, moved, legs)
    public = engine.public_state(new_state)
    round_.version = seq
    round_.state = public
    round_.status = status_of(engine, new_state, public)
    changed = ["version", "state", "status"]
    if engine.is_over(new_state):
        changed += finish_round(round_, engine, new_state)
    _write_action(round_, recorded, rows, changed)
    STATE_CACHE.put(round_, new_state)
    # API.md: an action's answer lists only what it moved, with the round's total beside it.
    round_.settlements_made = _made(transfer, moved, legs)
    round_.settlements_count = locked.settled_before + len(legs)
    round_.last_payload = payload
    return round_


def _made(
    transfer: Transfer | None, settlements: Sequence[Settlement], legs: Sequence[Leg]
) -> list[tuple[int, str, int, int | None, str, str]]:
    """The settlement rows one step wrote, as the round's answer lists them (no read back)."""
    if transfer is None:
        return []
    return [
        (transfer.pk, s.kind, s.amount, s.player, leg.debit, leg.credit)
        for s, leg in zip(settlements, legs, strict=True)
    ]


def _check_seated(table: Table, payload: Mapping[str, Any], seated: Mapping[int, str]) -> None:
    """Chips move only for players sitting at this table now (engines know seats, not people)."""
    player = payload.get("player")
    if player is None:
        return
    if not is_int(player):
        raise IllegalAction("illegal_action", "player must be a player id (an integer).")
    if player not in seated:
        raise IllegalAction("not_seated", f"Player {player} is not seated at {table.name}.")


def _wallets_of(moved: Sequence[Settlement], *, seated: Mapping[int, str]) -> dict[int, str]:
    """Wallet codes of the players the settlements pay or charge; read only for a player who is
    no longer seated (the seated ones came with the round's lock)."""
    ids = set()
    for s in moved:
        for party in (s.payer, s.payee):
            kind, ref = split_party(party)
            if kind == WALLET:
                ids.add(int(ref))
    wallets = {player: seated[player] for player in ids if player in seated}
    if ids - wallets.keys():
        wallets.update(Player.objects.filter(pk__in=ids - wallets.keys()).values_list("pk", "wallet__code"))
    return wallets


@transaction.atomic
def log_refused_action(*, actor: User, round_id: int, action: Any, code: str) -> None:
    """Refusals are kept (outside the refused transaction) for dealer metrics and detection.

    The row points at the round and its table: both are held first, in the actions' order
    (``share_round``), or its foreign-key checks would take them the other way round.
    """
    table_id = share_round(round_id=round_id)
    if table_id is None:
        return
    player = action.get("player") if isinstance(action, dict) else None
    valid_player = is_int(player) and Player.objects.filter(pk=player).exists()
    REFUSED_ACTIONS.labels(code).inc()
    RefusedAction.objects.create(
        table_id=table_id,
        round_id=round_id,
        actor=actor,
        player_id=player if valid_player else None,
        code=code,
        payload=action if isinstance(action, dict) else {"raw": str(action)[:200]},
    )


def verify_round(*, round_: Round) -> dict[str, Any]:
    """After an electronic round, reveal the seed so anyone can recompute the deck."""
    if round_.shoe != ShoeKind.ELECTRONIC:
        raise Conflict("Only electronic-shoe rounds can be verified.", code="manual_shoe")
    if round_.status in LIVE_ROUND_STATUSES:
        raise Conflict("The seed is revealed only after the round ends.", code="round_live")
    return {
        "commitment": round_.commitment,
        "server_seed": round_.seed,
        "deck": list(shuffle(deck_for(round_.game), round_.seed)),
        "algorithm": "HMAC-SHA256 counter stream feeding Fisher-Yates (tables/games/shoe.py)",
        "extra": [
            {
                "commitment": commitment_for(seed),
                "server_seed": seed,
                "deck": list(shuffle(deck_for(round_.game), seed)),
            }
            for seed in round_.extra_seeds
        ],
    }
