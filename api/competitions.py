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
from league import cups
from league.competition_pairing import propose_round
from league.competitions import CompetitionState, EntrantState, RoundEntry, competition_state
from league.models import ByeKind, Competition, CompetitionFormat, CupDrawRule, Fixture
from ratings.selectors.competitions import (
    event_rounds,
    event_standings,
    league_competitions,
)
from ratings.selectors.cups import CupView, cup_view

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
    draw_rule = serializers.CharField(
        help_text="A knockout cup's way of settling a drawn game: ``replay`` or ``decider`` (a "
        "tie-break game); blank for other formats."
    )
    third_place = serializers.BooleanField(help_text="A knockout cup plays for third place.")
    double_elimination = serializers.BooleanField(
        help_text="A knockout cup with a losers' bracket; its ``planned_rounds`` are then its "
        "rounds of play (twice its winners' bracket's, one more with a bracket reset)."
    )
    bracket_reset = serializers.BooleanField(
        help_text="A double-elimination cup plays the grand final again when the losers' "
        "bracket champion wins it."
    )
    accelerated = serializers.BooleanField(
        help_text="A chess Swiss event paired with Baku acceleration (FIDE C.04.5.1)."
    )


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
        "draw_rule": competition.draw_rule,
        "third_place": competition.third_place,
        "double_elimination": competition.double_elimination,
        "bracket_reset": competition.bracket_reset,
        "accelerated": competition.accelerated,
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
        choices=[
            CompetitionFormat.SWISS.value,
            CompetitionFormat.ROUND_ROBIN.value,
            CompetitionFormat.KNOCKOUT.value,
        ]
    )
    planned_rounds = StrictIntegerField(
        min_value=1,
        max_value=99,
        help_text="A knockout cup: the depth of its bracket (4 rounds take 9 to 16 players; "
        "for a double-elimination cup, of its winners' bracket).",
    )
    draw_rule = serializers.ChoiceField(
        choices=CupDrawRule.values,
        required=False,
        help_text="Knockout cups only: a drawn game is replayed (default) or settled by a "
        "tie-break game.",
    )
    third_place = serializers.BooleanField(
        required=False, default=False, help_text="Knockout cups only: play for third place."
    )
    double_elimination = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Knockout cups only: a loser drops into a losers' bracket; out after two "
        "lost ties.",
    )
    bracket_reset = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Double-elimination cups only: play the grand final again when the losers' "
        "bracket champion wins it.",
    )
    accelerated = serializers.BooleanField(
        required=False,
        default=False,
        help_text="Chess leagues' Swiss events only: pair the first rounds with Baku "
        "acceleration (FIDE C.04.5.1).",
    )
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
        choices=[
            ByeKind.REQUESTED_HALF.value,
            ByeKind.REQUESTED_ZERO.value,
            ByeKind.REQUESTED_FULL.value,
        ],
        help_text="A half-point, zero-point or full-point bye (the full point: TRF's F, not "
        "allocated by the pairing).",
    )


class ForbiddenPairingSerializer(serializers.Serializer):
    """Players who must not be paired together in rounds ``first_round`` to ``last_round``."""

    players = serializers.ListField(child=serializers.IntegerField())
    first_round = serializers.IntegerField()
    last_round = serializers.IntegerField()


class ForbidSerializer(BodySerializer):
    players = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=MAX_ID),
        max_length=50,
        help_text="Two entrants or more (player ids): no two of them are paired together.",
    )
    first_round = StrictIntegerField(
        min_value=1, max_value=99, required=False, help_text="Default: round 1."
    )
    last_round = StrictIntegerField(
        min_value=1, max_value=99, required=False, help_text="Default: the event's last round."
    )
    reason = StrictCharField(required=False, allow_blank=True, max_length=2000)


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
            draw_rule=data.get("draw_rule"),
            third_place=data.get("third_place", False),
            double_elimination=data.get("double_elimination", False),
            bracket_reset=data.get("bracket_reset", False),
            accelerated=data.get("accelerated", False),
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
    description="Organisers only. Before the round is paired: a half-point, zero-point or "
    "full-point bye.",
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


def forbidden_body(players: tuple[int, ...], first: int, last: int) -> dict[str, Any]:
    return {"players": list(players), "first_round": first, "last_round": last}


