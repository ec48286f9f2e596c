"""Role checks and ``access_*`` helpers: fetch and authorize in one step (Zulip style)."""

from __future__ import annotations

from typing import Any

from casino.errors import Forbidden, NotFound
from casino.models import STAFF_ROLES, Player, Role, User


def role_of(user: Any) -> str:
    return str(user.effective_role)


def require_role(user: Any, *roles: str) -> None:
    """403 unless the user holds one of ``roles``."""
    if role_of(user) not in roles:
        allowed = ", ".join(roles)
        raise Forbidden(f"Only {allowed} may do this.", fields={"role": role_of(user)})


def require_staff(user: Any) -> None:
    if role_of(user) not in STAFF_ROLES:
        raise Forbidden("Only casino staff may do this.")


def access_player(*, user: Any, player_id: int | str) -> Player:
    """Staff see any player; a player sees only themselves (others are 404, never 403).

    ``me`` stands for the signed-in player.
    """
    role = role_of(user)
    if player_id == "me":
        player = Player.objects.select_related("user", "wallet").filter(user=user).first()
        if player is None:
            raise NotFound("You are not a player.")
        return player
    try:
        pk = int(player_id)
    except (TypeError, ValueError) as error:
        raise NotFound("No such player.") from error
    query = Player.objects.select_related("user", "wallet").filter(pk=pk)
    if role == Role.PLAYER:
        query = query.filter(user=user)
    elif role not in STAFF_ROLES:
        raise NotFound("No such player.")
    player = query.first()
    if player is None:
        raise NotFound("No such player.")
    return player


def signed_in(request: Any) -> User:
    """The request's user; views run behind IsAuthenticated, so it is never anonymous."""
    user = request.user
    if not isinstance(user, User):
        raise Forbidden("Sign in first.")
    return user
