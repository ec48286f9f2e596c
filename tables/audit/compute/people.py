"""People: handle, win and theo by table, player and dealer, and their time at the tables.

The figures are the ratings' rows (``RoundStat``/``RoundPlayerStat``, README "Handle, win,
theo, decisions") of the rounds that ended in the day, so the audit, the pit and the ratings
give the same numbers; ``compute_audit`` rates any unrated round of the day first. Minutes
come from ``Seat`` and ``DealerShift``, clipped to the day; a dealer's overlapping shifts once.
"""

from __future__ import annotations

import datetime as dt
from collections import defaultdict

from django.db.models import Q
from django.utils import timezone

from casino.models import Player
from tables.audit.compute.state import AuditState, add_tables
from tables.models import DealerShift, RoundStatus, Seat
from tables.ratings.models import MILLI, RoundPlayerStat, RoundStat
from tables.ratings.selectors import Span, seconds_covered


def load_people(audit: AuditState) -> None:
    """Every player's wallet (id and code) and name: the sections key players by their wallet."""
    for pk, wallet_id, code, name, username in Player.objects.values_list(
        "pk", "wallet_id", "wallet__code", "user__name", "user__username"
    ):
        audit.wallet_player[wallet_id] = pk
        audit.wallet_code_player[code] = pk
        audit.player_names[pk] = name or username


def section_figures(audit: AuditState) -> None:
    """Handle, house win, theo and bets by table, dealer and player, read from the ratings' rows.

    A round's figures belong to the day it ended in and to the dealer who started it; a live
    round has none yet (it is a ``round_live`` finding), and what a correction voided is in no
    row.
    """
    stats = list(
        RoundStat.objects.filter(ended_at__gte=audit.start, ended_at__lt=audit.end).values_list(
            "table_id", "dealer_id", "handle", "win", "theo_milli", "theo_variance"
        )
    )
    players = list(
        RoundPlayerStat.objects.filter(
            round__ended_at__gte=audit.start, round__ended_at__lt=audit.end, round__stat__isnull=False
        ).values_list("table_id", "player_id", "handle", "result", "bets", "theo_milli")
    )
    add_tables(audit, {row[0] for row in stats} | {row[0] for row in players})
    for table_id, dealer_id, handle, win, theo_milli, theo_variance in stats:
        acc = audit.tables[table_id]
        acc.handle += handle
        acc.win += win
        acc.theo += theo_milli / MILLI
        acc.theo_var += theo_variance
        if dealer_id is not None:
            dealer = audit.dealers[dealer_id]
            dealer.handle += handle
            dealer.win += win
            dealer.theo += theo_milli / MILLI
            dealer.tables.add(acc.table.name)
    for table_id, player_id, handle, result, bets, theo_milli in players:
        acc = audit.tables[table_id]
        acc.bets += bets
        player = audit.players[player_id]
        player.handle += handle
        player.win += result  # the player's side: positive = player won
        player.theo += theo_milli / MILLI
        player.tables.add(acc.table.name)
    for round_ in audit.rounds:
        if round_.status != RoundStatus.VOID:
            audit.dealers[round_.started_by_id].rounds += 1


def _clipped(since: dt.datetime, until: dt.datetime | None, audit: AuditState) -> Span:
    """[since, until) cut to the gaming day (open-ended spans stop now); may be empty."""
    return max(since, audit.start), min(until or timezone.now(), audit.end)


def _minutes(since: dt.datetime, until: dt.datetime | None, audit: AuditState) -> float:
    """Minutes of [since, until) inside the gaming day (open-ended spans stop now)."""
    begin, stop = _clipped(since, until, audit)
    return max((stop - begin).total_seconds() / 60.0, 0.0)


def section_time(audit: AuditState) -> None:
    """Dealer time from DealerShift, player time from Seat, both clipped to the day.

    A dealer's minutes are the time they held any table: shifts at two tables at once overlap
    and are counted once (``seconds_covered``). A player sits at one table at a time.
    """
    overlapping = Q(left_at__isnull=True) | Q(left_at__gt=audit.start)
    for player_id, table_name, seated_at, left_at in Seat.objects.filter(
        overlapping, seated_at__lt=audit.end
    ).values_list("player_id", "table__name", "seated_at", "left_at"):
        player = audit.players[player_id]
        player.minutes += _minutes(seated_at, left_at, audit)
        player.tables.add(table_name)
    shifts = DealerShift.objects.filter(
        Q(ended_at__isnull=True) | Q(ended_at__gt=audit.start), started_at__lt=audit.end
    ).values_list("dealer_id", "table__name", "started_at", "ended_at")
    spans: dict[int, list[Span]] = defaultdict(list)
    for dealer_id, table_name, started_at, ended_at in shifts:
        spans[dealer_id].append(_clipped(started_at, ended_at, audit))
        audit.dealers[dealer_id].tables.add(table_name)
    for dealer_id, held in spans.items():  # two tables held at once are one person's time, once
        audit.dealers[dealer_id].minutes += seconds_covered(held) / 60.0
