"""The slips' pages, mounted at /slips/."""

from django.urls import path

from tables.slips import print_view

app_name = "slips"

urlpatterns = [
    path("<int:slip_id>/print", print_view.print_slip, name="print"),
]
