"""REST API of seasons: a league's seasons and one season's table (read-only, public).

The table is the one the season page shows (``ratings.seasons.read``): the archived table
of a closed season, or one derived now for an open season, with the record of its
derivations. Included by ``api/urls.py``.
"""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.permissions import IsAuthenticatedOrReadOnly
from rest_framework.request import Request
from rest_framework.response import Response

from api import schema
from api.caching import CachedReadMixin
from league.models import League, Season
from league.seasons import SEASON_TIEBREAKS, tiebreak_order
from ratings.forecasts import Forecast, season_forecast
from ratings.models import SeasonTable
from ratings.seasons.read import Derivation, season_table


class SeasonSerializer(serializers.Serializer):
    slug = serializers.SlugField()
    name = serializers.CharField()
    start_date = serializers.DateField(help_text="First day (the league's local date).")
    end_date = serializers.DateField(help_text="Last day, inclusive.")
    points_win = serializers.DecimalField(max_digits=4, decimal_places=1, coerce_to_string=False)
    points_draw = serializers.DecimalField(max_digits=4, decimal_places=1, coerce_to_string=False)
    points_loss = serializers.DecimalField(max_digits=4, decimal_places=1, coerce_to_string=False)
    closed = serializers.BooleanField(help_text="True once closed: its table is archived.")
    closed_at = serializers.DateTimeField(allow_null=True)
    tiebreaks = serializers.ListField(
        child=serializers.ChoiceField(choices=SEASON_TIEBREAKS),
        help_text="The organisers' order of tie-breaks after points (FIDE C.07 codes; RTG: "
        "rating at the end, the default). See docs/tiebreaks.md.",
    )


class SeasonLineSerializer(serializers.Serializer):
    position = serializers.IntegerField(
        help_text="Place in the season table, by season points (then rating at the end): "
        "not a rank."
    )
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    points = serializers.DecimalField(max_digits=8, decimal_places=1, coerce_to_string=False)
    rating_start = serializers.FloatField(
        allow_null=True, help_text="Null: not rated before the season."
    )
    rank_start = serializers.IntegerField(
        allow_null=True,
        help_text="The leaderboard's rank before the season (the league's ranking rules, as "
        "its past standings show it); null: not ranked then.",
    )
    rating_end = serializers.FloatField(allow_null=True)
    rd_end = serializers.FloatField(allow_null=True)
    rank_end = serializers.IntegerField(
        allow_null=True,
        help_text="The leaderboard's rank at the season's end; null: not ranked then.",
    )
    change = serializers.FloatField(
        allow_null=True, help_text="From the initial rating for a player new this season."
    )
    tiebreaks = serializers.DictField(
        child=serializers.FloatField(allow_null=True),
        help_text="Each tie-break of the table's order (code -> value; null where none, "
        "e.g. direct encounter for a player level with nobody).",
    )


class TableChanceSerializer(serializers.Serializer):
    player_id = serializers.IntegerField()
    probability = serializers.FloatField(help_text="Chance of finishing first (0 to 1).")
    standard_error = serializers.FloatField(help_text="Its Monte Carlo standard error.")


class TableForecastSerializer(serializers.Serializer):
    simulations = serializers.IntegerField(help_text="How many times the fixtures were played.")
    seed = serializers.IntegerField(help_text="The random seed: one seed, one forecast.")
    remaining = serializers.IntegerField(help_text="Open fixtures played out in the simulation.")
    places = serializers.IntegerField(help_text="The chances are of finishing in these places.")
    chances = TableChanceSerializer(many=True)


class DerivationSerializer(serializers.Serializer):
    kind = serializers.ChoiceField(choices=SeasonTable.Kind.choices)
    derived_at = serializers.DateTimeField()
    derived_by = serializers.CharField(
        allow_null=True, help_text="Organisers only; null for other readers."
    )
    reason = serializers.CharField()
    config_version = serializers.IntegerField()
    through_seq = serializers.IntegerField()


