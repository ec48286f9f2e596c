"""The ratings on screen: the pit view's hourly chart, pace and occupancy; a player's own page.

Through Django's test client with a session, as a browser would. The chart is inline SVG inside
the pit's polled partial (``/pit/live/``): one bar per hour of the gaming day, the bars' wins
add up to the table's rated win, and a dot marks each hour with play.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any

import pytest
from django.conf import settings
from django.test import Client
from django.utils import timezone

from casino.models import Player, Role, User
from ledger.gaming_day import gaming_day_bounds, gaming_day_for
from tables.models import DealerShift, Table
from tables.ratings.models import RoundStat
from tables.ratings.selectors import day_hours, dealer_performance, tables_hours
from tests import factories
from tests.ratings.floor import STAKE, play, punter, stakes_table

SVG = re.compile(r'<svg class="hourly-chart".*?</svg>', re.S)
BAR = re.compile(r'<rect class="bar (win-pos|win-neg)[^"]*"[^>]*data-hour="(\d\d:\d\d)" data-win="(-?\d+)"')


def session_for(user: User) -> Client:
    client = Client()
    client.force_login(user)
    return client


def cards(html: str) -> dict[str, str]:
    """Each table card of the pit, by table name."""
    found = {}
    for chunk in html.split('data-testid="pit-table"')[1:]:
        name = re.search(r'<h2 id="pit-table-\d+">([^<]+?) <span', chunk)
        assert name is not None
        found[name.group(1)] = chunk
    return found


@pytest.fixture
def pit_boss(system_accounts: None) -> User:
    return factories.staff(Role.PIT_BOSS, name="Pat Pitboss")


@pytest.fixture
def cashier(system_accounts: None) -> User:
    return factories.staff(Role.CASHIER)


def test_the_pit_partial_draws_an_hourly_chart_pace_and_occupancy_per_table(
    pit_boss: User, cashier: User
) -> None:
    dealer = factories.staff(Role.DEALER, name="Dana Dealer")
    idle_dealer = factories.staff(Role.DEALER, name="Ida Idle")
    busy = stakes_table(pit_boss, dealer, name="Card room A")
    stakes_table(pit_boss, idle_dealer, name="Card room B")
    punters = [punter(cashier, funded=50_000) for _ in range(3)]
    play(busy, punters, rounds=4, new_sitting_each_round=False)
    # Dana has dealt for 30 minutes: 4 decisions in half an hour is 8 an hour. Pace counts only
    # time within the gaming day, so in the half hour after the rollover her shift is shorter.
    day_start, _ = gaming_day_bounds(gaming_day_for())
    shift_start = max(timezone.now() - dt.timedelta(minutes=30), day_start)
    DealerShift.objects.filter(dealer=dealer).update(started_at=shift_start)

    boss = session_for(pit_boss)
    page = boss.get("/pit/")
    live = boss.get("/pit/live/", HTTP_HX_REQUEST="true")
    assert page.status_code == live.status_code == 200
    html = live.content.decode()
    # the chart is in the polled partial
    assert f'hx-trigger="every {settings.CONSOLE_POLL_SECONDS}s"' in html
    assert "<script" not in html
    assert len(SVG.findall(html)) == Table.objects.count() == 2
    assert len(SVG.findall(page.content.decode())) == 2
    by_name = cards(html)
    tables = {table.name: table.pk for table in Table.objects.all()}
    figures = tables_hours(table_ids=list(tables.values()), day=gaming_day_for(), fills_and_credits=False)
    for name in ("Card room A", "Card room B"):
        (svg,) = SVG.findall(by_name[name])
        played = [  # a bar for each hour with play, in the day's order; an idle hour draws nothing
            timezone.localtime(hour.hour).strftime("%H:%M")
            for hour in figures[tables[name]]
            if hour.decisions
        ]
        assert [hour for _, hour, _ in BAR.findall(svg)] == played
        assert f'aria-label="Hourly win and hold at {name}"' in svg
    assert len(BAR.findall(by_name["Card room A"])) in (1, 2)  # 2 only if the play straddled an hour
    assert BAR.findall(by_name["Card room B"]) == []
    busy_svg = SVG.findall(by_name["Card room A"])[0]
    rated_win = sum(RoundStat.objects.filter(table=busy).values_list("win", flat=True))
    assert (
        sum(int(win) for _, _, win in BAR.findall(busy_svg)) == rated_win == 0
    )  # a player pot: no house win
    assert busy_svg.count('<circle class="hold"') == 1  # one hour with play, hold 0 %
    assert SVG.findall(by_name["Card room B"])[0].count('<circle class="hold"') == 0
    # Handle and hold under the chart; the dealer's pace from dealer_performance; occupancy.
    assert f"on ${4 * 2 * STAKE // 100:,}.00 handle" in by_name["Card room A"]
    pace = dealer_performance(dealer_id=dealer.pk, day=gaming_day_for())
    assert pace["decisions"] == 4
    hours_on_shift = (timezone.now() - shift_start).total_seconds() / 3600
    expected = 4 / hours_on_shift  # 8.0 unless the gaming day began within the half hour
    assert expected * 0.98 <= pace["decisions_per_hour"] <= expected + 0.05
    shown = re.search(r'data-testid="dealer-pace">([\d.]+) decisions/hour', by_name["Card room A"])
    assert shown is not None
    assert expected * 0.98 <= float(shown.group(1)) <= expected + 0.05
    minutes = re.search(r"\(4 in (\d+) min\)", by_name["Card room A"])  # 30 but after a rollover
    assert minutes is not None
    assert abs(int(minutes.group(1)) - hours_on_shift * 60) <= 1
    assert re.search(r'data-testid="dealer-pace"><span class="muted">—', by_name["Card room B"])
    occupancy = re.search(
        r'data-testid="occupancy">(\d+) seated · ([\d.]+) average this hour', by_name["Card room A"]
    )
    assert occupancy is not None
    assert occupancy.group(1) == "3"
    assert 0 <= float(occupancy.group(2)) <= 3
    assert re.search(r'data-testid="occupancy">0 seated · 0.00 average this hour', by_name["Card room B"])


def test_a_losing_hour_draws_a_red_bar_below_the_zero_line(pit_boss: User) -> None:
    """The chart alone: wins go up from the zero line, losses down, empty hours draw nothing."""
    from tables.console.pit.figures import hourly_chart
    from tables.ratings.selectors import Hour

    begins = day_hours(dt.date(2026, 11, 22))
    figures = {3: (50_000, 10_000), 4: (20_000, -5_000)}
    hours = [
        Hour(
            begin,
            *(figures.get(i, (0, 0))),
            hold=(figures[i][1] / figures[i][0]) if i in figures else None,
            fills=0,
            credits=0,
            decisions=25 if i in figures else 0,
            occupancy=0.0,
        )
        for i, begin in enumerate(begins)
    ]
    svg = str(hourly_chart(hours, label="Test <table>", now=begins[5]))
    assert "Test &lt;table&gt;" in svg  # names are escaped
    bars = re.findall(
        r'<rect class="bar ([^"]+)" x="[\d.]+" y="([\d.]+)" width="[\d.]+" height="([\d.]+)"', svg
    )
    assert len(bars) == 2  # hours 3 and 4; the others had no play
    assert re.findall(r'data-hour="(\d\d:\d\d)"', svg) == [
        timezone.localtime(begins[3]).strftime("%H:%M"),
        timezone.localtime(begins[4]).strftime("%H:%M"),
    ]
    line = re.search(r'<line class="zero"[^>]*y1="([\d.]+)"', svg)
    assert line is not None
    zero = float(line.group(1))
    won, lost = bars
    assert won[0] == "win-pos"
    assert float(won[1]) + float(won[2]) == pytest.approx(zero, abs=0.02)
    assert lost[0] == "win-neg"
    assert float(lost[1]) == pytest.approx(zero, abs=0.02)
    assert float(won[2]) == pytest.approx(2 * float(lost[2]), abs=0.02)  # $100 up is twice $50 down
    assert "future" not in svg  # both hours are past; later hours had no play to draw
    assert svg.count('<circle class="hold"') == 2
    assert "hold 20.0 %" in svg
    assert "hold -25.0 %" in svg


def test_a_floor_of_charts_shares_its_hour_slots_and_draws_what_each_chart_draws_alone() -> None:
    """The pit draws every table's chart from one set of hour slots; the SVG is the same as alone."""
    from tables.console.pit.figures import hour_slots, hourly_chart
    from tables.ratings.selectors import Hour

    begins = day_hours(dt.date(2026, 11, 22))
    now = begins[9] + dt.timedelta(minutes=10)
    floor = [
        [
            Hour(begin, 0, 0, None, 0, 0, 0, 0.0)
            if (i + table) % 3
            else Hour(begin, 40_000 + table, (-1) ** i * (900 + table), None, 0, 0, 12, 1.5)
            for i, begin in enumerate(begins)
        ]
        for table in range(4)
    ]
    floor[1][2] = Hour(begins[2], 10_000, 2_500, 0.25, 0, 0, 20, 2.0)  # a hold dot
    slots = hour_slots(floor[0], now)
    for table, hours in enumerate(floor):
        shared = hourly_chart(hours, label=f"Table {table}", now=now, slots=slots)
        assert str(shared) == str(hourly_chart(hours, label=f"Table {table}", now=now))
    svg = str(hourly_chart(floor[1], label="Table 1", now=now, slots=slots))
    assert "win $0.00" not in svg  # an idle hour draws nothing
    assert "hold 25.0 %" in svg
    assert svg.count('<circle class="hold"') == 1
    played_later = [i for i, hour in enumerate(floor[1]) if i > 9 and hour.decisions]
    assert played_later  # the test's own figures: play in hours still to come, drawn faded
    assert svg.count(" future") == len(played_later)
    assert svg.count('<rect class="bar') == sum(1 for hour in floor[1] if hour.decisions)


