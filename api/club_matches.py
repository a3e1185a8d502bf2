"""REST API of club matches: read for everyone (teams and rosters, club matches with their
boards, the team table); organisers submit a team's board order, record a match's board
results (one request, every board, with an ``Idempotency-Key`` as the result endpoints) and
void a recorded match.

Writes go through ``ratings.club_matches``; every bad body is a 400 naming the field or the
board (``board_3``), nothing stored. Included by ``api/urls.py``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.core.validators import slug_re
from django.http import Http404
from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api import idempotency, schema
from api.bodies import BodySerializer
from api.fields import StrictCharField, StrictIntegerField
from api.permissions import LeaguePlayerOrOrganiser
from api.serializers import MAX_ID
from api.views import LeagueScopedMixin
from league.calendar import league_day, league_zone, local_midnight
from league.idempotency_keys import scoped_key
from league.models import ClubMatch, League, RosterEntry, Season, Team
from league.player_accounts import players_of
from ratings import club_matches as clubs

TAGS = ["club matches"]


def _number(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


class TeamSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.CharField()
    players = serializers.ListField(
        child=serializers.IntegerField(), help_text="Roster: player ids, in the order they joined."
    )
    captain = serializers.IntegerField(
        allow_null=True, help_text="The captain's player id (hands in the board orders)."
    )


class BoardSerializer(serializers.Serializer):
    board = serializers.IntegerField()
    home_player = serializers.IntegerField(allow_null=True)
    away_player = serializers.IntegerField(allow_null=True)
    home_white = serializers.BooleanField(
        allow_null=True, help_text="Whether the home player has White; null without colours."
    )
    home_score = serializers.FloatField(allow_null=True, help_text="1, 0.5 or 0 once recorded.")
    away_score = serializers.FloatField(allow_null=True)
    match = serializers.IntegerField(
        allow_null=True, help_text="The board game's event id (a match under matches/)."
    )


class ClubMatchSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    home = serializers.IntegerField(help_text="The home team's id.")
    away = serializers.IntegerField(help_text="The away team's id.")
    boards = serializers.IntegerField()
    scheduled_at = serializers.DateTimeField()
    venue = serializers.CharField()
    match_points = serializers.ListField(
        child=serializers.FloatField(), help_text="Match points of a win, a draw and a loss."
    )
    recorded = serializers.BooleanField()
    played_on = serializers.DateField(allow_null=True)
    home_points = serializers.FloatField(allow_null=True, help_text="Board points, once recorded.")
    away_points = serializers.FloatField(allow_null=True)
    home_submitted_order = serializers.BooleanField()
    away_submitted_order = serializers.BooleanField()
    board_list = BoardSerializer(many=True)


class TeamRowSerializer(serializers.Serializer):
    position = serializers.IntegerField()
    team = serializers.IntegerField()
    name = serializers.CharField()
    played = serializers.IntegerField()
    won = serializers.IntegerField()
    drawn = serializers.IntegerField()
    lost = serializers.IntegerField()
    board_points_for = serializers.FloatField()
    board_points_against = serializers.FloatField()
    match_points = serializers.FloatField()


class BoardOrderBodySerializer(BodySerializer):
    team = StrictIntegerField(
        min_value=1,
        max_value=MAX_ID,
        required=False,
        help_text="The team's id. May be left out by a captain: the team they captain.",
    )
    players = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=MAX_ID),
        max_length=clubs.MAX_BOARDS,
        help_text="Player ids, board 1 first.",
    )


class ResultBodySerializer(BodySerializer):
    results = serializers.ListField(
        child=StrictCharField(allow_blank=True, max_length=8),
        max_length=clubs.MAX_BOARDS,
        help_text='The home player\'s result on each board, board 1 first: "1-0", "½-½" or '
        '"0-1" (also "1", "0.5", "0").',
    )
    played_on = serializers.DateField()


class VoidBodySerializer(BodySerializer):
    reason = StrictCharField(max_length=1000)


def team_body(team: Team, players: list[int]) -> dict[str, Any]:
    return {
        "id": team.pk,
        "name": team.name,
        "slug": team.slug,
        "players": players,
        "captain": team.captain_id,
    }


def match_body(chosen: ClubMatch) -> dict[str, Any]:
    view = clubs.club_match_view(chosen)
    recorded = view.recorded
    return {
        "id": chosen.pk,
        "home": chosen.home_id,
        "away": chosen.away_id,
        "boards": chosen.boards,
        "scheduled_at": chosen.scheduled_at,
        "venue": chosen.venue,
        "match_points": [
            float(chosen.points_win),
            float(chosen.points_draw),
            float(chosen.points_loss),
        ],
        "recorded": recorded,
        "played_on": league_day(chosen.league, view.played_at) if view.played_at else None,
        "home_points": float(view.home_points) if recorded else None,
        "away_points": float(view.away_points) if recorded else None,
        "home_submitted_order": view.home_submitted,
        "away_submitted_order": view.away_submitted,
        "board_list": [
            {
                "board": b.number,
                "home_player": b.home.pk if b.home else None,
                "away_player": b.away.pk if b.away else None,
                "home_white": b.home_white,
                "home_score": _number(b.home_score),
                "away_score": _number(b.away_score),
                "match": b.game.pk if b.game else None,
            }
            for b in view.boards
        ],
    }


CLUB_MATCH = schema.id_path("match_id", "The club match's id.")
SEASON = OpenApiParameter(
    "season",
    {"type": "string", "maxLength": 90},
    OpenApiParameter.QUERY,
    description="A season's slug: the table of its club matches (default: every match).",
    required=False,
)


class ClubMixin(LeagueScopedMixin):
    pagination_class = None

    def club_match(self) -> ClubMatch:
        league = self.get_league()
        found = (
            ClubMatch.objects.select_related("league", "home", "away")
            .filter(league=league, pk=self.kwargs["match_id"])
            .first()
        )
        if found is None:
            raise Http404(f"{league.name} has no club match {self.kwargs['match_id']}.")
        return found


@extend_schema(tags=TAGS, responses={200: TeamSerializer(many=True), **schema.errors(404)})
class TeamListView(ClubMixin, generics.GenericAPIView):
    serializer_class = TeamSerializer

    def get(self, request: Request, league_slug: str) -> Response:
        """The league's teams with their rosters."""
        league = self.get_league()
        rosters: dict[int, list[int]] = {}
        for team_id, player_id in RosterEntry.objects.filter(team__league=league).values_list(
            "team_id", "player_id"
        ):
            rosters.setdefault(team_id, []).append(player_id)
        return Response(
            [team_body(t, rosters.get(t.pk, [])) for t in Team.objects.filter(league=league)]
        )


