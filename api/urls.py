"""REST API routes (under ``/api/``), the OpenAPI schema and its offline viewers.

The two viewers are third-party pages: each gets the narrow Content-Security-Policy
exception it needs (``config/csp.py``); every other route keeps the site-wide policy.
"""

from django.urls import include, path, re_path
from django.views.decorators.csp import csp_override
from drf_spectacular.views import SpectacularAPIView, SpectacularRedocView, SpectacularSwaggerView

from api import (  # noqa: F401 (importing converters registers "id")
    backtest,
    club_matches,
    club_setup,
    competitions,
    converters,
    divisions,
    event_tables,
    exports,
    fixtures,
    players,
    seasons,
    views,
)
from api.me import MeView
from config.csp import REDOC_POLICY, SWAGGER_UI_POLICY

app_name = "api"

league = "leagues/<slug:league_slug>/"

urlpatterns = [
    path("schema/", SpectacularAPIView.as_view(), name="schema"),
    path(
        "docs/",
        csp_override(SWAGGER_UI_POLICY)(SpectacularSwaggerView.as_view(url_name="api:schema")),
        name="docs",
    ),
    path(
        "redoc/",
        csp_override(REDOC_POLICY)(
            SpectacularRedocView.as_view(url_name="api:schema", template_name="api/redoc.html")
        ),
        name="redoc",
    ),
    path("me/", MeView.as_view(), name="me"),
    path("leagues/", views.LeagueListView.as_view(), name="league-list"),
    path(league, views.LeagueDetailView.as_view(), name="league-detail"),
    path(f"{league}players/", views.PlayerListView.as_view(), name="player-list"),
    path(
        f"{league}players/<id:player_id>/",
        views.PlayerDetailView.as_view(),
        name="player-detail",
    ),
    path(
        f"{league}players/<id:player_id>/history/",
        views.PlayerHistoryView.as_view(),
        name="player-history",
    ),
    path(f"{league}matches/", views.MatchListView.as_view(), name="match-list"),
    path(f"{league}matches/<id:match_id>/", views.MatchDetailView.as_view(), name="match-detail"),
    path(f"{league}matches/<id:match_id>/void/", views.MatchVoidView.as_view(), name="match-void"),
    path(f"{league}side-matches/", views.SideMatchListView.as_view(), name="side-match-list"),
    path(
        f"{league}side-matches/<id:match_id>/",
        views.SideMatchDetailView.as_view(),
        name="side-match-detail",
    ),
    path(f"{league}rounds/", views.RoundView.as_view(), name="round"),
    path(f"{league}standings/", views.StandingsView.as_view(), name="standings"),
    path(f"{league}head-to-head/", views.HeadToHeadView.as_view(), name="head-to-head"),
    path(f"{league}win-probability/", views.WinProbabilityView.as_view(), name="win-probability"),
    path(f"{league}configs/", views.ConfigListView.as_view(), name="config-list"),
    path(f"{league}configs/<id:version>/", views.ConfigDetailView.as_view(), name="config-detail"),
    path(f"{league}replays/", views.ReplayListView.as_view(), name="replay-list"),
    path(
        f"{league}replays/<id:replay_id>/", views.ReplayDetailView.as_view(), name="replay-detail"
    ),
    path(f"{league}progress/", views.ProgressView.as_view(), name="progress"),
    path(
        f"{league}export/results.csv",
        exports.ResultsExportView.as_view(),
        name="export-results",
    ),
    path(
        f"{league}competitions/<slug:competition_slug>/export.trf",
        exports.CompetitionTrfExportView.as_view(),
        name="export-competition-trf",
    ),
    path("", include(backtest)),
    path("", include(seasons)),
    path("", include(divisions)),
    path("", include(event_tables)),
    path("", include(fixtures)),
    path("", include(players)),
    path("", include(competitions)),
    path("", include(club_setup)),
    path("", include(club_matches)),
    # Last: any other path under /api/ answers a JSON 404 in the API's error format.
    re_path(r"", views.not_found, name="not-found"),
]
