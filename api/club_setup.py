"""REST API of setting up club matches (organisers): a team's captain, a season's boards
and match points, and a generated round robin of club matches (``preview: true`` plans it
and stores nothing, as the workspace's preview does).

Writes go through ``ratings.club_matches`` and ``ratings.club_fixtures``; a bad body is a
400 naming the field, nothing stored. Included by ``api/urls.py``.
"""

from __future__ import annotations

from typing import Any

from django.http import Http404
from django.urls import path
from drf_spectacular.utils import extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api import idempotency, schema
from api.bodies import BodySerializer
from api.club_matches import (
    ClubMatchSerializer,
    ClubMixin,
    TeamSerializer,
    match_body,
    team_body,
)
from api.fields import StrictBooleanField, StrictCharField, StrictIntegerField
from api.serializers import MAX_ID
from league.idempotency_keys import scoped_key
from league.models import ClubSeason, RosterEntry, Team
from ratings import club_fixtures
from ratings import club_matches as clubs

TAGS = ["club matches"]


class CaptainBodySerializer(BodySerializer):
    player = StrictIntegerField(min_value=1, max_value=MAX_ID, help_text="A roster player's id.")


class ClubSeasonSerializer(serializers.Serializer):
    season = serializers.CharField(help_text="The season's slug.")
    boards = serializers.IntegerField()
    match_points = serializers.ListField(
        child=serializers.FloatField(), help_text="Match points of a win, a draw and a loss."
    )


class ClubSeasonBodySerializer(BodySerializer):
    season = StrictCharField(max_length=90, help_text="The season's slug.")
    boards = StrictIntegerField(min_value=1, max_value=clubs.MAX_BOARDS)
    points_win = StrictCharField(required=False, max_length=8, help_text="Default 2.")
    points_draw = StrictCharField(required=False, max_length=8, help_text="Default 1.")
    points_loss = StrictCharField(required=False, max_length=8, help_text="Default 0.")


class GenerateBodySerializer(BodySerializer):
    teams = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        max_length=200,
        help_text="Team ids (default: every team of the league).",
    )
    double = StrictBooleanField(required=False, default=False)
    start = serializers.DateField(help_text="The day of round 1.")
    interval_days = StrictIntegerField(
        min_value=1, max_value=club_fixtures.MAX_INTERVAL, required=False, default=7
    )
    boards = StrictIntegerField(
        min_value=1,
        max_value=clubs.MAX_BOARDS,
        required=False,
        help_text="For days in no season with club-match settings.",
    )
    venue = StrictCharField(required=False, allow_blank=True, max_length=120, default="")
    preview = StrictBooleanField(
        required=False, default=False, help_text="Plan the matches and store nothing."
    )


class PlannedSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    home = serializers.IntegerField()
    away = serializers.IntegerField()
    day = serializers.DateField()
    boards = serializers.IntegerField()
    match_points = serializers.ListField(child=serializers.FloatField())


def season_body(setting: ClubSeason) -> dict[str, Any]:
    return {
        "season": setting.season.slug,
        "boards": setting.boards,
        "match_points": [
            float(setting.points_win),
            float(setting.points_draw),
            float(setting.points_loss),
        ],
    }


TEAM = schema.id_path("team_id", "The team's id.")


