"""Who may call what: every role against every endpoint of API.md, one HTTP request per cell.

``MATRIX`` is the "Who may do what" table of docs/roles.md, written out as data (and checked to be
that table word for word), read off API.md's "who" column. Each cell expands to the test's
columns: an allowed role gets the endpoint's success status, a role that may not do the
thing gets 403, a player asking for another player's data gets 404. Separation of duties
(nobody approves their own request) is checked after the matrix.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from django.db import transaction
from pytest_django import DjangoDbBlocker

from casino.models import Role
from ledger.models import Transfer
from tables.slips.models import Slip
from tables.slips.services import issue_slip
from tables.slips.transit import request_transit_slip
from tests import factories
from tests.api.world import ENDPOINTS, ROLES, World
from tests.api.world_floor import EXTRAS, FLOOR_ENDPOINTS, build_floor_extras

ROLES_DOC = Path(__file__).resolve().parents[2] / "docs" / "roles.md"
README_ROLES = ("admin", "pit_boss", "dealer", "cashier", "auditor", "count_team", "player")
Y, A, OWN, N, S = "yes", "assigned", "own", "—", "yes¹"  # S: never the requester (see below)

# The docs/roles.md table: endpoint → (admin, pit_boss, dealer, cashier, auditor, count_team, player).
MATRIX: dict[str, tuple[str, str, str, str, str, str, str]] = {
    #                                          admin pit  dealer cash aud count player
    "GET /me":                                 (Y, Y, Y, Y, Y, Y, Y),
    "POST /staff":                             (Y, N, N, N, N, N, N),
    "POST /players":                           (Y, Y, N, Y, N, N, N),
    "GET /players":                            (Y, Y, Y, Y, Y, Y, N),
    "GET /players/{id}":                       (Y, Y, Y, Y, Y, Y, OWN),
    "GET /players/{id}/balance":               (Y, Y, Y, Y, Y, Y, OWN),
    "GET /players/{id}/transactions":          (Y, Y, Y, Y, Y, Y, OWN),
    "POST /cage/buy-ins":                      (N, N, N, Y, N, N, N),
    "POST /cage/cash-outs":                    (N, N, N, Y, N, N, N),
    "POST /tables":                            (Y, Y, N, N, N, N, N),
    "GET /tables":                             (Y, Y, Y, Y, Y, Y, N),
    "GET /tables/{id}":                        (Y, Y, Y, Y, Y, Y, N),
    "PATCH /tables/{id}/limits":               (Y, Y, N, N, N, N, N),
    "POST /tables/{id}/assign":                (N, Y, N, N, N, N, N),
    "POST /tables/{id}/open":                  (N, N, A, N, N, N, N),
    "POST /tables/{id}/close":                 (N, N, A, N, N, N, N),
    "POST /tables/{id}/fills":                 (N, Y, A, N, N, N, N),
    "POST /tables/{id}/credits":               (N, Y, A, N, N, N, N),
    "POST /tables/{id}/fills/{id}/approve":    (N, N, N, S, N, N, N),
    "POST /tables/{id}/fills/{id}/refuse":     (N, N, N, S, N, N, N),
    "POST /tables/{id}/credits/{id}/approve":  (N, S, N, N, N, N, N),
    "POST /tables/{id}/credits/{id}/refuse":   (N, S, N, N, N, N, N),
    "POST /tables/{id}/seats":                 (N, Y, A, N, N, N, N),
    "DELETE /tables/{id}/seats/{player}":      (N, Y, A, N, N, N, N),
    "POST /tables/{id}/rounds":                (N, N, A, N, N, N, N),
    "GET /rounds/{id}":                        (Y, Y, Y, Y, Y, Y, N),
    "POST /rounds/{id}/actions":               (N, N, A, N, N, N, N),
    "POST /rounds/{id}/corrections":           (N, N, A, N, N, N, N),
    "POST /corrections/{id}/approve":          (S, S, N, N, N, N, N),
    "POST /corrections/{id}/refuse":           (S, S, N, N, N, N, N),
    "GET /rounds/{id}/verify":                 (Y, Y, Y, Y, Y, Y, N),
    "GET /players/{id}/ratings":               (Y, Y, Y, Y, Y, Y, OWN),
    "GET /tables/{id}/hourly":                 (N, Y, N, N, Y, N, N),
    "GET /dealers/{id}/performance":           (N, Y, N, N, Y, N, N),
    "POST /gaming-days/{date}/close":          (N, Y, N, N, Y, N, N),
    "GET /gaming-days/{date}/report":          (N, Y, N, N, Y, N, N),
    "GET /ledger/trial-balance":               (N, N, N, N, Y, N, N),
    "GET /alerts":                             (N, Y, N, N, Y, N, N),
    "POST /alerts/{id}/resolve":               (N, Y, N, N, N, N, N),
    "POST /tables/{id}/counts":                (N, Y, A, N, N, N, N),
    "POST /slips/{count}/void":                (N, Y, N, N, N, N, N),
    "POST /slips/{fill}/void":                 (N, N, N, Y, N, N, N),
    "GET /evidence/{date}":                    (N, N, N, N, Y, N, N),
    "GET /evidence/{date}/export":             (N, N, N, N, Y, N, N),
    "GET /evidence/{date}/proof":              (N, N, N, N, Y, N, N),
    "GET /exceptions":                         (N, N, N, N, Y, N, N),
    "GET /staff/access-review":                (Y, N, N, N, Y, N, N),
    "POST /tables/{id}/cash-buy-ins":          (N, N, A, N, N, N, N),
    "GET /drop-boxes":                         (N, Y, N, N, Y, Y, N),
    "POST /drop-boxes/{id}/remove":            (N, N, N, N, N, Y, N),
    "POST /drop-boxes/{id}/count":             (N, N, N, N, N, Y, N),
}  # fmt: skip

ALL_ENDPOINTS = {**ENDPOINTS, **FLOOR_ENDPOINTS}
CREATED = {
    "POST /staff", "POST /players", "POST /cage/buy-ins", "POST /cage/cash-outs", "POST /tables",
    "POST /tables/{id}/open", "POST /tables/{id}/fills", "POST /tables/{id}/credits",
    "POST /tables/{id}/seats", "POST /tables/{id}/rounds", "POST /rounds/{id}/corrections",
    "POST /tables/{id}/counts", "POST /tables/{id}/cash-buy-ins",
}  # fmt: skip
ACCEPTED = {"POST /gaming-days/{date}/close"}
COLUMN = {
    "admin": "admin", "pit_boss": "pit_boss", "dealer_assigned": "dealer", "dealer_other": "dealer",
    "cashier": "cashier", "auditor": "auditor", "count_team": "count_team", "player_self": "player",
    "player_other": "player",
}  # fmt: skip


def _success(endpoint: str) -> int:
    """The endpoint's success status in API.md."""
    if endpoint in CREATED:
        return 201
    if endpoint in ACCEPTED:
        return 202
    return 204 if endpoint.startswith("DELETE") else 200


