"""The organisers' workspace, under ``/<league>/organise/``."""

from django.urls import path

from ratings.workspace import players, seasons, views, website

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
    path("<slug:league_slug>/organise/seasons/", seasons.season_list, name="seasons"),
    path(
        "<slug:league_slug>/organise/seasons/<slug:season_slug>/",
        seasons.season_detail,
        name="season",
    ),
    path("<slug:league_slug>/organise/website/", website.website, name="website"),
]
