"""One-time form tokens: a double tap on the console replays the first outcome, never posts twice.

Every form carries a token made when the page was rendered. The first POST with it stores
(user, token) → its outcome in ``IdempotencyRecord``, in the same transaction as the
service call, so the outcome and the change commit together or not at all. A second POST
with the same token waits on the unique index while the first is in flight, then replays
what was stored. If the first failed, nothing was stored and the retry runs afresh. The
same token with a different form body is a conflict (the screen is stale): it moves nothing.
"""

from __future__ import annotations

import hashlib
import json
import re
import secrets
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from django.db import transaction

from casino.errors import Conflict, ValidationFailed
from casino.models import IdempotencyRecord

KEY_PREFIX = "console:"
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,100}$")
IGNORED_FIELDS = frozenset({"csrfmiddlewaretoken", "token"})


def new_token() -> str:
    return secrets.token_urlsafe(18)


def body_hash(path: str, data: Mapping[str, list[str]]) -> str:
    """A digest of the form as sent (list values kept in order), without the CSRF and one-time tokens."""
    body = {key: list(values) for key, values in sorted(data.items()) if key not in IGNORED_FIELDS}
    return hashlib.sha256(f"{path}\n{json.dumps(body, sort_keys=True)}".encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a console action did, as shown to the dealer; ``replayed`` when a retry hit a used token."""

    result: dict[str, Any]
    replayed: bool = False


def run_once(
    *, user: Any, token: str, path: str, digest: str, action: Callable[[], dict[str, Any]]
) -> Outcome:
    """Run ``action`` once per (user, token); later calls with that token get its stored result."""
    if not isinstance(token, str) or not _TOKEN.match(token):
        raise ValidationFailed("This form has no valid one-time token; reload the screen.", code="bad_token")
    with transaction.atomic():
        record, created = IdempotencyRecord.objects.get_or_create(
            user=user,
            key=KEY_PREFIX + token,
            defaults={"method": "POST", "path": path[:300], "request_hash": digest},
        )
        if not created:
            record = IdempotencyRecord.objects.select_for_update().get(pk=record.pk)
            if record.request_hash != digest or record.path != path[:300]:
                raise Conflict(
                    "This form was already sent with other values; the screen has been refreshed.",
                    code="idempotency_conflict",
                )
            if record.status_code is not None and isinstance(record.response_body, dict):
                return Outcome(result=record.response_body, replayed=True)
        result = action()
        record.status_code = 200
        record.response_body = result
        record.save(update_fields=["status_code", "response_body"])
        return Outcome(result=result)