def _expected(endpoint: str, role: str) -> int:
    """One cell of that table, seen from one of the test's columns (ROLES)."""
    cell = MATRIX[endpoint][README_ROLES.index(COLUMN[role])]
    if cell in (Y, S) or (cell == A and role == "dealer_assigned") or (cell == OWN and role == "player_self"):
        return _success(endpoint)
    return 404 if cell == OWN else 403


CELLS = [(name, role, _expected(name, role)) for name in MATRIX for role in ROLES]


@pytest.fixture(scope="module")
def floor_world(world: World, django_db_blocker: DjangoDbBlocker) -> Iterator[World]:
    """The module's world plus rounds, a correction, a report and an alert (same transaction)."""
    with django_db_blocker.unblock():
        EXTRAS[id(world)] = build_floor_extras(world)
    yield world
    EXTRAS.pop(id(world), None)


def _readme_table() -> dict[str, tuple[str, ...]]:
    text = ROLES_DOC.read_text()
    section = text.split("<!-- roles-table:", 1)[1].split("\n\n", 1)[0]
    rows: dict[str, tuple[str, ...]] = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) != 8 or cells[0] == "endpoint" or set(cells[0]) <= {"-"}:
            continue
        rows[re.sub(r" \(.*\)$", "", cells[0])] = tuple(cells[1:])
    return rows


