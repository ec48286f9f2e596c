"""Reading the checkpoints."""

from __future__ import annotations

import datetime as dt

from casino.errors import NotFound
from tables.evidence.models import Checkpoint


def get_checkpoint(*, day: dt.date) -> Checkpoint:
    checkpoint = Checkpoint.objects.filter(gaming_day=day).first()
    if checkpoint is None:
        raise NotFound(
            f"Gaming day {day} has no checkpoint: it is made when the day closes.", code="no_checkpoint"
        )
    return checkpoint


def list_checkpoints(*, days: list[dt.date]) -> dict[dt.date, Checkpoint]:
    return {c.gaming_day: c for c in Checkpoint.objects.filter(gaming_day__in=days)}


def verify_command(day: dt.date) -> str:
    """The one line an auditor runs on the two files the export and the checkpoint are saved as."""
    return f"python -m ledger.verify evidence-{day}.jsonl checkpoint-{day}.json"
