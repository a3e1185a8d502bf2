"""The organisers' workspace, under ``/<league>/organise/``."""

from django.urls import path

from ratings.workspace import views

app_name = "workspace"
urlpatterns = [
    path("<slug:league_slug>/organise/", views.hub, name="hub"),
    path("<slug:league_slug>/organise/ranking/", views.ranking, name="ranking"),
]
