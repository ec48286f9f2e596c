"""Each kind of record's canonical array and hash, from a line of the export (docs/evidence.md).

A record's hash is SHA-256 of the UTF-8 canonical JSON (``ledger.evidence.canonical``) of an
array that starts with the encoding's version and the record's type and id. A chained record
then names its chain and place in it and the hash of the link before it (null for a chain's
first link); its own fields follow, in the order ``FIELDS`` gives. A ledger transfer is one link
in the chain of every account it moves: its array ends with its entries, each carrying its
account's link number and previous hash.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import Any

from ledger.evidence.canonical import canonical_bytes

VERSION = "ck1"
EXPORT_FORMAT = "casekeeper-evidence/1"
TRANSFER = "transfer"

# The chained records' own fields, in their canonical order. The database writes the same lists
# (the evidence triggers, tables/migrations); a test holds the two together.
FIELDS: dict[str, tuple[str, ...]] = {
    "round_action": ("round", "seq", "payload", "actor", "at", "transfer"),
    "slip": (
        "kind", "year", "serial", "number", "table", "session", "gaming_day", "reason", "count",
        "amount", "expected", "variance", "requested_by", "at",
    ),
    "slip_signature": ("slip", "user", "role", "at", "note"),
    "correction": ("round", "void", "from_seq", "at_version", "reason", "requested_by", "at"),
    "action_log": ("at", "actor", "action", "object_type", "object_id", "data", "request_id", "remote_addr"),
}  # fmt: skip
TRANSFER_FIELDS = ("key", "kind", "memo", "at", "gaming_day", "meta", "fingerprint", "reverses")
ENTRY_FIELDS = ("leg", "account", "amount", "balance_after", "hold", "seq", "previous")

# The order of the day's records, in the export and as the leaves of its Merkle tree: by this
# order of types, then by id.
TYPES = (TRANSFER, *FIELDS)
TYPE_ORDER = {name: place for place, name in enumerate(TYPES)}


def sha256_hex(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def canonical_array(record: Mapping[str, Any]) -> list[Any]:
    """The array whose canonical bytes a record's hash covers. KeyError: a field is missing."""
    kind = record["type"]
    fields = record["fields"]
    if kind == TRANSFER:
        entries = [[entry[name] for name in ENTRY_FIELDS] for entry in fields["entries"]]
        return [VERSION, kind, record["id"], *(fields[name] for name in TRANSFER_FIELDS), entries]
    head = [VERSION, kind, record["id"], record["stream"], record["seq"], record["previous"]]
    return head + [fields[name] for name in FIELDS[kind]]


def record_hash(record: Mapping[str, Any]) -> str:
    return sha256_hex(canonical_bytes(canonical_array(record)))


def stored_hashes(record: Mapping[str, Any]) -> list[str | None]:
    """The hashes the database stored for a record: a transfer's on each of its entries."""
    if record["type"] == TRANSFER:
        return [entry.get("hash") for entry in record["fields"]["entries"]]
    return [record.get("hash")]


def links(record: Mapping[str, Any]) -> list[tuple[str, int, str | None]]:
    """The chain links a record makes, as (stream, place, previous hash): a transfer one per
    account it moves (``account:<code>``), any other record one."""
    if record["type"] != TRANSFER:
        return [(record["stream"], record["seq"], record["previous"])]
    seen: dict[str, tuple[str, int, str | None]] = {}
    for entry in record["fields"]["entries"]:
        stream = f"account:{entry['account']}"
        seen.setdefault(stream, (stream, entry["seq"], entry["previous"]))
    return list(seen.values())


def name_of(record: Mapping[str, Any]) -> str:
    """How a report names a record: its type and id, and a transfer's key."""
    label = f"{record.get('type')} {record.get('id')}"
    if record.get("type") == TRANSFER:
        key = record.get("fields", {}).get("key")
        if key:
            label += f" ({key})"
    return label


def leaf_order(record: Mapping[str, Any]) -> tuple[int, int]:
    return TYPE_ORDER.get(record["type"], len(TYPES)), int(record["id"])


def order_records(records: Sequence[Mapping[str, Any]]) -> list[Mapping[str, Any]]:
    return sorted(records, key=leaf_order)
