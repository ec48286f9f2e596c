"""The pit view, mounted at /pit/."""

from django.urls import URLPattern, path

from casino.signed_in import View
from tables.console.books import views as books
from tables.console.pit import markers
from tables.console.pit import views as pit

app_name = "pit"


def verdict_paths(route: str, view: View, name: str = "{verdict}") -> list[URLPattern]:
    """A decision's two routes, ``route`` + ``approve/`` and + ``refuse/``, each giving the view its
    ``verdict`` (the pit's and the cage's); ``name`` spells each route's name from the verdict."""
    return [
        path(f"{route}{verdict}/", view, {"verdict": verdict}, name=name.format(verdict=verdict))
        for verdict in ("approve", "refuse")
    ]


urlpatterns = [
    path("", pit.pit_screen, {"template": "pit/pit.html"}, name="home"),
    path("live/", pit.pit_screen, {"template": "pit/_live.html"}, name="live"),
    path("alerts/", pit.alerts_page, name="alerts"),
    *verdict_paths("requests/<id:request_id>/", pit.decide),
    path("tables/<id:table_id>/limits/", pit.limits, name="limits"),
    path("tables/<id:table_id>/tray/", pit.tray_request, name="tray"),
    path("tables/<id:table_id>/dealer/", pit.assign_dealer, name="dealer"),
    *verdict_paths("corrections/<id:correction_id>/", pit.decide_correction, "{verdict}_correction"),
    path("alerts/<id:alert_id>/resolve/", pit.resolve_alert, name="resolve_alert"),
    path("slips/", books.waiting, {"screen": "pit"}, name="slips"),
    path("tables/<id:table_id>/markers/", markers.table_markers, name="markers"),
    path("tables/<id:table_id>/markers/issue/", markers.issue, name="issue_marker"),
]
