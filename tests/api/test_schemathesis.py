"""Property-based fuzzing of the whole API from its own OpenAPI schema, as every role.

schemathesis loads ``/api/v1/schema`` from the WSGI application and, for every operation but
the schema itself (test_schema.py's), generates valid and invalid requests. Each generated
request is sent once with each role's token (admin, pit_boss, dealer, cashier, auditor,
player), and every response is held to all of schemathesis's default checks: no 5xx, only
documented statuses and content types, bodies matching their schemas, invalid input refused
with a 4xx and valid input not refused with a 400. So the schema and the server cannot drift
apart unnoticed (issue 18: an invalid cursor answered 404, ``limit=null`` answered 200, and
409s and 429s went undocumented).

Path ids are steered onto the shared floor's real rows three times in four (the rest stay as
generated: unknown, huge), so generated bodies reach the services instead of stopping at a 404.
The coverage phase (every boundary value of every parameter, ~1,400 requests for a third of
the operations) stays off: test_bad_input.py sends those boundaries on purpose and checks more
than the status. Examples per operation are few (10), since each is sent six times: about
2,500 requests, half a minute of CPU.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings

from tables.rounds import start_round
from tests.api.world import World

application = get_wsgi_application()
# API.md answers 400 to requests that break rules no schema states (a weak password, a bet that is
# not a chip multiple, an illegal game action, a forged cursor), so schema-valid data may get a 400.
config = schemathesis.Config.from_dict(
    {
        "phases": {"coverage": {"enabled": False}},
        "checks": {
            "positive_data_acceptance": {
                "expected-statuses": ["2xx", "400", "401", "403", "404", "409", "429"]
            }
        },
    }
)
schema = schemathesis.openapi.from_wsgi("/api/v1/schema?format=json", application, config=config).exclude(
    path="/api/v1/schema"
)
# The seven roles of API.md, each as the World user who can act the most in that role.
ROLES = {
    "admin": "admin",
    "pit_boss": "pit_boss",
    "dealer": "dealer_assigned",
    "cashier": "cashier",
    "auditor": "auditor",
    "count_team": "count_team",
    "player": "player_self",
}
REAL_IDS: dict[str, list[Any]] = {}


def _real_ids(path: str, name: str) -> list[Any]:
    if name == "request_id":
        return REAL_IDS["fills" if "/fills/" in path else "credits"]
    if name == "player_id" and "/seats/" in path:
        return REAL_IDS["seated"]
    return REAL_IDS.get(name, [])


@schema.hook
def map_path_parameters(context: Any, path_parameters: dict[str, Any] | None) -> dict[str, Any] | None:
    for name, value in (path_parameters or {}).items():
        ids = _real_ids(context.operation.path, name) if REAL_IDS else []
        if not ids:
            continue
        if isinstance(value, int) and not isinstance(value, bool) and value % 4:
            path_parameters[name] = ids[value % len(ids)]  # type: ignore[index]
        elif isinstance(value, str) and len(value) % 4:
            path_parameters[name] = str(ids[len(value) % len(ids)])  # type: ignore[index]
    return path_parameters


@pytest.fixture
def role_headers(world: World, db: None) -> Iterator[dict[str, dict[str, str]]]:
    """Each role's header; requests reach Django as a server's would, inside the test's savepoint.

    Django's WSGI handler closes the connection around each request when it is not in
    autocommit (as inside a test's transaction); the test client unhooks that, and so do we.
    """
    round_ = start_round(
        actor=world.users["dealer_assigned"], table_id=world.open_table.pk, shoe="electronic"
    )
    REAL_IDS.update(
        table_id=[world.open_table.pk, world.open_table.pk, world.closed_table.pk],
        fills=[world.fill.pk],
        credits=[world.credit.pk],
        player_id=[world.player_self.pk, world.player_other.pk, "me"],
        seated=[world.player_other.pk, world.player_self.pk],
        round_id=[round_.pk],
        dealer_id=[world.users["dealer_assigned"].pk],
    )
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield {role: {"Authorization": f"Token {world.tokens[user]}"} for role, user in ROLES.items()}
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
        REAL_IDS.clear()


def test_every_operation_but_the_schema_is_fuzzed() -> None:
    operations = {op.ok().label for op in schema.get_all_operations()}

    assert "POST /api/v1/cage/buy-ins" in operations
    assert "POST /api/v1/rounds/{round_id}/actions" in operations
    assert "GET /api/v1/players/{player_id}/transactions" in operations
    assert not [label for label in operations if label.endswith("/schema")]
    assert len(operations) >= 40


@schema.parametrize()
@settings(max_examples=10, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_the_api_keeps_to_its_schema_for_every_role(
    case: schemathesis.Case, role_headers: dict[str, dict[str, str]]
) -> None:
    for headers in role_headers.values():
        case.call_and_validate(headers=headers)


def test_the_schema_documents_the_errors_the_machinery_around_views_gives() -> None:
    """409 wherever an Idempotency-Key is taken, 429 behind a throttle, 400 and 413 for bodies
    and paged lists, 503 everywhere; ``limit`` is bounded as the paginator enforces it."""
    raw = schema.raw_schema
    for path, operations in raw["paths"].items():
        for method, operation in operations.items():
            label, codes = f"{method.upper()} {path}", set(operation["responses"])
            parameters = {p["name"]: p for p in operation.get("parameters", [])}
            assert "503" in codes, label
            if "Idempotency-Key" in parameters:
                assert "409" in codes, label
            if "requestBody" in operation:
                assert {"400", "413"} <= codes, label
            if "limit" in parameters:
                assert "400" in codes, label
                assert parameters["limit"]["schema"] == {"type": "integer", "minimum": 1, "maximum": 500}
            for name, parameter in parameters.items():
                if parameter["in"] == "path" and name != "player_id" and name != "day":
                    assert parameter["schema"]["type"] == "integer", label
    assert "429" in raw["paths"]["/api/v1/auth/token"]["post"]["responses"]
    assert raw["paths"]["/api/v1/players/{player_id}"]["get"]["parameters"][0]["schema"]["pattern"] == (
        "^(?:me|[1-9][0-9]{0,18})$"
    )
