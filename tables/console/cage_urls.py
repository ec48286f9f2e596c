"""The cage screen, mounted at /cage/."""

from django.urls import path

from tables.console import cage

app_name = "cage"

urlpatterns = [
    path("", cage.cage_home, name="home"),
    path("players/<id:player_id>/buy-in/", cage.buy_in_view, name="buy_in"),
    path("players/<id:player_id>/cash-out/", cage.cash_out_view, name="cash_out"),
    path("requests/<id:request_id>/approve/", cage.decide, {"verdict": "approve"}, name="approve"),
    path("requests/<id:request_id>/refuse/", cage.decide, {"verdict": "refuse"}, name="refuse"),
    path("slips/<id:transfer_id>/", cage.slip, name="slip"),
]
