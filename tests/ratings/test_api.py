"""The three ratings endpoints: who may read them, bad input, and queries that do not grow.

GET /api/v1/players/{id}/ratings is for staff and the player themself (another player gets 404);
GET /api/v1/tables/{id}/hourly and GET /api/v1/dealers/{id}/performance are for pit bosses and
auditors (everyone else 403). Reads are sums of the small rows the ratings task writes, so a
night with ten sittings, tables' rounds or dealer's rounds costs the same queries as one with two.
"""

from __future__ import annotations

import datetime as dt
import itertools
from collections.abc import Callable
from typing import Any

import pytest
from django.utils import timezone
from rest_framework.test import APIClient

from casino.models import Player, User
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from tables.models import Round, Seat, Table
from tables.ratings.selectors import day_hours, table_hours
from tables.simulation.floor import signed_tray_change
from tests.ratings.floor import STAKE, play, punter, stakes_table

Login = Callable[[Any], APIClient]


@pytest.fixture
def punters(cashier: User) -> list[Player]:
    return [punter(cashier, funded=100_000) for _ in range(3)]


# --------------------------------------------------------------------------- permissions


def test_ratings_are_for_staff_and_the_player_themself(
    login: Login,
    punters: list[Player],
    pit_boss: User,
    dealer: User,
    auditor: User,
    cashier: User,
    admin: User,
) -> None:
    table = stakes_table(pit_boss, dealer)
    kate, wyatt, doc = punters
    play(table, [kate, wyatt], rounds=1, new_sitting_each_round=False)
    path = f"/api/v1/players/{kate.pk}/ratings"
    for user in (pit_boss, dealer, auditor, cashier, admin, kate.user):
        response = login(user).get(path)
        assert response.status_code == 200, (user.role, response.content)
        assert len(response.json()["results"]) == 1
    for user in (wyatt.user, doc.user):  # another player: as if there were no such player
        response = login(user).get(path)
        assert response.status_code == 404
        assert response.json()["error"]["code"] == "not_found"
    assert login(kate.user).get("/api/v1/players/me/ratings").json() == login(kate.user).get(path).json()
    assert login(pit_boss).get("/api/v1/players/999999/ratings").status_code == 404
    assert APIClient().get(path).status_code == 401


@pytest.mark.parametrize("kind", ["hourly", "performance"])
def test_floor_figures_are_for_pit_bosses_and_auditors(
    kind: str,
    login: Login,
    punters: list[Player],
    pit_boss: User,
    dealer: User,
    auditor: User,
    cashier: User,
    admin: User,
) -> None:
    table = stakes_table(pit_boss, dealer)
    play(table, punters[:2], rounds=1, new_sitting_each_round=False)
    path = (
        f"/api/v1/tables/{table.pk}/hourly"
        if kind == "hourly"
        else f"/api/v1/dealers/{dealer.pk}/performance"
    )
    for user in (pit_boss, auditor):
        assert login(user).get(path).status_code == 200
    for user in (dealer, cashier, admin, punters[0].user):
        response = login(user).get(path)
        assert response.status_code == 403, user.role
        assert response.json()["error"]["code"] == "forbidden"
    assert APIClient().get(path).status_code == 401
    missing = "/api/v1/tables/999999/hourly" if kind == "hourly" else "/api/v1/dealers/999999/performance"
    assert login(pit_boss).get(missing).status_code == 404
    if kind == "performance":  # a pit boss is not a dealer
        assert login(pit_boss).get(f"/api/v1/dealers/{pit_boss.pk}/performance").status_code == 404


@pytest.mark.parametrize("bad", ["yesterday", "2026-13-01", "2026-02-30", "22/11/2026", ""])
def test_a_bad_date_is_a_400(
    bad: str, login: Login, pit_boss: User, dealer: User, punters: list[Player]
) -> None:
    table = stakes_table(pit_boss, dealer)
    boss = login(pit_boss)
    for path, param in (
        (f"/api/v1/tables/{table.pk}/hourly", "date"),
        (f"/api/v1/dealers/{dealer.pk}/performance", "date"),
    ):
        response = boss.get(path, {param: bad})
        assert response.status_code == 400, (path, bad, response.content)
        body = response.json()["error"]
        assert body["code"] == "invalid"
        assert param in body["fields"]
    if bad:  # an empty from/to means "no bound"
        for param in ("from", "to"):
            response = boss.get(f"/api/v1/players/{punters[0].pk}/ratings", {param: bad})
            assert response.status_code == 400, (param, bad)
            assert param in response.json()["error"]["fields"]


