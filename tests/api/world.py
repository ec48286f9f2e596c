"""One small casino floor and the People/Cage/Tables endpoints of API.md, for the matrix tests.

``build_world`` makes it through the services: staff of every role, two funded players, a
closed table and an open one with a seated player and a pending fill and credit, all with
``dealer_assigned`` as their dealer. ``ENDPOINTS`` lists each endpoint with a valid request
against that floor, so a test can send it as any role, or spoil one part of it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from rest_framework.test import APIClient

from casino.models import Player, Role, User
from tables.models import Table
from tables.services import seat_player
from tables.slips.models import Slip, SlipKind
from tables.slips.transit import request_transit_slip
from tests import factories
from tests.factories import RUN

ROLES = (
    "admin",
    "pit_boss",
    "dealer_assigned",
    "dealer_other",
    "cashier",
    "auditor",
    "count_team",
    "player_self",
    "player_other",
)

STRONG_PASSWORD = "zebra-lantern-quartz-97"
DEFAULT: Any = object()


@dataclass
class World:
    users: dict[str, User]
    tokens: dict[str, str]
    player_self: Player
    player_other: Player
    closed_table: Table
    open_table: Table
    fill: Slip
    credit: Slip

    def client(self, role: str | None) -> APIClient:
        """A client signed in as ``role`` (a key of ROLES), anonymous for None, or with a
        token nobody was issued for ``"unknown_token"``."""
        client = APIClient()
        if role is not None:
            token = "no-such-token" if role == "unknown_token" else self.tokens[role]
            client.credentials(HTTP_AUTHORIZATION=f"Token {token}")
        return client


def build_world() -> World:
    users = {
        "admin": factories.staff(Role.ADMIN),
        "pit_boss": factories.staff(Role.PIT_BOSS),
        "dealer_assigned": factories.staff(Role.DEALER),
        "dealer_other": factories.staff(Role.DEALER),
        "cashier": factories.staff(Role.CASHIER),
        "auditor": factories.staff(Role.AUDITOR),
        "count_team": factories.staff(Role.COUNT_TEAM),
    }
    player_self = factories.PlayerFactory(actor=users["cashier"], funded=50_000)
    player_other = factories.PlayerFactory(actor=users["cashier"], funded=20_000)
    users["player_self"] = player_self.user
    users["player_other"] = player_other.user
    dealer, boss = users["dealer_assigned"], users["pit_boss"]
    closed_table = factories.TableFactory(actor=boss, name=f"Closed Faro {RUN}", dealer=dealer)
    open_table = factories.TableFactory(actor=boss, name=f"Open Faro {RUN}", dealer=dealer)
    factories.open_table_for(open_table, inventory=100_000)
    seat_player(actor=dealer, table_id=open_table.pk, player_id=player_other.pk, seat=1)
    fill = request_transit_slip(actor=dealer, table_id=open_table.pk, kind=SlipKind.FILL, amount=10_000)
    credit = request_transit_slip(actor=dealer, table_id=open_table.pk, kind=SlipKind.CREDIT, amount=5_000)
    tokens = {role: factories.token_for(user) for role, user in users.items()}
    return World(
        users=users,
        tokens=tokens,
        player_self=player_self,
        player_other=player_other,
        closed_table=closed_table,
        open_table=open_table,
        fill=fill,
        credit=credit,
    )


@dataclass(frozen=True)
class Endpoint:
    """One API.md endpoint and a request to it that succeeds for a role allowed to make it."""

    name: str
    method: str
    path: Callable[[World], str]
    body: Callable[[World], Any] | None = None

    def send(
        self,
        world: World,
        role: str | None,
        *,
        body: Any = DEFAULT,
        raw: bytes | None = None,
        path: str | None = None,
        headers: dict[str, str] | None = None,
    ) -> Any:
        """Send the request as ``role``; ``body`` replaces the JSON body, ``raw`` sends bytes as is."""
        client = world.client(role)
        url = path if path is not None else self.path(world)
        extra = {"headers": headers} if headers else {}
        if raw is not None:
            return client.generic(self.method.upper(), url, raw, content_type="application/json", **extra)
        data = (self.body(world) if self.body else None) if body is DEFAULT else body
        if data is None:
            return getattr(client, self.method)(url, **extra)
        return getattr(client, self.method)(url, data, format="json", **extra)


def _player(w: World) -> str:
    return f"/api/v1/players/{w.player_self.pk}"


def _open(w: World) -> str:
    return f"/api/v1/tables/{w.open_table.pk}"


ENDPOINTS: dict[str, Endpoint] = {
    endpoint.name: endpoint
    for endpoint in [
        Endpoint("GET /me", "get", lambda w: "/api/v1/me"),
        Endpoint(
            "POST /staff",
            "post",
            lambda w: "/api/v1/staff",
            lambda w: {
                "username": f"newstaff-{RUN}",
                "password": STRONG_PASSWORD,
                "name": "New Staff",
                "role": "dealer",
            },
        ),
        Endpoint(
            "POST /players",
            "post",
            lambda w: "/api/v1/players",
            lambda w: {"username": f"newplayer-{RUN}", "password": STRONG_PASSWORD, "name": "New Player"},
        ),
        Endpoint("GET /players", "get", lambda w: "/api/v1/players"),
        Endpoint("GET /players/{id}", "get", _player),
        Endpoint("GET /players/{id}/balance", "get", lambda w: f"{_player(w)}/balance"),
        Endpoint("GET /players/{id}/transactions", "get", lambda w: f"{_player(w)}/transactions"),
        Endpoint(
            "POST /cage/buy-ins",
            "post",
            lambda w: "/api/v1/cage/buy-ins",
            lambda w: {"player": w.player_self.pk, "amount": 10_000},
        ),
        Endpoint(
            "POST /cage/cash-outs",
            "post",
            lambda w: "/api/v1/cage/cash-outs",
            lambda w: {"player": w.player_self.pk, "amount": 5_000},
        ),
        Endpoint(
            "POST /tables",
            "post",
            lambda w: "/api/v1/tables",
            lambda w: {"name": f"New Faro {RUN}", "game": "faro", "min_bet": 500, "max_bet": 50_000},
        ),
        Endpoint("GET /tables", "get", lambda w: "/api/v1/tables"),
        Endpoint("GET /tables/{id}", "get", _open),
        Endpoint(
            "PATCH /tables/{id}/limits",
            "patch",
            lambda w: f"{_open(w)}/limits",
            lambda w: {"min_bet": 1_000, "max_bet": 100_000},
        ),
        Endpoint(
            "POST /tables/{id}/assign",
            "post",
            lambda w: f"/api/v1/tables/{w.closed_table.pk}/assign",
            lambda w: {"dealer": w.users["dealer_other"].pk},
        ),
        Endpoint(
            "POST /tables/{id}/open",
            "post",
            lambda w: f"/api/v1/tables/{w.closed_table.pk}/open",
            lambda w: {"opening_inventory": 100_000},
        ),
        Endpoint(
            "POST /tables/{id}/close",
            "post",
            lambda w: f"{_open(w)}/close",
            lambda w: {"closing_inventory": 100_000},
        ),
        Endpoint(
            "POST /tables/{id}/fills", "post", lambda w: f"{_open(w)}/fills", lambda w: {"amount": 10_000}
        ),
        Endpoint(
            "POST /tables/{id}/credits", "post", lambda w: f"{_open(w)}/credits", lambda w: {"amount": 5_000}
        ),
        Endpoint(
            "POST /tables/{id}/fills/{id}/approve",
            "post",
            lambda w: f"{_open(w)}/fills/{w.fill.pk}/approve",
            lambda w: {},
        ),
        Endpoint(
            "POST /tables/{id}/fills/{id}/refuse",
            "post",
            lambda w: f"{_open(w)}/fills/{w.fill.pk}/refuse",
            lambda w: {"note": "tray is full enough"},
        ),
        Endpoint(
            "POST /tables/{id}/credits/{id}/approve",
            "post",
            lambda w: f"{_open(w)}/credits/{w.credit.pk}/approve",
            lambda w: {},
        ),
        Endpoint(
            "POST /tables/{id}/credits/{id}/refuse",
            "post",
            lambda w: f"{_open(w)}/credits/{w.credit.pk}/refuse",
            lambda w: {"note": "keep the chips"},
        ),
        Endpoint(
            "POST /tables/{id}/seats",
            "post",
            lambda w: f"{_open(w)}/seats",
            lambda w: {"player": w.player_self.pk, "seat": 3},
        ),
        Endpoint(
            "POST /tables/{id}/cash-buy-ins",
            "post",
            lambda w: f"{_open(w)}/cash-buy-ins",
            lambda w: {"player": w.player_self.pk, "amount": 5_000},
        ),
        Endpoint(
            "DELETE /tables/{id}/seats/{player}",
            "delete",
            lambda w: f"{_open(w)}/seats/{w.player_other.pk}",
        ),
    ]
}
