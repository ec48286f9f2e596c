"""A gaming day's checkpoint, made once when the day closes (tables.audit.services.run_audit).

It covers the transfers dated into the day (no transfer can be after its close) and every other
link written since the previous checkpoint, up to each chain's head now; it signs how many
records that is, their Merkle root, the runs of places it covers in each chain, and the root of
the checkpoint before it, so the checkpoints form one chain from the first day.
"""

from __future__ import annotations

import datetime as dt
import time
from collections import defaultdict
from typing import Any

from django.db import connection, transaction
from django.utils import timezone

from ledger.evidence import merkle
from ledger.evidence.records import links
from ledger.evidence.signing import sign
from tables import sql
from tables.evidence.export import parsed, record_lines, stored_hash
from tables.evidence.keys import signing_key
from tables.evidence.models import Checkpoint, EvidenceMark

CHECKPOINT_FORMAT = "casekeeper-checkpoint/1"
ALGORITHM = "SHA-256 hash chains (ck1 canonical JSON), RFC 6962 Merkle tree, Ed25519"
LOCK_KEY = 4_907_001  # the advisory lock's key: one checkpoint at a time
WRITERS_TIMEOUT_SECONDS = 10.0


def make_checkpoint(*, day: dt.date) -> Checkpoint:
    """The day's checkpoint: the one already made, or a new one made and signed now."""
    key = signing_key()
    existing = Checkpoint.objects.filter(gaming_day=day).first()
    if existing is not None:
        return existing
    _wait_for_writers()
    with transaction.atomic():
        with connection.cursor() as cursor:
            cursor.execute(sql.EVIDENCE_CHECKPOINT_LOCK, [LOCK_KEY])
            cursor.execute(sql.EVIDENCE_UNCOVERED)
            uncovered = cursor.fetchall()
        existing = Checkpoint.objects.filter(gaming_day=day).first()
        if existing is not None:
            return existing
        runs: dict[str, list[list[Any]]] = {
            stream: [[int(mark) + 1, int(links_now), head_then or None, head_now]]
            for stream, mark, head_then, links_now, head_now in uncovered
        }
        now = timezone.now()
        leaves, account_links = _leaves(day, runs, now)
        runs.update(_account_runs(account_links))
        previous = Checkpoint.objects.order_by("-pk").first()
        document = sign(
            {
                "format": CHECKPOINT_FORMAT,
                "gaming_day": day.isoformat(),
                "records": len(leaves),
                "root": merkle.root(leaves).hex(),
                "previous_root": previous.root if previous else None,
                "previous_day": previous.gaming_day.isoformat() if previous else None,
                "algorithm": ALGORITHM,
                "at": now.isoformat(),
                "chains": dict(sorted(runs.items())),
            },
            key,
        )
        checkpoint = Checkpoint.objects.create(
            gaming_day=day,
            records=len(leaves),
            root=document["root"],
            previous=previous,
            previous_root=document["previous_root"] or "",
            key_id=document["key_id"],
            at=now,
            document=document,
        )
        for stream, _, _, links_now, head_now in uncovered:
            EvidenceMark.objects.update_or_create(
                stream=stream, defaults={"seq": links_now, "head": head_now}
            )
    return checkpoint


def _leaves(
    day: dt.date, runs: dict[str, list[list[Any]]], now: dt.datetime
) -> tuple[list[bytes], dict[str, dict[int, tuple[str | None, str]]]]:
    """The covered records' stored hashes in leaf order, and each account's links among them.
    A record with no hash (written around the evidence) is left out: the verifier names it."""
    leaves: list[bytes] = []
    account_links: dict[str, dict[int, tuple[str | None, str]]] = defaultdict(dict)
    for line in record_lines(day, runs, window_end=now):
        record = parsed(line)
        stored = stored_hash(record)
        if stored is None:
            continue
        leaves.append(bytes.fromhex(stored))
        if record["type"] == "transfer":
            for stream, seq, previous in links(record):
                account_links[stream][int(seq)] = (previous, stored)
    return leaves, account_links


def _account_runs(account_links: dict[str, dict[int, tuple[str | None, str]]]) -> dict[str, list[list[Any]]]:
    """Each account's places among the day's transfers as runs of consecutive places
    ([first, last, previous hash of the first, hash of the last]): another day's transfer on the
    account (a backdated posting) splits a run."""
    runs: dict[str, list[list[Any]]] = {}
    for stream, places in account_links.items():
        ordered = sorted(places)
        stream_runs: list[list[Any]] = []
        for seq in ordered:
            previous, stored = places[seq]
            if stream_runs and stream_runs[-1][1] == seq - 1:
                stream_runs[-1][1], stream_runs[-1][3] = seq, stored
            else:
                stream_runs.append([seq, seq, previous, stored])
        runs[stream] = stream_runs
    return runs


def _wait_for_writers() -> None:
    """Let the transactions writing now finish (bounded): one that claimed a transfer into the
    day just before its close commits it before the day is read."""
    deadline = time.monotonic() + WRITERS_TIMEOUT_SECONDS
    with connection.cursor() as cursor:
        cursor.execute(sql.EVIDENCE_IN_FLIGHT)
        writers = cursor.fetchone()[0] or []
        while writers and time.monotonic() < deadline:
            cursor.execute(sql.EVIDENCE_STILL_RUNNING, [writers])
            if not cursor.fetchone()[0]:
                return
            time.sleep(0.01)
