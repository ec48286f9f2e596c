"""Rounds: run an engine and post what it settles through the ledger, atomically.

A round's state is never trusted from storage: it is the fold of the engine over the
round's context, deck and accepted actions. The folded state of the latest version is
cached in-process (states are immutable), so an action costs one engine step.
"""

from __future__ import annotations

import hashlib
import secrets
from collections import OrderedDict
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone

from casino.audit import record_audit
from casino.errors import Conflict, Forbidden, ValidationFailed
from casino.models import Player, Role, User
from casino.observability.metrics import REFUSED_ACTIONS
from casino.permissions import role_of
from casino.selectors import holder_of
from ledger.services import Leg, hold, post_transfer, void_hold
from tables.accounts import layout_code, open_layout, open_pot, pot_code
from tables.games import base
from tables.games.base import Settlement, TableContext, seats_from_left_of
from tables.games.cards import FARMER_DECK, FULL_DECK
from tables.games.errors import IllegalAction
from tables.games.registry import engine_for
from tables.games.shoe import commitment_for, shuffle
from tables.locks import lock_table
from tables.models import (
    LIVE_ROUND_STATUSES,
    RefusedAction,
    Round,
    RoundAction,
    RoundSettlement,
    RoundStatus,
    Seat,
    ShoeKind,
    Table,
    TableSession,
    TableStatus,
)

RESERVED_ACTION_KEYS = ("limits", "version")


def derive_seed(seed: str, purpose: str) -> str:
    """A second committed deck from the same secret seed (Farmer's 6♥ draw)."""
    return hashlib.sha256(bytes.fromhex(seed) + purpose.encode()).hexdigest()


def deck_for(game: str) -> tuple[str, ...]:
    return FARMER_DECK if game == "farmer" else FULL_DECK


class StaleRound(Conflict):
    code = "stale_round"


@dataclass(frozen=True, slots=True)
class Replay:
    state: Any
    settlements: list[tuple[int, tuple[Settlement, ...]]]  # (seq, settlements); seq 0 is the start


def context_of(round_: Round) -> TableContext:
    """The engine context a round started with; decks come back from the (secret) seeds."""
    data = round_.context
    deck = shuffle(deck_for(round_.game), round_.seed) if round_.shoe == ShoeKind.ELECTRONIC else None
    extra = tuple(shuffle(deck_for(round_.game), seed) for seed in round_.extra_seeds)
    return TableContext(
        rules=round_.rules,
        seats={int(seat): int(player) for seat, player in data["seats"].items()},
        min_bet=data["min_bet"],
        max_bet=data["max_bet"],
        ante=data["ante"],
        deck=deck,
        extra_decks=extra,
        carry=data.get("carry", {}),
    )


def replay_round(round_: Round, *, actions: Sequence[Mapping[str, Any]] | None = None) -> Replay:
    """Fold the engine over the round's actions: the only source of a round's state."""
    engine = engine_for(round_.game)
    state, opening = engine.start(context_of(round_))
    settled: list[tuple[int, tuple[Settlement, ...]]] = [(0, opening)]
    payloads = actions if actions is not None else [a.payload for a in round_.actions.order_by("seq")]
    for seq, payload in enumerate(payloads, start=1):
        state, moved = engine.apply(state, payload)
        settled.append((seq, moved))
    return Replay(state=state, settlements=settled)


CacheKey = tuple[int, int, str, str]
_STATE_CACHE: OrderedDict[CacheKey, Any] = OrderedDict()
_CACHE_SIZE = 512


def _cache_key(round_: Round) -> CacheKey:
    """Id and version, plus the start time and commitment: a restored or reset database can
    hand an old id to a new round, and a stale state must never be served for it."""
    return (round_.pk, round_.version, round_.started_at.isoformat(), round_.commitment)


def _cached_state(round_: Round) -> Any:
    key = _cache_key(round_)
    if key in _STATE_CACHE:
        _STATE_CACHE.move_to_end(key)
        return _STATE_CACHE[key]
    state = replay_round(round_).state
    _remember(round_, state)
    return state


def _remember(round_: Round, state: Any) -> None:
    """Cache a state once its transaction commits (at once outside one).

    A state cached by an action that then rolled back would be served later for the same
    (round, version) after another worker committed a different action at that version.
    """
    key = _cache_key(round_)

    def store() -> None:
        _STATE_CACHE[key] = state
        while len(_STATE_CACHE) > _CACHE_SIZE:
            _STATE_CACHE.popitem(last=False)

    transaction.on_commit(store)


