"""Bad input to every People/Cage/Tables endpoint: the documented 4xx, the error shape, no change.

One parametrized test. Each case starts from a valid request (see ``tests/api/world.py``)
and spoils one thing: the JSON itself, one field's type or range, an id in the path or the
body, the token, or the role. The server must answer with the status API.md documents for
it, never 500, with ``{"error": {"code", "message", "fields"}}``, and the database (row
counts, every account's balance and hold, the state of tables, seats, sessions and tray
requests) must be exactly as before.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import pytest
from django.db import connection

from tests.api.world import DEFAULT, ENDPOINTS, World
from tests.factories import RUN

UNKNOWN = 10**15  # a valid id that no row has

# Who sends the otherwise-valid request, and a role that may not.
ALLOWED = {
    "GET /me": "player_self",
    "POST /staff": "admin",
    "POST /players": "cashier",
    "GET /players": "pit_boss",
    "GET /players/{id}": "player_self",
    "GET /players/{id}/balance": "player_self",
    "GET /players/{id}/transactions": "player_self",
    "POST /cage/buy-ins": "cashier",
    "POST /cage/cash-outs": "cashier",
    "POST /tables": "pit_boss",
    "GET /tables": "pit_boss",
    "GET /tables/{id}": "pit_boss",
    "PATCH /tables/{id}/limits": "dealer_assigned",
    "POST /tables/{id}/assign": "pit_boss",
    "POST /tables/{id}/open": "dealer_assigned",
    "POST /tables/{id}/close": "dealer_assigned",
    "POST /tables/{id}/fills": "dealer_assigned",
    "POST /tables/{id}/credits": "dealer_assigned",
    "POST /tables/{id}/fills/{id}/approve": "cashier",
    "POST /tables/{id}/fills/{id}/refuse": "cashier",
    "POST /tables/{id}/credits/{id}/approve": "cashier",
    "POST /tables/{id}/credits/{id}/refuse": "cashier",
    "POST /tables/{id}/seats": "dealer_assigned",
    "DELETE /tables/{id}/seats/{player}": "dealer_assigned",
}
FORBIDDEN = {
    "POST /staff": "pit_boss",
    "POST /players": "dealer_assigned",
    "GET /players": "player_self",
    "POST /cage/buy-ins": "pit_boss",
    "POST /cage/cash-outs": "player_self",
    "POST /tables": "cashier",
    "GET /tables": "player_self",
    "GET /tables/{id}": "player_other",
    "PATCH /tables/{id}/limits": "dealer_other",
    "POST /tables/{id}/assign": "dealer_assigned",
    "POST /tables/{id}/open": "dealer_other",
    "POST /tables/{id}/close": "pit_boss",
    "POST /tables/{id}/fills": "cashier",
    "POST /tables/{id}/credits": "auditor",
    "POST /tables/{id}/fills/{id}/approve": "dealer_assigned",
    "POST /tables/{id}/fills/{id}/refuse": "auditor",
    "POST /tables/{id}/credits/{id}/approve": "dealer_other",
    "POST /tables/{id}/credits/{id}/refuse": "admin",
    "POST /tables/{id}/seats": "dealer_other",
    "DELETE /tables/{id}/seats/{player}": "cashier",
}
# Integer fields of each JSON body and what they hold.
INT_FIELDS: dict[str, dict[str, str]] = {
    "POST /cage/buy-ins": {"player": "id", "amount": "cents"},
    "POST /cage/cash-outs": {"player": "id", "amount": "cents"},
    "POST /tables": {"min_bet": "cents", "max_bet": "cents", "ante": "count"},
    "PATCH /tables/{id}/limits": {"min_bet": "cents", "max_bet": "cents"},
    "POST /tables/{id}/assign": {"dealer": "id"},
    "POST /tables/{id}/open": {"opening_inventory": "count"},
    "POST /tables/{id}/close": {"closing_inventory": "count"},
    "POST /tables/{id}/fills": {"amount": "cents"},
    "POST /tables/{id}/credits": {"amount": "cents"},
    "POST /tables/{id}/seats": {"player": "id", "seat": "seat"},
}
OPTIONAL = {("POST /tables", "ante"), ("POST /tables/{id}/seats", "seat")}
WRONG_TYPES: list[tuple[str, Any]] = [
    ("string", "1000"),
    ("float", 10.5),
    ("whole float", 10.0),
    ("true", True),
    ("null", None),
    ("list", [1000]),
    ("object", {"cents": 1000}),
]
OUT_OF_RANGE: dict[str, list[tuple[str, Any, int]]] = {
    "cents": [("negative", -100, 400), ("zero", 0, 400), ("huge", 10**15, 400)],
    "count": [("negative", -100, 400), ("huge", 10**15, 400)],
    "id": [("negative", -1, 400), ("zero", 0, 400), ("unknown", UNKNOWN, 404), ("beyond bigint", 2**63, 400)],
    "seat": [("negative", -1, 400), ("zero", 0, 400), ("thirteen", 13, 400), ("huge", 10**15, 400)],
}
MONEY_POSTS = [
    "POST /cage/buy-ins",
    "POST /cage/cash-outs",
    "POST /tables/{id}/open",
    "POST /tables/{id}/close",
    "POST /tables/{id}/fills",
    "POST /tables/{id}/credits",
    "POST /tables/{id}/fills/{id}/approve",
    "POST /tables/{id}/credits/{id}/approve",
]


@dataclass(frozen=True)
class Case:
    endpoint: str
    label: str
    expected: int
    role: str | None = "allowed"
    body: Any = DEFAULT
    raw: bytes | None = None
    path: Any = None  # a function of (world, endpoint name), or None for the endpoint's own path
    headers: dict[str, str] = field(default_factory=dict)

    @property
    def id(self) -> str:
        return f"{self.endpoint} | {self.label}"


def _with(endpoint: str, **changes: Any) -> Any:
    """The endpoint's valid body with some fields changed (``...`` removes a field)."""

    def body(w: World) -> dict[str, Any]:
        valid = dict(ENDPOINTS[endpoint].body(w))  # type: ignore[misc]
        for name, value in changes.items():
            if value is ...:
                valid.pop(name)
            else:
                valid[name] = value
        return valid

    return body


