"""The count team's independence, read off the policy table itself (``casino.permissions``): it
removes, counts and reads the drop boxes and nothing else of the floor's rules, and its one
screen is the count room. tests/api/test_permissions.py checks each endpoint over HTTP."""

from __future__ import annotations

from casino.models import STAFF_ROLES, Role
from casino.permissions import ASSIGNED_DEALER, FLOOR_POLICY, SCREENS, role_home

MONEY_AND_PLAY = (
    "table.open_close",
    "table.seat",
    "tray.request",
    "tray.decide",
    "table.count",
    "round.deal",
    "correction.request",
    "correction.decide",
    "table.cash_buy_in",
)


def test_the_count_team_may_do_only_the_drop() -> None:
    theirs = {action for action, rule in FLOOR_POLICY.items() if Role.COUNT_TEAM in rule.who}

    assert theirs == {"drop.read", "drop.remove", "drop.count"}
    for action in MONEY_AND_PLAY:
        assert Role.COUNT_TEAM not in FLOOR_POLICY[action].who, action


def test_only_the_count_team_removes_and_counts_and_only_a_dealer_sells_for_cash() -> None:
    assert FLOOR_POLICY["drop.remove"].who == {Role.COUNT_TEAM}
    assert FLOOR_POLICY["drop.count"].who == {Role.COUNT_TEAM}
    assert FLOOR_POLICY["drop.read"].who == {Role.PIT_BOSS, Role.COUNT_TEAM, Role.AUDITOR}
    assert FLOOR_POLICY["table.cash_buy_in"].who == {ASSIGNED_DEALER}


def test_the_count_team_is_staff_and_lands_in_the_count_room_alone() -> None:
    assert Role.COUNT_TEAM in STAFF_ROLES
    home = role_home(Role.COUNT_TEAM)
    assert home is SCREENS["count"]
    assert home.url_name == "count:home"
    assert [name for name, screen in SCREENS.items() if Role.COUNT_TEAM in screen.who] == ["count"]
    assert SCREENS["count"].who == {Role.COUNT_TEAM}


def test_every_role_has_a_home() -> None:
    assert {role for role in Role if role_home(role) is None} == set()