def _require_dealer(actor: User, table: Table) -> None:
    if role_of(actor) != Role.DEALER or table.dealer_id != actor.pk:
        raise Forbidden("Only the dealer assigned to this table may run its rounds.")


class _Accounts:
    """Maps engine parties (``wallet:12``, ``bank`` …) to ledger codes and hold ids."""

    def __init__(self, *, table: Table, round_: Round, players: Mapping[int, Player]) -> None:
        self.table = table
        self.round = round_
        self.players = players

    def code(self, party: str) -> str:
        if party == base.BANK:
            return self.table.tray.code
        if party == base.RAKE:
            return "rake"
        kind, _, ref = party.partition(":")
        if kind == "wallet":
            return self.players[int(ref)].wallet.code
        if kind == "layout":
            player = self.players[int(ref)]
            open_layout(table_id=self.table.pk, player_id=player.pk, holder=holder_of(player))
            return layout_code(self.table.pk, player.pk)
        if kind == "pot":
            open_pot(table_id=self.table.pk, name=ref)
            return pot_code(self.table.pk, ref)
        raise ValueError(f"unknown party {party!r}")

    def leg(self, settlement: Settlement) -> Leg:
        hold_id = None
        kind, _, ref = settlement.payer.partition(":")
        if kind == "wallet":
            hold_id = self.round.holds.get(ref)
        return Leg(
            debit=self.code(settlement.payer),
            credit=self.code(settlement.payee),
            amount=settlement.amount,
            hold_id=hold_id,
        )


def _post_settlements(
    *,
    accounts: _Accounts,
    round_: Round,
    action: RoundAction | None,
    settlements: Sequence[Settlement],
    key: str,
) -> None:
    """One transfer per action: its legs are simultaneous, so a pot may be filled and won at once."""
    if not settlements:
        return
    legs = [accounts.leg(s) for s in settlements]
    kinds = {s.kind for s in settlements}
    transfer = post_transfer(
        key=key,
        kind=kinds.pop() if len(kinds) == 1 else "round_settlement",
        legs=legs,
        memo=f"{round_.get_game_display()} round {round_.number} at {accounts.table.name}",
        meta={
            "table": accounts.table.pk,
            "round": round_.pk,
            "action": action.seq if action else 0,
            "game": round_.game,
        },
    )
    RoundSettlement.objects.bulk_create(
        [
            RoundSettlement(
                round=round_,
                action=action,
                transfer=transfer,
                kind=s.kind,
                from_account=leg.debit,
                to_account=leg.credit,
                amount=s.amount,
                player_id=s.player,
            )
            for s, leg in zip(settlements, legs, strict=True)
        ]
    )
    if action is not None:
        action.transfer = transfer
        action.save(update_fields=["transfer"])


def _pot_balances(table: Table) -> dict[str, int]:
    from ledger.models import Account, AccountPurpose

    prefix = f"pot:{table.pk}:"
    return {
        code[len(prefix) :]: balance
        for code, balance in Account.objects.filter(
            code__startswith=prefix, purpose=AccountPurpose.POT
        ).values_list("code", "balance")
    }


def _deal_order(public: Mapping[str, Any], seats: Mapping[int, int]) -> list[int]:
    """Players from the dealer position's left: the order odd cents are handed out in."""
    dealer_seat = public.get("dealer_seat")
    if dealer_seat is None and public.get("farmer") is not None:
        dealer_seat = next((s for s, p in seats.items() if p == public["farmer"]), None)
    if dealer_seat is None:
        dealer_seat = max(seats)  # lowest seat first
    return seats_from_left_of(int(dealer_seat), seats)


def _eligible_seats(
    engine: Any, table: Table, seated: dict[int, Player], base_ctx: dict[str, Any]
) -> dict[int, int]:
    """Deal in only players whose wallets cover the reserve (table stakes, GAMES.md)."""
    seats = {number: player.pk for number, player in seated.items()}
    for _ in range(len(seats) + 1):
        ctx = TableContext(seats=seats, **base_ctx)
        reserve = engine.reserve(ctx) if seats else {}
        short = {
            number for number, pid in seats.items() if reserve.get(pid, 0) > seated[number].wallet.available
        }
        if not short:
            return seats
        seats = {n: p for n, p in seats.items() if n not in short}
    return seats


