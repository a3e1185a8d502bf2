"""REST API of a league's events (competitions): read for everyone (the events, their
entrants, rounds and standings by points); organisers create events, enter and withdraw
players, record requested byes, publish rounds (as given, or as the league's pairing engine
proposes them) and record forfeits. A game's result goes through the fixture result endpoint
(``api/fixtures.py``): a game of an event is a fixture.

Writes go through ``league.competitions`` with ``Idempotency-Key`` mapped per kind of request
(``api.idempotency.competition_key``); every bad body is a 400 naming the field, nothing
stored. Included by ``api/urls.py``.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django.http import Http404
from django.shortcuts import get_object_or_404
from django.urls import path
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import generics, serializers
from rest_framework.request import Request
from rest_framework.response import Response

from api import idempotency, schema
from api.bodies import BodySerializer
from api.fields import StrictCharField, StrictIntegerField
from api.serializers import MAX_ID
from api.views import LeagueScopedMixin
from league import competitions as event_services
from league.competition_pairing import propose_round
from league.competitions import CompetitionState, EntrantState, RoundEntry, competition_state
from league.models import ByeKind, Competition, CompetitionFormat, Fixture
from ratings.selectors.competitions import (
    event_rounds,
    event_standings,
    league_competitions,
)

OUTCOMES = [
    "win", "draw", "loss", "forfeit_win", "forfeit_loss", "pairing_allocated",
    "requested_half", "requested_zero", "requested_full", "pending", "not_paired",
]  # fmt: skip


def _number(value: Decimal | None) -> float | None:
    return None if value is None else float(value)


class CompetitionSerializer(serializers.Serializer):
    """An event of the league and its settings."""

    slug = serializers.CharField()
    name = serializers.CharField()
    format = serializers.ChoiceField(choices=CompetitionFormat.values)
    planned_rounds = serializers.IntegerField()
    rounds_paired = serializers.IntegerField()
    bye_points = serializers.FloatField(help_text="What a bye allocated by the pairing scores.")
    rated = serializers.BooleanField(help_text="Whether its results count for the ratings.")
    tiebreaks = serializers.ListField(child=serializers.CharField())
    start_date = serializers.DateField(allow_null=True)
    end_date = serializers.DateField(allow_null=True)


def competition_body(competition: Competition) -> dict[str, Any]:
    return {
        "slug": competition.slug,
        "name": competition.name,
        "format": competition.format,
        "planned_rounds": competition.planned_rounds,
        "rounds_paired": competition.rounds_paired,
        "bye_points": float(competition.bye_points),
        "rated": competition.rated,
        "tiebreaks": list(competition.tiebreaks),
        "start_date": competition.start_date,
        "end_date": competition.end_date,
    }


class RoundEntrySerializer(serializers.Serializer):
    """One entrant's round: outcome, points (null while to be played), opponent and side."""

    round = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=OUTCOMES)
    points = serializers.FloatField(allow_null=True)
    opponent = serializers.IntegerField(allow_null=True)
    side = serializers.ChoiceField(choices=["first", "second"], allow_null=True)
    fixture = serializers.IntegerField(allow_null=True)
    board = serializers.IntegerField(allow_null=True)


def entry_body(entry: RoundEntry) -> dict[str, Any]:
    return {
        "round": entry.round_number,
        "outcome": entry.outcome.value,
        "points": _number(entry.points),
        "opponent": entry.opponent_id,
        "side": entry.side,
        "fixture": entry.fixture_id,
        "board": entry.board,
    }


class EntrantSerializer(serializers.Serializer):
    """An entrant with their rounds so far."""

    player = serializers.IntegerField()
    name = serializers.CharField()
    number = serializers.IntegerField(help_text="The pairing (start) number.")
    seed_rating = serializers.FloatField(allow_null=True)
    from_round = serializers.IntegerField()
    withdrawn_from_round = serializers.IntegerField(allow_null=True)
    points = serializers.FloatField()
    rounds = RoundEntrySerializer(many=True)


