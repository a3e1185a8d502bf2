"""REST API of a season's divisions (read-only, public): each division's table with its
promotion and relegation zones, and its forecast of first place, promotion and relegation
with the number of simulations and the Monte Carlo error. Included by ``api/urls.py``."""

from __future__ import annotations

from collections.abc import Hashable
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
from api.seasons import SeasonLineSerializer, SeasonSerializer, _season
from league.divisions import setup_of
from league.models import League, Season
from ratings.forecasts import Chance
from ratings.seasons.divisions import FIXTURES, ROUND_ROBIN, DivisionTable, division_tables


class DivisionRowSerializer(SeasonLineSerializer):
    zone = serializers.ChoiceField(
        choices=["promotion", "relegation", ""],
        help_text="Where the table stands the player now: promotion, relegation or neither.",
    )


class DivisionChanceSerializer(serializers.Serializer):
    player_id = serializers.IntegerField()
    first = serializers.FloatField(help_text="Chance of finishing first (0 to 1).")
    first_error = serializers.FloatField(help_text="Its Monte Carlo standard error.")
    promotion = serializers.FloatField(
        allow_null=True, help_text="Chance of promotion; null in the top division."
    )
    promotion_error = serializers.FloatField(allow_null=True)
    relegation = serializers.FloatField(
        allow_null=True, help_text="Chance of relegation; null in the bottom division."
    )
    relegation_error = serializers.FloatField(allow_null=True)


class DivisionForecastSerializer(serializers.Serializer):
    simulations = serializers.IntegerField(help_text="How many times the games were played.")
    seed = serializers.IntegerField(help_text="The random seed: one seed, one forecast.")
    remaining = serializers.IntegerField(help_text="Games played out in each simulation.")
    simulated = serializers.ChoiceField(
        choices=[FIXTURES, ROUND_ROBIN],
        help_text="fixtures: the division's open fixtures in the season; round_robin: none "
        "are scheduled, so one game between every two players who have not met this season, "
        "on neutral ground.",
    )
    largest_error = serializers.FloatField(help_text="The largest standard error of any chance.")
    chances = DivisionChanceSerializer(many=True)


class DivisionSerializer(serializers.Serializer):
    position = serializers.IntegerField(help_text="Place from the top: 1 is the top division.")
    name = serializers.CharField()
    rows = DivisionRowSerializer(
        many=True, help_text="The division's table: only matches between its players count."
    )
    forecast = DivisionForecastSerializer(
        allow_null=True, help_text="Null once the season has ended (the tables are final)."
    )


class SeasonDivisionsSerializer(serializers.Serializer):
    season = SeasonSerializer()
    promotion = serializers.IntegerField(
        allow_null=True, help_text="How many go up and down between adjacent divisions."
    )
    newcomers = serializers.IntegerField(
        allow_null=True, help_text="The division newcomers start in next season; 0: the bottom."
    )
    proposed = serializers.BooleanField(
        help_text="The divisions were proposed by promotion and relegation."
    )
    fixed = serializers.BooleanField(help_text="The divisions are fixed (no more moves).")
    divisions = DivisionSerializer(many=True)


def _chance(chances: dict[Hashable, Chance] | None, key: int) -> tuple[Any, Any]:
    if chances is None or key not in chances:
        return None, None
    return chances[key].probability, chances[key].standard_error


def division_body(table: DivisionTable) -> dict[str, Any]:
    """One division as the API gives it."""
    rows = []
    for line in table.lines:
        zone = (
            "promotion"
            if line.player_id in table.promoted
            else "relegation"
            if line.player_id in table.relegated
            else ""
        )
        rows.append({**line.__dict__, "zone": zone})
    forecast = table.forecast
    body: dict[str, Any] = {
        "position": table.division.position,
        "name": table.division.name,
        "rows": rows,
        "forecast": None,
    }
    if forecast is not None:
        chances = []
        for line in table.lines:
            first, first_error = _chance(forecast.first, line.player_id)
            up, up_error = _chance(forecast.promotion, line.player_id)
            down, down_error = _chance(forecast.relegation, line.player_id)
            chances.append(
                {
                    "player_id": line.player_id,
                    "first": first,
                    "first_error": first_error,
                    "promotion": up,
                    "promotion_error": up_error,
                    "relegation": down,
                    "relegation_error": down_error,
                }
            )
        body["forecast"] = {
            "simulations": forecast.simulations,
            "seed": forecast.seed,
            "remaining": forecast.remaining,
            "simulated": forecast.simulated,
            "largest_error": forecast.largest_error,
            "chances": chances,
        }
    return body


@extend_schema(tags=["seasons"], responses={200: SeasonDivisionsSerializer, **schema.errors(404)})
class SeasonDivisionsView(CachedReadMixin, generics.GenericAPIView):
    """A season's divisions, top first: each division's table with its promotion and
    relegation zones, and its forecast (first place, promotion, relegation)."""

    serializer_class = SeasonDivisionsSerializer
    permission_classes = [IsAuthenticatedOrReadOnly]
    pagination_class = None

    def get(self, request: Request, league_slug: str, season_slug: str) -> Response:
        league = get_object_or_404(League, slug=league_slug)
        season = get_object_or_404(Season, league=league, slug=season_slug)
        setup = setup_of(season)
        body = {
            "season": _season(season),
            "promotion": setup.promotion if setup else None,
            "newcomers": setup.newcomers if setup else None,
            "proposed": bool(setup and setup.proposed),
            "fixed": bool(setup and setup.fixed),
            "divisions": [division_body(table) for table in division_tables(season)],
        }
        return Response(SeasonDivisionsSerializer(body).data)


league = "leagues/<slug:league_slug>/"
urlpatterns = [
    path(
        f"{league}seasons/<slug:season_slug>/divisions/",
        SeasonDivisionsView.as_view(),
        name="season-divisions",
    ),
]
