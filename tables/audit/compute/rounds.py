"""Rounds: replay every round from its actions and check its settlements, state and commitment.

Theo, like handle and win, is the ratings' figure (``people.section_figures``), not the replay's.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from django.db.models import Exists, OuterRef, Q

from tables.accounts import PartyMap
from tables.audit import report as shape
from tables.audit.compute.state import AuditState, add_tables, sql_rows
from tables.games.registry import engine_for
from tables.games.shoe import commitment_for
from tables.models import LIVE_ROUND_STATUSES, Round, RoundSettlement, RoundStatus, ShoeKind
from tables.round_state import fold


def load_rounds(audit: AuditState) -> None:
    """Rounds started in the day, and rounds started the day before that moved chips in this one."""
    # all_objects: a round whose only movements today were later voided still moved chips today.
    straddling = RoundSettlement.all_objects.filter(round_id=OuterRef("pk"), transfer__gaming_day=audit.day)
    audit.rounds = list(
        Round.objects.filter(
            Q(started_at__gte=audit.start, started_at__lt=audit.end)
            | Q(started_at__gte=audit.start - dt.timedelta(days=1), started_at__lt=audit.start)
            & Exists(straddling)
        ).order_by("table_id", "number")
    )
    # The replay and the SQL thread both fill these in; create them before either starts.
    add_tables(audit, {r.table_id for r in audit.rounds})


def _party_map(audit: AuditState, table_id: int) -> Callable[[str], str]:
    """Ledger code → engine party at one table (tables.accounts.PartyMap, read once per code)."""
    wallets = {player: code for code, player in audit.wallet_code_player.items()}
    return PartyMap(table_id, wallets).party


def section_rounds(audit: AuditState) -> None:
    """Replay every round from its actions (and seed); check settlements, state and commitment."""
    round_ids = [r.pk for r in audit.rounds]
    actions: dict[int, list[tuple[int, int, dict[str, Any], int]]] = defaultdict(list)
    seq_of: dict[int, int] = {}
    # Half of a night's actions are the same few texts (every electronic turn, common bets):
    # decode each text once. Engines are pure and never change an action they are given.
    decoded: dict[str, dict[str, Any]] = {}
    # Actions a correction voided are not folded (the round is as if they had never been made),
    # so a round's seqs may have gaps: settlements are compared by seq, never by position.
    for pk, round_id, seq, text, actor_id in sql_rows(
        "SELECT id, round_id, seq, payload::text, actor_id FROM tables_roundaction"
        " WHERE round_id = ANY(%s) AND voided_by_id IS NULL ORDER BY round_id, seq",
        [round_ids],
    ):
        payload = decoded.get(text)
        if payload is None:
            payload = decoded[text] = json.loads(text)
        actions[round_id].append((pk, seq, payload, actor_id))
        seq_of[pk] = seq
    raw: dict[int, list[tuple[int | None, str, str, str, int]]] = defaultdict(list)
    for round_id, action_id, kind, payer, payee, amount in sql_rows(
        "SELECT round_id, action_id, kind, from_account, to_account, amount FROM tables_roundsettlement"
        " WHERE round_id = ANY(%s) AND voided_by_id IS NULL",
        [round_ids],
    ):
        raw[round_id].append((action_id, kind, payer, payee, amount))
    voided_rounds = _void_round_rows(audit)
    stored: dict[int, Counter[tuple[int, str, str, str, int]]] = defaultdict(Counter)
    mappers: dict[int, Callable[[str], str]] = {}
    failed_replay = failed_commitment = electronic = live = 0
    for round_ in audit.rounds:
        party = mappers.get(round_.table_id) or mappers.setdefault(
            round_.table_id, _party_map(audit, round_.table_id)
        )
        counter = stored[round_.pk]
        for action_id, kind, payer, payee, amount in raw.pop(round_.pk, ()):
            seq = seq_of.get(action_id, -1) if action_id is not None else 0
            counter[(seq, kind, party(payer), party(payee), amount)] += 1
        table_name = audit.table_name(round_.table_id) or str(round_.table_id)
        if round_.status in LIVE_ROUND_STATUSES:
            live += 1
            audit.add(
                shape.finding(
                    "round_live",
                    "warning",
                    f"Round {round_.number} at {table_name} was still {round_.status} when the day closed.",
                    table=round_.table_id,
                    table_name=table_name,
                    round=round_.pk,
                )
            )
        if round_.shoe == ShoeKind.ELECTRONIC:
            electronic += 1
            if not _commitment_ok(round_):
                failed_commitment += 1
                audit.add(
                    shape.finding(
                        "commitment_mismatch",
                        "critical",
                        f"Round {round_.number} at {table_name}: the seed does not hash to its commitment.",
                        table=round_.table_id,
                        table_name=table_name,
                        round=round_.pk,
                        evidence={"commitment": round_.commitment},
                    )
                )
        if round_.status == RoundStatus.VOID:
            problems = _check_void_round(round_, voided_rounds.get(round_.pk))
        else:
            problems = _replay_round(audit, round_, actions.get(round_.pk, []), counter)
        if problems:
            failed_replay += 1
            audit.add(
                shape.finding(
                    "round_replay_mismatch",
                    "critical",
                    f"Round {round_.number} at {table_name} does not replay: {'; '.join(problems)}",
                    table=round_.table_id,
                    table_name=table_name,
                    round=round_.pk,
                    evidence={"problems": problems},
                )
            )
        audit.step()
    audit.check(
        "round_replay",
        "Every round replays to its stored state and settlements",
        len(audit.rounds),
        failed_replay,
    )
    audit.check(
        "commitments", "Every electronic round's seed matches its commitment", electronic, failed_commitment
    )
    audit.check("rounds_finished", "No round was live at the close", len(audit.rounds), live)


def _commitment_ok(round_: Round) -> bool:
    try:
        return bool(round_.seed) and commitment_for(round_.seed) == round_.commitment
    except ValueError:  # a seed that is not hex
        return False


def _replay_round(
    audit: AuditState,
    round_: Round,
    actions: list[tuple[int, int, dict[str, Any], int]],
    stored: Counter[tuple[int, str, str, str, int]],
) -> list[str]:
    """The one fold (tables.round_state) over the standing actions; return the problems.

    Its observer checks the seqs and gathers the settlements the engine makes.
    """
    problems: list[str] = []
    expected: Counter[tuple[int, str, str, str, int]] = Counter()
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
        state = fold(round_, [(seq, payload) for _pk, seq, payload, _actor in actions], observe)
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
class _VoidRound:
    """What a round voided whole left behind: its rows, and whether each transfer went back."""

    live_settlements: int = 0
    live_actions: int = 0
    transfers: set[int] = field(default_factory=set)
    reversed: set[int] = field(default_factory=set)


def _void_round_rows(audit: AuditState) -> dict[int, _VoidRound]:
    """For the rounds voided whole (misdeals): settlement rows, actions and reversals."""
    void_ids = [r.pk for r in audit.rounds if r.status == RoundStatus.VOID]
    found: dict[int, _VoidRound] = {pk: _VoidRound() for pk in void_ids}
    if not void_ids:
        return found
    for round_id, transfer_id, live, reversed_ in sql_rows(
        """
        SELECT x.round_id, x.transfer_id, x.live,
               EXISTS (SELECT 1 FROM ledger_transfer r WHERE r.reverses_id = x.transfer_id)
          FROM (SELECT round_id, transfer_id, voided_by_id IS NULL AS live
                  FROM tables_roundsettlement WHERE round_id = ANY(%s)
                UNION ALL
                SELECT round_id, transfer_id, voided_by_id IS NULL
                  FROM tables_roundaction WHERE round_id = ANY(%s)) x
        """,
        [void_ids, void_ids],
    ):
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


def _check_void_round(round_: Round, rows: _VoidRound | None) -> list[str]:
    """A misdeal (tables.replay._check_voided): every settlement voided, every transfer reversed,
    and the round left as it stood before its first action."""
    problems: list[str] = []
    rows = rows or _VoidRound()
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
