"""One-time form tokens: a double tap on the console replays the first outcome, never posts twice.

Every form carries a token made when the page was rendered; it is the key of
``casino.idempotency.run_once`` (claim, store the outcome in the same transaction, replay).
The same token with a different form body is a conflict (the screen is stale): it moves nothing.
"""

from __future__ import annotations

import re
import secrets
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from django.http import HttpRequest

from casino.errors import ValidationFailed
from casino.idempotency import Replayed, fingerprint, run_once

KEY_PREFIX = "console:"
_TOKEN = re.compile(r"^[A-Za-z0-9_-]{16,100}$")
IGNORED_FIELDS = frozenset({"csrfmiddlewaretoken", "token"})


def new_token() -> str:
    return secrets.token_urlsafe(18)


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a console action did, as shown to the dealer; ``replayed`` when a retry hit a used token."""

    result: dict[str, Any]
    replayed: bool = False


def run_tap(request: HttpRequest, action: Callable[[], dict[str, Any]]) -> Outcome:
    """Run ``action`` once per (user, form token); later posts of that token get its stored result."""
    token = request.POST.get("token", "")
    if not _TOKEN.match(token):
        raise ValidationFailed("This form has no valid one-time token; reload the screen.", code="bad_token")
    outcome = run_once(
        user=request.user,
        key=KEY_PREFIX + token,
        method="POST",
        path=request.path,
        # The form as sent (list values kept in order), without the CSRF and one-time tokens.
        digest=fingerprint(request.path, {k: v for k, v in request.POST.lists() if k not in IGNORED_FIELDS}),
        action=action,
        outcome=lambda result: (200, result),
        conflict_message="This form was already sent with other values; the screen has been refreshed.",
    )
    if isinstance(outcome, Replayed):
        return Outcome(result=outcome.body, replayed=True)
    return Outcome(result=outcome)
