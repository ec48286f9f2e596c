"""The count room, mounted at /count/."""

from django.urls import path

from tables.console.count import views

app_name = "count"

urlpatterns = [
    path("", views.count_home, name="home"),
    path("boxes/<id:box_id>/remove/", views.remove, name="remove"),
    path("boxes/<id:box_id>/count/", views.count, name="count"),
]
