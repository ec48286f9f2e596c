"""Reads for people and wallets."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Any

from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from casino import sql
from casino.models import Player, User
from ledger.errors import UnknownAccount
from ledger.models import AccountPurpose, Entry
from ledger.selectors import list_statement

PLAYER_REF = re.compile(r"\b[Pp]layer (?P<id>\d+)(?: \(seat \d+\))?")
# staff by role ("dealer 4", "pit boss 7") or by "staff 7" where the role does not matter
STAFF_REF = re.compile(r"\b(?P<word>[Dd]ealer|[Pp]it boss|[Ss]taff) (?P<id>\d+)\b")


def player_names(player_ids: Iterable[int]) -> dict[int, str]:
    """Player id → name: one read, none for no ids (an id that is no player is left out)."""
    ids = list(player_ids)
    if not ids:
        return {}
    return {p.pk: p.name for p in Player.objects.select_related("user").filter(pk__in=ids)}


def staff_name(user: User) -> str:
    """A member of staff as people read them: their name, else their username (as ``staff_names``)."""
    return user.name or user.username


def staff_names(user_ids: Iterable[int]) -> dict[int, str]:
    """User id → display name (the name, else the username): one read, none for no ids."""
    ids = list(user_ids)
    if not ids:
        return {}
    return {
        pk: name or username
        for pk, name, username in User.objects.filter(pk__in=ids).values_list("pk", "name", "username")
    }


def players_named(message: str) -> str:
    """A game engine's message names players by id ("player 12 (seat 3)"); people read names.

    One read, on a refusal only; an id that is no player stays as it was.
    """
    return people_named([message])[0]


def people_named(messages: Sequence[str]) -> list[str]:
    """``messages`` with every "player 12 (seat 3)", "dealer 4", "pit boss 7" and "staff 7" in them
    put as the person's name ("staff" gives the name alone): one read of the players and one of the
    staff for all of them (an alert list's summaries). An id that is nobody stays as it was."""
    player_ids = ids_in(PLAYER_REF, messages)
    staff_ids = ids_in(STAFF_REF, messages)
    players = player_names(player_ids)
    staff = staff_names(staff_ids)

    def staff_named(found: re.Match[str]) -> str:
        name = staff.get(int(found.group("id")))
        if name is None:
            return found.group(0)
        word = found.group("word")
        return name if word.lower() == "staff" else f"{word} {name}"

    def named(message: str) -> str:
        message = PLAYER_REF.sub(lambda found: players.get(int(found.group("id")), found.group(0)), message)
        return STAFF_REF.sub(staff_named, message)

    return [named(message) for message in messages]


def ids_in(pattern: re.Pattern[str], messages: Sequence[str]) -> set[int]:
    """The ids ``pattern`` (a regex with an ``id`` group) finds in ``messages``, that a bigint holds."""
    found = (int(hit.group("id")) for message in messages for hit in pattern.finditer(message))
    return {found_id for found_id in found if found_id < 2**63}  # a bigint column


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


def _balance_params(players: Sequence[Player]) -> list[Any]:
    ids, wallets = [p.pk for p in players], [p.wallet_id for p in players]
    return [AccountPurpose.LAYOUT.value, ids, wallets, [holder_of(p) for p in players]]


def _balances_of(rows: Iterable[Sequence[int]]) -> dict[int, Balance]:
    now = timezone.now()
    balances = {}
    for player_id, balance, held, on_layouts in rows:
        available, in_play = balance - held, held + int(on_layouts)
        balances[player_id] = Balance(player_id, available, in_play, available + in_play, now)
    return balances


def get_player_balances(*, players: Sequence[Player]) -> dict[int, Balance]:
    """Each player's balance by player id (as ``get_player_balance``), one read for them all."""
    if not players:
        return {}
    with connection.cursor() as cursor:
        cursor.execute(sql.BALANCES, _balance_params(players))
        return _balances_of(cursor.fetchall())


def get_balances_with(*, code: str, players: Sequence[Player]) -> tuple[int, dict[int, Balance]]:
    """The balance of the account ``code`` (``ledger.selectors.get_balance``, a table's tray) and
    each player's (``get_player_balances``), in one read."""
    with connection.cursor() as cursor:
        cursor.execute(sql.ACCOUNT_AND_BALANCES, [code, *_balance_params(players)])
        rows = cursor.fetchall()
    account = [int(balance) for player, balance, _, _ in rows if player is None]
    if not account:
        raise UnknownAccount(f"No such account: {code}.")
    return account[0], _balances_of(row for row in rows if row[0] is not None)


def get_player_balance(*, player: Player) -> Balance:
    """``available`` can be spent now; ``in_play`` is on layouts or held as reserves.

    Chips anted or paid into a pot belong to the pot, so they are in neither.
    """
    return get_player_balances(players=[player])[player.pk]


def list_player_transactions(*, player: Player) -> QuerySet[Entry]:
    return list_statement(code=player.wallet.code)


def search_players(*, query: str, limit: int = 20) -> QuerySet[Player]:
    players = Player.objects.select_related("user", "wallet").order_by("user__name", "pk")
    if query:
        players = players.filter(user__name__icontains=query) | players.filter(
            user__username__icontains=query
        )
    return players[:limit]
