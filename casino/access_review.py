"""The staff access review (25 CFR 543.16(c), quarterly): every staff account, its role, when it
was made and last signed in, whether it may sign in, and every change of its role or access."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from django.db.models import Q

from casino.models import STAFF_ROLES, ActionLog, User

ROLE_CHANGES = ("staff.role_changed", "user.credentials_revoked", "staff.created")


def access_review() -> list[dict[str, Any]]:
    staff = list(
        User.objects.filter(Q(role__in=list(STAFF_ROLES)) | Q(is_superuser=True) | Q(is_staff=True)).order_by(
            "username"
        )
    )
    changes: dict[str, list[dict[str, Any]]] = defaultdict(list)
    log = ActionLog.objects.filter(
        object_type="user", object_id__in=[str(u.pk) for u in staff], action__in=ROLE_CHANGES
    ).select_related("actor")
    for entry in log.order_by("at", "id"):
        changed = set(entry.data.get("changed", []))
        if entry.action == "user.credentials_revoked" and not {"role", "is_active"} & changed:
            continue
        changes[entry.object_id].append(
            {
                "at": entry.at,
                "action": entry.action,
                "by": entry.actor.username if entry.actor else None,
                "data": entry.data,
            }
        )
    return [
        {
            "user": {"id": user.pk, "username": user.username, "name": user.name},
            "role": user.effective_role,
            "created": user.date_joined,
            "last_sign_in": user.last_login,
            "active": user.is_active,
            "role_changes": changes.get(str(user.pk), []),
        }
        for user in staff
    ]
