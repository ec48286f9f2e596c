"""``Idempotency-Key`` for money-moving POSTs: the first response is stored and replayed.

The record is inserted in the same transaction as the change, so a retry racing the first
request waits on the unique index and then replays its committed response; if the first
request failed, nothing was stored and the retry runs afresh.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable

from django.db import transaction
from rest_framework.request import Request
from rest_framework.response import Response

from casino.errors import Conflict, ValidationFailed
from casino.models import IdempotencyRecord
from casino.permissions import signed_in

HEADER = "Idempotency-Key"


def _request_hash(request: Request) -> str:
    try:
        body = json.dumps(request.data, sort_keys=True, default=str)
    except TypeError:
        body = repr(request.data)
    return hashlib.sha256(f"{request.method} {request.path}\n{body}".encode()).hexdigest()


def run_idempotent(request: Request, handler: Callable[[], Response]) -> Response:
    """Run ``handler`` once per key; replay its response for retries with the same body."""
    key = request.headers.get(HEADER)
    if key is None:
        return handler()
    key = key.strip()
    if not key or len(key) > 200 or not key.isprintable():  # NUL and control characters can't be stored
        raise ValidationFailed(
            "Idempotency-Key must be 1 to 200 printable characters.", code="bad_idempotency_key"
        )
    digest = _request_hash(request)
    with transaction.atomic():
        record, created = IdempotencyRecord.objects.get_or_create(
            user=signed_in(request),
            key=key,
            defaults={"method": request.method or "", "path": request.path, "request_hash": digest},
        )
        if not created:
            record = IdempotencyRecord.objects.select_for_update().get(pk=record.pk)
            if record.request_hash != digest:
                raise Conflict(
                    "This Idempotency-Key was already used with a different request.",
                    code="idempotency_conflict",
                )
            if record.status_code is not None:
                replay = Response(record.response_body, status=record.status_code)
                replay["Idempotent-Replayed"] = "true"
                return replay
        response = handler()
        if response.status_code < 400:
            record.status_code = response.status_code
            record.response_body = response.data
            record.save(update_fields=["status_code", "response_body"])
        else:
            transaction.set_rollback(True)
        return response