def test_from_and_to_pick_sittings_by_casino_time(
    login: Login, punters: list[Player], pit_boss: User, dealer: User
) -> None:
    table = stakes_table(pit_boss, dealer)
    kate = punters[0]
    play(table, punters[:2], rounds=3, new_sitting_each_round=True)
    seats = list(Seat.objects.filter(player=kate).order_by("seated_at"))
    # Move the three sittings to three gaming days: the 10th, 11th and 12th of March, 21:00 casino time.
    for offset, seat in enumerate(seats):
        day = dt.date(2026, 3, 10 + offset)
        start = gaming_day_bounds(day)[0] + dt.timedelta(hours=15)
        Seat.objects.filter(pk=seat.pk).update(seated_at=start, left_at=start + dt.timedelta(minutes=40))
    boss = login(pit_boss)

    def days(**query: str) -> list[str]:
        response = boss.get(f"/api/v1/players/{kate.pk}/ratings", query)
        assert response.status_code == 200, response.content
        return [
            timezone.localtime(dt.datetime.fromisoformat(r["started"])).date().isoformat()
            for r in response.json()["results"]
        ]

    assert days() == ["2026-03-12", "2026-03-11", "2026-03-10"]  # newest first
    assert days(**{"from": "2026-03-11"}) == ["2026-03-12", "2026-03-11"]
    assert days(to="2026-03-11") == ["2026-03-10"]  # exclusive
    assert days(**{"from": "2026-03-11", "to": "2026-03-12"}) == ["2026-03-11"]
    # A datetime without a zone is casino time: 21:45 on the 11th is after that sitting ended.
    assert days(**{"from": "2026-03-11T21:45:00"}) == ["2026-03-12"]
    assert days(**{"from": "2026-03-11T21:45:00+00:00"}) == ["2026-03-12", "2026-03-11"]
    assert all(r["minutes"] == 40 for r in boss.get(f"/api/v1/players/{kate.pk}/ratings").json()["results"])


# --------------------------------------------------------------------------- the shape


def test_hourly_and_performance_figures(
    login: Login, punters: list[Player], pit_boss: User, dealer: User
) -> None:
    table = stakes_table(pit_boss, dealer)
    rounds = play(table, punters, rounds=4, new_sitting_each_round=False)
    day = gaming_day_for()
    body = login(pit_boss).get(f"/api/v1/tables/{table.pk}/hourly", {"date": day.isoformat()}).json()
    assert body["table"] == table.pk
    assert body["date"] == day.isoformat()
    assert len(body["hours"]) == len(day_hours(day))
    assert set(body["hours"][0]) == {
        "hour",
        "handle",
        "win",
        "hold",
        "fills",
        "credits",
        "decisions",
        "occupancy",
    }
    # Four card-room rounds of three players: the two who do not win pay one stake each.
    assert sum(h["handle"] for h in body["hours"]) == 4 * 2 * STAKE
    assert sum(h["decisions"] for h in body["hours"]) == 4
    assert sum(h["win"] for h in body["hours"]) == 0  # player-pot money: the house wins nothing
    now_hour = [h for h in body["hours"] if h["handle"]]
    assert len(now_hour) == 1
    assert now_hour[0]["hold"] == 0.0
    assert 0 <= now_hour[0]["occupancy"] <= 3
    assert [h["occupancy"] for h in body["hours"] if h["hour"] > now_hour[0]["hour"]] == [0.0] * sum(
        1 for h in body["hours"] if h["hour"] > now_hour[0]["hour"]
    )

    perf = login(pit_boss).get(f"/api/v1/dealers/{dealer.pk}/performance").json()
    assert perf["dealer"] == dealer.pk
    assert (perf["decisions"], perf["handle"], perf["win"], perf["refused_actions"]) == (4, 1_600, 0, 0)
    assert perf["minutes"] >= 0
    assert perf["decisions_per_hour"] > 0
    assert Round.objects.filter(pk__in=rounds, stat__isnull=False).count() == 4