def entrant_body(entrant: EntrantState) -> dict[str, Any]:
    return {
        "player": entrant.player_id,
        "name": entrant.name,
        "number": entrant.number,
        "seed_rating": entrant.seed_rating,
        "from_round": entrant.from_round,
        "withdrawn_from_round": entrant.withdrawn_from_round,
        "points": float(entrant.points),
        "rounds": [entry_body(entry) for entry in entrant.rounds],
    }


class StandingSerializer(serializers.Serializer):
    """A line of the event's table by points (``tied``: the position is shared)."""

    position = serializers.IntegerField()
    tied = serializers.BooleanField()
    player = serializers.IntegerField()
    name = serializers.CharField()
    points = serializers.FloatField()
    games = serializers.IntegerField(help_text="Games played over the board.")
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    forfeits_won = serializers.IntegerField()
    forfeits_lost = serializers.IntegerField()
    byes = serializers.IntegerField()
    withdrawn = serializers.BooleanField()


class GameSerializer(serializers.Serializer):
    """A game of a round: its fixture (record its result there), players and outcome."""

    fixture = serializers.IntegerField()
    board = serializers.IntegerField(allow_null=True)
    first = serializers.IntegerField(help_text="First-named player (White in chess).")
    second = serializers.IntegerField()
    outcome = serializers.ChoiceField(choices=OUTCOMES, help_text="The first player's.")


class ByeSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=ByeKind.values)
    points = serializers.FloatField()


class RoundSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    complete = serializers.BooleanField(help_text="Every game has a result or a forfeit.")
    games = GameSerializer(many=True)
    byes = ByeSerializer(many=True)


def rounds_body(state: CompetitionState) -> list[dict[str, Any]]:
    return [
        {
            "round": view.number,
            "complete": view.complete,
            "games": [
                {
                    "fixture": game.entry.fixture_id,
                    "board": game.board,
                    "first": game.first.player_id,
                    "second": game.second.player_id,
                    "outcome": game.entry.outcome.value,
                }
                for game in view.games
            ],
            "byes": [
                {
                    "player": e.player_id,
                    "kind": entry.outcome.value,
                    "points": float(entry.points or 0),
                }
                for e, entry in view.byes
            ],
        }
        for view in event_rounds(state)
    ]


class CreateCompetitionSerializer(BodySerializer):
    name = StrictCharField(max_length=120)
    slug = StrictCharField(required=False, allow_blank=True, max_length=80)
    format = serializers.ChoiceField(
        choices=[CompetitionFormat.SWISS.value, CompetitionFormat.ROUND_ROBIN.value]
    )
    planned_rounds = StrictIntegerField(min_value=1, max_value=99)
    bye_points = serializers.ChoiceField(choices=["1", "0.5", "0"], required=False)
    rated = serializers.BooleanField(required=False, default=True)
    tiebreaks = serializers.ListField(
        child=StrictCharField(max_length=16), required=False, max_length=12
    )
    start_date = serializers.DateField(required=False, allow_null=True)
    end_date = serializers.DateField(required=False, allow_null=True)


class EnterSerializer(BodySerializer):
    player = StrictIntegerField(min_value=1, max_value=MAX_ID)
    from_round = StrictIntegerField(
        min_value=1, max_value=99, required=False, help_text="Default: the next round to pair."
    )
    seed_rating = serializers.FloatField(
        required=False, allow_null=True, min_value=0, max_value=4000
    )


class WithdrawSerializer(BodySerializer):
    from_round = StrictIntegerField(
        min_value=1, max_value=99, required=False, help_text="Default: the next round to pair."
    )
    reason = StrictCharField(required=False, allow_blank=True, max_length=1000)


class ByeRequestSerializer(BodySerializer):
    player = StrictIntegerField(min_value=1, max_value=MAX_ID)
    round = StrictIntegerField(min_value=1, max_value=99)
    kind = serializers.ChoiceField(
        choices=[ByeKind.REQUESTED_HALF.value, ByeKind.REQUESTED_ZERO.value]
    )


