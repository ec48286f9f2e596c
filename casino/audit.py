"""The action log: every state-changing service records who did what, in its own transaction."""

from __future__ import annotations

import contextvars
from dataclasses import dataclass
from typing import Any

from casino.models import AuditLog


@dataclass(frozen=True, slots=True)
class RequestInfo:
    request_id: str = ""
    remote_addr: str | None = None


current_request: contextvars.ContextVar[RequestInfo] = contextvars.ContextVar(
    "current_request", default=RequestInfo()
)


def record_audit(*, actor: Any, action: str, obj: Any, data: dict[str, Any] | None = None) -> AuditLog:
    info = current_request.get()
    return AuditLog.objects.create(
        actor=actor if getattr(actor, "pk", None) else None,
        action=action,
        object_type=type(obj).__name__.lower(),
        object_id=str(getattr(obj, "pk", obj)),
        data=data or {},
        request_id=info.request_id,
        remote_addr=info.remote_addr,
    )
