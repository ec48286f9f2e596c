"""The action log: every state-changing service records who did what, in its own transaction."""

from __future__ import annotations

from typing import Any

from casino.models import AuditLog
from casino.observability.context import current_request


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
