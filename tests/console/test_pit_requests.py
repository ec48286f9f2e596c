"""The pit view lets a pit boss ask for a fill or a credit, and never approve their own.

API.md now lets a pit boss request fills and credits (a floor supervisor does on a real
floor); the second signature must still come from someone else, in the pit view as in the
API (tests/api/test_permissions.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from ledger.models import Transfer
from tables.models import TrayRequest
from tests.console.conftest import Floor
from tests.console.test_views import post, text

pytestmark = pytest.mark.django_db


def _ask(client: Any, floor: Floor, kind: str, amount: str) -> Any:
    return post(client, f"/pit/tables/{floor.faro.pk}/tray/", {"kind": kind, "amount": amount})


@pytest.mark.parametrize("verb", ["approve", "refuse"])
def test_a_pit_boss_asks_in_the_pit_and_cannot_decide_it(floor: Floor, as_user: Any, verb: str) -> None:
    floor.open_faro()
    boss = as_user(floor.pit_boss)

    asked = _ask(boss, floor, "fill", "2,000")

    assert asked.status_code == 200, text(asked)
    assert "Fill of $2,000.00 requested for Faro c." in text(asked)
    fill = TrayRequest.objects.get()
    assert (fill.kind, fill.amount, fill.requested_by_id, fill.status) == (
        "fill",
        200_000,
        floor.pit_boss.pk,
        "pending",
    )
    page = text(boss.get("/pit/live/", HTTP_HX_REQUEST="true"))
    assert "You asked for this: someone else must approve." in page
    assert f"/pit/requests/{fill.pk}/approve/" not in page
    transfers = Transfer.objects.count()

    forged = post(boss, f"/pit/requests/{fill.pk}/{verb}/")

    assert forged.status_code == 403
    assert "The person who requested a fill cannot approve or refuse it." in text(forged)
    fill.refresh_from_db()
    assert fill.status == "pending"
    assert Transfer.objects.count() == transfers

    decided = post(as_user(floor.cashier), f"/pit/requests/{fill.pk}/{verb}/")
    assert decided.status_code == 200, text(decided)
    fill.refresh_from_db()
    assert (fill.status, fill.decided_by_id) == (
        "approved" if verb == "approve" else "refused",
        floor.cashier.pk,
    )


def test_only_those_the_policy_allows_ask_in_the_pit(floor: Floor, as_user: Any) -> None:
    floor.open_faro()
    assert 'data-testid="pit-tray-request"' in text(as_user(floor.pit_boss).get("/pit/"))
    cashier_page = text(as_user(floor.cashier).get("/pit/"))
    assert 'data-testid="pit-tray-request"' not in cashier_page

    refused = _ask(as_user(floor.cashier), floor, "credit", "100")
    wrong_kind = _ask(as_user(floor.pit_boss), floor, "bonus", "100")

    assert refused.status_code == 403
    assert "Only the dealer assigned to this table or a pit boss may ask for a fill or a credit." in text(
        refused
    )
    assert wrong_kind.status_code == 400
    assert TrayRequest.objects.count() == 0
