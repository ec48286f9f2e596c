"""Top-level URLs: the API under /api/v1/, the console, the pit view and the admin."""

from django.contrib import admin
from django.urls import include, path
from django.views.generic import RedirectView

from casino.observability.health import healthz, readyz
from casino.observability.metrics import metrics_view

urlpatterns = [
    path("healthz", healthz, name="healthz"),
    path("readyz", readyz, name="readyz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin.site.urls),
    path("api/v1/", include("casino.api.urls")),
    path("console/", include("tables.console.urls")),
    path("pit/", include("tables.console.pit.urls")),
    path("cage/", include("tables.console.cage.urls")),
    path("count/", include("tables.console.count.urls")),
    path("audit/", include("tables.audit.urls")),
    path("slips/", include("tables.slips.urls")),
    path("", RedirectView.as_view(url="/console/", permanent=False)),
]

# JSON in the API's error shape on /api/, Django's HTML pages elsewhere (casino/error_pages.py).
handler400 = "casino.error_pages.bad_request"
handler403 = "casino.error_pages.permission_denied"
handler404 = "casino.error_pages.page_not_found"
handler500 = "casino.error_pages.server_error"
