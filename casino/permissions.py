"""Who may do what: role checks, the floor's policy table, and ``access_*`` helpers (Zulip style).

The floor's rules (``FLOOR_POLICY``) are the "Who may do what" table of the README, read off
API.md; services enforce them, the console and its templates ask the same table what to
show, and tests/api/test_permissions.py checks every cell over HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from casino.errors import Forbidden, NotFound, SeparationOfDuties
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
    if isinstance(player_id, bool) or not isinstance(player_id, int):
        # Ids arrive parsed by the <player:> path converter; text here was never a canonical id.
        raise NotFound("No such player.")
    query = Player.objects.select_related("user", "wallet").filter(pk=player_id)
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


# --------------------------------------------------------------------------- the floor's policy

ASSIGNED_DEALER = "assigned_dealer"
"""Not a role: a dealer at a table assigned to them (``table.dealer_id`` is theirs)."""


@dataclass(frozen=True, slots=True)
class Rule:
    who: frozenset[str]  # roles, and ASSIGNED_DEALER
    refusal: str


FLOOR_POLICY: dict[str, Rule] = {
    "table.create": Rule(
        frozenset({Role.ADMIN, Role.PIT_BOSS}), "Only an admin or a pit boss may create a table."
    ),
    "table.limits": Rule(
        frozenset({Role.PIT_BOSS, Role.ADMIN}), "Only a pit boss or an admin may change a table's limits."
    ),
    "table.assign": Rule(frozenset({Role.PIT_BOSS}), "Only a pit boss may assign a dealer."),
    "table.open_close": Rule(
        frozenset({ASSIGNED_DEALER}), "Only the dealer assigned to this table may do this."
    ),
    # A floor supervisor seats players and asks for fills and credits too (API.md, issue 18).
    "table.seat": Rule(
        frozenset({ASSIGNED_DEALER, Role.PIT_BOSS}),
        "Only the dealer assigned to this table or a pit boss may seat or unseat players.",
    ),
    "tray.request": Rule(
        frozenset({ASSIGNED_DEALER, Role.PIT_BOSS}),
        "Only the dealer assigned to this table or a pit boss may ask for a fill or a credit.",
    ),
    # The second signature: never the requester's (require_second_person).
    "tray.decide": Rule(
        frozenset({Role.PIT_BOSS, Role.CASHIER}),
        "Only a pit boss or a cashier may approve or refuse a fill or a credit.",
    ),
    "round.deal": Rule(
        frozenset({ASSIGNED_DEALER}), "Only the dealer assigned to this table may run its rounds."
    ),
    "correction.request": Rule(
        frozenset({ASSIGNED_DEALER}), "Only the dealer assigned to this table may ask for a correction."
    ),
    # MICS: a correction is approved by a supervisor who did not ask for it (require_second_person).
    "correction.decide": Rule(
        frozenset({Role.PIT_BOSS, Role.ADMIN}), "Only a pit boss or an admin may decide a correction."
    ),
}


def may(user: Any, action: str, *, table: Any = None) -> bool:
    """Whether ``user`` may do ``action`` (a key of FLOOR_POLICY), at ``table`` if it matters."""
    who = FLOOR_POLICY[action].who
    role = role_of(user)
    if role in who:
        return True
    return (
        ASSIGNED_DEALER in who
        and role == Role.DEALER
        and table is not None
        and table.dealer_id is not None
        and table.dealer_id == user.pk
    )


def require(user: Any, action: str, *, table: Any = None) -> None:
    """403 with the rule's own words unless ``may``."""
    if not may(user, action, table=table):
        raise Forbidden(FLOOR_POLICY[action].refusal, fields={"role": role_of(user)})


def roles_for(action: str) -> frozenset[str]:
    """The roles that may do ``action`` anywhere (an assigned dealer only at their tables)."""
    return frozenset(who for who in FLOOR_POLICY[action].who if who != ASSIGNED_DEALER)


def require_second_person(*, actor: Any, requested_by_id: int | None, thing: str) -> None:
    """Separation of duties: whoever asked for ``thing`` cannot approve or refuse it."""
    if requested_by_id is not None and requested_by_id == actor.pk:
        raise SeparationOfDuties(f"The person who requested a {thing} cannot approve or refuse it.")
