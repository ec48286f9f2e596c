"""The pit view, mounted at /pit/."""

from django.urls import path

from tables.console import pit

app_name = "pit"

urlpatterns = [
    path("", pit.pit_home, name="home"),
    path("live/", pit.pit_live, name="live"),
    path("requests/<int:request_id>/approve/", pit.decide, {"verdict": "approve"}, name="approve"),
    path("requests/<int:request_id>/refuse/", pit.decide, {"verdict": "refuse"}, name="refuse"),
    path("tables/<int:table_id>/limits/", pit.limits, name="limits"),
    path("alerts/<int:alert_id>/resolve/", pit.resolve_alert, name="resolve_alert"),
]