class PublishRoundSerializer(BodySerializer):
    round = StrictIntegerField(min_value=1, max_value=99)
    pairings = serializers.ListField(
        child=serializers.ListField(
            child=StrictIntegerField(min_value=1, max_value=MAX_ID), min_length=2, max_length=2
        ),
        max_length=500,
        help_text="Games as [first, second] player ids, board 1 first.",
    )
    byes = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=MAX_ID),
        required=False,
        max_length=500,
        help_text="Players given the pairing's bye (it scores the event's bye points).",
    )


class ForfeitSerializer(BodySerializer):
    winner = StrictIntegerField(
        min_value=1, max_value=MAX_ID, allow_null=True, help_text="null: a double forfeit."
    )
    note = StrictCharField(required=False, allow_blank=True, max_length=1000)


#: The event's slug in a path (the ``slug`` converter's characters).
COMPETITION = OpenApiParameter(
    "competition_slug",
    {"type": "string", "pattern": "^[-a-zA-Z0-9_]+$", "minLength": 1, "maxLength": 80},
    OpenApiParameter.PATH,
    description="The event's address (slug).",
)


class CompetitionMixin(LeagueScopedMixin):
    def competition(self) -> Competition:
        league = self.get_league()
        slug = self.kwargs["competition_slug"]
        found = Competition.objects.filter(league=league, slug=slug).first()
        if found is None:
            raise Http404(f"{league.name} has no event {slug}.")
        return found


