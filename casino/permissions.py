"""Who may do what: role checks, the floor's policy table, and ``access_*`` helpers (Zulip style).

The floor's rules (``FLOOR_POLICY``) are the "Who may do what" table of docs/roles.md, read off
API.md; services enforce them, the console and its templates ask the same table what to
show, and tests/api/test_permissions.py checks every cell over HTTP.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from casino import sql
from casino.errors import Forbidden, NotFound, SeparationOfDuties
from casino.models import STAFF_ROLES, Player, Role, User
from casino.rows import instances_from_row, one_row
from ledger.models import Account


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


def _player_from(statement: str, params: list[Any]) -> Player | None:
    """The player ``statement`` (one of ``casino.sql``'s ``PLAYER_*``) finds, user and wallet
    attached; None if none."""
    row = one_row(statement, params)
    if row is None:
        return None
    player, player.user, player.wallet = instances_from_row(
        row, (Player, sql.PLAYER_FIELDS), (User, sql.USER_FIELDS), (Account, sql.WALLET_FIELDS)
    )
    return player


def access_player(*, user: Any, player_id: int | str) -> Player:
    """Staff see any player; a player sees only themselves (others are 404, never 403).

    ``me`` stands for the signed-in player.
    """
    role = role_of(user)
    if player_id == "me":
        player = _player_from(sql.PLAYER_OF_USER, [user.pk]) if user.pk is not None else None
        if player is None:
            raise NotFound("You are not a player.")
        return player
    if isinstance(player_id, bool) or not isinstance(player_id, int):
        # Ids arrive parsed by the <player:> path converter; text here was never a canonical id.
        raise NotFound("No such player.")
    if role == Role.PLAYER:
        player = _player_from(sql.PLAYER_BY_ID_OF_USER, [player_id, user.pk])
    elif role in STAFF_ROLES:
        player = _player_from(sql.PLAYER_BY_ID, [player_id])
    else:
        raise NotFound("No such player.")
    if player is None:
        raise NotFound("No such player.")
    return player


def actor_of(request: Any) -> User:
    """The request's user: API views run behind IsAuthenticated and screens behind
    ``casino.signed_in``, so it is never anonymous."""
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
    # A shift-change or spot count of an open table's tray (API.md "Chips, counts and slips").
    "table.count": Rule(
        frozenset({ASSIGNED_DEALER, Role.PIT_BOSS}),
        "Only the dealer assigned to this table or a pit boss may count its tray.",
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
    # The drop and the count (API.md 2026-12). A dealer sells chips for cash at their own table;
    # the count team, independent of the pit and the cage, removes and counts the drop boxes.
    "table.cash_buy_in": Rule(
        frozenset({ASSIGNED_DEALER}), "Only the dealer assigned to this table may sell chips for cash there."
    ),
    "drop.read": Rule(
        frozenset({Role.PIT_BOSS, Role.COUNT_TEAM, Role.AUDITOR}),
        "Only a pit boss, the count team or an auditor may read the drop boxes.",
    ),
    "drop.remove": Rule(frozenset({Role.COUNT_TEAM}), "Only the count team may remove a drop box."),
    "drop.count": Rule(frozenset({Role.COUNT_TEAM}), "Only the count team may count a drop box."),
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


# --------------------------------------------------------------------------- screens and the nav


@dataclass(frozen=True, slots=True)
class Screen:
    """A page of the web console: its name in the nav, its URL name and who may open it.

    ``url_name`` is a Django URL name (the casino domain imports nothing of ``tables``);
    ``fragment`` points at a section of that page. ``nav`` is the roles whose nav lists it (all
    of ``who`` unless given): a screen another entry already leads to stays off that nav.
    """

    label: str
    url_name: str
    who: frozenset[str]
    fragment: str = ""
    nav: frozenset[str] | None = None

    @property
    def listed_for(self) -> frozenset[str]:
        return self.who if self.nav is None else self.nav


# One table for three things: who may open each screen (the views ask ``require_screen``), the
# nav bar each role sees (``screens_for``, in this order) and each role's home after sign-in
# (its first screen). The pit's sections follow the floor policy of what they decide.
SCREENS: dict[str, Screen] = {
    "tables": Screen("My tables", "console:home", frozenset({Role.DEALER})),
    "count": Screen("Count room", "count:home", roles_for("drop.count")),
    "me": Screen("My balance", "console:me", frozenset({Role.PLAYER})),
    "cage": Screen("Cage", "cage:home", frozenset({Role.CASHIER})),
    "floor": Screen("Floor", "pit:home", frozenset({Role.PIT_BOSS, Role.ADMIN, Role.CASHIER})),
    # The cashier decides fills and credits at the cage, the pit boss in the pit view (an admin
    # sees them waiting there); the audit and the cage's money are not an admin's (API.md).
    "approvals": Screen(
        "Approvals",
        "pit:home",
        (roles_for("tray.decide") | {Role.ADMIN}) - {Role.CASHIER},
        fragment="pending-title",
    ),
    "corrections": Screen(
        "Corrections", "pit:home", roles_for("correction.decide"), fragment="corrections-title"
    ),
    "alerts": Screen("Alerts", "pit:home", frozenset({Role.PIT_BOSS, Role.ADMIN}), fragment="alerts-title"),
    "audit": Screen("Audit days", "audit:index", frozenset({Role.AUDITOR, Role.PIT_BOSS})),
    # Read only, for whoever may read alerts (API.md: pit_boss, auditor); the pit boss's nav
    # already has Alerts, the pit's own list, where they are resolved.
    "audit_alerts": Screen(
        "Alerts", "pit:alerts", frozenset({Role.AUDITOR, Role.PIT_BOSS}), nav=frozenset({Role.AUDITOR})
    ),
    # The Django admin: read-only views for the pit boss, everything for an admin (casino.admin_access).
    "admin": Screen("Admin", "admin:index", frozenset({Role.ADMIN, Role.PIT_BOSS})),
}

ADMIN_SITE_ROLES = SCREENS["admin"].who
"""Roles made ``is_staff`` (allowed into the Django admin) when their account is created."""

# Models a pit boss may view (never change) in the admin: what the pit view links to.
PIT_ADMIN_VIEWS = frozenset(
    {
        "tables.table",
        "tables.tablesession",
        "tables.trayrequest",
        "tables.round",
        "casino.player",
        "ledger.transfer",
        "casino.actionlog",
    }
)


def may_open(user: Any, screen: str) -> bool:
    return role_of(user) in SCREENS[screen].who


def screens_for(user: Any) -> list[Screen]:
    """The nav bar of ``user``'s role: the screens listed for it, in the table's order."""
    return [screen for screen in SCREENS.values() if role_of(user) in screen.listed_for]


def role_home(role: str) -> Screen | None:
    """Where ``role`` lands after signing in: the first screen of its nav."""
    return next((screen for screen in SCREENS.values() if role in screen.who), None)


def home_screen(user: Any) -> Screen | None:
    """Where ``user`` lands after signing in: the first screen of their nav."""
    return role_home(role_of(user))
