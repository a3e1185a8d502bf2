"""REST API of fixtures: read for everyone; organisers schedule, cancel and record results.

Lists and details carry each open fixture's forecast (the first-named player's win / draw /
loss chances, ``ratings.selectors.fixtures``). Writes go through ``league.fixtures`` and
``league.services`` with ``Idempotency-Key`` mapped as for results (``api.idempotency``).
Included by ``api/urls.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import PolymorphicProxySerializer, extend_schema, extend_schema_field
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api import idempotency, schema
from api.bodies import BodySerializer, FieldErrors, add_error
from api.errors import fields_renamed
from api.fields import (
    AwareDateTimeField,
    QueryIntegerField,
    ScoreField,
    StrictCharField,
    StrictIntegerField,
)
from api.serializers import (
    MAX_ID,
    MatchEventSerializer,
    SideMatchSerializer,
    recorded_match_body,
)
from api.views import LeagueScopedMixin
from league import fixtures as fixture_services
from league import services as league_services
from league.models import Event, Fixture
from league.sides import side_label
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import (
    CANCELLED,
    OVERDUE,
    PLAYED,
    STATUS_LABELS,
    UPCOMING,
    FixtureRow,
    fixture_rows,
)

ALL_STATUSES = (UPCOMING, OVERDUE, PLAYED, CANCELLED)
OPEN, ALL = "open", "all"
STATUS_FILTERS = {OPEN: (UPCOMING, OVERDUE), ALL: ALL_STATUSES} | {s: (s,) for s in ALL_STATUSES}


class ForecastSerializer(serializers.Serializer):
    """The first-named player's chances (they sum to 1; ``draw`` is 0 in a league without draws)."""

    win = serializers.FloatField()
    draw = serializers.FloatField()
    loss = serializers.FloatField()


class FixtureSidePlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()


class FixtureSideSerializer(serializers.Serializer):
    """One side of a fixture with sides."""

    side = serializers.CharField(help_text='"A", "B", … in the order given.')
    players = FixtureSidePlayerSerializer(many=True)
    position = serializers.IntegerField(
        allow_null=True,
        help_text="Finishing position once played (three or more sides), else null.",
    )


class FixtureSerializer(serializers.Serializer):
    """One fixture (``ratings.selectors.fixtures.FixtureRow``). A fixture with sides
    (doubles, teams, multi-player games) lists them in ``sides``; ``player_a`` and
    ``player_b`` are then the first players of sides A and B. ``sides`` is empty for a
    one-vs-one fixture."""

    id = serializers.IntegerField()
    scheduled_at = serializers.DateTimeField(help_text="In the league's time zone.")
    deadline = serializers.DateField(help_text="The local day it should be played by.")
    player_a = serializers.IntegerField(source="player_a_id", help_text="First-named side.")
    player_a_name = serializers.CharField(source="player_a")
    player_b = serializers.IntegerField(source="player_b_id")
    player_b_name = serializers.CharField(source="player_b")
    venue = serializers.CharField()
    label = serializers.CharField(help_text='The round, e.g. "Club night · round 2".')
    status = serializers.ChoiceField(choices=list(STATUS_LABELS.items()))
    result = serializers.CharField(help_text="Both scores once played, else empty.")
    points = serializers.CharField()
    match_seq = serializers.IntegerField(allow_null=True, help_text="The result's event #.")
    forecast = ForecastSerializer(
        allow_null=True,
        help_text="While the fixture is open (side A's chances for two sides, by the team-sum "
        "model; null for three or more sides).",
    )
    sides = serializers.SerializerMethodField()

    @extend_schema_field(FixtureSideSerializer(many=True))
    def get_sides(self, row: FixtureRow) -> list[dict[str, Any]]:
        positions = row.positions or (None,) * len(row.sides)
        return [
            {
                "side": side_label(index),
                "players": [{"id": p.id, "name": p.name} for p in side],
                "position": position,
            }
            for index, (side, position) in enumerate(zip(row.sides, positions, strict=True))
        ]


class FixtureQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(
        choices=[*ALL_STATUSES, OPEN, ALL],
        required=False,
        help_text="Only fixtures in this state; open (the default): upcoming and overdue.",
    )
    player = QueryIntegerField(
        required=False,
        min_value=1,
        max_value=MAX_ID,
        help_text="Only this player's fixtures (404 when not a player of this league).",
    )


