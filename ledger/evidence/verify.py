"""Check a day's export against its signed checkpoint, with no server and no database.

Every record's hash is computed again from its fields; every chain is walked through the places
the checkpoint signed; the Merkle root of the records is rebuilt; the signature and the link to
the previous day's checkpoint are checked; every account's balance and each table's win are
replayed from the transfers. Each finding names the record (or the chain place) it is about.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ledger.evidence import merkle
from ledger.evidence.canonical import loads
from ledger.evidence.records import (
    EXPORT_FORMAT,
    TRANSFER,
    TYPE_ORDER,
    leaf_order,
    links,
    name_of,
    record_hash,
    stored_hashes,
)
from ledger.evidence.signing import signature_problem

# The tray postings that are not play, as the night audit leaves them out of a table's win
# (tables/audit/compute/tables.py): chips the cage sent or took, counts' adjustments, and chips
# that left for the drop box (sold for cash at the table, lent on a marker).
NON_PLAY_KINDS = frozenset({"fill", "credit", "table_issue", "count_variance", "cash_buy_in", "marker"})
TRAY_PREFIX, RAKE = "tray:", "rake"


@dataclass
class Report:
    problems: list[str] = field(default_factory=list)
    records: dict[str, int] = field(default_factory=dict)
    accounts: dict[str, tuple[int, int]] = field(default_factory=dict)  # code → (opening, closing)
    wins: dict[int, tuple[int, int]] = field(default_factory=dict)  # table → (tray win, rake)
    chains: int = 0
    trial_balance: int = 0

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> list[str]:
        total = sum(self.records.values())
        kinds = ", ".join(f"{count} {kind}" for kind, count in sorted(self.records.items()))
        lines = [
            f"{total} records ({kinds or 'none'}), {self.chains} chains, "
            f"{len(self.accounts)} accounts replayed; the day's entries sum to {self.trial_balance}",
        ]
        lines += [
            f"table {table}: win {dollars(win)} at the tray, rake {dollars(rake)}"
            for table, (win, rake) in sorted(self.wins.items())
        ]
        return lines


def dollars(cents: int) -> str:
    sign = "-" if cents < 0 else ""
    return f"{sign}${abs(cents) // 100:,}.{abs(cents) % 100:02d}"


def read_export(lines: Iterable[str], report: Report) -> tuple[dict[str, Any] | None, list[dict[str, Any]]]:
    """The export's header and records; a line that is not a record is a finding."""
    header: dict[str, Any] | None = None
    records: list[dict[str, Any]] = []
    for number, line in enumerate(lines, start=1):
        if not line.strip():
            continue
        try:
            item = loads(line)
        except ValueError:
            report.problems.append(f"line {number}: not JSON")
            continue
        if not isinstance(item, dict):
            report.problems.append(f"line {number}: not a JSON object")
        elif "format" in item and header is None and not records:
            header = item
        elif (
            item.get("type") in TYPE_ORDER
            and isinstance(item.get("id"), int)
            and isinstance(item.get("fields"), dict)
        ):
            item["_line"] = number
            records.append(item)
        else:
            report.problems.append(f"line {number}: added: not a record of a known type")
    return header, records


def _is_record(item: Mapping[str, Any]) -> bool:
    return (
        item.get("type") in TYPE_ORDER
        and isinstance(item.get("id"), int)
        and isinstance(item.get("fields"), dict)
    )


def verify(
    lines: Iterable[str],
    checkpoint: Mapping[str, Any],
    previous: Mapping[str, Any] | None = None,
    trusted_keys: Sequence[str] = (),
) -> Report:
    report = Report()
    header, records = read_export(lines, report)
    _check_checkpoint(checkpoint, previous, trusted_keys, report)
    if header is None or header.get("format") != EXPORT_FORMAT:
        report.problems.append(f"the export does not begin with its header ({EXPORT_FORMAT})")
    elif header.get("gaming_day") != checkpoint.get("gaming_day"):
        report.problems.append(
            f"the export is of {header.get('gaming_day')}, the checkpoint of {checkpoint.get('gaming_day')}"
        )
    hashes = _check_records(records, report)
    _check_order(records, report)
    _check_chains(records, hashes, checkpoint.get("chains") or {}, report)
    _check_root(records, hashes, checkpoint, report)
    _replay(records, report)
    return report


