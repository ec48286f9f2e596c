"""The pit view lets a pit boss ask for a fill or a credit, and never approve their own.

API.md lets a pit boss request fills and credits (a floor supervisor does on a real floor);
the approval is the side the chips leave (the cage issues a fill, another pit boss releases a
credit), in the pit and the cage views as in the API (tests/api/test_permissions.py).
"""

from __future__ import annotations

from typing import Any

import pytest

from casino.models import Role
from ledger.models import Transfer
from tables.slips.models import Slip
from tests import factories
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
    fill = Slip.objects.get(kind="fill")
    assert (fill.kind, fill.amount, fill.requested_by_id, fill.status) == (
        "fill",
        200_000,
        floor.pit_boss.pk,
        "pending",
    )
    assert f"Slip {fill.number}: nothing moves until the cage issues it." in text(asked)
    page = text(boss.get("/pit/live/", HTTP_HX_REQUEST="true"))
    assert "You asked for this: someone else must approve." in page
    assert f"/pit/requests/{fill.pk}/approve/" not in page
    transfers = Transfer.objects.count()

    forged = post(boss, f"/pit/requests/{fill.pk}/{verb}/")

    # A fill is the cage's to issue or refuse: a pit boss, requester or not, is refused.
    assert forged.status_code == 403
    assert "Only a cashier (the cage issues it) approves or refuses a fill." in text(forged)
    fill.refresh_from_db()
    assert fill.status == "pending"
    assert Transfer.objects.count() == transfers

    decided = post(as_user(floor.cashier), f"/cage/requests/{fill.pk}/{verb}/")
    assert decided.status_code == 200, text(decided)
    fill.refresh_from_db()
    assert fill.status == ("issued" if verb == "approve" else "void")
    assert [s.user_id for s in fill.signatures.all()] == ([floor.cashier.pk] if verb == "approve" else [])
    assert fill.voided_by_id == (None if verb == "approve" else floor.cashier.pk)


def test_a_pit_boss_asks_for_a_credit_and_only_another_pit_boss_releases_it(
    floor: Floor, as_user: Any
) -> None:
    floor.open_faro()
    boss = as_user(floor.pit_boss)
    assert _ask(boss, floor, "credit", "300").status_code == 200
    credit = Slip.objects.get(kind="credit")

    own = post(boss, f"/pit/requests/{credit.pk}/approve/")
    cashier = post(as_user(floor.cashier), f"/cage/requests/{credit.pk}/approve/")

    assert own.status_code == 403
    assert f"You asked for credit {credit.number}; someone else must approve or refuse it." in text(own)
    assert cashier.status_code == 403
    assert "Only a pit boss (the pit releases it) approves or refuses a credit." in text(cashier)
    released = post(as_user(factories.staff(Role.PIT_BOSS)), f"/pit/requests/{credit.pk}/approve/")
    assert released.status_code == 200, text(released)
    assert f"Released: credit {credit.number} of $300.00 for {floor.faro.name}." in text(released)
    credit.refresh_from_db()
    assert credit.status == "issued"
    cage = text(as_user(floor.cashier).get("/cage/"))
    assert f"{credit.number} — released, in transit: waiting for a cashier&#x27;s signature" in cage
    assert 'href="/cage/slips/waiting/" data-testid="sign-slip"' in cage


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
    assert not Slip.objects.filter(kind__in=("fill", "credit")).exists()
