"""Issue 49's "Done when": a closed day's export verifies against its checkpoint; a ledger row
changed as a superuser, or a round action deleted, is named by the verifier."""

from __future__ import annotations

import pytest

from ledger.evidence.verify import verify
from ledger.models import Entry, Transfer
from tests.evidence.night import Night, an_action_of, as_superuser, deal_and_close_a_night

pytestmark = pytest.mark.django_db


@pytest.fixture
def night(system_accounts: None) -> Night:
    return deal_and_close_a_night()


def test_an_untouched_day_verifies(night: Night) -> None:
    report = verify(night.export_lines(), night.checkpoint.document)

    assert report.problems == []
    assert report.records["transfer"] == Transfer.objects.filter(gaming_day=night.day).count()
    assert {"round_action", "slip", "slip_signature", "correction", "action_log"} <= set(report.records)
    assert sum(report.records.values()) == night.checkpoint.records


def test_a_ledger_row_changed_by_a_superuser_is_named(night: Night) -> None:
    bet = an_action_of(night.round_id, 1).transfer
    assert bet is not None
    before = verify(night.export_lines(), night.checkpoint.document)
    assert before.ok

    as_superuser(
        "UPDATE ledger_entry SET amount = amount * 2 WHERE transfer_id = %s",  # both legs: still sums to 0
        [bet.pk],
    )

    assert sum(Entry.objects.filter(transfer=bet).values_list("amount", flat=True)) == 0
    report = verify(night.export_lines(), night.checkpoint.document)
    assert not report.ok
    named = [p for p in report.problems if f"transfer {bet.pk} ({bet.key})" in p]
    assert named
    assert "changed" in named[0]


def test_a_deleted_round_action_is_named(night: Night) -> None:
    action = an_action_of(night.round_id, 5)
    assert verify(night.export_lines(), night.checkpoint.document).ok

    as_superuser("DELETE FROM tables_roundsettlement WHERE action_id = %s", [action.pk])  # rows naming it
    as_superuser("DELETE FROM tables_roundaction WHERE id = %s", [action.pk])

    report = verify(night.export_lines(), night.checkpoint.document)
    assert not report.ok
    removed = [p for p in report.problems if p.startswith(f"removed: table:{night.table_id} #")]
    assert len(removed) == 1, report.problems
    assert f"after round_action {action.pk - 1} and before round_action {action.pk + 1}" in removed[0]
