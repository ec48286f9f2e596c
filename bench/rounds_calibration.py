"""Bench-only calibration endpoints for ``bench.rounds_bench`` (never routed in the product).

``bench.rounds_settings`` serves the app with these routes beside its own, under the same
gunicorn and driven by the same client as the Faro actions, so their CPU per request says what a
tap cannot go below in this stack on this machine (issue 22):

* ``POST /bench/bare/<round>``: Django and its middleware answering small JSON, nothing else.
* ``POST /bench/drf-bare/<round>``: the same answer from a DRF view as the product's API serves
  it: the token read and checked (``ExpiringTokenAuthentication``), the body parsed by the API's
  parser, the permission, JSON rendered. What DRF and the token add to a bare Django view.
* ``POST /bench/sql-action/<round>``: only the SQL an action must run, through psycopg with
  prepared statements, no ORM and no DRF: the token, the table's and the round's locks, the
  ledger function moving one cent, one statement inserting the action and its settlement row and
  updating the round, the commit. Run after the bench's checks: its rows are not a real deal.
* ``POST /bench/drf-sql-action/<round>``: the same SQL in a DRF view, the token read by the API's
  authentication: what a tap cannot go below with Django REST Framework, the project's stack.
"""

from __future__ import annotations

import json
import secrets
from typing import Any

import psycopg
from django.db import connection
from django.http import HttpRequest, JsonResponse
from django.urls import include, path
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from casino.models import ApiToken, User
from casino.permissions import actor_of
from casino.tokens import token_digest
from ledger.gaming_day import gaming_day_for
from tables.models import Round, RoundAction, RoundSettlement, Table

_TOKEN = (
    f"SELECT t.user_id, t.expires_at, t.revoked_at, u.is_active FROM {ApiToken._meta.db_table} AS t "
    f"JOIN {User._meta.db_table} AS u ON u.id = t.user_id WHERE t.digest = %s"
)
_LOCK_TABLE = (
    f"SELECT t.id, t.min_bet, t.max_bet FROM {Table._meta.db_table} AS t WHERE t.id = "
    f"(SELECT r.table_id FROM {Round._meta.db_table} AS r WHERE r.id = %s) FOR UPDATE OF t"
)
_LOCK_ROUND = f"SELECT r.version, r.status FROM {Round._meta.db_table} AS r WHERE r.id = %s FOR UPDATE"
_POST_TRANSFER = (
    "SELECT o_transfer_id FROM ledger_post_transfer(%s, %s, %s, %s, %s, %s::jsonb, %s, %s::bigint, "
    "%s::text[], %s::text[], %s::bigint[], %s::bigint[])"
)
_WRITE = f"""
    WITH action AS (
        INSERT INTO {RoundAction._meta.db_table} (round_id, seq, payload, actor_id, at, transfer_id)
        VALUES (%s, %s, %s::jsonb, %s, %s, %s) RETURNING id),
    settled AS (
        INSERT INTO {RoundSettlement._meta.db_table}
               (round_id, action_id, transfer_id, kind, from_account, to_account, amount)
        SELECT %s, action.id, %s, 'bet', %s, %s, %s FROM action)
    UPDATE {Round._meta.db_table} SET version = %s WHERE id = %s
"""


@csrf_exempt
def bare(request: HttpRequest, round_id: int) -> JsonResponse:
    """The framework's own cost per request: the body parsed, a small JSON answer."""
    body = json.loads(request.body)
    return JsonResponse({"round": round_id, "type": body.get("type")})


class DrfBare(APIView):
    """DRF around a view, as every API request has it (the project's default authentication,
    parsers, permission and renderers), answering what ``bare`` answers."""

    def post(self, request: Request, round_id: int) -> Response:
        body: dict[str, Any] = request.data  # type: ignore[assignment]  # the bench sends an object
        return Response({"round": round_id, "type": body.get("type")})


def _cursor() -> psycopg.Cursor[Any]:
    """A server-binding cursor on Django's connection whose ``prepare=True`` statements are prepared
    (with ``DB_PREPARE_THRESHOLD`` empty, Django turns psycopg's preparing off, which also ignores
    ``prepare=True``)."""
    connection.ensure_connection()
    raw = connection.connection
    if raw.prepare_threshold is None:
        raw.prepare_threshold = 2**31 - 1
    return psycopg.Cursor(raw)


def _one(cursor: psycopg.Cursor[Any]) -> Any:
    """The first column of the statement's one row."""
    row = cursor.fetchone()
    if row is None:
        raise LookupError("no row")
    return row[0]


def _one_code(code: str) -> str:
    """A one-element text array literal, written as ``ledger.services`` writes its legs' codes."""
    return '{"' + code.replace("\\", "\\\\").replace('"', '\\"') + '"}'


def _one_cent_action(round_id: int, user_id: int, body: dict[str, Any]) -> int:
    """An action's statements after the token, in one transaction: the table's and the round's
    locks, the ledger function moving 1 cent, the write. The round's new version."""
    now = timezone.now()
    cursor = _cursor()
    with cursor.connection.transaction():
        cursor.execute(_LOCK_TABLE, [round_id], prepare=True).fetchone()
        version = _one(cursor.execute(_LOCK_ROUND, [round_id], prepare=True)) + 1
        meta = json.dumps({"round": round_id, "action": version})
        transfer = _one(
            cursor.execute(
                _POST_TRANSFER,
                [
                    f"calibration:{secrets.token_hex(8)}",
                    "bet",
                    "calibration",
                    now,
                    gaming_day_for(now),
                    meta,
                    secrets.token_hex(32),
                    None,
                    _one_code(body["debit"]),
                    _one_code(body["credit"]),
                    "{1}",
                    "{NULL}",
                ],
                prepare=True,
            )
        )
        payload = json.dumps({"type": "bet", "amount": 1})
        cursor.execute(
            _WRITE,
            [
                round_id,
                version,
                payload,
                user_id,
                now,
                transfer,
                round_id,
                transfer,
                body["debit"],
                body["credit"],
                1,
                version,
                round_id,
            ],
            prepare=True,
        )
    return version


@csrf_exempt
def sql_action(request: HttpRequest, round_id: int) -> JsonResponse:
    """An action's statements and nothing else (see the module docstring); 1 cent each time."""
    body = json.loads(request.body)
    key = request.headers["Authorization"].split()[1]
    token = _cursor().execute(_TOKEN, [token_digest(key)], prepare=True).fetchone()
    if token is None or token[2] is not None or token[1] <= timezone.now() or not token[3]:
        return JsonResponse({"error": "token"}, status=401)
    return JsonResponse({"round": round_id, "version": _one_cent_action(round_id, token[0], body)})


class DrfSqlAction(APIView):
    """``sql_action`` in a DRF view as the API has it: the floor of a tap in this stack."""

    def post(self, request: Request, round_id: int) -> Response:
        body: dict[str, Any] = request.data  # type: ignore[assignment]  # the bench sends an object
        version = _one_cent_action(round_id, actor_of(request).pk, body)
        return Response({"round": round_id, "version": version})


urlpatterns = [
    path("bench/bare/<int:round_id>", bare),
    path("bench/drf-bare/<int:round_id>", DrfBare.as_view()),
    path("bench/sql-action/<int:round_id>", sql_action),
    path("bench/drf-sql-action/<int:round_id>", DrfSqlAction.as_view()),
    path("", include("casino.urls")),
]
handler400 = "casino.error_pages.bad_request"
handler403 = "casino.error_pages.permission_denied"
handler404 = "casino.error_pages.page_not_found"
handler500 = "casino.error_pages.server_error"