@pytest.mark.parametrize("day", [dt.date(2026, 10, 31), dt.date(2026, 3, 7), dt.date(2026, 11, 22)])
def test_a_gaming_day_has_as_many_hours_as_the_clock_gives_it(
    day: dt.date, table: Table, settings: Any
) -> None:
    """Each hour one real hour apart, 06:00 to 06:00: the day whose night falls back (1 November
    2026, 02:00 in Los Angeles) has 25; the one that springs forward (8 March) has 23."""
    settings.CASINO_TIME_ZONE = "America/Los_Angeles"
    settings.GAMING_DAY_ROLLOVER_HOUR = 6
    hours = table_hours(table_id=table.pk, day=day)
    expected = {dt.date(2026, 10, 31): 25, dt.date(2026, 3, 7): 23}.get(day, 24)
    assert len(hours) == expected
    start, end = gaming_day_bounds(day)
    assert hours[0].hour == start
    assert all((b.hour - a.hour) == dt.timedelta(hours=1) for a, b in itertools.pairwise(hours))
    assert hours[-1].hour + dt.timedelta(hours=1) == end


# --------------------------------------------------------------------------- query counts


def count_queries(client: APIClient, path: str, django_assert_num_queries: Any, expected: int) -> Any:
    with django_assert_num_queries(expected):
        response = client.get(path)
    assert response.status_code == 200, response.content
    return response.json()


RATINGS_QUERIES = 3  # token, the player (access_player), one page of sittings with their sums
HOURLY_QUERIES = 5  # token, the table exists, round stats by hour, approved fills/credits, seats
PERFORMANCE_QUERIES = 5  # token, the dealer exists, shifts, round stats, refused actions


def test_ratings_queries_do_not_grow_with_sittings(
    login: Login, cashier: User, pit_boss: User, dealer: User, django_assert_num_queries: Any
) -> None:
    table = stakes_table(pit_boss, dealer)
    few = [punter(cashier, funded=100_000) for _ in range(2)]
    many = [punter(cashier, funded=100_000) for _ in range(2)]
    play(table, few, rounds=2, new_sitting_each_round=True)
    play(table, many, rounds=10, new_sitting_each_round=True)
    boss = login(pit_boss)
    path = "/api/v1/players/{}/ratings"
    assert (
        len(
            count_queries(boss, path.format(few[0].pk), django_assert_num_queries, RATINGS_QUERIES)["results"]
        )
        == 2
    )
    assert (
        len(
            count_queries(boss, path.format(many[0].pk), django_assert_num_queries, RATINGS_QUERIES)[
                "results"
            ]
        )
        == 10
    )
    me = login(many[1].user)
    assert (
        len(count_queries(me, path.format("me"), django_assert_num_queries, RATINGS_QUERIES)["results"]) == 10
    )


def test_hourly_and_performance_queries_do_not_grow_with_rounds(
    login: Login,
    cashier: User,
    pit_boss: User,
    dealer: User,
    other_dealer: User,
    django_assert_num_queries: Any,
) -> None:
    small, big = stakes_table(pit_boss, dealer), stakes_table(pit_boss, other_dealer)
    punters = [punter(cashier, funded=100_000) for _ in range(4)]
    play(small, punters[:2], rounds=2, new_sitting_each_round=True)
    play(big, punters[2:], rounds=10, new_sitting_each_round=True)
    for table, requester in ((small, dealer), (big, other_dealer)):  # fills and credits in the hour too
        for kind in ("fill", "credit", "fill"):
            signed_tray_change(
                table=table, kind=kind, amount=1_000, dealer=requester, pit_boss=pit_boss, cashier=cashier
            )
    boss = login(pit_boss)
    figures = {}
    for table in (small, big):
        body = count_queries(
            boss, f"/api/v1/tables/{table.pk}/hourly", django_assert_num_queries, HOURLY_QUERIES
        )
        figures[table.pk] = body
        assert sum(h["fills"] for h in body["hours"]) == 2_000
        assert sum(h["credits"] for h in body["hours"]) == 1_000
    assert sum(h["decisions"] for h in figures[small.pk]["hours"]) == 2
    assert sum(h["decisions"] for h in figures[big.pk]["hours"]) == 10
    for who, rounds in ((dealer, 2), (other_dealer, 10)):
        body = count_queries(
            boss, f"/api/v1/dealers/{who.pk}/performance", django_assert_num_queries, PERFORMANCE_QUERIES
        )
        assert body["decisions"] == rounds