def _cases() -> list[Case]:
    cases: list[Case] = []
    for name, endpoint in ENDPOINTS.items():
        cases.append(Case(name, "no token", 401, role=None))
        cases.append(Case(name, "unknown token", 401, role="unknown_token"))
        if name in FORBIDDEN:
            cases.append(Case(name, f"wrong role {FORBIDDEN[name]}", 403, role=FORBIDDEN[name]))
        if endpoint.method in {"post", "patch"}:
            cases.append(Case(name, "malformed JSON", 400, raw=b'{"amount": 10'))
            cases.append(Case(name, "JSON array", 400, body=[1, 2]))
            cases.append(Case(name, "JSON string", 400, raw=b'"hello"'))
        for field_name, kind in INT_FIELDS.get(name, {}).items():
            if (name, field_name) not in OPTIONAL:
                cases.append(Case(name, f"{field_name} missing", 400, body=_with(name, **{field_name: ...})))
            for label, value in WRONG_TYPES:
                cases.append(
                    Case(name, f"{field_name} {label}", 400, body=_with(name, **{field_name: value}))
                )
            for label, value, status in OUT_OF_RANGE[kind]:
                cases.append(
                    Case(name, f"{field_name} {label}", status, body=_with(name, **{field_name: value}))
                )
        if name in MONEY_POSTS:
            cases.append(Case(name, "Idempotency-Key too long", 400, headers={"Idempotency-Key": "k" * 201}))
            cases.append(Case(name, "Idempotency-Key with NUL", 400, headers={"Idempotency-Key": "a\x00b"}))
    # Path ids: unknown, malformed, another player's, a request of the other kind or table.
    for name in ENDPOINTS:
        if "/tables/{id}" in name:
            cases.append(Case(name, "unknown table", 404, path=_swap_table(str(UNKNOWN))))
            cases.append(Case(name, "table id not a number", 404, path=_swap_table("abc")))
        if name.startswith("GET /players/{id}"):
            cases.append(Case(name, "unknown player", 404, role="pit_boss", path=_swap_player(str(UNKNOWN))))
            cases.append(Case(name, "player id not a number", 404, role="pit_boss", path=_swap_player("x1")))
            cases.append(Case(name, "another player's id", 404, role="player_other"))
    for kind, other in (("fills", "credits"), ("credits", "fills")):
        for verb in ("approve", "refuse"):
            name = f"POST /tables/{{id}}/{kind}/{{id}}/{verb}"
            cases.append(
                Case(name, "unknown request", 404, path=_request_path(kind, verb, lambda w: UNKNOWN))
            )
            cases.append(
                Case(name, f"a {other[:-1]}'s id", 404, path=_request_path(kind, verb, _other_kind(kind)))
            )
            cases.append(
                Case(
                    name, "a request of another table", 404, path=_request_path(kind, verb, _on_closed(kind))
                )
            )
    cases += [
        Case(
            "DELETE /tables/{id}/seats/{player}", "player not seated here", 404, path=_seat_of("player_self")
        ),
        Case(
            "DELETE /tables/{id}/seats/{player}",
            "unknown player",
            404,
            path=lambda w, _: _seats(w) + f"/{UNKNOWN}",
        ),
        Case(
            "POST /cage/buy-ins",
            "body player as username",
            400,
            body=_with("POST /cage/buy-ins", player="p0"),
        ),
        Case(
            "POST /cage/cash-outs",
            "more than available",
            409,
            body=_with("POST /cage/cash-outs", amount=50_001),
        ),
        Case("GET /players", "search with NUL", 400, path=lambda w, _: "/api/v1/players?search=%00"),
        Case("POST /staff", "weak password", 400, body=_with("POST /staff", password="password")),
        Case("POST /staff", "numeric password", 400, body=_with("POST /staff", password="8375629104")),
        Case("POST /staff", "role player", 400, body=_with("POST /staff", role="player")),
        Case("POST /staff", "role unknown", 400, body=_with("POST /staff", role="croupier")),
        Case("POST /staff", "username taken", 409, body=_taken_username("POST /staff", "pit_boss")),
        Case("POST /staff", "username too long", 400, body=_with("POST /staff", username="u" * 151)),
        Case("POST /staff", "name a list", 400, body=_with("POST /staff", name=["A", "B"])),
        Case("POST /staff", "password missing", 400, body=_with("POST /staff", password=...)),
        Case("POST /players", "weak password", 400, body=_with("POST /players", password="12345678")),
        Case(
            "POST /players",
            "password like username",
            400,
            body=lambda w: _with("POST /players", password=f"newplayer-{RUN}")(w),
        ),
        Case("POST /players", "username taken", 409, body=_taken_username("POST /players", "player_self")),
        Case("POST /players", "username missing", 400, body=_with("POST /players", username=...)),
        Case("POST /players", "username null", 400, body=_with("POST /players", username=None)),
        Case("POST /tables", "unknown game", 400, body=_with("POST /tables", game="poker")),
        Case("POST /tables", "unknown rule", 400, body=_with("POST /tables", rules={"wild_jokers": True})),
        Case("POST /tables", "bad rule value", 400, body=_with("POST /tables", rules={"chip": "red"})),
        Case("POST /tables", "rules not an object", 400, body=_with("POST /tables", rules=["chip"])),
        Case("POST /tables", "min above max", 400, body=_with("POST /tables", min_bet=10_000, max_bet=5_000)),
        Case("POST /tables", "bet not a chip multiple", 400, body=_with("POST /tables", min_bet=550)),
        Case("POST /tables", "name empty", 400, body=_with("POST /tables", name="")),
        Case("POST /tables", "name blank", 400, body=_with("POST /tables", name="   ")),
        Case(
            "POST /tables",
            "name taken",
            409,
            body=lambda w: _with("POST /tables", name=w.open_table.name.lower())(w),
        ),
        Case("PATCH /tables/{id}/limits", "min above max", 400, body={"min_bet": 20_000, "max_bet": 10_000}),
        Case(
            "PATCH /tables/{id}/limits", "not a chip multiple", 400, body={"min_bet": 550, "max_bet": 10_000}
        ),
        Case("POST /tables/{id}/assign", "a cashier is no dealer", 404, body=_user_id("dealer", "cashier")),
        Case(
            "POST /tables/{id}/assign", "a player is no dealer", 404, body=_user_id("dealer", "player_self")
        ),
        Case("POST /tables/{id}/open", "already open", 409, path=lambda w, _: f"{_table(w.open_table)}/open"),
        Case("POST /tables/{id}/close", "not open", 409, path=lambda w, _: f"{_table(w.closed_table)}/close"),
        Case("POST /tables/{id}/seats", "seat taken", 409, body=_with("POST /tables/{id}/seats", seat=1)),
        Case("POST /tables/{id}/seats", "already seated", 409, body=_seated_elsewhere),
        Case(
            "POST /tables/{id}/seats",
            "table closed",
            409,
            path=lambda w, _: f"{_table(w.closed_table)}/seats",
        ),
        Case("POST /tables/{id}/credits/{id}/approve", "note a number", 400, body={"note": ["x"]}),
    ]
    return cases