class CompetitionListView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = CompetitionSerializer

    @extend_schema(
        tags=["events"],
        operation_id="competitions_list",
        responses={200: CompetitionSerializer(many=True), **schema.errors(400, 404)},
    )
    def get(self, request: Request, league_slug: str) -> Response:
        """The league's events (competitions), newest first."""
        rows = [competition_body(c) for c in league_competitions(self.get_league())]
        page = self.paginate_queryset(rows)
        return self.get_paginated_response(page)

    @extend_schema(
        tags=["events"],
        operation_id="competitions_create",
        summary="Create an event",
        description="Organisers only. ``rated`` is fixed for good once the event exists.",
        parameters=[schema.IDEMPOTENCY_KEY],
        request=CreateCompetitionSerializer,
        responses={201: CompetitionSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
    )
    def post(self, request: Request, league_slug: str) -> Response:
        key = idempotency.client_key(request)
        body = CreateCompetitionSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        created = event_services.create_competition(
            self.get_league(),
            name=data["name"],
            slug=data.get("slug", ""),
            format=data["format"],
            planned_rounds=data["planned_rounds"],
            bye_points=data.get("bye_points", "1"),
            rated=data.get("rated", True),
            tiebreaks=data.get("tiebreaks", []),
            start_date=data.get("start_date"),
            end_date=data.get("end_date"),
            recorded_by=request.user,
            idempotency_key=idempotency.competition_key("event", key),
        )
        return self.created(
            competition_body(created), "api:competition-detail", competition_slug=created.slug
        )


@extend_schema(
    tags=["events"],
    parameters=[COMPETITION],
    responses={200: CompetitionSerializer, **schema.errors(404)},
)
class CompetitionDetailView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = CompetitionSerializer

    def get(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        """One event's settings and how many rounds are paired."""
        return Response(competition_body(self.competition()))


class EntrantListView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = EntrantSerializer
    # The whole list at once: an event's entrants and rounds are few.
    pagination_class = None

    @extend_schema(
        tags=["events"],
        parameters=[COMPETITION],
        operation_id="competition_entrants",
        responses={200: EntrantSerializer(many=True), **schema.errors(404)},
    )
    def get(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        """The event's entrants by pairing number, each with their rounds."""
        state = competition_state(self.competition())
        return Response([entrant_body(e) for e in state.entrants])

    @extend_schema(
        tags=["events"],
        operation_id="competition_enter",
        summary="Enter a player",
        description="Organisers only. After round 1 is paired it is a late entry.",
        parameters=[COMPETITION, schema.IDEMPOTENCY_KEY],
        request=EnterSerializer,
        responses={201: EntrantSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
    )
    def post(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        chosen = self.competition()
        key = idempotency.client_key(request)
        body = EnterSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        entrant = event_services.enter_player(
            chosen,
            data["player"],
            from_round=data.get("from_round"),
            seed_rating=data.get("seed_rating"),
            recorded_by=request.user,
            idempotency_key=idempotency.competition_key("entry", key),
        )
        state = competition_state(chosen)
        return Response(entrant_body(state.entrant(entrant.player_id)), status=201)  # type: ignore[arg-type]


@extend_schema(
    tags=["events"],
    summary="Withdraw a player",
    description="Organisers only. From a round not yet paired; earlier games stand.",
    parameters=[COMPETITION, schema.IDEMPOTENCY_KEY, schema.id_path("player_id", "The player.")],
    request=WithdrawSerializer,
    responses={200: EntrantSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
)
class WithdrawView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = WithdrawSerializer

    def post(
        self, request: Request, league_slug: str, competition_slug: str, player_id: int
    ) -> Response:
        chosen = self.competition()
        key = idempotency.client_key(request)
        body = WithdrawSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        entrant = get_object_or_404(chosen.entrants, player_id=player_id)
        event_services.withdraw_player(
            chosen,
            entrant.player_id,
            from_round=data.get("from_round"),
            reason=data.get("reason", ""),
            recorded_by=request.user,
            idempotency_key=idempotency.competition_key("withdrawal", key),
        )
        return Response(entrant_body(competition_state(chosen).entrant(player_id)))  # type: ignore[arg-type]


@extend_schema(
    tags=["events"],
    summary="Record a requested bye",
    description="Organisers only. Before the round is paired: a half-point or zero-point bye.",
    parameters=[COMPETITION, schema.IDEMPOTENCY_KEY],
    request=ByeRequestSerializer,
    responses={201: ByeSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
)
class ByeView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = ByeRequestSerializer

    def post(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        chosen = self.competition()
        key = idempotency.client_key(request)
        body = ByeRequestSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        bye = event_services.request_bye(
            chosen,
            data["player"],
            round_number=data["round"],
            kind=data["kind"],
            recorded_by=request.user,
            idempotency_key=idempotency.competition_key("bye", key),
        )
        return Response(
            {"player": bye.player_id, "kind": bye.kind, "points": float(bye.points)}, status=201
        )


class RoundListView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = RoundSerializer
    # The whole list at once: an event's entrants and rounds are few.
    pagination_class = None

    @extend_schema(
        tags=["events"],
        parameters=[COMPETITION],
        operation_id="competition_rounds",
        responses={200: RoundSerializer(many=True), **schema.errors(404)},
    )
    def get(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        """The paired rounds: games by board (each a fixture) and byes."""
        return Response(rounds_body(competition_state(self.competition())))

    @extend_schema(
        tags=["events"],
        operation_id="competition_publish_round",
        summary="Publish a round",
        description=(
            "Organisers only. The next round, as given: every player an entrant who plays in "
            "it, at most once, none who asked for a bye (those byes are honoured with it)."
        ),
        parameters=[COMPETITION, schema.IDEMPOTENCY_KEY],
        request=PublishRoundSerializer,
        responses={201: RoundSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
    )
    def post(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        chosen = self.competition()
        key = idempotency.client_key(request)
        body = PublishRoundSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        published = event_services.publish_round(
            chosen,
            data["round"],
            [tuple(pair) for pair in data["pairings"]],
            data.get("byes", []),
            recorded_by=request.user,
            idempotency_key=idempotency.competition_key("pairing", key),
        )
        return Response(self._round(chosen, published.round_number), status=201)

    @staticmethod
    def _round(chosen: Competition, number: int) -> dict[str, Any]:
        return rounds_body(competition_state(chosen))[number - 1]


@extend_schema(
    tags=["events"],
    summary="Pair and publish the next round",
    description=(
        "Organisers only. The league's pairing engine (a round robin's Berger table) pairs "
        "the next round, which is published at once."
    ),
    parameters=[COMPETITION, schema.IDEMPOTENCY_KEY],
    request=None,
    responses={201: RoundSerializer, **schema.errors(400, 401, 403, 404, 422)},
)
class PairNextRoundView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = RoundSerializer

    def post(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        chosen = self.competition()
        key = idempotency.client_key(request)
        proposal = propose_round(chosen)
        published = event_services.publish_round(
            chosen,
            proposal.round_number,
            list(proposal.pairings),
            [] if proposal.bye is None else [proposal.bye],
            recorded_by=request.user,
            idempotency_key=idempotency.competition_key("pairing", key),
        )
        return Response(RoundListView._round(chosen, published.round_number), status=201)


@extend_schema(
    tags=["events"],
    parameters=[COMPETITION, schema.id_path("round_number", "The round.")],
    responses={200: RoundSerializer, **schema.errors(404)},
)
class RoundDetailView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = RoundSerializer

    def get(
        self, request: Request, league_slug: str, competition_slug: str, round_number: int
    ) -> Response:
        """One paired round (404 for a round not paired yet)."""
        rounds = rounds_body(competition_state(self.competition()))
        if not 1 <= round_number <= len(rounds):
            raise Http404(f"Round {round_number} is not paired yet.")
        return Response(rounds[round_number - 1])


class StandingsView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = StandingSerializer
    # The whole list at once: an event's entrants and rounds are few.
    pagination_class = None

    @extend_schema(
        tags=["events"],
        parameters=[COMPETITION],
        operation_id="competition_standings",
        responses={200: StandingSerializer(many=True), **schema.errors(404)},
    )
    def get(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        """The event's table by points; level on points, by seed."""
        lines = event_standings(competition_state(self.competition()))
        return Response(
            [
                {
                    "position": line.position,
                    "tied": line.tied,
                    "player": line.entrant.player_id,
                    "name": line.entrant.name,
                    "points": float(line.points),
                    "games": line.games,
                    "wins": line.wins,
                    "draws": line.draws,
                    "losses": line.losses,
                    "forfeits_won": line.forfeits_won,
                    "forfeits_lost": line.forfeits_lost,
                    "byes": line.byes,
                    "withdrawn": line.withdrawn,
                }
                for line in lines
            ]
        )


@extend_schema(
    tags=["events"],
    summary="Record a forfeit",
    description=(
        "Organisers only. The game was not played: ``winner`` (one of its players) gets a "
        "win's points, null is a double forfeit. Never rated; the public log says so."
    ),
    parameters=[COMPETITION, schema.IDEMPOTENCY_KEY, schema.id_path("fixture_id", "The game.")],
    request=ForfeitSerializer,
    responses={201: RoundSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
)
class ForfeitView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = ForfeitSerializer

    def post(
        self, request: Request, league_slug: str, competition_slug: str, fixture_id: int
    ) -> Response:
        chosen = self.competition()
        game = get_object_or_404(Fixture, competition=chosen, pk=fixture_id)
        key = idempotency.client_key(request)
        body = ForfeitSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        event_services.record_forfeit(
            chosen,
            game,
            winner=data["winner"],
            note=data.get("note", ""),
            recorded_by=request.user,
            idempotency_key=idempotency.competition_key("forfeit", key),
        )
        return Response(RoundListView._round(chosen, game.round_number or 1), status=201)


league = "leagues/<slug:league_slug>/"
event = f"{league}competitions/<slug:competition_slug>/"
urlpatterns = [
    path(f"{league}competitions/", CompetitionListView.as_view(), name="competition-list"),
    path(event, CompetitionDetailView.as_view(), name="competition-detail"),
    path(f"{event}entrants/", EntrantListView.as_view(), name="competition-entrants"),
    path(
        f"{event}entrants/<id:player_id>/withdraw/",
        WithdrawView.as_view(),
        name="competition-withdraw",
    ),
    path(f"{event}byes/", ByeView.as_view(), name="competition-byes"),
    path(f"{event}rounds/", RoundListView.as_view(), name="competition-rounds"),
    path(f"{event}rounds/next/", PairNextRoundView.as_view(), name="competition-pair-next"),
    path(f"{event}rounds/<id:round_number>/", RoundDetailView.as_view(), name="competition-round"),
    path(f"{event}standings/", StandingsView.as_view(), name="competition-standings"),
    path(
        f"{event}games/<id:fixture_id>/forfeit/", ForfeitView.as_view(), name="competition-forfeit"
    ),
]