@extend_schema(
    tags=TAGS,
    summary="Name a team's captain",
    description="Organisers only. A player of the team's roster; signed in, they hand in the "
    "team's board orders.",
    parameters=[TEAM, schema.IDEMPOTENCY_KEY],
    request=CaptainBodySerializer,
    responses={200: TeamSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
)
class TeamCaptainView(ClubMixin, generics.GenericAPIView):
    serializer_class = CaptainBodySerializer

    def post(self, request: Request, league_slug: str, team_id: int) -> Response:
        league = self.get_league()
        team = Team.objects.filter(league=league, pk=team_id).first()
        if team is None:
            raise Http404(f"{league.name} has no team {team_id}.")
        key = idempotency.client_key(request)
        body = CaptainBodySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        team = clubs.set_captain(
            league, team, body.validated_data["player"], recorded_by=request.user,
            idempotency_key=scoped_key("club-captain", key),
        )  # fmt: skip
        players = list(RosterEntry.objects.filter(team=team).values_list("player_id", flat=True))
        return Response(team_body(team, players))


@extend_schema(tags=TAGS)
class ClubSeasonListView(ClubMixin, generics.GenericAPIView):
    serializer_class = ClubSeasonSerializer

    @extend_schema(responses={200: ClubSeasonSerializer(many=True), **schema.errors(404)})
    def get(self, request: Request, league_slug: str) -> Response:
        """Each season's club-match settings: boards and match points."""
        rows = ClubSeason.objects.filter(season__league=self.get_league()).select_related("season")
        return Response([season_body(row) for row in rows])

    @extend_schema(
        summary="Set a season's boards and match points",
        description="Organisers only. Every club match scheduled on a day of the season takes "
        "them; refused once a club match is scheduled in the season.",
        parameters=[schema.IDEMPOTENCY_KEY],
        request=ClubSeasonBodySerializer,
        responses={200: ClubSeasonSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
    )
    def post(self, request: Request, league_slug: str) -> Response:
        key = idempotency.client_key(request)
        body = ClubSeasonBodySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        setting = club_fixtures.set_club_season(
            self.get_league(), data["season"], boards=data["boards"],
            points_win=data.get("points_win"), points_draw=data.get("points_draw"),
            points_loss=data.get("points_loss"), recorded_by=request.user,
            idempotency_key=scoped_key("club-season", key),
        )  # fmt: skip
        return Response(season_body(setting))


@extend_schema(
    tags=TAGS,
    summary="Generate a round robin of club matches",
    description="Organisers only. A single or double round robin between the teams (default: "
    "all), round 1 on ``start``, each next round ``interval_days`` later, home and away "
    "alternating. Each match takes the boards and match points of its day's season, else "
    "``boards`` and 2 / 1 / 0. With ``preview: true`` the planned matches are returned "
    "(200) and nothing is stored; else they are scheduled, all or none (201). A retry with "
    "the same Idempotency-Key stores nothing new.",
    parameters=[schema.IDEMPOTENCY_KEY],
    request=GenerateBodySerializer,
    responses={
        200: PlannedSerializer(many=True),
        201: ClubMatchSerializer(many=True),
        **schema.errors(400, 401, 403, 404, 413, 422),
    },
)
class GenerateClubMatchesView(ClubMixin, generics.GenericAPIView):
    serializer_class = GenerateBodySerializer

    def post(self, request: Request, league_slug: str) -> Response:
        league = self.get_league()
        key = idempotency.client_key(request)
        body = GenerateBodySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        terms = {
            "teams": data.get("teams"),
            "double": data["double"],
            "start": data["start"],
            "interval_days": data["interval_days"],
            "boards": data.get("boards"),
        }
        if data["preview"]:
            planned = club_fixtures.plan_club_fixtures(league, **terms)
            return Response(
                [
                    {
                        "round": m.round,
                        "home": m.home.pk,
                        "away": m.away.pk,
                        "day": m.day,
                        "boards": m.boards,
                        "match_points": [float(p) for p in m.points or ()],
                    }
                    for m in planned
                ]
            )
        made = club_fixtures.generate_club_fixtures(
            league, **terms, venue=data["venue"], recorded_by=request.user,
            idempotency_key=scoped_key("club-generate", key),
        )  # fmt: skip
        return Response([match_body(m) for m in made], status=201)


league = "leagues/<slug:league_slug>/"
urlpatterns = [
    path(f"{league}teams/<id:team_id>/captain/", TeamCaptainView.as_view(), name="team-captain"),
    path(f"{league}club-seasons/", ClubSeasonListView.as_view(), name="club-season-list"),
    path(
        f"{league}club-matches/generate/",
        GenerateClubMatchesView.as_view(),
        name="club-match-generate",
    ),
]
