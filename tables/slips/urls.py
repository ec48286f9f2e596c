"""The slips' pages, mounted at /slips/."""

from django.urls import path

from tables.slips import history_view, print_view

app_name = "slips"

urlpatterns = [
    path("<int:slip_id>/print", print_view.print_slip, name="print"),
    path("<int:slip_id>/", history_view.slip_page, name="history"),
]
