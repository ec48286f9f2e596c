"""Rounds: replay every round from its actions and check its settlements, state and commitment.

The checks are ``tables.replay``'s, asked of rows read for the whole night at once. Theo, like
handle and win, is the ratings' figure (``people.section_figures``), not the replay's.
"""

from __future__ import annotations

import datetime as dt
import json
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from django.db.models import Exists, OuterRef, Q

from tables import sql
from tables.accounts import PartyMap
from tables.audit import report as shape
from tables.audit.compute.state import AuditState, add_tables, sql_rows
from tables.models import LIVE_ROUND_STATUSES, Round, RoundSettlement, RoundStatus, ShoeKind
from tables.replay import Move, commitment_ok, replay_problems, void_problems, void_rows


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
    actions: dict[int, list[tuple[int, dict[str, Any]]]] = defaultdict(list)
    seq_of: dict[int, int] = {}
    # Half of a night's actions are the same few texts (every electronic turn, common bets):
    # decode each text once. Engines are pure and never change an action they are given.
    decoded: dict[str, dict[str, Any]] = {}
    # Actions a correction voided are not folded (the round is as if they had never been made),
    # so a round's seqs may have gaps: settlements are compared by seq, never by position.
    for pk, round_id, seq, text in sql_rows(sql.AUDIT_ROUND_ACTIONS, [round_ids]):
        payload = decoded.get(text)
        if payload is None:
            payload = decoded[text] = json.loads(text)
        actions[round_id].append((seq, payload))
        seq_of[pk] = seq
    raw: dict[int, list[tuple[int | None, str, str, str, int]]] = defaultdict(list)
    for round_id, action_id, kind, payer, payee, amount in sql_rows(sql.AUDIT_ROUND_SETTLEMENTS, [round_ids]):
        raw[round_id].append((action_id, kind, payer, payee, amount))
    voided_rounds = void_rows([r.pk for r in audit.rounds if r.status == RoundStatus.VOID])
    stored: dict[int, Counter[Move]] = defaultdict(Counter)
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
            if not commitment_ok(round_):
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
            problems = void_problems(round_, voided_rounds.get(round_.pk))
        else:
            problems = replay_problems(round_, actions.get(round_.pk, []), counter)
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
