"""Checkpoints: one per day, chained to the one before, signed by the configured key; the export
command writes what the verifier reads; proofs lead to the signed root."""

from __future__ import annotations

import datetime as dt
import io
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import override_settings

from ledger.evidence.signing import key_id, private_key, public_key_text, signature_problem
from ledger.models import Transfer
from ledger.services import Leg, post_transfer
from tables.evidence.checkpoint import make_checkpoint
from tables.evidence.keys import known_keys
from tables.evidence.models import Checkpoint
from tables.evidence.proofs import inclusion_proof
from tests import factories
from tests.evidence.night import Night, as_superuser, deal_and_close_a_night

pytestmark = pytest.mark.django_db

ROOT = Path(__file__).resolve().parents[2]
OTHER_KEY = "NCBf7iY6EqArmJw4u9QkXL9MxWa0KLZYQhH4gFa9Pxk="


def _buy_in(day: dt.date, key: str) -> Transfer:
    player = factories.PlayerFactory()
    at = dt.datetime.combine(day, dt.time(20), tzinfo=dt.UTC)
    return post_transfer(key=key, kind="buy_in", legs=[Leg("cage", player.wallet.code, 1_000)], at=at)


def test_each_day_has_one_checkpoint_chained_to_the_one_before(system_accounts: None) -> None:
    first_day, second_day = dt.date(2026, 11, 1), dt.date(2026, 11, 2)
    _buy_in(first_day, "first")
    first = make_checkpoint(day=first_day)
    _buy_in(second_day, "second")
    second = make_checkpoint(day=second_day)

    assert make_checkpoint(day=second_day) == second  # made once
    assert first.document["previous_root"] is None
    assert second.previous == first
    assert second.document["previous_root"] == first.root
    assert second.document["previous_day"] == "2026-11-01"
    assert signature_problem(second.document) is None
    assert second.key_id == key_id(public_key_text(private_key(_test_key())))
    # The second covers only what was written since the first: the cage's second link.
    assert (
        second.document["chains"]["account:cage"][0][0] == first.document["chains"]["account:cage"][-1][1] + 1
    )


def _test_key() -> str:
    from django.conf import settings

    return str(settings.EVIDENCE_SIGNING_KEY)


def test_a_rotated_key_still_verifies_and_is_named_retired(system_accounts: None) -> None:
    _buy_in(dt.date(2026, 11, 1), "old-key")
    old = make_checkpoint(day=dt.date(2026, 11, 1))
    retired = public_key_text(private_key(_test_key()))

    with override_settings(EVIDENCE_SIGNING_KEY=OTHER_KEY, EVIDENCE_RETIRED_KEYS=[retired]):
        _buy_in(dt.date(2026, 11, 2), "new-key")
        new = make_checkpoint(day=dt.date(2026, 11, 2))
        keys = known_keys()

    assert new.key_id != old.key_id
    assert keys == {old.key_id: "retired", new.key_id: "current"}
    assert signature_problem(old.document) is None
    assert signature_problem(new.document) is None


@pytest.fixture
def night(system_accounts: None) -> Night:
    return deal_and_close_a_night()


def test_the_export_command_writes_what_the_verifier_accepts(night: Night, tmp_path: Path) -> None:
    out, log = tmp_path / "out", io.StringIO()
    call_command("export_evidence", night.day.isoformat(), "--to", str(out), stdout=log)

    exported, signed = out / f"evidence-{night.day}.jsonl", out / f"checkpoint-{night.day}.json"
    assert exported.exists()
    assert json.loads(signed.read_text())["root"] == night.checkpoint.root
    assert f"python -m ledger.verify evidence-{night.day}.jsonl checkpoint-{night.day}.json" in log.getvalue()
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")])}
    done = subprocess.run(
        [sys.executable, "-m", "ledger.verify", exported.name, signed.name],
        cwd=out, capture_output=True, text=True, timeout=120, check=False, env=env,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{night.checkpoint.records} records" in done.stdout


def test_an_inclusion_proof_leads_to_the_signed_root_until_the_record_changes(night: Night) -> None:
    transfer = Transfer.objects.filter(gaming_day=night.day).order_by("pk")[3]
    proof = inclusion_proof(checkpoint=night.checkpoint, kind="transfer", record_id=transfer.pk)
    assert proof["included"]
    assert proof["size"] == night.checkpoint.records
    assert len(proof["path"]) >= 1

    changed = "UPDATE ledger_entry SET evidence_hash = sha256(evidence_hash) WHERE transfer_id = %s"
    as_superuser(changed, [transfer.pk])

    assert not inclusion_proof(checkpoint=night.checkpoint, kind="transfer", record_id=transfer.pk)[
        "included"
    ]


def test_a_checkpoint_is_made_when_the_audit_closes_the_day(night: Night) -> None:
    assert Checkpoint.objects.filter(gaming_day=night.day).count() == 1
    assert night.checkpoint.records > 0