@extend_schema(tags=TAGS, responses={200: ClubMatchSerializer(many=True), **schema.errors(404)})
class ClubMatchListView(ClubMixin, generics.GenericAPIView):
    serializer_class = ClubMatchSerializer

    def get(self, request: Request, league_slug: str) -> Response:
        """The league's club matches, in the order they are scheduled, with their boards."""
        rows = ClubMatch.objects.filter(league=self.get_league()).select_related(
            "league", "home", "away"
        )
        return Response([match_body(row) for row in rows])


@extend_schema(
    tags=TAGS, parameters=[CLUB_MATCH], responses={200: ClubMatchSerializer, **schema.errors(404)}
)
class ClubMatchDetailView(ClubMixin, generics.GenericAPIView):
    serializer_class = ClubMatchSerializer

    def get(self, request: Request, league_slug: str, match_id: int) -> Response:
        """One club match: its boards (players, colours, results) and board score."""
        return Response(match_body(self.club_match()))


@extend_schema(
    tags=TAGS,
    summary="Submit a team's board order",
    description="Organisers, or the team's captain (signed in, by session or the account's "
    "token; ``team`` may then be left out). One player of the team's roster per board, "
    "board 1 first, each once; replaces an earlier order until the match is recorded. "
    "Anyone else, the other team's captain included, is refused with a 400 naming ``team``.",
    parameters=[CLUB_MATCH, schema.IDEMPOTENCY_KEY],
    request=BoardOrderBodySerializer,
    responses={200: ClubMatchSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
)
class BoardOrderView(ClubMixin, generics.GenericAPIView):
    serializer_class = BoardOrderBodySerializer
    # Captains too: the service decides who may hand in which team's order.
    permission_classes = [LeaguePlayerOrOrganiser]

    def user_plays(self) -> bool:
        return players_of(self.request.user, self.get_league()).exists()

    def post(self, request: Request, league_slug: str, match_id: int) -> Response:
        chosen = self.club_match()
        key = idempotency.client_key(request)
        body = BoardOrderBodySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        team = data.get("team")
        if team is None:
            mine = clubs.captained_teams(request.user, self.get_league())
            team = mine[0].pk if mine else None
        if team is None:
            raise serializers.ValidationError({"team": ["This field is required."]})
        clubs.submit_board_order(
            self.get_league(), chosen, team, data["players"],
            recorded_by=request.user, idempotency_key=scoped_key("club-order", key),
        )  # fmt: skip
        return Response(match_body(chosen))


@extend_schema(
    tags=TAGS,
    summary="Record a club match's board results",
    description="Organisers only. Every board at once (all or none): each is a rated game "
    "between the boards' players (in a chess league the home team has White on the odd "
    "boards). A retry with the same Idempotency-Key stores nothing new.",
    parameters=[CLUB_MATCH, schema.IDEMPOTENCY_KEY],
    request=ResultBodySerializer,
    responses={201: ClubMatchSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
)
class ClubMatchResultView(ClubMixin, generics.GenericAPIView):
    serializer_class = ResultBodySerializer

    def post(self, request: Request, league_slug: str, match_id: int) -> Response:
        chosen = self.club_match()
        key = idempotency.client_key(request)
        body = ResultBodySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        clubs.record_club_match(
            self.get_league(), chosen, results=data["results"], played_at=data["played_on"],
            recorded_by=request.user, idempotency_key=scoped_key("club-result", key),
        )  # fmt: skip
        chosen.refresh_from_db()
        return self.created(match_body(chosen), "api:club-match-detail", match_id=chosen.pk)


@extend_schema(
    tags=TAGS,
    summary="Void a club match's result",
    description="Organisers only. Its board games are voided with it; it may be recorded again.",
    parameters=[CLUB_MATCH, schema.IDEMPOTENCY_KEY],
    request=VoidBodySerializer,
    responses={200: ClubMatchSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
)
class ClubMatchVoidView(ClubMixin, generics.GenericAPIView):
    serializer_class = VoidBodySerializer

    def post(self, request: Request, league_slug: str, match_id: int) -> Response:
        chosen = self.club_match()
        key = idempotency.client_key(request)
        body = VoidBodySerializer(data=request.data)
        body.is_valid(raise_exception=True)
        clubs.void_club_match(
            self.get_league(), chosen, reason=body.validated_data["reason"],
            recorded_by=request.user, idempotency_key=scoped_key("club-void", key),
        )  # fmt: skip
        chosen.refresh_from_db()
        return Response(match_body(chosen))


def _season_span(league: League, slug: str) -> tuple[dt.datetime, dt.datetime]:
    # A slug is letters, digits, hyphens and underscores: anything else (a NUL byte, which
    # PostgreSQL refuses in a query) names no season, without asking the database.
    season = (
        Season.objects.filter(league=league, slug=slug).first() if slug_re.fullmatch(slug) else None
    )
    if season is None:
        raise Http404(f"{league.name} has no season {slug}.")
    zone = league_zone(league)
    return (
        local_midnight(season.start_date, zone),
        local_midnight(season.end_date + dt.timedelta(days=1), zone),
    )


@extend_schema(
    tags=TAGS,
    parameters=[SEASON],
    responses={200: TeamRowSerializer(many=True), **schema.errors(404)},
)
class TeamTableView(ClubMixin, generics.GenericAPIView):
    serializer_class = TeamRowSerializer

    def get(self, request: Request, league_slug: str) -> Response:
        """The team table: by match points, then board points."""
        league = self.get_league()
        slug = request.query_params.get("season", "")
        span = _season_span(league, slug) if slug else None
        return Response(
            [
                {
                    "position": row.position,
                    "team": row.team.pk,
                    "name": row.team.name,
                    "played": row.played,
                    "won": row.won,
                    "drawn": row.drawn,
                    "lost": row.lost,
                    "board_points_for": float(row.board_for),
                    "board_points_against": float(row.board_against),
                    "match_points": float(row.match_points),
                }
                for row in clubs.team_table(league, span)
            ]
        )


league = "leagues/<slug:league_slug>/"
one = f"{league}club-matches/<id:match_id>/"
urlpatterns = [
    path(f"{league}teams/", TeamListView.as_view(), name="team-list"),
    path(f"{league}team-table/", TeamTableView.as_view(), name="team-table"),
    path(f"{league}club-matches/", ClubMatchListView.as_view(), name="club-match-list"),
    path(one, ClubMatchDetailView.as_view(), name="club-match-detail"),
    path(f"{one}board-orders/", BoardOrderView.as_view(), name="club-match-order"),
    path(f"{one}result/", ClubMatchResultView.as_view(), name="club-match-result"),
    path(f"{one}void/", ClubMatchVoidView.as_view(), name="club-match-void"),
]
