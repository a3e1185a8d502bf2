"""The organisers' workspace, under ``/<league>/organise/``."""

from django.urls import path

from ratings.workspace import players, views

app_name = "workspace"
urlpatterns = [
    path("<slug:league_slug>/organise/", views.hub, name="hub"),
    path("<slug:league_slug>/organise/ranking/", views.ranking, name="ranking"),
    path("<slug:league_slug>/organise/players/", players.players, name="players"),
    path(
        "<slug:league_slug>/organise/players/<slug:player_slug>/",
        players.player,
        name="player",
    ),
]
