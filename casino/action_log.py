"""The action log: every state-changing service records who did what, in its own transaction.

"Audit" in this code base means the end-of-night audit (``tables.audit``); this is the log of
actions it and the admin read.
"""

from __future__ import annotations

from typing import Any

from casino.models import ActionLog


def record_action(*, actor: Any, action: str, obj: Any, data: dict[str, Any] | None = None) -> ActionLog:
    """One row for ``action`` on ``obj``, with the request id and client address it came from.

    The row is made by ``ActionLog.objects.record``, so that ``User.save()`` can log the same way.
    """
    return ActionLog.objects.record(actor=actor, action=action, obj=obj, data=data)
