"""Bad input to every People/Cage/Tables endpoint: the documented 4xx, the error shape, no change.

One parametrized test. Each case starts from a valid request (see ``tests/api/world.py``)
and spoils one thing: the JSON itself (broken, NUL in a string, nested 100,000 deep, over the
size limit), one field's type or range, an id in the path (unknown, or a number spelled the
way only Python's ``int()`` reads it: ``+7``, `` 7``, ``0_7``, ``٧``), a page's ``limit`` or
``cursor``, the body, the token, or the role. The server must answer with the status API.md documents for
it, never 500, with ``{"error": {"code", "message", "fields"}}``, and the database (row
counts, every account's balance and hold, the state of tables, seats, sessions and fill and
credit slips) must be exactly as before.
"""

from __future__ import annotations

from base64 import b64encode
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import pytest
from django.conf import settings
from django.db import connection

from tests.api.world import DEFAULT, ENDPOINTS, World
from tests.factories import RUN

UNKNOWN = 10**15  # a valid id that no row has
ARABIC_INDIC = str.maketrans("0123456789", "٠١٢٣٤٥٦٧٨٩")
# Ways Python's int() reads an id that are not the id as the API writes it: each must be a 404.
LENIENT_SPELLINGS: dict[str, Any] = {
    "plus sign": lambda pk: f"+{pk}",
    "leading space": lambda pk: f"%20{pk}",
    "underscore": lambda pk: f"0_{pk}",
    "leading zero": lambda pk: f"0{pk}",
    "Arabic-Indic digits": lambda pk: quote(str(pk).translate(ARABIC_INDIC)),
}
# Bodies the parser must refuse before any view sees them (a NUL would reach jsonb and text
# columns; deep nesting made json.loads raise RecursionError): 400 malformed_request.
UNPARSABLE_BODIES: dict[str, bytes] = {
    "NUL in a string": b'{"name": "a\\u0000b", "note": "a\\u0000b"}',
    "NUL in a key": b'{"a\\u0000b": 1}',
    "nested 100,000 deep": b"[" * 100_000 + b"]" * 100_000,
    "nested 40 deep": b'{"a": ' * 40 + b"1" + b"}" * 40,
}
TOO_LARGE = b'{"name": "' + b"x" * settings.DATA_UPLOAD_MAX_MEMORY_SIZE + b'"}'
BAD_LIMITS = ["null", "-2e-297", "0", "-1", "501", "1.5", "", "+5", "%205", quote("٥")]

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
    "PATCH /tables/{id}/limits": "pit_boss",
    "POST /tables/{id}/assign": "pit_boss",
    "POST /tables/{id}/open": "dealer_assigned",
    "POST /tables/{id}/close": "dealer_assigned",
    "POST /tables/{id}/fills": "dealer_assigned",
    "POST /tables/{id}/credits": "dealer_assigned",
    "POST /tables/{id}/fills/{id}/approve": "cashier",
    "POST /tables/{id}/fills/{id}/refuse": "cashier",
    "POST /tables/{id}/credits/{id}/approve": "pit_boss",
    "POST /tables/{id}/credits/{id}/refuse": "pit_boss",
    "POST /tables/{id}/seats": "dealer_assigned",
    "DELETE /tables/{id}/seats/{player}": "dealer_assigned",
    "POST /tables/{id}/cash-buy-ins": "dealer_assigned",
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
    "POST /tables/{id}/cash-buy-ins": "count_team",
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
    "POST /tables/{id}/cash-buy-ins": {"player": "id", "amount": "cents"},
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
    "POST /tables/{id}/cash-buy-ins",
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
    code: str | None = None  # the error code, where the case is about one

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
            for label, raw in UNPARSABLE_BODIES.items():
                cases.append(Case(name, label, 400, raw=raw, code="malformed_request"))
            cases.append(Case(name, "body over the size limit", 413, raw=TOO_LARGE, code="too_large"))
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
            for label, spell in LENIENT_SPELLINGS.items():
                cases.append(
                    Case(name, f"table id with {label}", 404, path=_swap_table(spell), code="not_found")
                )
        if name.startswith("GET /players/{id}"):
            cases.append(Case(name, "unknown player", 404, role="pit_boss", path=_swap_player(str(UNKNOWN))))
            cases.append(Case(name, "player id not a number", 404, role="pit_boss", path=_swap_player("x1")))
            cases.append(Case(name, "another player's id", 404, role="player_other"))
            for label, spell in LENIENT_SPELLINGS.items():
                cases.append(
                    Case(
                        name,
                        f"player id with {label}",
                        404,
                        role="pit_boss",
                        path=_swap_player(spell),
                        code="not_found",
                    )
                )
    for label, spell in LENIENT_SPELLINGS.items():
        cases.append(
            Case(
                "DELETE /tables/{id}/seats/{player}",
                f"seated player's id with {label}",
                404,
                path=lambda w, _, spell=spell: f"{_seats(w)}/{spell(w.player_other.pk)}",
                code="not_found",
            )
        )
    # Paging: a limit that is not a whole number from 1 to 500, a cursor this list never gave out.
    for name in ("GET /players/{id}/transactions", "GET /tables"):
        for limit in BAD_LIMITS:
            cases.append(
                Case(name, f"limit={limit}", 400, path=_with_query(name, f"limit={limit}"), code="invalid")
            )
        bad_cursors = {**BAD_CURSORS, **(BAD_ID_CURSORS if "transactions" in name else {})}
        for label, cursor in bad_cursors.items():
            cases.append(
                Case(
                    name,
                    f"cursor {label}",
                    400,
                    path=_with_query(name, f"cursor={cursor}"),
                    code="invalid_cursor",
                )
            )
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
        Case("POST /tables/{id}/credits/{id}/refuse", "note a number", 400, body={"note": ["x"]}),
        Case("POST /tables/{id}/fills/{id}/approve", "password a list", 400, body={"password": ["x"]}),
        Case("POST /tables/{id}/fills", "amount and count", 400, body={"amount": 2_500, "count": {"500": 5}}),
        Case("POST /tables/{id}/fills", "neither amount nor count", 400, body={}),
        Case("POST /tables/{id}/credits", "a chip the set lacks", 400, body={"count": {"700": 1}}),
        Case("POST /tables/{id}/credits", "negative pieces", 400, body={"count": {"2500": -1}}),
        Case("POST /tables/{id}/fills", "a count of no chips", 400, body={"count": {"2500": 0}}),
        Case("POST /tables/{id}/fills", "a count not an object", 400, body={"count": [2500]}),
    ]
    return cases


