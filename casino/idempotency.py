"""Run a write once per (user, key); a retry with the same key replays the stored outcome.

``run_once`` is the one core for the API's ``Idempotency-Key`` header
(``casino/api/idempotency.py``) and the console's one-time form tokens
(``tables/console/idempotency.py``); each adapter only says where the key comes from and how
its outcome is stored and shown.

The claim is an ``IdempotencyRecord`` inserted in the same transaction as the change, so the
change and its stored outcome commit together or not at all. A retry racing the first request
waits on the unique index, then replays the committed outcome; if the first attempt failed,
nothing was stored and the retry runs afresh. The same key with another body (or path) is a
conflict and moves nothing.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.db import connection, transaction

from casino import sql
from casino.errors import Conflict
from casino.models import IdempotencyRecord
from casino.rows import db_values

PATH_MAX = IdempotencyRecord._meta.get_field("path").max_length or 300


def fingerprint(head: str, body: Any) -> str:
    """A digest of what was asked (``head`` names the endpoint), to tell a retry from a new request."""
    try:
        text = json.dumps(body, sort_keys=True, default=str)
    except TypeError:  # keys that cannot be sorted
        text = repr(body)
    return hashlib.sha256(f"{head}\n{text}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Replayed:
    """The stored outcome of the first request with this key."""

    status: int
    body: Any


def run_once[R](
    *,
    user: Any,
    key: str,
    method: str,
    path: str,
    digest: str,
    action: Callable[[], R],
    outcome: Callable[[R], tuple[int, Any] | None],
    conflict_message: str,
) -> R | Replayed:
    """``action()`` once per (user, key), or what its first run stored.

    ``outcome`` turns a fresh result into the ``(status, body)`` to store, or None when the
    result is a failure: then the transaction rolls back and the key stays free for a retry.
    """
    path = path[:PATH_MAX]
    with transaction.atomic():
        record = IdempotencyRecord(user=user, key=key, method=method, path=path, request_hash=digest)
        with connection.cursor() as cursor:
            cursor.execute(sql.CLAIM_KEY, db_values(sql.CLAIMED_FIELDS, record, adding=True))
            claimed = cursor.fetchone()
        if claimed is None:  # an earlier request holds the key: ON CONFLICT waited for it to commit
            record = IdempotencyRecord.objects.select_for_update().get(user=user, key=key)
            if record.request_hash != digest or record.path != path:
                raise Conflict(conflict_message, code="idempotency_conflict")
            if record.status_code is not None:
                return Replayed(status=record.status_code, body=record.response_body)
        else:
            record.pk = claimed[0]
        result = action()
        stored = outcome(result)
        if stored is None:
            transaction.set_rollback(True)
        else:
            record.status_code, record.response_body = stored
            with connection.cursor() as cursor:
                stored_values = db_values(sql.STORED_FIELDS, record, adding=False)
                cursor.execute(sql.STORE_OUTCOME, [*stored_values, record.pk])
        return result