class SeasonTableSerializer(serializers.Serializer):
    season = SeasonSerializer()
    archived = serializers.BooleanField(
        help_text="True: the stored table of a closed season; false: derived now."
    )
    config_version = serializers.IntegerField(allow_null=True)
    start_period = serializers.IntegerField(allow_null=True)
    end_period = serializers.IntegerField(allow_null=True)
    rows = SeasonLineSerializer(many=True)
    derivations = DerivationSerializer(many=True)
    tiebreak_order = serializers.ListField(
        child=serializers.CharField(),
        help_text="The tie-breaks this table is ordered by (an archived table keeps its own).",
    )
    forecast = TableForecastSerializer(
        allow_null=True,
        help_text="Who wins the season, by simulating its open fixtures; null for a closed "
        "season or one without fixtures left.",
    )


def _season(season: Season) -> dict:
    return {
        "slug": season.slug,
        "name": season.name,
        "start_date": season.start_date,
        "end_date": season.end_date,
        "points_win": season.points_win,
        "points_draw": season.points_draw,
        "points_loss": season.points_loss,
        "closed": season.closed,
        "closed_at": season.closed_at,
        "tiebreaks": list(tiebreak_order(season)),
    }


def forecast_body(forecast: Forecast | None) -> dict[str, Any] | None:
    """A forecast as the API gives it (the season's and an event's alike), likeliest first."""
    if forecast is None:
        return None
    return {
        "simulations": forecast.simulations,
        "seed": forecast.seed,
        "remaining": forecast.remaining,
        "places": forecast.places,
        "chances": [
            {"player_id": key, **chance.__dict__}
            for key, chance in sorted(
                forecast.chances.items(), key=lambda item: -item[1].probability
            )
        ],
    }


def _derivation(derivation: Derivation, organiser: bool) -> dict[str, Any]:
    """One line of the table's record; who derived it is shown to organisers only."""
    return {**derivation.__dict__, "derived_by": derivation.derived_by if organiser else None}


@extend_schema(tags=["seasons"], responses={200: SeasonSerializer(many=True), **schema.errors(404)})
class SeasonListView(CachedReadMixin, generics.GenericAPIView):
    """The league's seasons, newest first."""

    serializer_class = SeasonSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    pagination_class = None

    def get(self, request: Request, league_slug: str) -> Response:
        league = get_object_or_404(League, slug=league_slug)
        seasons = Season.objects.filter(league=league).order_by("-start_date")
        return Response(SeasonSerializer([_season(s) for s in seasons], many=True).data)


@extend_schema(tags=["seasons"], responses={200: SeasonTableSerializer, **schema.errors(404)})
class SeasonTableView(CachedReadMixin, generics.GenericAPIView):
    """One season's table: games, W-D-L, points, rating and rank at its start and end."""

    serializer_class = SeasonTableSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    pagination_class = None

    def get(self, request: Request, league_slug: str, season_slug: str) -> Response:
        league = get_object_or_404(League, slug=league_slug)
        season = get_object_or_404(Season, league=league, slug=season_slug)
        view = season_table(season)
        organiser = league.is_organiser(request.user)
        body = {
            "season": _season(season),
            "archived": view.archived,
            "config_version": view.config_version,
            "start_period": view.start.index if view.start else None,
            "end_period": view.end.index if view.end else None,
            "rows": [line.__dict__ for line in view.lines],
            "derivations": [_derivation(d, organiser) for d in view.derivations],
            "tiebreak_order": list(view.tiebreak_order),
            "forecast": forecast_body(season_forecast(season, view.lines)),
        }
        return Response(SeasonTableSerializer(body).data)


league = "leagues/<slug:league_slug>/"
urlpatterns = [
    path(f"{league}seasons/", SeasonListView.as_view(), name="season-list"),
    path(
        f"{league}seasons/<slug:season_slug>/standings/",
        SeasonTableView.as_view(),
        name="season-standings",
    ),
]
