"""Corrections: void a round's last actions, or the whole round, with two people (MICS).

Nothing is edited. The dealer asks (``request_correction``); a pit boss or admin who is not
the requester approves (``approve_correction``): each voided action's transfer is reversed by a
new transfer, the actions and their settlement rows are marked voided (never deleted), and the
round is refolded from the actions that remain, so play goes on as if the voided ones had never
been made. A refusal moves nothing.

Lock order is the write path's: the table, then the round, then ledger accounts in pk order
(all the accounts the reversals touch, before the first of them), then holds.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Sum
from django.utils import timezone

from casino.action_log import record_action
from casino.errors import Conflict, NotFound, ValidationFailed
from casino.models import Player, User
from casino.permissions import require, require_second_person
from ledger.gaming_day import gaming_day_for
from ledger.models import ClosedGamingDay, Hold, HoldStatus, Transfer
from ledger.services import reverse_transfers, void_holds
from tables.games.input_checks import is_int
from tables.games.registry import engine_for
from tables.locks import lock_table, lock_table_of_round
from tables.models import (
    Correction,
    CorrectionStatus,
    Round,
    RoundAction,
    RoundSettlement,
    RoundStatus,
    Table,
)
from tables.ratings.models import RoundPlayerStat, RoundStat
from tables.reserves import hold_reserves
from tables.round_state import context_of, fold
from tables.rounds import finish_round, status_of
from tables.state_cache import STATE_CACHE


def _latest_round(table: Table, round_id: int) -> Round:
    """The round, locked; only a table's newest round can be corrected (later rounds built on it)."""
    round_ = Round.objects.select_for_update(of=("self",)).filter(pk=round_id).first()
    if round_ is None:
        raise NotFound("No such round.")
    newest = Round.objects.filter(table=table).order_by("-number").values_list("pk", flat=True).first()
    if newest != round_.pk:
        raise Conflict(
            f"Round {round_.number} is not the newest round at {table.name}; "
            "only the newest can be corrected.",
            code="not_latest_round",
        )
    if round_.status == RoundStatus.VOID:
        raise Conflict(f"Round {round_.number} was already voided.", code="round_void")
    return round_


def in_closed_day(round_: Round) -> bool:
    """Whether the round's gaming day is closed: nothing can post into it, so no correction can."""
    return ClosedGamingDay.objects.filter(day=gaming_day_for(round_.started_at)).exists()


def _refuse_closed_day(round_: Round) -> None:
    if in_closed_day(round_):
        raise Conflict(
            f"The gaming day of round {round_.number} is closed; corrections of it are refused.",
            code="day_closed",
        )


def _first_voided_seq(round_: Round, void: Any) -> int | None:
    """The first seq a request voids (None: the whole round), checked against the round's actions."""
    live = list(round_.actions.order_by("seq").values_list("seq", flat=True))
    if void == "round":
        return None
    if void == "last":
        if not live:
            raise Conflict(
                "The round has no action to void yet; void the whole round instead.", code="nothing_to_void"
            )
        return live[-1]
    if isinstance(void, dict) and set(void) == {"from"}:
        first = void["from"]
        if not is_int(first) or first not in live:
            raise ValidationFailed(
                "void.from must be the number of one of the round's actions.", fields={"void": void}
            )
        return first
    raise ValidationFailed(
        'void must be "last", "round" or {"from": <action number>}.', fields={"void": void}
    )


@transaction.atomic
def request_correction(*, actor: User, round_id: int, void: Any, reason: Any) -> Correction:
    """The dealer asks; nothing moves until a second person approves."""
    table = lock_table_of_round(round_id=round_id)
    if table is None:
        raise NotFound("No such round.")
    require(actor, "correction.request", table=table)
    if not isinstance(reason, str) or not reason.strip():
        raise ValidationFailed("Say why the correction is needed.", fields={"reason": "required"})
    if len(reason) > 300:
        raise ValidationFailed("Keep the reason under 300 characters.", fields={"reason": "too long"})
    round_ = _latest_round(table, round_id)
    _refuse_closed_day(round_)
    if Correction.objects.filter(round=round_, status=CorrectionStatus.PENDING).exists():
        raise Conflict(
            "A correction of this round is already waiting for approval.", code="correction_pending"
        )
    correction = Correction.objects.create(
        round=round_,
        void=void,
        from_seq=_first_voided_seq(round_, void),
        at_version=round_.version,
        reason=reason.strip(),
        requested_by=actor,
    )
    record_action(
        actor=actor,
        action="correction.requested",
        obj=correction,
        data={"round": round_.pk, "void": void, "reason": correction.reason},
    )
    return correction


def _locked_for_decision(actor: User, correction_id: int) -> tuple[Table, Round, Correction]:
    """Table, round, then the correction row: the write path's order."""
    found = Correction.objects.select_related("round").filter(pk=correction_id).first()
    if found is None:
        raise NotFound("No such correction.")
    table = lock_table(table_id=found.round.table_id)
    round_ = Round.objects.select_for_update(of=("self",)).get(pk=found.round_id)
    correction = Correction.objects.select_for_update(of=("self",)).get(pk=correction_id)
    require(actor, "correction.decide")
    require_second_person(actor=actor, requested_by_id=correction.requested_by_id, thing="correction")
    if correction.status != CorrectionStatus.PENDING:
        raise Conflict(f"This correction was already {correction.status}.", code="correction_decided")
    return table, round_, correction


