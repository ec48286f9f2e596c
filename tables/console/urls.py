"""The console, mounted at /console/: signing in, the dealer's home and table screens, a player's page."""

from django.urls import path

from tables.console.books import views as books
from tables.console.dealer import views
from tables.console.me import views as me
from tables.console.signin import ConsoleLoginView, ConsoleLogoutView

app_name = "console"

urlpatterns = [
    path("", views.home, name="home"),
    path("login/", ConsoleLoginView.as_view(), name="login"),
    path("logout/", ConsoleLogoutView.as_view(), name="logout"),
    path("me/", me.my_page, name="me"),
    path("tables/<id:table_id>/", views.table_screen, name="table"),
    path("tables/<id:table_id>/open/", views.open_table, name="open"),
    path("tables/<id:table_id>/open/check/", views.check_opening, name="open-check"),
    path("tables/<id:table_id>/amounts/", views.bet_amounts, name="amounts"),
    path("tables/<id:table_id>/close/", views.close_table, name="close"),
    path("tables/<id:table_id>/sessions/<id:session_id>/", views.session_summary, name="summary"),
    path("tables/<id:table_id>/players/", views.player_search, name="player-search"),
    path("tables/<id:table_id>/seat/", views.seat_player, name="seat"),
    path("tables/<id:table_id>/unseat/", views.unseat_player, name="unseat"),
    path("tables/<id:table_id>/fill/", views.tray_request, {"kind": "fill"}, name="fill"),
    path("tables/<id:table_id>/credit/", views.tray_request, {"kind": "credit"}, name="credit"),
    path("tables/<id:table_id>/limits/", views.change_limits, name="limits"),
    path("tables/<id:table_id>/cash/", views.cash_buy_in, name="cash"),
    path("tables/<id:table_id>/deal/", views.start_deal, name="start"),
    path("tables/<id:table_id>/rounds/<id:round_id>/faro/<str:kind>/", views.faro_action, name="faro"),
    path("tables/<id:table_id>/rounds/<id:round_id>/act/", views.game_action, name="act"),
    path("tables/<id:table_id>/rounds/<id:round_id>/correction/", views.ask_correction, name="correction"),
    path("tables/<id:table_id>/count/", books.count_grid, name="count-grid"),
    path("tables/<id:table_id>/count/take/", books.count_tray, name="count"),
    path("slips/<id:slip_id>/sign/", books.sign, name="sign"),
]
