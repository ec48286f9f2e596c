"""Signing in and out of the console, the one door to every screen (the dealer's, the pit, the
cage, the audit, a player's page): after signing in each role lands on its home."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.views import LoginView, LogoutView
from django.urls import reverse

from casino.models import Role
from casino.permissions import SCREENS, role_home


class ConsoleLoginView(LoginView):
    template_name = "console/login.html"
    redirect_authenticated_user = True

    def get_context_data(self, **kwargs: Any) -> dict[str, Any]:
        return {**super().get_context_data(**kwargs), "role_homes": role_homes()}

    def get_default_redirect_url(self) -> str:
        return reverse("console:home")


def role_homes() -> list[tuple[str, str]]:
    """Who lands where after signing in ("pit bosses and admins", "Floor"), in the nav's order, read
    from the one table of homes (``casino.permissions.role_home``) so the sign-in page cannot
    promise a screen that sign-in does not open."""
    homes = []
    for screen in SCREENS.values():
        roles = [_plural(role.label) for role in Role if role_home(role) is screen]
        if roles:
            homes.append((" and ".join(roles), screen.label))
    return homes


def _plural(role: str) -> str:
    """A role's name for many of them: "Pit boss" → "pit bosses"."""
    return f"{role.lower()}{'es' if role.endswith('s') else 's'}"


class ConsoleLogoutView(LogoutView):
    next_page = "console:login"
