"""casino.selectors.players_named: engines name players by id; every refusal a person reads names them."""

from __future__ import annotations

import pytest

from casino.models import Role
from casino.selectors import people_named, players_named
from tests import factories
from tests.factories import PlayerFactory

pytestmark = pytest.mark.django_db


def test_ids_become_names_and_seats_go() -> None:
    kate, doc = PlayerFactory(), PlayerFactory()
    message = f"It is player {kate.pk} (seat 3)'s turn, not Player {doc.pk}'s."

    assert players_named(message) == f"It is {kate.name}'s turn, not {doc.name}'s."


@pytest.mark.parametrize("ref", ["player 999999999", f"player {2**70}", "player 0"])
def test_an_id_that_is_no_player_stays_as_it_was(ref: str) -> None:
    # An id beyond a bigint reaches no query: a refusal never turns into a 500.
    assert players_named(f"{ref} has not passed.") == f"{ref} has not passed."


def test_a_message_without_players_reads_nothing(django_assert_num_queries: object) -> None:
    with django_assert_num_queries(0):  # type: ignore[operator]
        assert players_named("A♥ A♦ is not a spread.") == "A♥ A♦ is not a spread."


def test_staff_are_named_by_role_or_alone() -> None:
    # "staff 7" is for a person whose role the message does not know (an approver): the name alone
    dealer, boss = factories.staff(Role.DEALER), factories.staff(Role.PIT_BOSS)
    messages = [
        f"Dealer {dealer.pk}: hold 32% on $5,380.00.",
        f"Fills requested by dealer {dealer.pk} were all approved by staff {boss.pk}.",
        f"Signed by pit boss {boss.pk}.",
    ]
    assert people_named(messages) == [
        f"Dealer {dealer.name}: hold 32% on $5,380.00.",
        f"Fills requested by dealer {dealer.name} were all approved by {boss.name}.",
        f"Signed by pit boss {boss.name}.",
    ]
