"""A small closed gaming day for the evidence tests: Faro dealt through the API with a bet
voided by a correction, a count slip with a signature, the tables closed, and the day closed
early through the audit's own flow, which makes its checkpoint."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from pathlib import Path

from django.db import connection

from casino.models import Role
from ledger.gaming_day import gaming_day_for
from tables.audit.services import request_audit, run_audit
from tables.corrections import approve_correction, request_correction
from tables.evidence import export
from tables.evidence.models import Checkpoint
from tables.models import RoundAction, Table
from tables.slips.models import SlipSignature
from tables.slips.services import issue_slip
from tests.factories import ApiFloor, play_out, staff

TRAY = 100_000


@dataclass
class Night:
    floor: ApiFloor
    day: dt.date
    table_id: int
    round_id: int
    checkpoint: Checkpoint

    def export_lines(self) -> list[str]:
        return list(export.lines(self.day, self.checkpoint.document))

    def write(self, folder: Path, lines: list[str] | None = None) -> tuple[Path, Path]:
        import json

        exported, signed = folder / f"evidence-{self.day}.jsonl", folder / f"checkpoint-{self.day}.json"
        exported.write_text("".join(line + "\n" for line in (lines or self.export_lines())))
        signed.write_text(json.dumps(self.checkpoint.document))
        return exported, signed


def deal_and_close_a_night() -> Night:
    floor = ApiFloor()
    table = floor.open_table(game="faro", min_bet=100, max_bet=10_000, inventory=TRAY)
    table_id = int(table["id"])
    players = [floor.new_player(buy_in=20_000) for _ in range(2)]
    for player in players:
        floor.seat(table_id, player)
    round_id = floor.start_round(table_id, "electronic")["id"]
    floor.act(round_id, {"type": "bet", "player": players[0], "ranks": ["K"], "amount": 2_000})
    floor.act(round_id, {"type": "bet", "player": players[1], "ranks": ["9"], "amount": 500})
    correction = request_correction(actor=floor.dealer, round_id=round_id, void="last", reason="wrong player")
    approve_correction(actor=floor.pit_boss, correction_id=correction.pk)
    floor.act(round_id, {"type": "bet", "player": players[1], "ranks": ["Q"], "amount": 1_000})
    play_out(floor, round_id, ["turn", "last_turn"])
    slip = issue_slip(
        kind="count",
        requested_by=floor.dealer,
        amount=floor.tray(table_id),
        table=Table.objects.get(pk=table_id),
        count={"10000": 1},
        expected=floor.tray(table_id),
        reason="spot_check",
    )
    SlipSignature.objects.create(slip=slip, user=floor.dealer, role=Role.DEALER)
    floor.close_table(table_id, floor.tray(table_id))
    day = gaming_day_for()
    report = request_audit(day=day, actor=staff(Role.AUDITOR), force=True)
    run_audit(report_id=report.pk)
    return Night(floor, day, table_id, round_id, Checkpoint.objects.get(gaming_day=day))


def as_superuser(statement: str, params: list[object]) -> None:
    """Run one statement with every trigger off, as a DBA with superuser rights could."""
    with connection.cursor() as cursor:
        cursor.execute("SET LOCAL session_replication_role = replica")
        cursor.execute(statement, params)
        cursor.execute("SET LOCAL session_replication_role = origin")


def an_action_of(round_id: int, seq: int) -> RoundAction:
    return RoundAction.all_objects.get(round_id=round_id, seq=seq)
