"""The action log: every state-changing service records who did what, in its own transaction.

"Audit" in this code base means the end-of-night audit (``tables.audit``); this is the log of
actions it and the admin read.
"""

from __future__ import annotations

from typing import Any

from casino.models import ActionLog
from casino.observability.context import current_request


def record_action(*, actor: Any, action: str, obj: Any, data: dict[str, Any] | None = None) -> ActionLog:
    """One row for ``action`` on ``obj``, with the request id and client address it came from."""
    info = current_request.get()
    return ActionLog.objects.create(
        actor=actor if getattr(actor, "pk", None) else None,
        action=action,
        object_type=type(obj).__name__.lower(),
        object_id=str(getattr(obj, "pk", obj)),
        data=data or {},
        request_id=info.request_id,
        remote_addr=info.remote_addr,
    )
