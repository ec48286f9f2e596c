"""People: handle and results by table, player and dealer, and their time at the tables.

Handle and house win come from the day's round settlements (whoever keyed the action is its
dealer), a player's result from the wallet's entries with a table in the transfer's meta,
minutes from ``Seat`` and ``DealerShift``, clipped to the day.
"""

from __future__ import annotations

import datetime as dt

from django.db.models import Q
from django.utils import timezone

from casino.models import Player
from tables.audit.compute.state import AuditState, add_tables, sql_rows
from tables.models import DealerShift, RoundStatus, Seat


def load_people(audit: AuditState) -> None:
    """Every player's wallet (id and code) and name: the sections key players by their wallet."""
    for pk, wallet_id, code, name, username in Player.objects.values_list(
        "pk", "wallet_id", "wallet__code", "user__name", "user__username"
    ):
        audit.wallet_player[wallet_id] = pk
        audit.wallet_code_player[code] = pk
        audit.player_names[pk] = name or username


def section_settlements(audit: AuditState) -> None:
    """Handle and house win from the day's round settlements, by table, player and dealer.

    Handle: chips moved from a wallet onto the table's layouts or into its pots. The dealer
    of a movement is whoever keyed the action (the round's starter for its opening antes).
    Rows a correction voided are skipped: their transfers were reversed, so the ledger nets
    them out of the wallets and the tray, and they are no handle either.
    """
    rows = sql_rows(
        """
        SELECT r.table_id, s.player_id, COALESCE(act.actor_id, r.started_by_id),
               SUM(CASE WHEN s.from_account LIKE 'wallet:%%'
                         AND (s.to_account LIKE 'layout:%%' OR s.to_account LIKE 'pot:%%')
                        THEN s.amount ELSE 0 END),
               SUM(CASE WHEN s.to_account = 'tray:' || r.table_id OR s.to_account = 'rake'
                        THEN s.amount ELSE 0 END)
             - SUM(CASE WHEN s.from_account = 'tray:' || r.table_id OR s.from_account = 'rake'
                        THEN s.amount ELSE 0 END)
          FROM tables_roundsettlement s
          JOIN tables_round r ON r.id = s.round_id
          JOIN ledger_transfer t ON t.id = s.transfer_id
          LEFT JOIN tables_roundaction act ON act.id = s.action_id
         WHERE t.gaming_day = %s AND s.voided_by_id IS NULL
         GROUP BY 1, 2, 3
        """,
        [audit.day],
    )
    add_tables(audit, {r[0] for r in rows})
    for table_id, player_id, dealer_id, handle, house in rows:
        acc = audit.tables[table_id]
        acc.handle += int(handle)
        dealer = audit.dealers[dealer_id]
        dealer.handle += int(handle)
        dealer.win += int(house)
        dealer.tables.add(acc.table.name)
        if player_id is not None:
            player = audit.players[player_id]
            player.handle += int(handle)
            player.tables.add(acc.table.name)
    results = sql_rows(
        """
        SELECT e.account_id, t.meta ->> 'table', SUM(e.amount)
          FROM ledger_entry e
          JOIN ledger_transfer t ON t.id = e.transfer_id
          JOIN ledger_account a ON a.id = e.account_id
         WHERE t.gaming_day = %s AND a.purpose = 'wallet' AND t.meta ? 'table'
         GROUP BY 1, 2
        """,
        [audit.day],
    )
    for account_id, _table, total in results:
        player_id = audit.wallet_player.get(account_id)
        if player_id is not None:
            audit.players[player_id].win += int(total)  # the player's side: positive = player won
    for round_ in audit.rounds:
        if round_.status != RoundStatus.VOID:
            audit.dealers[round_.started_by_id].rounds += 1


def _minutes(since: dt.datetime, until: dt.datetime | None, audit: AuditState) -> float:
    """Minutes of [since, until) inside the gaming day (open-ended spans stop now)."""
    stop = min(until or timezone.now(), audit.end)
    begin = max(since, audit.start)
    return max((stop - begin).total_seconds() / 60.0, 0.0)


def section_time(audit: AuditState) -> None:
    """Dealer time from DealerShift, player time from Seat, both clipped to the day."""
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
    for dealer_id, table_name, started_at, ended_at in shifts:
        dealer = audit.dealers[dealer_id]
        dealer.minutes += _minutes(started_at, ended_at, audit)
        dealer.tables.add(table_name)