class ScheduleFixtureSerializer(BodySerializer):
    """A fixture to schedule: ``player_a`` and ``player_b`` (one against one) or ``sides``
    (each side's player ids, in a league whose format takes them)."""

    player_a = StrictIntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text="First-named player."
    )
    player_b = StrictIntegerField(
        required=False, min_value=1, max_value=MAX_ID, help_text="Second-named player."
    )
    sides = serializers.ListField(
        child=serializers.ListField(child=StrictIntegerField(min_value=1, max_value=MAX_ID)),
        required=False,
        help_text="Player ids per side instead of player_a and player_b, e.g. "
        "[[3, 7], [4, 9]] for doubles.",
    )
    scheduled_at = AwareDateTimeField(help_text="When (ISO 8601 with a UTC offset).")
    deadline = serializers.DateField(
        required=False, help_text="Local day to play by (default: the scheduled day)."
    )
    venue = StrictCharField(required=False, allow_blank=True, max_length=120)
    label = StrictCharField(required=False, allow_blank=True, max_length=120)

    def check(self, data: Mapping[str, Any], attrs: dict[str, Any], errors: FieldErrors) -> None:
        if "sides" in data:
            # A malformed ``sides`` already has its errors (by index): those say enough.
            if ("player_a" in data or "player_b" in data) and "sides" not in errors:
                add_error(
                    errors,
                    "sides",
                    "Give the players as sides or as player_a and player_b, not both.",
                    "sides_and_players",
                )
            return
        for name in ("player_a", "player_b"):
            if name not in data:
                add_error(errors, name, "This field is required (or give sides).", "required")


class CancelFixtureSerializer(BodySerializer):
    reason = StrictCharField(required=False, allow_blank=True, max_length=1000)


class FixtureResultSerializer(BodySerializer):
    """A fixture's result: ``score_a`` (two sides) or ``positions`` (three or more)."""

    score_a = ScoreField(
        required=False, help_text="The first-named side's score: 1 win, 0.5 draw, 0 loss."
    )
    positions = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=16),
        required=False,
        help_text="A finishing position per side (fixtures of three or more sides).",
    )
    played_at = AwareDateTimeField(
        required=False, help_text="Default: the scheduled moment, or now if played early."
    )
    points = StrictCharField(required=False, allow_blank=True, max_length=120)
    note = StrictCharField(required=False, allow_blank=True, max_length=2000)


FIXTURE_ID = schema.id_path("fixture_id", "The fixture's id.")


class FixtureMixin(LeagueScopedMixin):
    def rows(self, **kwargs: Any) -> list[FixtureRow]:
        league = self.get_league()
        return fixture_rows(league, live_config(league), **kwargs)

    def row_of(self, fixture_id: int) -> FixtureRow:
        league = self.get_league()
        rows = fixture_rows(league, live_config(league), ids=[fixture_id], statuses=ALL_STATUSES)
        if not rows:
            raise Http404(f"{league.name} has no fixture {fixture_id}.")
        return rows[0]


