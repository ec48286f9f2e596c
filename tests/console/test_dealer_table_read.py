"""A dealer's table is read in one plain statement (``tables.selectors.table_with_seats``): it
must hold what the ORM's read holds, for every screen and tap that uses it."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from casino.errors import NotFound
from casino.signed_in import NotAllowed
from tables.console.access import dealer_table
from tables.selectors import access_table, table_with_seats
from tables.services import seat_player, unseat_player
from tests.console.conftest import Floor


def _wallet(seat: object) -> tuple[str, int]:
    wallet = seat.player.wallet  # type: ignore[attr-defined]
    return wallet.code, wallet.balance


def _seats(table: object) -> list[tuple[int, int, str, str, int, int]]:
    return [
        (
            seat.pk,
            seat.number,
            seat.player.name,
            seat.player.wallet.code,
            seat.player.wallet.balance,
            seat.table_id,
        )
        for seat in table.active_seats  # type: ignore[attr-defined]
    ]


def test_it_holds_what_the_orm_read_holds(floor: Floor) -> None:
    floor.open_faro()
    for player in (floor.wyatt, floor.kate):
        seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=player.pk)
    unseat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.wyatt.pk)
    seat_player(
        actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.wyatt.pk
    )  # a seat left, a new one

    plain = table_with_seats(floor.faro.pk)
    orm = access_table(user=floor.pit_boss, table_id=floor.faro.pk)
    assert plain is not None
    fields = [f.attname for f in type(orm)._meta.concrete_fields]
    assert [getattr(plain, name) for name in fields] == [getattr(orm, name) for name in fields]
    assert (plain.tray.pk, plain.tray.code, plain.tray.balance) == (
        orm.tray.pk,
        orm.tray.code,
        orm.tray.balance,
    )
    assert plain.tray.balance == 1_000_000
    assert _seats(plain) == _seats(orm)
    # By seat number: Wyatt took seat 1 again, the lowest free one.
    seated = [(seat.number, seat.player.name) for seat in plain.active_seats]  # type: ignore[attr-defined]
    assert seated == [(1, "Wyatt Earp"), (2, "Kate Elder")]


def test_it_reads_nothing_more_when_its_parts_are_used(floor: Floor) -> None:
    floor.open_faro()
    seat_player(actor=floor.dealer, table_id=floor.faro.pk, player_id=floor.kate.pk)
    with CaptureQueriesContext(connection) as queries:
        table = dealer_table(floor.dealer, floor.faro.pk)
        _seats(table)
        assert table.tray.code.startswith("tray:")
    assert len(queries.captured_queries) == 1


def test_an_empty_table_has_no_seats_and_no_table_is_none(floor: Floor) -> None:
    table = table_with_seats(floor.faro.pk)
    assert table is not None
    assert table.active_seats == []  # type: ignore[attr-defined]
    assert table.tray.balance == 0
    assert table_with_seats(floor.faro.pk + 1000) is None


def test_a_dealer_is_refused_another_dealers_table_and_a_missing_one(floor: Floor) -> None:
    with pytest.raises(NotAllowed, match="is not assigned to you"):
        dealer_table(floor.other_dealer, floor.faro.pk)
    with pytest.raises(NotFound, match="No such table"):
        dealer_table(floor.dealer, floor.faro.pk + 1000)