@transaction.atomic
def start_round(*, actor: User, table_id: int, shoe: str, seed: str | None = None) -> Round:
    """Deal a new round: reserves held, antes posted, the deck committed before any card.

    ``seed`` is for simulations only (a reproducible night); the API never passes one, so
    live seeds come from ``secrets`` and cannot be predicted.
    """
    table = lock_table(table_id=table_id)
    _require_dealer(actor, table)
    if shoe not in ShoeKind.values:
        raise ValidationFailed("shoe must be 'electronic' or 'manual'.", fields={"shoe": shoe})
    if table.status != TableStatus.OPEN:
        raise Conflict(f"{table.name} is closed.", code="table_closed")
    if Round.objects.filter(table=table, status__in=LIVE_ROUND_STATUSES).exists():
        raise Conflict("This table already has a live round.", code="round_live")
    engine = engine_for(table.game)
    seated = {
        seat.number: seat.player
        for seat in Seat.objects.filter(table=table, left_at__isnull=True).select_related(
            "player__wallet", "player__user"
        )
    }
    previous = Round.objects.filter(table=table, status=RoundStatus.SETTLED).order_by("-number").first()
    carry = dict(previous.carry) if previous else {}
    pots = _pot_balances(table)
    if pots:
        carry["pots"] = pots
    base_ctx = {
        "rules": table.rules,
        "min_bet": table.min_bet,
        "max_bet": table.max_bet,
        "ante": table.ante,
        "carry": carry,
    }
    try:
        seats = _eligible_seats(engine, table, seated, base_ctx)
    except IllegalAction as error:  # e.g. too few players for this game
        raise Conflict(error.message, code=error.code) from error
    electronic = shoe == ShoeKind.ELECTRONIC
    seed = "" if not electronic else seed or secrets.token_hex(32)
    extra_seeds = [derive_seed(seed, "farmer-draw")] if electronic and table.game == "farmer" else []
    number = (
        Round.objects.filter(table=table).order_by("-number").values_list("number", flat=True).first() or 0
    ) + 1
    round_ = Round(
        table=table,
        game=table.game,
        number=number,
        shoe=shoe,
        rules=table.rules,
        context={
            "seats": {str(n): p for n, p in seats.items()},
            "min_bet": table.min_bet,
            "max_bet": table.max_bet,
            "ante": table.ante,
            "carry": carry,
        },
        commitment=commitment_for(seed) if seed else "",
        seed=seed,
        extra_seeds=extra_seeds,
        started_by=actor,
        session=TableSession.objects.filter(table=table, closed_at__isnull=True).first(),
    )
    ctx = context_of(round_)
    try:
        state, opening = engine.start(ctx)
    except IllegalAction as error:
        raise Conflict(error.message, code=error.code) from error
    public = engine.public_state(state)
    round_.players = _deal_order(public, seats) if seats else []
    round_.state = public
    round_.status = _status_of(engine, state, public)
    round_.save()
    players = {p.pk: p for p in seated.values()}
    for pid, amount in engine.reserve(ctx).items() if seats else ():
        if amount > 0:
            reserve = hold(
                key=f"round:{round_.pk}:reserve:{pid}",
                account_code=players[pid].wallet.code,
                amount=amount,
                memo=f"Reserve for round {round_.number} at {table.name}",
                meta={"table": table.pk, "round": round_.pk, "player": pid},
            )
            round_.holds[str(pid)] = reserve.pk
    round_.save(update_fields=["holds"])
    accounts = _Accounts(table=table, round_=round_, players=players)
    _post_settlements(
        accounts=accounts, round_=round_, action=None, settlements=opening, key=f"round:{round_.pk}:start"
    )
    if engine.is_over(state):
        _finish(round_, engine, state)
    _remember(round_, state)
    record_audit(
        actor=actor, action="round.started", obj=round_, data={"shoe": shoe, "players": round_.players}
    )
    return round_


def _status_of(engine: Any, state: Any, public: Mapping[str, Any]) -> str:
    if engine.is_over(state):
        return RoundStatus.SETTLED
    # Before the first card of the deal the round is open for bets; afterwards it is in play.
    before_first_card = public.get("phase") in {"betting", "soda"} and not public.get("turns")
    return RoundStatus.BETTING if before_first_card else RoundStatus.IN_PLAY


def _finish(round_: Round, engine: Any, state: Any) -> None:
    """Release what is left of every reserve and remember what the next round inherits."""
    for hold_id in round_.holds.values():
        void_hold(hold_id=hold_id)
    round_.status = RoundStatus.SETTLED
    round_.ended_at = timezone.now()
    round_.carry = engine.carry_out(state)
    round_.save(update_fields=["status", "ended_at", "carry"])
    from tables.tasks import rate_round_task

    round_id = round_.pk
    # robust: a broker hiccup must not fail a committed action; ratings can be rebuilt.
    transaction.on_commit(lambda: rate_round_task.delay(round_id), robust=True)


