"""The public pages' URLs (namespace ``pages``); the organisers' are in ``web.workspace.urls``."""

from django.urls import path

from web.public import (
    club_matches,
    competitions,
    cups,
    divisions,
    embed,
    event_tables,
    exports,
    feeds,
    fixtures,
    pages,
    progress,
    seasons,
)

app_name = "pages"
urlpatterns = [
    path("", pages.home, name="home"),
    path("<slug:league_slug>/", pages.league, name="league"),
    path("<slug:league_slug>/players/<slug:player_slug>/", pages.player, name="player"),
    path(
        "<slug:league_slug>/players/<slug:player_slug>/periods/<int:period>/",
        pages.player_period,
        name="player_period",
    ),
    path("<slug:league_slug>/versus/", pages.versus, name="versus"),
    path(
        "<slug:league_slug>/players/<slug:player_slug>/ranks/",
        pages.player_ranks,
        name="player_ranks",
    ),
    path(
        "<slug:league_slug>/players/<slug:player_slug>/fixtures.ics",
        fixtures.player_calendar,
        name="player_fixtures_ics",
    ),
    path("<slug:league_slug>/matches/", pages.matches, name="matches"),
    path("<slug:league_slug>/matches/<int:seq>/", pages.match_permalink, name="match"),
    path("<slug:league_slug>/fixtures/", fixtures.upcoming, name="fixtures"),
    path("<slug:league_slug>/fixtures.ics", fixtures.league_calendar, name="fixtures_ics"),
    path("<slug:league_slug>/events/", pages.events, name="events"),
    path("<slug:league_slug>/seasons/", seasons.season_list, name="seasons"),
    path("<slug:league_slug>/competitions/", competitions.competition_list, name="competitions"),
    path(
        "<slug:league_slug>/competitions/<slug:competition_slug>/",
        competitions.competition,
        name="competition",
    ),
    path(
        "<slug:league_slug>/competitions/<slug:competition_slug>/rounds/<int:round_number>/",
        competitions.competition_round,
        name="competition_round",
    ),
    path("<slug:league_slug>/results.atom", feeds.LeagueResultsFeed(), name="results_feed"),
    path(
        "<slug:league_slug>/players/<slug:player_slug>/results.atom",
        feeds.PlayerResultsFeed(),
        name="player_results_feed",
    ),
    path("<slug:league_slug>/embed/standings/", embed.standings, name="embed_standings"),
    path("<slug:league_slug>/embed/fixtures/", embed.fixtures, name="embed_fixtures"),
    path("<slug:league_slug>/seasons/<slug:season_slug>/", seasons.season, name="season"),
    path(
        "<slug:league_slug>/seasons/<slug:season_slug>/divisions/",
        divisions.season_divisions,
        name="season_divisions",
    ),
    path(
        "<slug:league_slug>/seasons/<slug:season_slug>/divisions.csv",
        divisions.season_divisions_csv,
        name="season_divisions_csv",
    ),
    path(
        "<slug:league_slug>/seasons/<slug:season_slug>/table.csv",
        seasons.season_csv,
        name="season_csv",
    ),
    path(
        "<slug:league_slug>/competitions/<slug:competition_slug>/bracket/",
        cups.competition_bracket,
        name="competition_bracket",
    ),
    path(
        "<slug:league_slug>/competitions/<slug:competition_slug>/table/",
        event_tables.competition_table,
        name="competition_table",
    ),
    path("<slug:league_slug>/compare/", pages.compare, name="compare"),
    path("<slug:league_slug>/teams/", club_matches.teams, name="teams"),
    path(
        "<slug:league_slug>/club-matches/<int:match_id>/",
        club_matches.club_match,
        name="club_match",
    ),
    path("<slug:league_slug>/progress/", progress.progress, name="progress"),
    path(
        "<slug:league_slug>/export/standings.csv",
        exports.export_standings,
        name="export_standings",
    ),
    path("<slug:league_slug>/export/history.csv", exports.export_history, name="export_history"),
    path(
        "<slug:league_slug>/competitions/<slug:competition_slug>/event.trf",
        exports.export_competition_trf,
        name="competition_trf",
    ),
]
