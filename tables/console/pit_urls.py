"""The pit view, mounted at /pit/."""

from django.urls import path

from tables.console import pit

app_name = "pit"

urlpatterns = [
    path("", pit.pit_home, name="home"),
    path("live/", pit.pit_live, name="live"),
    path("alerts/", pit.alerts_page, name="alerts"),
    path("requests/<id:request_id>/approve/", pit.decide, {"verdict": "approve"}, name="approve"),
    path("requests/<id:request_id>/refuse/", pit.decide, {"verdict": "refuse"}, name="refuse"),
    path("tables/<id:table_id>/limits/", pit.limits, name="limits"),
    path("tables/<id:table_id>/tray/", pit.tray_request, name="tray"),
    path(
        "corrections/<id:correction_id>/approve/",
        pit.decide_correction,
        {"verdict": "approve"},
        name="approve_correction",
    ),
    path(
        "corrections/<id:correction_id>/refuse/",
        pit.decide_correction,
        {"verdict": "refuse"},
        name="refuse_correction",
    ),
    path("alerts/<id:alert_id>/resolve/", pit.resolve_alert, name="resolve_alert"),
]