def _check_checkpoint(
    checkpoint: Mapping[str, Any],
    previous: Mapping[str, Any] | None,
    trusted_keys: Sequence[str],
    report: Report,
) -> None:
    problem = signature_problem(checkpoint)
    if problem:
        report.problems.append(f"checkpoint of {checkpoint.get('gaming_day')}: signature: {problem}")
    if trusted_keys and checkpoint.get("key_id") not in trusted_keys:
        report.problems.append(f"checkpoint signed by key {checkpoint.get('key_id')}, not a trusted key")
    if previous is None:
        return
    problem = signature_problem(previous)
    if problem:
        report.problems.append(f"previous checkpoint of {previous.get('gaming_day')}: signature: {problem}")
    if checkpoint.get("previous_root") != previous.get("root"):
        report.problems.append(
            f"wrong previous root: the checkpoint names {checkpoint.get('previous_root')}, "
            f"the previous checkpoint ({previous.get('gaming_day')}) has {previous.get('root')}"
        )


def _check_records(records: Sequence[dict[str, Any]], report: Report) -> list[str | None]:
    """Each record's hash computed again; one finding for each whose stored hash differs."""
    hashes: list[str | None] = []
    for record in records:
        report.records[record["type"]] = report.records.get(record["type"], 0) + 1
        try:
            computed: str | None = record_hash(record)
        except (KeyError, TypeError, ValueError) as error:
            report.problems.append(f"line {record['_line']}: changed: {name_of(record)} lacks {error}")
            computed = None
        stored = stored_hashes(record)
        if not stored or None in stored:
            report.problems.append(
                f"line {record['_line']}: added: {name_of(record)} carries no hash: it was written around "
                "the evidence (or before it existed)"
            )
            record["_unhashed"] = True
        elif computed is not None and any(value != computed for value in stored):
            report.problems.append(
                f"line {record['_line']}: changed: {name_of(record)}: its fields no longer hash to the "
                f"hash stored when it was written"
            )
        hashes.append(computed)
    return hashes


def _check_order(records: Sequence[dict[str, Any]], report: Report) -> None:
    seen: set[tuple[int, int]] = set()
    last: tuple[int, int] | None = None
    for record in records:
        place = leaf_order(record)
        if place in seen:
            report.problems.append(f"line {record['_line']}: added: {name_of(record)} a second time")
        elif last is not None and place < last:
            report.problems.append(f"line {record['_line']}: reordered: {name_of(record)} is out of place")
        seen.add(place)
        last = max(place, last) if last else place


def _check_chains(
    records: Sequence[dict[str, Any]],
    hashes: Sequence[str | None],
    signed: Mapping[str, Any],
    report: Report,
) -> None:
    """Walk every run of places the checkpoint signed: a place missing was removed, a link the
    checkpoint does not cover was added, a link whose previous hash is not its predecessor's
    (or the run's) was changed, and so was a run's last link that is not the signed head."""
    placed: dict[str, dict[int, tuple[str | None, str | None, dict[str, Any]]]] = defaultdict(dict)
    for record, computed in zip(records, hashes, strict=True):
        if record.get("_unhashed"):
            continue
        try:
            made = links(record)
        except (KeyError, TypeError):
            continue
        for stream, seq, previous in made:
            placed[str(stream)][int(seq)] = (previous, stored_hashes(record)[0] or computed, record)
    covered: set[tuple[str, int]] = set()
    for stream, runs in signed.items():
        report.chains += 1
        chain = placed.get(stream, {})
        for first, last, previous, head in runs:
            expected: str | None = previous
            known = True  # whether ``expected`` is the hash the next link must name
            for seq in range(int(first), int(last) + 1):
                covered.add((stream, seq))
                link = chain.get(seq)
                if link is None:
                    report.problems.append(
                        f"removed: {stream} #{seq}, a record the checkpoint signed{_between(chain, seq)}"
                    )
                    known = False
                    continue
                link_previous, link_hash, record = link
                if known and link_previous != expected:
                    report.problems.append(
                        f"line {record['_line']}: changed: {name_of(record)}: {stream} #{seq} does not "
                        "follow the link before it"
                    )
                expected, known = link_hash, True
            if known and expected != head:
                record = chain[int(last)][2]
                report.problems.append(
                    f"line {record['_line']}: changed: {name_of(record)}: {stream} #{last} is not the "
                    "head the checkpoint signed"
                )
    for stream, chain in placed.items():
        for seq, (_, _, record) in sorted(chain.items()):
            if (stream, seq) not in covered:
                report.problems.append(
                    f"line {record['_line']}: added: {name_of(record)}: {stream} #{seq} is not in the "
                    "checkpoint"
                )


