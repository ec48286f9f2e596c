"""System exceptions written by code the casino does not own, sent to the action log: a lockout
(django-axes) and a change made in the Django admin (its LogEntry), each with who and when."""

from __future__ import annotations

from typing import Any

from axes.signals import user_locked_out
from django.contrib.admin.models import ADDITION, CHANGE, LogEntry
from django.db.models.signals import post_save

VERBS = {ADDITION: "added", CHANGE: "changed"}


def record_lockout(sender: Any, request: Any = None, username: str | None = None, **kwargs: Any) -> None:
    """axes' ``user_locked_out``: the account locked out, and when (the request's id and address
    come with every action-log row)."""
    from casino.action_log import record_action
    from casino.models import User

    user = User.objects.filter(username=username).first() if username else None
    record_action(
        actor=None, action="sign_in.locked_out", obj=user or username or "", data={"username": username}
    )


def record_admin_change(sender: Any, instance: LogEntry, created: bool, **kwargs: Any) -> None:
    """A row the Django admin wrote about an addition, change or deletion: a setting change."""
    if not created:
        return
    from casino.action_log import record_action

    record_action(
        actor=instance.user,
        action=f"admin.{VERBS.get(instance.action_flag, 'deleted')}",
        obj=instance,
        data={
            "model": instance.content_type.model if instance.content_type else "",
            "object": instance.object_repr,
            "change": instance.get_change_message(),
        },
    )


def connect() -> None:
    user_locked_out.connect(record_lockout, dispatch_uid="casino.evidence.lockout")
    post_save.connect(record_admin_change, sender=LogEntry, dispatch_uid="casino.evidence.admin")