def _table(table: Any) -> str:
    return f"/api/v1/tables/{table.pk}"


def _seats(w: World) -> str:
    return f"{_table(w.open_table)}/seats"


def _swap_table(value: Any) -> Any:
    """The endpoint's path with its table id replaced: by ``value``, or by ``value(real id)``."""

    def path(w: World, name: str) -> str:
        real = ENDPOINTS[name].path(w)
        _, _, rest = real.partition("/api/v1/tables/")
        table_id, _, tail = rest.partition("/")
        new = value(int(table_id)) if callable(value) else value
        return f"/api/v1/tables/{new}" + (f"/{tail}" if tail else "")

    return path


def _swap_player(value: Any) -> Any:
    def path(w: World, name: str) -> str:
        new = value(w.player_self.pk) if callable(value) else value
        return ENDPOINTS[name].path(w).replace(f"/players/{w.player_self.pk}", f"/players/{new}")

    return path


def _with_query(name: str, query: str) -> Any:
    return lambda w, _: f"{ENDPOINTS[name].path(w)}?{query}"


def _cursor(querystring: str) -> str:
    """A cursor as DRF encodes one, around a made-up position."""
    return quote(b64encode(querystring.encode()).decode())


BAD_CURSORS = {
    "not base64": "zzz",
    "of random text": "assigned_tables",
    "with a NUL position": _cursor("p=%00"),
    "with a negative offset": _cursor("o=-1"),
}
BAD_ID_CURSORS = {"with a position that is no id": _cursor("p=abc")}  # lists ordered by id


def _request_path(kind: str, verb: str, request_id: Any) -> Any:
    return lambda w, _: f"{_table(w.open_table)}/{kind}/{request_id(w)}/{verb}"


def _other_kind(kind: str) -> Any:
    return lambda w: (w.credit if kind == "fills" else w.fill).pk