def _clean_payload(action: Any) -> dict[str, Any]:
    if not isinstance(action, dict):
        raise IllegalAction("illegal_action", "An action must be a JSON object with a 'type'.")
    if not isinstance(action.get("type"), str):
        raise IllegalAction("illegal_action", "An action needs a 'type' (a string).")
    return {k: v for k, v in action.items() if k not in RESERVED_ACTION_KEYS}


@transaction.atomic
def apply_round_action(*, actor: User, round_id: int, action: Any, version: Any = None) -> Round:
    """One action = one transaction: the engine step, its chips and the new state together."""
    table_id = Round.objects.filter(pk=round_id).values_list("table_id", flat=True).first()
    if table_id is None:
        from casino.errors import NotFound

        raise NotFound("No such round.")
    table = lock_table(table_id=table_id)
    round_ = Round.objects.select_for_update(of=("self",)).get(pk=round_id)
    _require_dealer(actor, table)
    if version is not None and (isinstance(version, bool) or not isinstance(version, int)):
        raise ValidationFailed("version must be an integer.", fields={"version": version})
    if version is not None and version != round_.version:
        raise StaleRound(f"The round is at version {round_.version}, not {version}; reload it.")
    if round_.status not in LIVE_ROUND_STATUSES:
        if round_.game == "stakes" and round_.status == RoundStatus.SETTLED:
            # A result settles a stakes round at once; GAMES.md makes a second result a 400.
            raise IllegalAction("illegal_action", "This round already has its result; it is settled.")
        raise Conflict(f"The round is {round_.status}.", code="round_over")
    payload = _clean_payload(action)
    _check_player_seated(table, payload)
    payload["limits"] = {"min_bet": table.min_bet, "max_bet": table.max_bet}
    engine = engine_for(round_.game)
    state = _cached_state(round_)
    new_state, moved = engine.apply(state, payload)
    seq = round_.version + 1
    recorded = RoundAction.objects.create(round=round_, seq=seq, payload=payload, actor=actor)
    players = {
        p.pk: p
        for p in Player.objects.filter(pk__in=_players_touched(round_, moved)).select_related(
            "wallet", "user"
        )
    }
    accounts = _Accounts(table=table, round_=round_, players=players)
    _post_settlements(
        accounts=accounts,
        round_=round_,
        action=recorded,
        settlements=moved,
        key=f"round:{round_.pk}:action:{seq}",
    )
    public = engine.public_state(new_state)
    round_.version = seq
    round_.state = public
    round_.status = _status_of(engine, new_state, public)
    round_.save(update_fields=["version", "state", "status"])
    if engine.is_over(new_state):
        _finish(round_, engine, new_state)
    _remember(round_, new_state)
    return round_


def _check_player_seated(table: Table, payload: Mapping[str, Any]) -> None:
    """Chips move only for players sitting at this table now (engines know seats, not people)."""
    player = payload.get("player")
    if player is None:
        return
    if isinstance(player, bool) or not isinstance(player, int):
        raise IllegalAction("illegal_action", "player must be a player id (an integer).")
    if not Seat.objects.filter(table=table, player_id=player, left_at__isnull=True).exists():
        raise IllegalAction("not_seated", f"Player {player} is not seated at {table.name}.")


def _players_touched(round_: Round, moved: Sequence[Settlement]) -> set[int]:
    ids = {int(p) for p in round_.context["seats"].values()}
    for s in moved:
        for party in (s.payer, s.payee):
            kind, _, ref = party.partition(":")
            if kind in {"wallet", "layout"}:
                ids.add(int(ref))
    return ids


def log_refused_action(*, actor: User, round_id: int, action: Any, code: str) -> None:
    """Refusals are kept (outside the refused transaction) for dealer metrics and detection."""
    round_ = Round.objects.filter(pk=round_id).only("pk", "table_id").first()
    if round_ is None:
        return
    player = action.get("player") if isinstance(action, dict) else None
    valid_player = (
        isinstance(player, int) and not isinstance(player, bool) and Player.objects.filter(pk=player).exists()
    )
    REFUSED_ACTIONS.labels(code).inc()
    RefusedAction.objects.create(
        table_id=round_.table_id,
        round=round_,
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
