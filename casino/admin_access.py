"""Admin permissions from the role, not from rows in auth tables.

An admin (superuser or not) may do everything in the Django admin; a pit boss may view (never
change) the models the pit view links to (``casino.permissions.PIT_ADMIN_VIEWS``). Granting
them here keeps them in step with the policy table: no group to create, migrate or forget.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth.backends import BaseBackend

from casino.models import Role
from casino.permissions import PIT_ADMIN_VIEWS


def _role(user: Any) -> str:
    return str(getattr(user, "effective_role", "")) if getattr(user, "is_active", False) else ""


def _pit_view(perm: str) -> bool:
    app_label, _, codename = perm.partition(".")
    action, _, model = codename.partition("_")
    return action == "view" and f"{app_label}.{model}" in PIT_ADMIN_VIEWS


class RoleAdminPermissions(BaseBackend):
    """Permissions only (it authenticates no one): all to an admin, PIT_ADMIN_VIEWS to a pit boss."""

    def has_perm(self, user_obj: Any, perm: str, obj: Any = None) -> bool:
        role = _role(user_obj)
        return role == Role.ADMIN or (role == Role.PIT_BOSS and _pit_view(perm))

    def has_module_perms(self, user_obj: Any, app_label: str) -> bool:
        role = _role(user_obj)
        pit_apps = {view.partition(".")[0] for view in PIT_ADMIN_VIEWS}
        return role == Role.ADMIN or (role == Role.PIT_BOSS and app_label in pit_apps)