def _on_closed(kind: str) -> Any:
    """A pending request of the same kind, but made at the closed table."""

    def request_id(w: World) -> int:
        from tables.slips.transit import request_transit_slip

        made = request_transit_slip(
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
                   (SELECT array_agg(array[id::text, status, needs::text,
                                           coalesce(issue_transfer_id::text, ''),
                                           coalesce(receipt_transfer_id::text, '')] ORDER BY id)
                      FROM tables_slip),
                   (SELECT count(*) FROM tables_slipsignature),
                   (SELECT array_agg(array[kind, last::text] ORDER BY kind) FROM tables_slipcounter),
                   (SELECT array_agg(array[id::text, coalesce(left_at::text, '')] ORDER BY id)
                      FROM tables_seat),
                   (SELECT array_agg(array[id::text, coalesce(closed_at::text, '')] ORDER BY id)
                      FROM tables_tablesession)
            """
        )
        row = cursor.fetchone()
    names = [
        "transfers", "entries", "holds", "audit", "users", "players", "live_tokens", "idempotency",
        "limit_changes", "accounts", "tables", "slips", "signatures", "counters", "seats", "sessions",
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

    assert response.status_code == case.expected, response.content[:500]
    assert response["Content-Type"] == "application/json"
    error = response.json()["error"]
    if case.code is not None:
        assert error["code"] == case.code
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


# A NUL in any string of a round action reached the refused-action log's jsonb column: a 500.
NUL_ACTIONS: list[Any] = [
    {"type": "bet", "player": 1, "ranks": ["Q"], "amount": 500, "memo": "a\x00b"},
    {"type": "bet\x00"},
    {"type": "soda", "cards": ["5S\x00"]},
    {"type": "soda", "extra": {"deep": ["x", {"k\x00": 1}]}},
]


@pytest.mark.parametrize(
    "body", NUL_ACTIONS, ids=["in a field", "in the type", "in a card", "in a nested key"]
)
@pytest.mark.parametrize("format_", ["json", "multipart"])
@pytest.mark.django_db
def test_a_round_action_with_nul_is_refused_before_it_reaches_the_database(
    world: World, body: Any, format_: str
) -> None:
    from tables.models import RefusedAction, Round
    from tables.rounds import start_round

    if format_ == "multipart" and any(isinstance(value, dict) for value in body.values()):
        pytest.skip("a form carries no nested objects")
    round_ = start_round(
        actor=world.users["dealer_assigned"], table_id=world.open_table.pk, shoe="electronic"
    )
    before = _snapshot(), RefusedAction.objects.count()

    response = world.client("dealer_assigned").post(
        f"/api/v1/rounds/{round_.pk}/actions", body, format=format_
    )

    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] == "malformed_request"
    assert "NUL" in response.json()["error"]["message"]
    assert (_snapshot(), RefusedAction.objects.count()) == before
    assert Round.objects.get(pk=round_.pk).version == round_.version


@pytest.mark.parametrize("query", ["cursor=zzz", "cursor=" + _cursor("p=%00"), "limit=0", "limit=null"])
@pytest.mark.parametrize("list_path", ["/api/v1/alerts", "/api/v1/players/{player}/ratings"])
@pytest.mark.django_db
def test_every_paginated_list_refuses_a_bad_limit_or_cursor(world: World, list_path: str, query: str) -> None:
    path = list_path.format(player=world.player_self.pk)

    response = world.client("pit_boss").get(f"{path}?{query}")

    assert response.status_code == 400, response.content
    code = response.json()["error"]["code"]
    assert code == ("invalid_cursor" if query.startswith("cursor") else "invalid")
    assert world.client("pit_boss").get(path).status_code == 200  # the same list without it is fine


@pytest.mark.django_db
def test_a_page_of_one_links_to_the_next_and_500_is_the_largest_page(world: World) -> None:
    client = world.client("pit_boss")

    first = client.get("/api/v1/tables?limit=1").json()
    second = client.get(first["next"]).json()

    assert len(first["results"]) == len(second["results"]) == 1
    assert first["results"][0]["id"] != second["results"][0]["id"]
    assert client.get("/api/v1/tables?limit=500").status_code == 200
    assert client.get("/api/v1/tables?limit=501").status_code == 400