def test_the_matrix_is_the_roles_doc_table() -> None:
    assert _readme_table() == MATRIX


def test_the_matrix_covers_every_endpoint() -> None:
    """Every API endpoint, every role; no token at all is test_bad_input.py's "no token" case."""
    assert set(MATRIX) == set(ALL_ENDPOINTS)
    assert len(CELLS) == len(MATRIX) * len(ROLES)


@pytest.mark.parametrize(("endpoint", "role", "expected"), CELLS, ids=[f"{n} as {r}" for n, r, _ in CELLS])
@pytest.mark.django_db
def test_role_may_or_may_not(floor_world: World, endpoint: str, role: str, expected: int) -> None:
    response = ALL_ENDPOINTS[endpoint].send(floor_world, role)

    assert response.status_code == expected, response.content
    if expected >= 400:
        error = response.json()["error"]
        assert error["code"] == ("not_found" if expected == 404 else "forbidden")
        assert set(error) == {"code", "message", "fields"}
    elif getattr(response, "streaming", False):  # the evidence export: JSON lines, streamed
        assert b"".join(response.streaming_content).startswith(b'{"format"')
    elif expected != 204:
        assert response.json()


# --------------------------------------------------------------------------- separation of duties

CREDIT_DECISIONS = ("approve", "refuse")


@pytest.mark.parametrize("verb", CREDIT_DECISIONS)
@pytest.mark.django_db
def test_a_pit_boss_who_asked_for_a_credit_cannot_decide_it(world: World, verb: str) -> None:
    """A pit boss may ask for a credit and a pit boss releases one: the one who asked may not."""
    boss = world.client("pit_boss")
    base = f"/api/v1/tables/{world.open_table.pk}/credits"
    asked = boss.post(base, {"amount": 20_000}, format="json")
    assert asked.status_code == 201, asked.content
    slip_id = asked.json()["id"]
    transfers = Transfer.objects.count()

    own = boss.post(f"{base}/{slip_id}/{verb}", {}, format="json")

    assert own.status_code == 403, own.content
    assert own.json()["error"]["code"] == "separation_of_duties"
    assert Slip.objects.get(pk=slip_id).status == "pending"
    assert Transfer.objects.count() == transfers
    other = _client_of(factories.staff(Role.PIT_BOSS), world).post(
        f"{base}/{slip_id}/{verb}", {}, format="json"
    )
    assert other.status_code == 200, other.content
    assert other.json()["status"] == ("issued" if verb == "approve" else "void")


@pytest.mark.django_db
def test_a_cashier_cannot_decide_a_fill_a_cashier_asked(world: World) -> None:
    """Nobody approves their own request: a fill recorded as a cashier's (no endpoint makes one,
    but the rule is not the endpoint's) cannot be approved by that cashier."""
    cashier = world.users["cashier"]
    with transaction.atomic():
        fill = issue_slip(kind="fill", requested_by=cashier, table=world.open_table, amount=1_000)
    url = f"/api/v1/tables/{world.open_table.pk}/fills/{fill.pk}/approve"

    response = world.client("cashier").post(url, {}, format="json")

    assert response.status_code == 403
    assert response.json()["error"]["code"] == "separation_of_duties"
    assert Slip.objects.get(pk=fill.pk).status == "pending"


@pytest.mark.django_db
def test_a_fill_a_pit_boss_asked_for_is_issued_by_a_cashier(world: World) -> None:
    fill = request_transit_slip(
        actor=world.users["pit_boss"], table_id=world.open_table.pk, kind="fill", amount=5_000
    )

    response = world.client("cashier").post(
        f"/api/v1/tables/{world.open_table.pk}/fills/{fill.pk}/approve", {}, format="json"
    )

    assert response.status_code == 200, response.content
    assert response.json()["status"] == "issued"
    assert response.json()["needs"] == ["dealer", "pit_boss"]


def _client_of(user: Any, world: World) -> Any:
    client: Any = world.client(None)
    client.credentials(HTTP_AUTHORIZATION=f"Token {factories.token_for(user)}")
    return client
