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
class Done:
    """What a tap's one service call did: its receipt (``taps.receipt``), stored with the token
    and shown again to a retry, and what it ``made`` (the round as an action saved it …), which
    the answer draws from and which is not stored."""

    receipt: dict[str, Any]
    made: Any = None


@dataclass(frozen=True, slots=True)
class Outcome:
    """What a console action did, as shown to the dealer; ``replayed`` when a retry hit a used
    token (then nothing was ``made`` by this request: its answer reads what it shows)."""

    result: dict[str, Any]
    replayed: bool = False
    made: Any = None


def run_tap(request: HttpRequest, action: Callable[[], Done]) -> Outcome:
    """Run ``action`` once per (user, form token); later posts of that token get its stored receipt."""
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
        outcome=lambda done: (200, done.receipt),
        conflict_message="This form was already sent with other values; the screen has been refreshed.",
    )
    if isinstance(outcome, Replayed):
        return Outcome(result=outcome.body, replayed=True)
    return Outcome(result=outcome.receipt, made=outcome.made)
