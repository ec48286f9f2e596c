"""Top-level URLs: the API under /api/v1/, the console, the pit view and the admin."""

from django.contrib import admin
from django.urls import include, path

urlpatterns = [
    path("admin/", admin.site.urls),
    path("api/v1/", include("casino.api.urls")),
]
