"""The demo and the simulated night go only into a database that holds no real play.

Real play: ledger transfers or rounds without the sandbox mark (``casino.models.Sandbox``) the
two commands write when they begin on a database that holds no play
(``tables.simulation.sandbox``). Here it is made as on a live floor, through the services: a
cage buy-in, a table opened on its counted tray and a round dealt with a bet on it. Both
commands refuse it in words and change nothing; both go on with ``--allow-real-play``.
"""

from __future__ import annotations

import io
from typing import Any

import pytest
from django.apps import apps
from django.core.management import CommandError, call_command
from django.db import IntegrityError, transaction

from casino.models import Player, Sandbox, User
from casino.services import buy_in
from ledger.models import Transfer
from tables.models import Round, Table
from tables.rounds import apply_round_action, start_round
from tables.services import seat_player
from tests.factories import open_table_for

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("system_accounts", "task_queue")]

SMALL_NIGHT = {"tables": 1, "players": 4, "rounds": 1, "games": "faro", "verbosity": 0}
REFUSAL = (
    r"This database holds real play: {transfers} ledger transfers and 1 round, and no mark that the "
    r"demo or a simulated night made them\. {command} would add made-up players, tables and chips "
    r"to it\. Run it on an empty database, or pass --allow-real-play to add them anyway\."
)


@pytest.fixture
def real_play(cashier: User, player: Player, table: Table, dealer: User) -> None:
    """A buy-in at the cage, a table opened and a Faro deal with a bet on it, as a floor makes them."""
    buy_in(actor=cashier, player=player, amount=50_000)
    open_table_for(table)
    seat_player(actor=dealer, table_id=table.pk, player_id=player.pk)
    deal = start_round(actor=dealer, table_id=table.pk, shoe="electronic")
    bet = {"type": "bet", "player": player.pk, "ranks": ["K"], "amount": 1_000}
    apply_round_action(actor=dealer, round_id=deal.pk, action=bet)


def every_row() -> dict[str, int]:
    return {model._meta.label: model._default_manager.count() for model in apps.get_models()}


def run(command: str, **options: Any) -> str:
    out = io.StringIO()
    call_command(command, stdout=out, **options)
    return out.getvalue()


@pytest.mark.usefixtures("real_play")
@pytest.mark.parametrize(("command", "options"), [("simulate_night", SMALL_NIGHT), ("load_demo_data", {})])
def test_a_database_with_real_play_is_refused_in_words_and_nothing_changes(
    command: str, options: dict[str, Any]
) -> None:
    before = every_row()
    refusal = REFUSAL.format(transfers=Transfer.objects.count(), command=command)
    assert Transfer.objects.count() > 1
    with pytest.raises(CommandError, match=refusal):
        run(command, **options)
    assert every_row() == before


@pytest.mark.usefixtures("real_play")
def test_the_night_goes_on_with_real_play_when_told_and_leaves_it_unmarked() -> None:
    tables = Table.objects.count()
    assert "Night done" in run("simulate_night", allow_real_play=True, **SMALL_NIGHT)
    assert Table.objects.count() == tables + 1
    assert Round.objects.count() > 1
    assert not Sandbox.objects.exists(), "real play stays real: the next run asks again"
    with pytest.raises(CommandError, match="This database holds real play"):
        run("simulate_night", **SMALL_NIGHT)


@pytest.mark.usefixtures("real_play")
def test_the_demo_loads_beside_real_play_when_told_and_leaves_it_unmarked() -> None:
    assert "Demo data ready" in run("load_demo_data", allow_real_play=True)
    assert User.objects.filter(username="dealer").exists()
    assert Table.objects.filter(name="Faro 1").exists()
    assert not Sandbox.objects.exists()


def test_a_night_on_an_empty_database_marks_it_and_a_second_night_follows() -> None:
    assert not Round.objects.exists()
    assert "Night done" in run("simulate_night", **SMALL_NIGHT)
    assert Sandbox.objects.get().marked_by == "simulate_night"
    first = Round.objects.count()
    assert first > 0
    assert "Night done" in run("simulate_night", **{**SMALL_NIGHT, "seed": 2})
    assert Round.objects.count() > first


def test_the_demo_marks_its_database_and_a_night_may_follow_it() -> None:
    assert "Demo data ready" in run("load_demo_data")
    assert Sandbox.objects.get().marked_by == "load_demo_data"
    rounds = Round.objects.count()
    assert "Night done" in run("simulate_night", **SMALL_NIGHT)
    assert Round.objects.count() > rounds


def test_the_mark_is_one_row() -> None:
    Sandbox.objects.create(marked_by="load_demo_data")
    with pytest.raises(IntegrityError, match="casino_sandbox_one_row"), transaction.atomic():
        Sandbox.objects.create(pk=2, marked_by="simulate_night")