class FixtureListView(FixtureMixin, generics.GenericAPIView):
    serializer_class = FixtureSerializer
    cache_query_serializers = (FixtureQuerySerializer,)

    @extend_schema(
        tags=["fixtures"],
        operation_id="fixtures_list",
        parameters=[FixtureQuerySerializer],
        responses={200: FixtureSerializer(many=True), **schema.errors(400, 404)},
    )
    def get(self, request: Request, league_slug: str) -> Response:
        """The league's fixtures in scheduled order, open ones with their forecast."""
        params = self.query(FixtureQuerySerializer)
        player = None
        if params.get("player") is not None:
            player = self.player_from_query(params["player"], "player")
        statuses = STATUS_FILTERS[params.get("status", OPEN)]
        rows = self.rows(player=player, statuses=statuses)
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(FixtureSerializer(page, many=True).data)

    @extend_schema(
        tags=["fixtures"],
        operation_id="fixtures_schedule",
        summary="Schedule a fixture",
        description=(
            "Organisers only. ``Idempotency-Key`` works as for recording a result. A 400 "
            "names every problem of the body (players or sides, time, deadline, venue)."
        ),
        parameters=[schema.IDEMPOTENCY_KEY],
        request=ScheduleFixtureSerializer,
        responses={201: FixtureSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
    )
    def post(self, request: Request, league_slug: str) -> Response:
        league = self.get_league()
        key = idempotency.client_key(request)
        body = ScheduleFixtureSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        fixture = fixture_services.schedule_fixture(
            league,
            player_a=data.get("player_a"),
            player_b=data.get("player_b"),
            sides=data.get("sides"),
            scheduled_at=data["scheduled_at"],
            deadline=data.get("deadline"),
            venue=data.get("venue", ""),
            label=data.get("label", ""),
            recorded_by=request.user,
            idempotency_key=idempotency.fixture_key(key),
        )
        return self.created(
            FixtureSerializer(self.row_of(fixture.pk)).data,
            "api:fixture-detail",
            fixture_id=fixture.pk,
        )


@extend_schema(
    tags=["fixtures"],
    parameters=[FIXTURE_ID],
    responses={200: FixtureSerializer, **schema.errors(404)},
)
class FixtureDetailView(FixtureMixin, generics.GenericAPIView):
    serializer_class = FixtureSerializer

    def get(self, request: Request, league_slug: str, fixture_id: int) -> Response:
        """One fixture, in any state."""
        return Response(FixtureSerializer(self.row_of(fixture_id)).data)


@extend_schema(
    tags=["fixtures"],
    summary="Cancel a fixture",
    description="Organisers only. The cancellation (and its reason) is a new event.",
    parameters=[schema.IDEMPOTENCY_KEY, FIXTURE_ID],
    request=CancelFixtureSerializer,
    responses={200: FixtureSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
)
class FixtureCancelView(FixtureMixin, generics.GenericAPIView):
    serializer_class = CancelFixtureSerializer

    def post(self, request: Request, league_slug: str, fixture_id: int) -> Response:
        league = self.get_league()
        fixture = get_object_or_404(Fixture, league=league, pk=fixture_id)
        key = idempotency.client_key(request)
        body = CancelFixtureSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        fixture_services.cancel_fixture(
            league,
            fixture,
            reason=body.validated_data.get("reason", ""),
            recorded_by=request.user,
            idempotency_key=idempotency.cancel_fixture_key(key),
        )
        return Response(FixtureSerializer(self.row_of(fixture.pk)).data)


@extend_schema(
    tags=["fixtures"],
    summary="Record a fixture's result",
    description=(
        "Organisers only. The players (or sides) are the fixture's; the match names the "
        "fixture. A one-vs-one fixture answers with the match, a fixture with sides with the "
        "match with sides. ``Idempotency-Key`` works as for recording a result."
    ),
    parameters=[schema.IDEMPOTENCY_KEY, FIXTURE_ID],
    request=FixtureResultSerializer,
    responses={
        201: PolymorphicProxySerializer(
            component_name="FixtureMatch",
            serializers=[MatchEventSerializer, SideMatchSerializer],
            resource_type_field_name=None,
        ),
        **schema.errors(400, 401, 403, 404, 413, 422),
    },
)
class FixtureResultView(FixtureMixin, generics.GenericAPIView):
    serializer_class = FixtureResultSerializer

    def post(self, request: Request, league_slug: str, fixture_id: int) -> Response:
        league = self.get_league()
        fixture = get_object_or_404(Fixture, league=league, pk=fixture_id)
        key = idempotency.client_key(request)
        body = FixtureResultSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        with fields_renamed({"places": "positions"}):
            event = league_services.record_fixture_result(
                league,
                fixture,
                score_a=data.get("score_a"),
                places=data.get("positions"),
                played_at=data.get("played_at"),
                points=data.get("points", ""),
                note=data.get("note", ""),
                recorded_by=request.user,
                idempotency_key=idempotency.match_key(key),
            )
        result = recorded_match_body(event, self.get_serializer_context())
        detail = (
            "api:match-detail"
            if event.kind == Event.Kind.MATCH_RECORDED
            else "api:side-match-detail"
        )
        return self.created(result, detail, match_id=event.pk)


league = "leagues/<slug:league_slug>/"
urlpatterns = [
    path(f"{league}fixtures/", FixtureListView.as_view(), name="fixture-list"),
    path(f"{league}fixtures/<id:fixture_id>/", FixtureDetailView.as_view(), name="fixture-detail"),
    path(
        f"{league}fixtures/<id:fixture_id>/cancel/",
        FixtureCancelView.as_view(),
        name="fixture-cancel",
    ),
    path(
        f"{league}fixtures/<id:fixture_id>/result/",
        FixtureResultView.as_view(),
        name="fixture-result",
    ),
]
