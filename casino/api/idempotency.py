"""``Idempotency-Key`` for money-moving POSTs: the first response is stored and replayed.

The header names the key; the method, path and JSON body are what a retry must repeat.
The claim, the stored response and the replay are ``casino.idempotency.run_once``'s;
a failed first request (4xx) stores nothing, so its retry runs afresh.
"""

from __future__ import annotations

from collections.abc import Callable

from rest_framework.request import Request
from rest_framework.response import Response

from casino.errors import ValidationFailed
from casino.idempotency import Replayed, fingerprint, run_once
from casino.permissions import actor_of

HEADER = "Idempotency-Key"


def _stored(response: Response) -> tuple[int, object] | None:
    return (response.status_code, response.data) if response.status_code < 400 else None


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
    method = request.method or ""
    outcome = run_once(
        user=actor_of(request),
        key=key,
        method=method,
        path=request.path,
        digest=fingerprint(f"{method} {request.path}", request.data),
        action=handler,
        outcome=_stored,
        conflict_message="This Idempotency-Key was already used with a different request.",
    )
    if isinstance(outcome, Replayed):
        replay = Response(outcome.body, status=outcome.status)
        replay["Idempotent-Replayed"] = "true"
        return replay
    return outcome
