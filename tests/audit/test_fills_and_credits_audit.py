"""The audit reads fills and credits off their slips, as their chips crossed the tray.

A fill counts once received (its chips reached the tray), a credit once released (they left it);
a fill still in transit is not yet the table's, a credit voided in transit came back. The slips'
side must then agree with the tray's postings (no ``slips_ledger_mismatch``) and the count's
win with the ledger's (no ``variance_unexplained``); the trial balance shows the chips in transit.
"""

from __future__ import annotations

import pytest

from casino.models import Role, User
from ledger.gaming_day import gaming_day_for
from tables.audit.compute import compute_audit
from tables.models import Table
from tables.services import close_table
from tables.slips.services import sign_slip
from tables.slips.transit import approve_transit_slip, request_transit_slip
from tables.slips.voids import void_slip
from tests.factories import open_table_for, staff

pytestmark = pytest.mark.django_db


def _approved(table: Table, kind: str, amount: int, *, asker: User, approver: User) -> int:
    slip = request_transit_slip(actor=asker, table_id=table.pk, kind=kind, amount=amount)
    approve_transit_slip(
        actor=approver, table_id=table.pk, slip_id=slip.pk, kind=kind, password_confirmed=True
    )
    return slip.pk


def test_the_days_fills_and_credits_are_the_slips_that_crossed_the_tray(
    table: Table, dealer: User, pit_boss: User, cashier: User
) -> None:
    releaser = staff(Role.PIT_BOSS)
    open_table_for(table, inventory=100_000)
    received = _approved(table, "fill", 30_000, asker=dealer, approver=cashier)
    for signer in (dealer, pit_boss):
        sign_slip(actor=signer, slip_id=received)
    _approved(table, "fill", 9_000, asker=dealer, approver=cashier)  # still in transit at the close
    _approved(table, "credit", 10_000, asker=dealer, approver=releaser)  # released, the cage not yet signed
    sent_back = _approved(table, "credit", 5_000, asker=dealer, approver=releaser)
    void_slip(actor=cashier, slip_id=sent_back, reason="the pit kept it")
    session = close_table(actor=dealer, table_id=table.pk, closing_inventory=120_000)
    assert (session.fills, session.credits, session.win, session.closing_variance) == (30_000, 10_000, 0, 0)

    report = compute_audit(day=gaming_day_for())

    row = next(r for r in report["tables"] if r["id"] == table.pk)
    assert (row["fills"], row["credits"], row["win"], row["variance"]) == (30_000, 10_000, 0, 0)
    kinds = {finding["kind"] for finding in report["findings"]}
    assert not kinds & {"slips_ledger_mismatch", "variance_unexplained"}
    transit = next(g for g in report["trial_balance"]["by_purpose"] if g["purpose"] == "transit")
    assert transit["balance"] == 9_000 + 10_000
    assert report["trial_balance"]["balanced"]
