"""A player's own page: their balance, their history of buy-ins, cash-outs and bets, and their
ratings, sitting by sitting (the issue's comps).

Signed in with a session like the console; only a player account has this page, and it only
ever shows the signed-in player (there is no id in the URL to change).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.contrib.postgres.aggregates import ArrayAgg
from django.core.paginator import Page, Paginator
from django.db.models import Max, Sum
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.utils.text import capfirst

from casino.models import Player, Role
from casino.money import format_dollars
from casino.permissions import actor_of, role_of
from casino.selectors import get_player_balance, list_player_transactions
from casino.signed_in import NotAllowed, signed_in_get
from ledger.models import Transfer
from tables.console.access import found
from tables.console.cage.views import CAGE_KINDS
from tables.console.dealer.games import GAME_TITLES
from tables.models import Round, Table
from tables.ratings.selectors import list_sittings, sitting_row

SITTINGS_SHOWN = 50
HISTORY_PER_PAGE = 20

# A transfer's kind as the player reads it on their statement (their wallet's side of it).
MOVE_WORDS = {
    **{kind: f"{words} at the cage" for kind, words in CAGE_KINDS.items()},
    "bet": "Bet",
    "ante": "Ante",
    "win": "Won",
    "return": "Bet returned",
    "withdraw": "Bet taken back",
    "pot": "Pot won",
    "pot_split": "Share of a split pot",
    "side_pot": "Side pot won",
    "side_pot_remainder": "Side pot won",
    "penalty": "Penalty",
    "pass": "Passed: a chip to the pot",
    "bust": "Bust",
    "low_hand": "Low hand",
    "cards_left": "Cards left in hand",
    "widow": "Widow",
    "rake": "Time rake",
    "reversal": "Voided by a correction",
    "round_settlement": "Settled",
}


@dataclass(frozen=True, slots=True)
class Move:
    """One line of the player's history: a transfer, whatever number of entries it made."""

    at: Any  # an aware datetime; the template shows it in the casino's zone
    what: str
    where: str
    amount: str  # signed dollars: "+$10.00", "−$5.00"
    balance_after: str
    gain: bool


@signed_in_get
def my_page(request: HttpRequest) -> HttpResponse:
    if role_of(request.user) != Role.PLAYER:
        raise NotAllowed("This page is for players: it shows their own balance and ratings.")
    players = Player.objects.select_related("user", "wallet").filter(user=actor_of(request))
    player = found(players, "This account has no player record.")
    sittings = list(list_sittings(player_id=player.pk)[:SITTINGS_SHOWN])
    rows = [{"table_name": seat.table.name, **sitting_row(seat)} for seat in sittings]
    totals = {
        key: sum(row[key] for row in rows)
        for key in ("minutes", "decisions", "handle", "theo", "result", "comp_points")
    }
    history = history_page(player, request.GET.get("page"))
    return render(
        request,
        "console/me.html",
        {
            "player": player,
            "balance": get_player_balance(player=player),
            "history": history,
            "moves": moves_of(history.object_list),
            "casino_zone": settings.CASINO_TIME_ZONE,
            "rows": rows,
            "totals": totals,
            "titles": GAME_TITLES,
            "comp_rate": settings.COMP_RATE,
            "more": len(sittings) == SITTINGS_SHOWN,
        },
    )


def history_page(player: Player, number: Any) -> Page[Any]:
    """A page of the player's transfers, newest first: the API's statement
    (``list_player_transactions``) with each transfer's entries on the wallet as one line (a Faro
    turn pays several bets in one transfer). A page number past the end gives the last page."""
    per_transfer = (
        list_player_transactions(player=player)
        .order_by()  # grouped by transfer: ordered by the group's time below
        .values("transfer_id")
        .annotate(
            at=Max("created_at"),
            amount=Sum("amount"),
            balances=ArrayAgg("balance_after", order_by="-id"),
        )
        .order_by("-at", "-transfer_id")
    )
    return Paginator(per_transfer, HISTORY_PER_PAGE).get_page(number)


def moves_of(rows: Any) -> list[Move]:
    """A page's transfers in words: what moved, at which table and deal, in dollars."""
    rows = list(rows)
    transfers = Transfer.objects.in_bulk([row["transfer_id"] for row in rows])
    metas = [transfers[row["transfer_id"]].meta or {} for row in rows]
    deals = _deals([meta.get("round") for meta in metas])
    tables = _table_names([meta.get("table") for meta in metas])
    return [
        Move(
            at=row["at"],
            what=_what(transfers[row["transfer_id"]].kind),
            where=_where(meta, deals, tables),
            amount=("+" if row["amount"] > 0 else "") + format_dollars(row["amount"]),
            balance_after=format_dollars(row["balances"][0]),
            gain=row["amount"] > 0,
        )
        for row, meta in zip(rows, metas, strict=True)
    ]


def _what(kind: str) -> str:
    return MOVE_WORDS.get(kind) or capfirst(kind.replace("_", " "))


def _where(meta: Mapping[str, Any], deals: Mapping[int, str], tables: Mapping[int, str]) -> str:
    """ "Faro 1, deal #3" for a round's transfer; the table alone for its time rake; "" at the cage."""
    if meta.get("round") in deals:
        return deals[meta["round"]]
    table = meta.get("table")
    return tables.get(int(table), "") if table else ""


def _deals(round_ids: list[Any]) -> dict[int, str]:
    """Each round as the console names it: "Faro 1, deal #3" (one read for the page)."""
    ids = {int(pk) for pk in round_ids if pk is not None}
    rounds = Round.objects.filter(pk__in=ids).values_list("pk", "number", "table__name")
    return {pk: f"{table}, deal #{number}" for pk, number, table in rounds}


def _table_names(table_ids: list[Any]) -> dict[int, str]:
    ids = {int(pk) for pk in table_ids if pk is not None}
    return dict(Table.objects.filter(pk__in=ids).values_list("pk", "name"))
