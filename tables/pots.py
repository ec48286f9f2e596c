"""Closing a table never strands a pot: what is left is split among its last round's players."""

from __future__ import annotations

from typing import Any

from casino.action_log import record_action
from casino.models import Player
from ledger.services import Leg, post_transfer
from tables.accounts import pot_name, table_pots
from tables.games.base import split_evenly
from tables.models import Round, RoundStatus, Table, TableSession


def split_unwon_pots(*, table: Table, actor: Any, session: TableSession) -> list[dict[str, Any]]:
    """Split every non-empty pot evenly among the last settled round's players, odd cents from
    the dealer's left (the round's ``players`` are stored in that order).

    Returns what was split, for the close summary: ``{pot, amount, transfer_id, shares}``.
    """
    pots = list(table_pots(table.pk).filter(balance__gt=0))
    if not pots:
        return []
    last = Round.objects.filter(table=table, status=RoundStatus.SETTLED).order_by("-number").first()
    if last is None or not last.players:
        return []
    wallets = dict(Player.objects.filter(pk__in=last.players).values_list("pk", "wallet__code"))
    transfers: list[dict[str, Any]] = []
    for account in pots:
        shares = split_evenly(account.balance, list(last.players))
        legs = [
            Leg(debit=account.code, credit=wallets[p], amount=cents)
            for p, cents in shares.items()
            if cents > 0
        ]
        transfer = post_transfer(
            key=f"pot_split:{session.pk}:{account.code}",
            kind="pot_split",
            legs=legs,
            memo=f"Unwon pot split at closing of {table.name}",
            meta={"table": table.pk, "round": last.pk, "session": session.pk},
        )
        transfers.append(
            {
                "pot": pot_name(account.code),
                "amount": account.balance,
                "transfer_id": transfer.pk,
                "shares": {str(player): cents for player, cents in shares.items()},
            }
        )
        record_action(
            actor=actor, action="pot.split", obj=transfer, data={"pot": account.code, "shares": shares}
        )
    return transfers
