"""The cage screen, mounted at /cage/."""

from django.urls import path

from tables.console.books import views as books
from tables.console.cage import markers
from tables.console.cage import views as cage
from tables.console.pit.urls import verdict_paths

app_name = "cage"

urlpatterns = [
    path("", cage.cage_home, name="home"),
    path("players/<id:player_id>/buy-in/", cage.move, {"kind": "buy_in"}, name="buy_in"),
    path("players/<id:player_id>/cash-out/", cage.move, {"kind": "cash_out"}, name="cash_out"),
    path(
        "players/<id:player_id>/identify/buy-in/",
        cage.identify_and_move,
        {"kind": "buy_in"},
        name="identify_buy_in",
    ),
    path(
        "players/<id:player_id>/identify/cash-out/",
        cage.identify_and_move,
        {"kind": "cash_out"},
        name="identify_cash_out",
    ),
    path("markers/<id:marker_id>/redeem/", markers.redeem, name="redeem_marker"),
    path(
        "markers/<id:marker_id>/identify/redeem/",
        markers.identify_and_redeem,
        name="identify_redeem_marker",
    ),
    *verdict_paths("requests/<id:request_id>/", cage.decide),
    path("slips/<id:transfer_id>/", cage.slip, name="slip"),
    path("slips/waiting/", books.waiting, {"screen": "cage"}, name="slips"),
]