def _table(table: Any) -> str:
    return f"/api/v1/tables/{table.pk}"


def _seats(w: World) -> str:
    return f"{_table(w.open_table)}/seats"


def _swap_table(value: str) -> Any:
    def path(w: World, name: str) -> str:
        real = ENDPOINTS[name].path(w)
        _, _, rest = real.partition("/api/v1/tables/")
        _, _, tail = rest.partition("/")
        return f"/api/v1/tables/{value}" + (f"/{tail}" if tail else "")

    return path


def _swap_player(value: str) -> Any:
    def path(w: World, name: str) -> str:
        return ENDPOINTS[name].path(w).replace(f"/players/{w.player_self.pk}", f"/players/{value}")

    return path


def _request_path(kind: str, verb: str, request_id: Any) -> Any:
    return lambda w, _: f"{_table(w.open_table)}/{kind}/{request_id(w)}/{verb}"


def _other_kind(kind: str) -> Any:
    return lambda w: (w.credit if kind == "fills" else w.fill).pk


def _on_closed(kind: str) -> Any:
    """A pending request of the same kind, but made at the closed table."""

    def request_id(w: World) -> int:
        from tables.services import request_tray_change

        made = request_tray_change(
            actor=w.users["pit_boss"], table_id=w.closed_table.pk, kind=kind[:-1], amount=1_000
        )
        return made.pk

    return request_id


