"""The auditors' pages, mounted at /audit/."""

from django.urls import path

from tables.audit import views

app_name = "audit"

urlpatterns = [
    path("", views.index, name="index"),
    path("<str:day>/", views.report_page, name="report"),
    path("<str:day>/close/", views.close_day, name="close"),
]