class ForbiddenPairingListView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = ForbiddenPairingSerializer
    # The whole list at once: an event's forbidden pairings are few.
    pagination_class = None

    @extend_schema(
        tags=["events"],
        parameters=[COMPETITION],
        operation_id="competition_forbidden_pairings",
        responses={200: ForbiddenPairingSerializer(many=True), **schema.errors(404)},
    )
    def get(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        """The event's forbidden pairings (TRF record 260), oldest first."""
        rows = event_services.forbidden_pairs(self.competition())
        return Response([forbidden_body(*row) for row in rows])

    @extend_schema(
        tags=["events"],
        operation_id="competition_forbid_pairing",
        summary="Forbid a pairing",
        description="Organisers only. No two of the players (entrants) are paired together "
        "in those rounds: the Swiss engines never make such a pairing. Refused when the "
        "players are already kept apart in every one of those rounds.",
        parameters=[COMPETITION, schema.IDEMPOTENCY_KEY],
        request=ForbidSerializer,
        responses={201: ForbiddenPairingSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
    )
    def post(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        chosen = self.competition()
        key = idempotency.client_key(request)
        body = ForbidSerializer(data=request.data)
        body.is_valid(raise_exception=True)
        data = body.validated_data
        event = event_services.forbid_pairing(
            chosen,
            data["players"],
            first_round=data.get("first_round", 1),
            last_round=data.get("last_round"),
            reason=data.get("reason", ""),
            recorded_by=request.user,
            idempotency_key=idempotency.competition_key("forbidden", key),
        )
        return Response(
            forbidden_body(
                tuple(event.details["players"]), event.round_number, event.details["last_round"]
            ),
            status=201,
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
        "Organisers only. The league's pairing engine (a round robin's Berger table; a "
        "knockout cup's bracket: round 1 seeded by rating, each later round from the winners, "
        "refused while a tie of the round before is undecided) pairs the next round, which is "
        "published at once."
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
        if chosen.format == CompetitionFormat.KNOCKOUT:
            published = cups.publish_cup_round(
                chosen,
                recorded_by=request.user,
                idempotency_key=idempotency.competition_key("pairing", key),
            )
            return Response(RoundListView._round(chosen, published.round_number), status=201)
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


class CupSideSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    seed = serializers.IntegerField(help_text="1 is the best seed (by rating).")


class TieGameSerializer(serializers.Serializer):
    fixture = serializers.IntegerField()
    kind = serializers.ChoiceField(
        choices=[cups.GAME, cups.REPLAY, cups.DECIDER],
        help_text="The tie's first game, or a replay or a tie-break game after a draw.",
    )
    first = serializers.IntegerField(help_text="The first-named player (White in chess).")
    second = serializers.IntegerField()
    score_first = serializers.FloatField(
        allow_null=True, help_text="1, 0.5 or 0 for the first-named player; null until played."
    )
    forfeit = serializers.BooleanField()
    forfeit_winner = serializers.IntegerField(allow_null=True)


class ProbabilitiesSerializer(serializers.Serializer):
    win = serializers.FloatField()
    draw = serializers.FloatField()
    loss = serializers.FloatField()


class TieSerializer(serializers.Serializer):
    round = serializers.IntegerField()
    tie = serializers.IntegerField(help_text="Its place in the round (its games' board).")
    third_place = serializers.BooleanField()
    part = serializers.ChoiceField(
        choices=["winners", "losers", "final", "reset"],
        help_text="A double-elimination cup: the bracket the tie is in (``final``: the grand "
        "final, ``reset``: its second game); ``winners`` in a single-elimination cup.",
    )
    part_round = serializers.IntegerField(
        help_text="The round within its part (a single-elimination cup: the round)."
    )
    position = serializers.IntegerField(help_text="Its place within its part's round.")
    needed = serializers.BooleanField(
        help_text="False for a bracket reset not played (the winners' bracket champion won "
        "the grand final)."
    )
    first = CupSideSerializer(allow_null=True, help_text="null: nobody (a bye) or not known.")
    second = CupSideSerializer(allow_null=True)
    first_waiting = serializers.BooleanField(help_text="The side waits for an earlier tie.")
    second_waiting = serializers.BooleanField()
    started = serializers.BooleanField(help_text="Its round is paired.")
    decided = serializers.BooleanField()
    bye = serializers.BooleanField(help_text="Decided without a game (a bye or a walkover).")
    winner = serializers.IntegerField(allow_null=True)
    first_wins_probability = serializers.FloatField(
        allow_null=True,
        help_text="An open tie: the first side's chance of winning it from the current ratings "
        "(a drawn game played again: win / (win + loss)).",
    )
    game_probabilities = ProbabilitiesSerializer(
        allow_null=True,
        help_text="The scheduled game's win / draw / loss chances for its first-named player.",
    )
    games = TieGameSerializer(many=True)


class CupRoundSerializer(serializers.Serializer):
    number = serializers.IntegerField()
    ties = TieSerializer(many=True)


class CupChanceSerializer(serializers.Serializer):
    player = serializers.IntegerField()
    name = serializers.CharField()
    probability = serializers.FloatField()
    standard_error = serializers.FloatField(help_text="Its Monte Carlo standard error.")


class CupForecastSerializer(serializers.Serializer):
    simulations = serializers.IntegerField()
    seed = serializers.IntegerField(help_text="The random generator's seed (PCG64).")
    largest_standard_error = serializers.FloatField()
    chances = CupChanceSerializer(many=True)


class BracketSerializer(serializers.Serializer):
    size = serializers.IntegerField(help_text="Slots in round 1 (a power of two).")
    rounds_paired = serializers.IntegerField()
    projected = serializers.BooleanField(
        help_text="Round 1 is not paired yet: the seeding as the entries stand now."
    )
    draw_rule = serializers.CharField()
    third_place = serializers.BooleanField()
    double_elimination = serializers.BooleanField(
        help_text="Rounds are rounds of play, each with ties of both brackets."
    )
    bracket_reset = serializers.BooleanField()
    champion = serializers.IntegerField(allow_null=True)
    rounds = CupRoundSerializer(many=True, help_text="Empty while the field does not fit.")
    forecast = CupForecastSerializer(
        allow_null=True, help_text="Who wins the cup, by simulation; null once decided."
    )


def bracket_body(chosen: Competition, view: CupView | None) -> dict[str, Any]:
    """The bracket as the API gives it."""
    if view is None:
        return {
            "size": 1 << cups.cup_depth(chosen),
            "rounds_paired": chosen.rounds_paired,
            "projected": True,
            "draw_rule": chosen.draw_rule,
            "third_place": chosen.third_place,
            "double_elimination": chosen.double_elimination,
            "bracket_reset": chosen.bracket_reset,
            "champion": None,
            "rounds": [],
            "forecast": None,
        }
    bracket, entrants = view.bracket, view.entrants

    def side(player: int | None) -> dict[str, Any] | None:
        if player is None:
            return None
        entrant = entrants[player]
        return {"player": player, "name": entrant.name, "seed": entrant.seed}

    rounds = []
    for number, ties in enumerate(bracket.rounds, start=1):
        rows = []
        for tie in ties:
            chance = view.chances.get((tie.round_number, tie.board))
            game = None if chance is None else chance.game
            rows.append(
                {
                    "round": number,
                    "tie": tie.board,
                    "third_place": tie.third_place,
                    "part": tie.part,
                    "part_round": tie.part_round or tie.round_number,
                    "position": tie.position,
                    "needed": tie.needed,
                    "first": side(tie.first),
                    "second": side(tie.second),
                    "first_waiting": tie.first_waiting,
                    "second_waiting": tie.second_waiting,
                    "started": tie.started,
                    "decided": tie.decided,
                    "bye": tie.bye,
                    "winner": tie.winner,
                    "first_wins_probability": None if chance is None else chance.first_wins,
                    "game_probabilities": None
                    if game is None
                    else {"win": game.win, "draw": game.draw, "loss": game.loss},
                    "games": [
                        {
                            "fixture": g.fixture_id,
                            "kind": g.kind,
                            "first": g.first_id,
                            "second": g.second_id,
                            "score_first": _number(g.score_first),
                            "forfeit": g.forfeited,
                            "forfeit_winner": g.forfeit_winner,
                        }
                        for g in tie.games
                    ],
                }
            )
        rounds.append({"number": number, "ties": rows})
    forecast = None
    if view.forecast is not None:
        forecast = {
            "simulations": view.forecast.simulations,
            "seed": view.forecast.seed,
            "largest_standard_error": view.forecast.largest_error,
            "chances": [
                {
                    "player": key,
                    "name": entrants[key].name,  # type: ignore[index]
                    "probability": chance.probability,
                    "standard_error": chance.standard_error,
                }
                for key, chance in sorted(
                    view.forecast.chances.items(), key=lambda item: -item[1].probability
                )
            ],
        }
    return {
        "size": bracket.size,
        "rounds_paired": bracket.rounds_paired,
        "projected": bracket.projected,
        "draw_rule": bracket.draw_rule,
        "third_place": bracket.third_place,
        "double_elimination": bracket.double_elimination,
        "bracket_reset": bracket.bracket_reset,
        "champion": bracket.champion,
        "rounds": rounds,
        "forecast": forecast,
    }


@extend_schema(
    tags=["events"],
    summary="A knockout cup's bracket",
    description=(
        "Every round's ties: their sides (seeded by rating), games (a replay or a tie-break "
        "game after a draw), winners, each open tie's chances from the current ratings, and "
        "the cup's forecast by simulation with its number of simulations and Monte Carlo "
        "standard errors. 404 for an event that is not a cup."
    ),
    parameters=[COMPETITION],
    responses={200: BracketSerializer, **schema.errors(404)},
)
class BracketView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = BracketSerializer

    def get(self, request: Request, league_slug: str, competition_slug: str) -> Response:
        chosen = self.competition()
        if chosen.format != CompetitionFormat.KNOCKOUT:
            raise Http404(f"{chosen.name} is not a knockout cup.")
        return Response(bracket_body(chosen, cup_view(chosen)))


@extend_schema(
    tags=["events"],
    summary="Schedule a drawn tie's replay or tie-break game",
    description=(
        "Organisers only. After a drawn game of a knockout cup's tie, schedule the game that "
        "settles it (a replay or a tie-break game, as the cup was created), in the same round "
        "and tie. Refused while the game has no result and once the tie is decided."
    ),
    parameters=[COMPETITION, schema.IDEMPOTENCY_KEY, schema.id_path("fixture_id", "The game.")],
    request=None,
    responses={201: TieSerializer, **schema.errors(400, 401, 403, 404, 422)},
)
class TieGameView(CompetitionMixin, generics.GenericAPIView):
    serializer_class = TieSerializer

    def post(
        self, request: Request, league_slug: str, competition_slug: str, fixture_id: int
    ) -> Response:
        chosen = self.competition()
        game = get_object_or_404(Fixture, competition=chosen, pk=fixture_id)
        key = idempotency.client_key(request)
        scheduled = cups.schedule_tie_game(
            chosen,
            game,
            recorded_by=request.user,
            idempotency_key=idempotency.competition_key("tie_game", key),
        )
        body = bracket_body(chosen, cup_view(chosen, simulations=1))
        tie = next(
            row
            for cup_round in body["rounds"]
            for row in cup_round["ties"]
            if any(g["fixture"] == scheduled.pk for g in row["games"])
        )
        return Response(tie, status=201)


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
    path(
        f"{event}forbidden-pairings/",
        ForbiddenPairingListView.as_view(),
        name="competition-forbidden-pairings",
    ),
    path(f"{event}rounds/", RoundListView.as_view(), name="competition-rounds"),
    path(f"{event}rounds/next/", PairNextRoundView.as_view(), name="competition-pair-next"),
    path(f"{event}rounds/<id:round_number>/", RoundDetailView.as_view(), name="competition-round"),
    path(f"{event}standings/", StandingsView.as_view(), name="competition-standings"),
    path(f"{event}bracket/", BracketView.as_view(), name="competition-bracket"),
    path(
        f"{event}games/<id:fixture_id>/tie-game/",
        TieGameView.as_view(),
        name="competition-tie-game",
    ),
    path(
        f"{event}games/<id:fixture_id>/forfeit/", ForfeitView.as_view(), name="competition-forfeit"
    ),
]
