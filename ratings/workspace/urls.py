"""The organisers' workspace, under ``/<league>/organise/``."""

from django.urls import path

from ratings.workspace import fixture_views, players, seasons, views, website

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
    path("<slug:league_slug>/organise/fixtures/", fixture_views.fixtures_page, name="fixtures"),
    path(
        "<slug:league_slug>/organise/fixtures/<int:fixture_id>/result/",
        fixture_views.fixture_result,
        name="fixture_result",
    ),
    path(
        "<slug:league_slug>/organise/fixtures/<int:fixture_id>/reschedule/",
        fixture_views.fixture_reschedule,
        name="fixture_reschedule",
    ),
    path(
        "<slug:league_slug>/organise/fixtures/<int:fixture_id>/cancel/",
        fixture_views.fixture_cancel,
        name="fixture_cancel",
    ),
    path("<slug:league_slug>/organise/pairings/", fixture_views.pairings_page, name="pairings"),
]
