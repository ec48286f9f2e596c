"""The inclusion proof of one record in its day's signed Merkle root (RFC 6962's audit path)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from casino.errors import NotFound, ValidationFailed
from ledger.evidence import merkle
from ledger.evidence.records import TYPES
from tables.evidence.export import parsed, record_lines, stored_hash
from tables.evidence.models import Checkpoint


def parse_record(text: str) -> tuple[str, int]:
    """``round_action:42`` → ("round_action", 42)."""
    kind, _, number = (text or "").partition(":")
    if kind not in TYPES or not number.isdigit():
        raise ValidationFailed(
            "record is a type and an id, e.g. transfer:12 or round_action:40.",
            fields={"record": f"one of {', '.join(TYPES)}, a colon and an id"},
        )
    return kind, int(number)


def inclusion_proof(*, checkpoint: Checkpoint, kind: str, record_id: int) -> dict[str, Any]:
    """The record's place among the day's leaves and the sibling hashes up to the signed root,
    computed from the hashes the database holds now (a record changed since cannot reach it)."""
    document = checkpoint.document
    hashes: list[bytes] = []
    index: int | None = None
    moment = dt.datetime.fromisoformat(str(document["at"]))
    for line in record_lines(checkpoint.gaming_day, document.get("chains") or {}, window_end=moment):
        record = parsed(line)
        stored = stored_hash(record)
        if stored is None:
            continue
        if record["type"] == kind and record["id"] == record_id:
            index = len(hashes)
        hashes.append(bytes.fromhex(stored))
    if index is None:
        raise NotFound(f"No record {kind}:{record_id} in the checkpoint of {checkpoint.gaming_day}.")
    path = merkle.inclusion_proof(hashes, index)
    root = bytes.fromhex(checkpoint.root)
    return {
        "gaming_day": checkpoint.gaming_day,
        "record": f"{kind}:{record_id}",
        "hash": hashes[index].hex(),
        "index": index,
        "size": len(hashes),
        "path": [node.hex() for node in path],
        "root": checkpoint.root,
        "included": merkle.verify_inclusion(hashes[index], index, len(hashes), path, root),
    }