def test_a_player_sees_their_balance_and_their_own_sittings_only(pit_boss: User, cashier: User) -> None:
    dealer = factories.staff(Role.DEALER)
    kate = punter(cashier, funded=80_000, username="kate", name="Kate Elder")
    wyatt = punter(cashier, funded=80_000, username="wyatt", name="Wyatt Earp")
    doc = punter(cashier, funded=80_000, username="doc", name="Doc Holliday")
    shared = stakes_table(pit_boss, dealer, name="The Long Branch")
    play(shared, [kate, wyatt], rounds=2, new_sitting_each_round=True)  # kate wins one, loses one
    elsewhere = stakes_table(pit_boss, factories.staff(Role.DEALER), name="The Oriental")
    play(elsewhere, [wyatt, doc], rounds=1, new_sitting_each_round=False)

    browser = Client()
    signed = browser.post("/console/login/", {"username": "kate", "password": factories.PASSWORD})
    assert signed.status_code == 302
    assert browser.get("/console/")["Location"] == "/console/me/"
    page = browser.get("/console/me/")
    assert page.status_code == 200
    html = page.content.decode()
    assert "Kate Elder" in html
    rows = re.findall(r'data-testid="sitting" data-table="(\d+)"', html)
    assert rows == [str(shared.pk), str(shared.pk)]
    assert "The Oriental" not in html
    assert "Wyatt" not in html
    assert "Doc" not in html
    balance = Player.objects.get(pk=kate.pk).wallet.balance
    assert balance == 80_000  # +200 then -200
    assert re.search(r'data-testid="available">\$800\.00<', html)
    assert re.search(r'data-testid="total"><strong>\$800\.00<', html)
    # Each sitting: 1 decision; one paid a stake (handle $2.00, result -$2.00), one won $2.00.
    totals = re.search(r'data-testid="totals">(.*?)</tr>', html, re.S)
    assert totals is not None
    assert "$2.00" in totals.group(1)  # handle
    assert re.findall(r'<td class="win-(?:pos|neg)"[^>]*>([^<]+)</td>', html)[:2] in (
        ["−$2.00", "$2.00"],
        ["$2.00", "−$2.00"],
    )

    # Wyatt sees his two tables' sittings, never kate's figures.
    other = session_for(wyatt.user)
    html = other.get("/console/me/").content.decode()
    assert len(re.findall(r'data-testid="sitting"', html)) == 3
    assert "Kate" not in html
    # Staff have no player page; nobody signed in is sent to sign in.
    assert session_for(pit_boss).get("/console/me/").status_code == 403
    assert Client().get("/console/me/")["Location"].startswith("/console/login/")


def test_a_player_with_no_sittings_gets_an_empty_page(cashier: User, settings: Any) -> None:
    settings.COMP_RATE = 0.25
    newcomer = punter(cashier, funded=1_000)
    html = session_for(newcomer.user).get("/console/me/").content.decode()
    assert 'data-testid="no-sittings"' in html
    assert re.search(r'data-testid="available">\$10\.00<', html)
