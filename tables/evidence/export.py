"""A gaming day's records as they stand in the database now, in the export's order (the leaves'
order: transfers, then each other type, each by id), as JSON lines (docs/evidence.md)."""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Iterator, Mapping, Sequence
from typing import Any

from django.db import connection

from ledger.evidence.canonical import loads
from ledger.evidence.records import EXPORT_FORMAT, FIELDS, TRANSFER
from ledger.gaming_day import gaming_day_bounds
from tables import sql

Runs = Mapping[str, Sequence[Sequence[Any]]]  # stream → [[first, last, previous, head], ...]


def header(day: dt.date, root: str) -> str:
    return json.dumps({"format": EXPORT_FORMAT, "gaming_day": day.isoformat(), "root": root})


def record_lines(day: dt.date, runs: Runs, window_end: dt.datetime | None = None) -> Iterator[str]:
    """One line per record: the day's transfers, then the records the runs cover, then any
    record written in the day's window (up to ``window_end``) with no hash at all."""
    with connection.cursor() as cursor:
        cursor.execute(sql.EVIDENCE_TRANSFERS, [day])
        for (line,) in cursor:
            yield line
    streams, firsts, lasts = [], [], []
    for stream, stream_runs in runs.items():
        if stream.startswith("account:"):
            continue
        for first, last, *_ in stream_runs:
            streams.append(stream)
            firsts.append(int(first))
            lasts.append(int(last))
    start, end = gaming_day_bounds(day)
    end = min(end, window_end) if window_end else end
    for kind in FIELDS:
        with connection.cursor() as cursor:
            cursor.execute(sql.evidence_records(kind), [streams, firsts, lasts, start, end])
            for (line,) in cursor:
                yield line


def lines(day: dt.date, document: Mapping[str, Any]) -> Iterator[str]:
    """The export of a checkpointed day: its header, then its records as they stand now."""
    yield header(day, str(document["root"]))
    window_end = dt.datetime.fromisoformat(str(document["at"]))
    yield from record_lines(day, document.get("chains") or {}, window_end)


def parsed(line: str) -> dict[str, Any]:
    record: dict[str, Any] = loads(line)
    return record


def stored_hash(record: Mapping[str, Any]) -> str | None:
    if record["type"] == TRANSFER:
        entries = record["fields"]["entries"]
        return entries[0]["hash"] if entries else None
    value = record.get("hash")
    return str(value) if value else None
