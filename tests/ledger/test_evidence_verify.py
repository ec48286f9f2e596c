"""The verifier against tampered exports of every kind: each is named, and an untouched day is not."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ledger.evidence.verify import verify
from tests.ledger.evidence_day import KEY, DayBuilder, a_day


@pytest.fixture
def day() -> DayBuilder:
    return a_day()


def _records(lines: list[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in lines[1:]]


def _lines(header: str, records: list[dict[str, Any]]) -> list[str]:
    return [header, *(json.dumps(record) for record in records)]


def test_an_untouched_day_verifies_and_replays_balances_and_wins(day: DayBuilder) -> None:
    report = verify(day.lines(), day.checkpoint())

    assert report.problems == []
    assert report.records == {"transfer": 9, "round_action": 5}
    assert report.accounts["wallet:1"] == (0, 10_000 - sum(500 + n for n in range(4)))
    assert report.accounts["cage"] == (0, -10_000)
    assert report.wins == {1: (sum(500 + n for n in range(4)), 0)}
    assert report.trial_balance == 0


def test_a_changed_field_is_named(day: DayBuilder) -> None:
    lines = day.lines()
    records = _records(lines)
    records[3]["fields"]["memo"] = "edited"

    report = verify(_lines(lines[0], records), day.checkpoint())

    assert any(p.startswith("line 5: changed: transfer 4 (k") for p in report.problems), report.problems


def test_a_changed_amount_on_both_legs_is_named_though_it_still_balances(day: DayBuilder) -> None:
    lines = day.lines()
    records = _records(lines)
    for entry in records[1]["fields"]["entries"]:
        entry["amount"] *= 2

    report = verify(_lines(lines[0], records), day.checkpoint())

    assert any("changed: transfer 2" in p for p in report.problems)
    assert report.trial_balance == 0


def test_a_removed_line_is_named_by_its_place_and_neighbours(day: DayBuilder) -> None:
    lines = day.lines()
    action = json.loads(lines[12])
    assert action["type"] == "round_action"

    report = verify(lines[:12] + lines[13:], day.checkpoint())

    removed = [p for p in report.problems if p.startswith("removed:")]
    assert removed == [
        f"removed: table:1 #{action['seq']}, a record the checkpoint signed "
        f"(after round_action {action['id'] - 1} and before round_action {action['id'] + 1})"
    ]
    assert any("the checkpoint signed 14" in p for p in report.problems)


def test_an_added_line_is_named(day: DayBuilder) -> None:
    signed = day.checkpoint()
    day.action(1, {"type": "turn", "cards": ["2S", "3H"]})

    report = verify(day.lines(), signed)

    assert any("added: round_action 6: table:1 #6 is not in the checkpoint" in p for p in report.problems)


def test_reordered_lines_are_named(day: DayBuilder) -> None:
    lines = day.lines()
    swapped = [lines[0], lines[2], lines[1], *lines[3:]]

    report = verify(swapped, day.checkpoint())

    assert any("reordered: transfer 1" in p for p in report.problems), report.problems
    assert any("Merkle root" in p for p in report.problems)


def test_a_changed_stored_hash_is_named(day: DayBuilder) -> None:
    lines = day.lines()
    records = _records(lines)
    records[-1]["hash"] = "0" * 64

    report = verify(_lines(lines[0], records), day.checkpoint())

    assert any(f"changed: round_action {records[-1]['id']}" in p for p in report.problems)


def test_a_record_rehashed_with_its_chain_still_misses_the_signed_root(day: DayBuilder) -> None:
    """A forger who edits a record and recomputes its hash breaks the next link's previous hash."""
    signed = day.checkpoint()
    lines = day.lines()
    records = _records(lines)
    from ledger.evidence.records import record_hash

    target = records[-2]
    target["fields"]["payload"]["amount"] = 1
    target["hash"] = record_hash(target)

    report = verify(_lines(lines[0], records), signed)

    assert any("does not follow the link before it" in p for p in report.problems)
    assert any("Merkle root" in p for p in report.problems)


def test_a_wrong_signature_is_named(day: DayBuilder) -> None:
    signed = day.checkpoint()
    forged = {**signed, "records": signed["records"] + 1}

    report = verify(day.lines(), forged)

    assert any("signature: the signature does not match its contents" in p for p in report.problems)


def test_a_checkpoint_signed_by_another_key_is_refused_when_keys_are_pinned(day: DayBuilder) -> None:
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

    signed = day.checkpoint(key=Ed25519PrivateKey.generate())

    assert verify(day.lines(), signed).ok
    report = verify(day.lines(), signed, trusted_keys=[day.checkpoint(key=KEY)["key_id"]])
    assert any("not a trusted key" in p for p in report.problems)


def test_a_wrong_previous_root_is_named(day: DayBuilder) -> None:
    yesterday = a_day().checkpoint()
    signed = day.checkpoint(previous={**yesterday, "root": "ab" * 32})

    report = verify(day.lines(), signed, previous=yesterday)

    assert any(p.startswith("wrong previous root") for p in report.problems)
    assert verify(day.lines(), day.checkpoint(previous=yesterday), previous=yesterday).ok
