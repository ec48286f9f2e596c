"""The audit trail: each state change through the API leaves a row naming who, what and which request
(an opening or a closing two: its count's slip, then the session)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from rest_framework.test import APIClient

from casino.models import ActionLog, Player, User
from tables.models import Table, TableSession
from tables.slips.models import Slip
from tests.factories import PASSWORD

Login = Callable[[Any], APIClient]


@pytest.mark.django_db
def test_a_shift_leaves_its_trail(
    login: Login, pit_boss: User, dealer: User, cashier: User, player: Player, table: Table
) -> None:
    boss, croupier, cage = login(pit_boss), login(dealer), login(cashier)
    base = f"/api/v1/tables/{table.pk}"
    start = (
        ActionLog.objects.order_by("-pk").values_list("pk", flat=True).first() or 0
    )  # after the fixtures' rows

    steps: list[tuple[Any, str, User, str, Callable[[Any], str]]] = []

    def step(
        response: Any, action: str, actor: User, object_type: str, object_id: Callable[[Any], str]
    ) -> Any:
        assert response.status_code < 300, response.content
        steps.append((response, action, actor, object_type, object_id))
        return response

    step(
        cage.post("/api/v1/cage/buy-ins", {"player": player.pk, "amount": 10_000}, format="json"),
        "cage.buy_in",
        cashier,
        "transfer",
        lambda r: str(r.json()["transfer_id"]),
    )
    step(
        boss.patch(f"{base}/limits", {"min_bet": 1_000, "max_bet": 20_000}, format="json"),
        "table.limits_changed",
        pit_boss,
        "table",
        lambda r: str(table.pk),
    )
    opened = croupier.post(f"{base}/open", {"opening_inventory": 50_000}, format="json")
    step(opened, "slip.opener", dealer, "slip", lambda r: str(r.json()["opener"]["id"]))  # the count's slip
    step(opened, "table.opened", dealer, "tablesession", lambda r: str(r.json()["id"]))
    step(
        croupier.post(f"{base}/seats", {"player": player.pk}, format="json"),
        "seat.taken",
        dealer,
        "seat",
        lambda r: str(player.seatings.get().pk),
    )
    fill = step(
        croupier.post(f"{base}/fills", {"amount": 5_000}, format="json"),
        "slip.fill",
        dealer,
        "slip",
        lambda r: str(r.json()["id"]),
    )
    slip = fill.json()["id"]
    step(cage.post(f"{base}/fills/{slip}/approve"), "slip.sign", cashier, "slip", lambda r: str(slip))
    for client, signer in ((croupier, dealer), (boss, pit_boss)):
        step(
            client.post(f"/api/v1/slips/{slip}/sign", {"password": PASSWORD}, format="json"),
            "slip.sign",
            signer,
            "slip",
            lambda r: str(slip),
        )
    step(
        croupier.delete(f"{base}/seats/{player.pk}"),
        "seat.left",
        dealer,
        "seat",
        lambda r: str(player.seatings.get().pk),
    )
    closed = croupier.post(f"{base}/close", {"closing_inventory": 55_000}, format="json")
    step(closed, "slip.closer", dealer, "slip", lambda r: str(r.json()["closer"]["id"]))
    step(closed, "table.closed", dealer, "tablesession", lambda r: str(r.json()["id"]))

    rows = list(ActionLog.objects.filter(pk__gt=start, actor__in=[pit_boss, dealer, cashier]).order_by("pk"))
    assert [row.action for row in rows] == [action for _, action, _, _, _ in steps]
    for row, (response, action, actor, object_type, object_id) in zip(rows, steps, strict=True):
        assert (row.actor, row.object_type, row.object_id) == (actor, object_type, object_id(response)), (
            action
        )
        assert row.request_id == response["X-Request-ID"], action
        assert row.remote_addr == "127.0.0.1"
    assert rows[-1].data == {"count": 55_000, "win": 0, "variance": 0}
    assert TableSession.objects.get(table=table).closed_by == dealer
    assert [s.user for s in Slip.objects.get(pk=slip).signatures.all()] == [cashier, dealer, pit_boss]


@pytest.mark.django_db
def test_a_refused_change_leaves_no_row(login: Login, dealer: User, pit_boss: User, table: Table) -> None:
    before = ActionLog.objects.filter(actor__in=[dealer, pit_boss]).count()

    refused = login(pit_boss).post(f"/api/v1/tables/{table.pk}/open", {"opening_inventory": 1}, format="json")
    invalid = login(dealer).post(f"/api/v1/tables/{table.pk}/open", {"opening_inventory": -1}, format="json")

    assert (refused.status_code, invalid.status_code) == (403, 400)
    assert ActionLog.objects.filter(actor__in=[dealer, pit_boss]).count() == before