def _reverse(correction: Correction, transfers: list[Transfer]) -> list[int]:
    """Each voided transfer's mirror, in an order that cannot fail for their own legs
    (``reverse_transfers``): a misdeal after decided bets goes back whole."""
    reversals = reverse_transfers(
        transfers=transfers,
        key_prefix=f"correction:{correction.pk}:reverses:",
        memo=f"Correction {correction.pk}: {correction.reason}"[:300],
    )
    return [reversal.pk for reversal in reversals]


def _rehold_reserves(round_: Round, correction: Correction) -> None:
    """Give each player's table-stakes reserve back what the voided actions had taken from it.

    The old hold is released and a new one holds the reserve less what the remaining (not
    voided) settlements paid from the wallet: exactly what the release and the reversals made
    available again, so it always fits.
    """
    seated = [int(p) for p in round_.context.get("seats", {}).values()]
    wallets = dict(Player.objects.filter(pk__in=seated).values_list("pk", "wallet__code"))
    _void_pending_holds(round_)
    reserve = engine_for(round_.game).reserve(context_of(round_))
    paid = dict(
        RoundSettlement.objects.filter(round=round_, from_account__in=wallets.values())
        .values("from_account")
        .annotate(total=Sum("amount"))
        .values_list("from_account", "total")
    )
    left = {pid: amount - paid.get(wallets[pid], 0) for pid, amount in reserve.items() if pid in wallets}
    round_.holds = hold_reserves(
        round_,
        left,
        wallets,
        memo=f"Reserve for round {round_.number}, restored by correction {correction.pk}",
        key_suffix=f":correction:{correction.pk}",
    )


def _void_pending_holds(round_: Round) -> None:
    pending = Hold.objects.filter(pk__in=list(round_.holds.values()), status=HoldStatus.PENDING)
    void_holds(hold_ids=list(pending.order_by("pk").values_list("pk", flat=True)))


@transaction.atomic
def approve_correction(*, actor: User, correction_id: int) -> Round:
    """Reverse, mark voided, refold: the round as if the voided actions had never been made."""
    table, round_, correction = _locked_for_decision(actor, correction_id)
    if round_.version != correction.at_version:
        raise Conflict(
            "The round moved on since the correction was asked for; refuse it and ask again.",
            code="stale_correction",
        )
    newest = Round.objects.filter(table=table).order_by("-number").values_list("pk", flat=True).first()
    if newest != round_.pk:
        raise Conflict(
            "A later round has started at this table; this one can no longer be corrected.",
            code="not_latest_round",
        )
    _refuse_closed_day(round_)
    whole = correction.from_seq is None
    actions = round_.actions.all() if whole else round_.actions.filter(seq__gte=correction.from_seq)
    voided_actions = list(actions.select_related("transfer"))
    settlements = RoundSettlement.objects.filter(round=round_)
    if not whole:
        settlements = settlements.filter(action__in=voided_actions)
    transfers = {row.transfer_id for row in settlements}
    if whole:
        transfers |= {a.transfer_id for a in voided_actions if a.transfer_id}
    to_reverse = list(Transfer.objects.filter(pk__in=transfers).exclude(reversed_by__isnull=False))
    correction.reversals = _reverse(correction, to_reverse)
    RoundAction.objects.filter(pk__in=[a.pk for a in voided_actions]).update(voided_by=correction)
    settlements.update(voided_by=correction)
    # Ratings are rewritten when it settles again (a voided round is never rated).
    RoundPlayerStat.objects.filter(round=round_).delete()
    RoundStat.objects.filter(round=round_).delete()

    engine = engine_for(round_.game)
    round_.version = correction.at_version + 1  # a version of its own, with no action
    changed = ["version", "state", "status", "holds", "ended_at", "carry"]
    if whole:
        _void_pending_holds(round_)
        round_.status = RoundStatus.VOID
        round_.ended_at = timezone.now()
        round_.carry = {}
        state = fold(round_, ())
        round_.state = engine.public_state(state)
    else:
        _rehold_reserves(round_, correction)
        state = fold(round_)
        round_.state = engine.public_state(state)
        round_.status = status_of(engine, state, round_.state)
        round_.ended_at = None
        round_.carry = {}
        if engine.is_over(state):
            changed += finish_round(round_, engine, state)
    round_.save(update_fields=sorted(set(changed)))
    STATE_CACHE.put(round_, state)

    correction.decide(actor, CorrectionStatus.APPROVED, also=("reversals",))
    record_action(
        actor=actor,
        action="correction.approved",
        obj=correction,
        data={
            "round": round_.pk,
            "voided_actions": [a.seq for a in voided_actions],
            "reversals": correction.reversals,
            "status": round_.status,
        },
    )
    return round_


@transaction.atomic
def refuse_correction(*, actor: User, correction_id: int, note: Any = "") -> Correction:
    """Nothing moves; the refusal and its note are kept."""
    if not isinstance(note, str):
        raise ValidationFailed("note must be text.", fields={"note": note})
    _table, _round, correction = _locked_for_decision(actor, correction_id)
    correction.note = note.strip()[:300]
    correction.decide(actor, CorrectionStatus.REFUSED, also=("note",))
    record_action(actor=actor, action="correction.refused", obj=correction, data={"note": correction.note})
    return correction


def pending_corrections(*, table_ids: Iterable[int] | None = None) -> list[Correction]:
    """What the pit has to decide, oldest first."""
    query = Correction.objects.filter(status=CorrectionStatus.PENDING).select_related(
        "round", "round__table", "requested_by"
    )
    if table_ids is not None:
        query = query.filter(round__table_id__in=list(table_ids))
    return list(query.order_by("requested_at"))