def _seat_of(role: str) -> Any:
    return lambda w, _: f"{_seats(w)}/{w.users[role].player.pk}"


def _taken_username(endpoint: str, role: str) -> Any:
    return lambda w: _with(endpoint, username=w.users[role].username.upper())(w)


def _user_id(field_name: str, role: str) -> Any:
    return lambda w: {field_name: w.users[role].pk}


def _seated_elsewhere(w: World) -> dict[str, Any]:
    return {"player": w.player_other.pk, "seat": 5}


CASES = _cases()


def _snapshot() -> dict[str, Any]:
    """Everything a request could change, read in one query."""
    with connection.cursor() as cursor:
        cursor.execute(
            """
            SELECT (SELECT count(*) FROM ledger_transfer),
                   (SELECT count(*) FROM ledger_entry),
                   (SELECT count(*) FROM ledger_hold),
                   (SELECT count(*) FROM casino_auditlog),
                   (SELECT count(*) FROM casino_user),
                   (SELECT count(*) FROM casino_player),
                   (SELECT count(*) FROM casino_apitoken WHERE revoked_at IS NULL),
                   (SELECT count(*) FROM casino_idempotencyrecord),
                   (SELECT count(*) FROM tables_limitchange),
                   (SELECT array_agg(array[code, balance::text, held::text] ORDER BY code)
                      FROM ledger_account),
                   (SELECT array_agg(array[id::text, name, status, min_bet::text, max_bet::text,
                                           coalesce(dealer_id::text, '')] ORDER BY id) FROM tables_table),
                   (SELECT array_agg(array[id::text, status, coalesce(transfer_id::text, '')] ORDER BY id)
                      FROM tables_trayrequest),
                   (SELECT array_agg(array[id::text, coalesce(left_at::text, '')] ORDER BY id)
                      FROM tables_seat),
                   (SELECT array_agg(array[id::text, coalesce(closed_at::text, '')] ORDER BY id)
                      FROM tables_tablesession)
            """
        )
        row = cursor.fetchone()
    names = [
        "transfers", "entries", "holds", "audit", "users", "players", "live_tokens", "idempotency",
        "limit_changes", "accounts", "tables", "tray_requests", "seats", "sessions",
    ]  # fmt: skip
    return dict(zip(names, row, strict=True))


@pytest.mark.parametrize("case", CASES, ids=[case.id for case in CASES])
@pytest.mark.django_db
def test_bad_input_is_refused_and_changes_nothing(world: World, case: Case) -> None:
    endpoint = ENDPOINTS[case.endpoint]
    role = ALLOWED[case.endpoint] if case.role == "allowed" else case.role
    path = case.path(world, case.endpoint) if case.path is not None else None
    body = case.body(world) if callable(case.body) and case.body is not DEFAULT else case.body
    before = _snapshot()

    response = endpoint.send(world, role, body=body, raw=case.raw, path=path, headers=case.headers or None)

    assert response.status_code == case.expected, response.content
    error = response.json()["error"]
    assert set(error) == {"code", "message", "fields"}
    assert isinstance(error["code"], str)
    assert error["code"] == error["code"].lower()
    assert " " not in error["code"]
    assert error["message"]
    assert isinstance(error["fields"], dict)
    assert _snapshot() == before


def test_every_endpoint_gets_bad_input() -> None:
    """Each endpoint is hit without a token, and each one with a body with broken JSON."""
    hit = {case.endpoint for case in CASES}
    assert hit == set(ENDPOINTS)
    with_body = {name for name, e in ENDPOINTS.items() if e.method in {"post", "patch"}}
    assert {case.endpoint for case in CASES if case.label == "malformed JSON"} == with_body
