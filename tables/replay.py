"""Check a stored round against a fresh fold of its actions (state, settlements, commitment).

The one replay check. ``check_round`` reads one round (tests, ``manage.py replay_round``, the
benches); the audit (``tables.audit.compute.rounds``) reads a night's rows in a few statements
and asks the same questions of every round: ``commitment_ok``, ``replay_problems`` and, for a
round voided whole, ``void_problems``.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from django.db import connection

from tables import sql
from tables.accounts import PartyMap
from tables.games.registry import engine_for
from tables.games.shoe import commitment_for
from tables.models import Round, RoundStatus, ShoeKind
from tables.round_state import fold

Move = tuple[int, str, str, str, int]  # seq, kind, payer, payee, amount (engine parties)


@dataclass
class ReplayCheck:
    round_id: int
    ok: bool = True
    problems: list[str] = field(default_factory=list)

    def fail(self, problem: str) -> None:
        self.ok = False
        self.problems.append(problem)


def check_round(round_: Round) -> ReplayCheck:
    """Re-run the engine; the state, the settlements and the commitment must all match."""
    result = ReplayCheck(round_id=round_.pk)
    if round_.shoe == ShoeKind.ELECTRONIC and not commitment_ok(round_):
        result.fail("the seed does not match the published commitment")
    if round_.status == RoundStatus.VOID:
        problems = void_problems(round_, void_rows([round_.pk])[round_.pk])
    else:
        rows = list(
            round_.settlements.values_list("action__seq", "kind", "from_account", "to_account", "amount")
        )
        parties = PartyMap.of_codes(round_.table_id, [code for row in rows for code in row[2:4]])
        stored: Counter[Move] = Counter(
            (seq or 0, kind, parties.party(payer), parties.party(payee), amount)
            for seq, kind, payer, payee, amount in rows
        )
        problems = replay_problems(
            round_, round_.actions.order_by("seq").values_list("seq", "payload"), stored
        )
    for problem in problems:
        result.fail(problem)
    return result


def commitment_ok(round_: Round) -> bool:
    """Whether the round's seed hashes to the commitment published before its first card."""
    try:
        return bool(round_.seed) and commitment_for(round_.seed) == round_.commitment
    except ValueError:  # a seed that is not hex
        return False


def replay_problems(
    round_: Round, actions: Iterable[tuple[int, Mapping[str, Any]]], stored: Counter[Move]
) -> list[str]:
    """The one fold (tables.round_state) over the standing ``(seq, payload)`` actions; the problems.

    Its observer checks the seqs and gathers the settlements the engine makes, to compare with
    the ``stored`` ones (by seq, never by position: a correction's voided actions leave gaps).
    """
    problems: list[str] = []
    expected: Counter[Move] = Counter()
    last = 0

    def observe(seq: int, payload: Any, before: Any, after: Any, moved: Any) -> None:
        nonlocal last
        if payload is not None:
            if not last < seq <= round_.version:
                problems.append(
                    f"action seq {seq} is out of order (after {last}, round version {round_.version})"
                )
            last = seq
        expected.update((seq, s.kind, s.payer, s.payee, s.amount) for s in moved)

    try:
        state = fold(round_, actions, observe)
        if engine_for(round_.game).public_state(state) != round_.state:
            problems.append("the stored state differs from the replayed state")
    except Exception as error:
        problems.append(f"the actions no longer replay ({type(error).__name__}: {error})")
        return problems
    if expected != stored:
        missing = sorted(expected - stored)[:5]
        extra = sorted(stored - expected)[:5]
        problems.append(
            f"settlements differ: expected but not stored {missing}, stored but not expected {extra}"
        )
    return problems


@dataclass
class VoidRound:
    """What a round voided whole left behind: its rows, and whether each transfer went back."""

    live_settlements: int = 0
    live_actions: int = 0
    transfers: set[int] = field(default_factory=set)
    reversed: set[int] = field(default_factory=set)


def void_rows(round_ids: list[int]) -> dict[int, VoidRound]:
    """For rounds voided whole (misdeals): settlement rows, actions and reversals, one statement."""
    found: dict[int, VoidRound] = {pk: VoidRound() for pk in round_ids}
    if not round_ids:
        return found
    with connection.cursor() as cursor:
        cursor.execute(sql.VOID_ROWS, [round_ids, round_ids])
        for round_id, transfer_id, live, reversed_ in cursor.fetchall():
            rows = found[round_id]
            if live:
                if transfer_id is None:
                    rows.live_actions += 1  # an action that moved nothing
                else:
                    rows.live_settlements += 1
            if transfer_id is not None:
                rows.transfers.add(transfer_id)
                if reversed_:
                    rows.reversed.add(transfer_id)
    return found


def void_problems(round_: Round, rows: VoidRound | None) -> list[str]:
    """A misdeal: every settlement and action voided, every transfer reversed, and the round left
    as it stood before its first action."""
    problems: list[str] = []
    rows = rows or VoidRound()
    if rows.live_settlements or rows.live_actions:
        problems.append("the round is void but some of its settlements or actions are not")
    unreversed = sorted(rows.transfers - rows.reversed)
    if unreversed:
        problems.append(f"the round is void but transfers {unreversed[:5]} are not reversed")
    try:
        if engine_for(round_.game).public_state(fold(round_, ())) != round_.state:
            problems.append("the stored state is not the round's state before its first action")
    except Exception as error:
        problems.append(f"the round no longer starts ({type(error).__name__}: {error})")
    return problems
