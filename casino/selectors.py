"""Reads for people and wallets."""

from __future__ import annotations

import re
from dataclasses import dataclass

from django.db.models import QuerySet, Sum
from django.utils import timezone

from casino.models import Player
from ledger.models import Account, AccountPurpose, Entry
from ledger.selectors import list_statement

PLAYER_REF = re.compile(r"\b[Pp]layer (\d+)(?: \(seat \d+\))?")


def players_named(message: str) -> str:
    """A game engine's message names players by id ("player 12 (seat 3)"); people read names.

    One read, on a refusal only; an id that is no player stays as it was.
    """
    found_ids = (int(found.group(1)) for found in PLAYER_REF.finditer(message))
    ids = {player_id for player_id in found_ids if player_id < 2**63}  # a bigint column
    if not ids:
        return message
    names = {p.pk: p.name for p in Player.objects.select_related("user").filter(pk__in=ids)}
    return PLAYER_REF.sub(lambda found: names.get(int(found.group(1)), found.group(0)), message)


def holder_of(player: Player) -> str:
    """The opaque owner tag the ledger keeps on every account of a player's chips."""
    return f"user:{player.user_id}"


@dataclass(frozen=True, slots=True)
class Balance:
    player: int
    available: int
    in_play: int
    total: int
    as_of: object


def get_player_balance(*, player: Player) -> Balance:
    """``available`` can be spent now; ``in_play`` is on layouts or held as reserves.

    Chips anted or paid into a pot belong to the pot, so they are in neither.
    """
    wallet = Account.objects.only("balance", "held").get(pk=player.wallet_id)
    on_layouts = (
        Account.objects.filter(holder=holder_of(player), purpose=AccountPurpose.LAYOUT).aggregate(
            total=Sum("balance")
        )["total"]
        or 0
    )
    available = wallet.balance - wallet.held
    in_play = wallet.held + on_layouts
    return Balance(
        player=player.pk,
        available=available,
        in_play=in_play,
        total=available + in_play,
        as_of=timezone.now(),
    )


def list_player_transactions(*, player: Player) -> QuerySet[Entry]:
    return list_statement(code=player.wallet.code)


def search_players(*, query: str, limit: int = 20) -> QuerySet[Player]:
    players = Player.objects.select_related("user", "wallet").order_by("user__name", "pk")
    if query:
        players = players.filter(user__name__icontains=query) | players.filter(
            user__username__icontains=query
        )
    return players[:limit]
