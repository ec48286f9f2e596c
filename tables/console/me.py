"""A player's own page: their balance and their ratings, sitting by sitting (the issue's comps).

Signed in with a session like the console; only a player account has this page, and it only
ever shows the signed-in player (there is no id in the URL to change).
"""

from __future__ import annotations

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render

from casino.models import Player, Role
from casino.permissions import actor_of, role_of
from casino.selectors import get_player_balance
from casino.signed_in import NotAllowed, signed_in_get
from tables.console.access import found
from tables.console.games import GAME_TITLES
from tables.ratings.selectors import list_sittings, sitting_row

SITTINGS_SHOWN = 50


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
    return render(
        request,
        "console/me.html",
        {
            "player": player,
            "balance": get_player_balance(player=player),
            "rows": rows,
            "totals": totals,
            "titles": GAME_TITLES,
            "comp_rate": settings.COMP_RATE,
            "more": len(sittings) == SITTINGS_SHOWN,
        },
    )
