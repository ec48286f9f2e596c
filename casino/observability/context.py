"""The current request's id and address, set by middleware or a Celery signal.

Kept free of Django models: logging is configured before the apps load.
"""

from __future__ import annotations

import contextvars
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class RequestInfo:
    request_id: str = ""
    remote_addr: str | None = None


NO_REQUEST = RequestInfo()
# The default is immutable (a frozen dataclass), so sharing it between contexts is safe.
current_request: contextvars.ContextVar[RequestInfo] = contextvars.ContextVar(
    "current_request",
    default=NO_REQUEST,
)
