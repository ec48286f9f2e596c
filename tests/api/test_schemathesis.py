"""Property-based fuzzing of the floor API from its own OpenAPI schema: no input makes a 500.

schemathesis loads ``/api/v1/schema`` from the WSGI application and, for every operation of
API.md's People, Cage and Tables sections (and the token endpoint; the schema endpoint is
test_schema.py's), generates
valid and invalid requests. They are sent as a pit boss, except where a pit boss may not
act at all (the cage: a cashier; opening and closing: the table's dealer; staff: an admin),
so that generated bodies reach the services instead of stopping at a 403. For the same
reason path ids are steered onto the shared floor's real tables, fill and credit requests
and players three times in four (the rest stay as generated: unknown, negative, huge).
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
import schemathesis
from django.core.signals import request_finished, request_started
from django.core.wsgi import get_wsgi_application
from django.db import close_old_connections
from hypothesis import HealthCheck, settings
from schemathesis.checks import not_a_server_error

from tests.api.world import World

FLOOR_PATHS = re.compile(
    r"^/api/v1/(auth/token|me|staff|players(/\{[a-z_]+\}(/balance|/transactions)?)?|cage/.*"
    r"|tables(/\{table_id\}(/limits|/assign|/open|/close|/seats(/\{player_id\})?"
    r"|/(fills|credits)(/\{request_id\}/(approve|refuse))?)?)?)$"
)

application = get_wsgi_application()
# The fuzzing phase only, at 20 examples an operation (hypothesis settings below): the coverage
# phase sends every boundary value the schema defines (~1,400 requests, over half a minute);
# test_bad_input.py sends those boundaries on purpose, and checks more than the status.
config = schemathesis.Config.from_dict({"phases": {"coverage": {"enabled": False}}})
schema = schemathesis.openapi.from_wsgi("/api/v1/schema?format=json", application, config=config).include(
    lambda ctx: bool(FLOOR_PATHS.match(ctx.operation.path))
)
ROLE_FOR = {
    "/api/v1/cage/": "cashier",
    "/open": "dealer_assigned",
    "/close": "dealer_assigned",
    "/staff": "admin",
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
def floor_headers(world: World, db: None) -> Iterator[dict[str, dict[str, str]]]:
    """Each role's header; requests reach Django as a server's would, inside the test's savepoint.

    Django's WSGI handler closes the connection around each request when it is not in
    autocommit (as inside a test's transaction); the test client unhooks that, and so do we.
    """
    REAL_IDS.update(
        table_id=[world.open_table.pk, world.open_table.pk, world.closed_table.pk],
        fills=[world.fill.pk],
        credits=[world.credit.pk],
        player_id=[world.player_self.pk, world.player_other.pk, "me"],
        seated=[world.player_other.pk, world.player_self.pk],
    )
    request_started.disconnect(close_old_connections)
    request_finished.disconnect(close_old_connections)
    try:
        yield {role: {"Authorization": f"Token {token}"} for role, token in world.tokens.items()}
    finally:
        request_started.connect(close_old_connections)
        request_finished.connect(close_old_connections)
        REAL_IDS.clear()


def test_the_fuzzed_operations_are_the_floor_sections() -> None:
    operations = {op.ok().label for op in schema.get_all_operations()}

    assert len(operations) == 26
    assert "POST /api/v1/cage/buy-ins" in operations
    assert "DELETE /api/v1/tables/{table_id}/seats/{player_id}" in operations
    assert not [label for label in operations if "rounds" in label]


@schema.parametrize()
@settings(max_examples=20, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
def test_no_server_error(case: schemathesis.Case, floor_headers: dict[str, dict[str, str]]) -> None:
    path = case.operation.path
    role = next((role for part, role in ROLE_FOR.items() if part in path), "pit_boss")
    case.call_and_validate(headers=floor_headers[role], checks=[not_a_server_error])