def _between(chain: Mapping[int, tuple[Any, Any, dict[str, Any]]], seq: int) -> str:
    """Where a removed link lay, by the records on either side of it that are still there."""
    before = next((chain[n][2] for n in range(seq - 1, 0, -1) if n in chain), None)
    after = next((chain[n][2] for n in sorted(chain) if n > seq), None)
    sides = [f"after {name_of(before)}" if before else "", f"before {name_of(after)}" if after else ""]
    named = " and ".join(side for side in sides if side)
    return f" ({named})" if named else ""


def _check_root(
    records: Sequence[dict[str, Any]],
    hashes: Sequence[str | None],
    checkpoint: Mapping[str, Any],
    report: Report,
) -> None:
    if len(records) != checkpoint.get("records"):
        report.problems.append(
            f"the export has {len(records)} records, the checkpoint signed {checkpoint.get('records')}"
        )
    leaves = [
        bytes.fromhex(h or stored_hashes(r)[0] or "00" * 32) for r, h in zip(records, hashes, strict=True)
    ]
    if merkle.root(leaves).hex() != checkpoint.get("root"):
        report.problems.append("the records' Merkle root is not the root the checkpoint signed")


def _replay(records: Sequence[dict[str, Any]], report: Report) -> None:
    """Every transfer balances; every account's balances follow from its entries in chain order;
    each table's win is its tray's play postings, its rake the rake account's postings for it."""
    entries: dict[str, list[tuple[int, int, int, int, dict[str, Any]]]] = defaultdict(list)
    wins: dict[int, list[int]] = defaultdict(lambda: [0, 0])
    for record in records:
        if record["type"] != TRANSFER:
            continue
        fields = record["fields"]
        try:
            legs = fields["entries"]
            total = sum(int(entry["amount"]) for entry in legs)
            kind, meta = fields["kind"], fields.get("meta") or {}
        except (KeyError, TypeError, ValueError):
            continue
        report.trial_balance += total
        if total != 0 or len(legs) < 2:
            report.problems.append(
                f"line {record['_line']}: changed: {name_of(record)} does not balance ({total})"
            )
        for entry in legs:
            code, amount = str(entry["account"]), int(entry["amount"])
            entries[code].append(
                (int(entry["seq"]), int(entry.get("id") or 0), amount, int(entry["balance_after"]), record)
            )
            if (
                code.startswith(TRAY_PREFIX)
                and kind not in NON_PLAY_KINDS
                and code[len(TRAY_PREFIX) :].isdigit()
            ):
                wins[int(code[len(TRAY_PREFIX) :])][0] += amount
            table = meta.get("table") if isinstance(meta, dict) else None
            if code == RAKE and isinstance(table, int):
                wins[table][1] += amount
    for code, moves in entries.items():
        moves.sort(key=lambda move: (move[0], move[1]))
        opening = moves[0][3] - moves[0][2]
        balance, last_seq = opening, moves[0][0]
        for seq, _, amount, after, record in moves:
            if seq > last_seq + 1:  # another day's links lie between: take up the balance there
                balance = after - amount
            if balance + amount != after:
                report.problems.append(
                    f"line {record['_line']}: changed: {name_of(record)}: account {code} goes from "
                    f"{balance} by {amount} to {after}"
                )
            balance, last_seq = after, seq
        report.accounts[code] = (opening, balance)
    report.wins = {table: (win, rake) for table, (win, rake) in wins.items()}
