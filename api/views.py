"""API views: thin adapters from HTTP to the write services and the read selectors.

Writes go through ``league.services`` and ``ratings.services``; reads through the read
models of ``ratings.selectors`` and, for the lists DRF pages itself, the querysets of
``api.querysets``. Every league-scoped view resolves its league from the URL, so
permissions (``api.permissions``) and private fields are decided per league.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django.db import transaction
from django.http import Http404, HttpRequest, JsonResponse
from django.shortcuts import get_object_or_404
from django.urls import reverse
from django.views.decorators.csrf import csrf_exempt
from drf_spectacular.utils import (
    OpenApiParameter,
    OpenApiResponse,
    extend_schema,
    extend_schema_view,
)
from rest_framework import filters, generics, status
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.serializers import Serializer

from api import idempotency, querysets, schema, standings
from api.caching import CachedReadMixin
from api.errors import error_body, fields_renamed
from api.pagination import StrictLimitOffsetPagination
from api.parsers import JSONBodyParser
from api.permissions import LeagueOrganiserOrReadOnly
from api.serializers import (
    ConfigSerializer,
    CreateConfigSerializer,
    HeadToHeadSerializer,
    HistoryPointSerializer,
    LeagueQuerySerializer,
    LeagueSerializer,
    MatchEventSerializer,
    MatchQuerySerializer,
    MatchSerializer,
    PairQuerySerializer,
    PlayerQuerySerializer,
    PlayerSerializer,
    ProgressSerializer,
    RecordMatchSerializer,
    RecordResultSerializer,
    RecordRoundSerializer,
    RecordSideMatchSerializer,
    ReplayQuerySerializer,
    ReplaySerializer,
    SideMatchQuerySerializer,
    SideMatchSerializer,
    StandingsPageSerializer,
    StandingsQuerySerializer,
    VersionQuerySerializer,
    VoidEventSerializer,
    VoidRequestSerializer,
    WinProbabilityQuerySerializer,
    WinProbabilitySerializer,
    recorded_match_body,
)
from engine.intervals import ConfidenceLevel
from engine.prediction import win_probability
from league import services as league_services
from league.models import Event, League, Player
from ratings import services as rating_services
from ratings.eligibility import eligibility
from ratings.models import RatingConfig, Replay
from ratings.selectors import configurations
from ratings.selectors.common import ReadClock
from ratings.selectors.coverage import coverage_at
from ratings.selectors.players import PlayerSummary, head_to_head, player_history, player_summary
from ratings.selectors.predictions import first_named_advantage
from ratings.selectors.progress import league_progress
from ratings.selectors.sides import SideRecordRow, side_records
from ratings.selectors.standings import DEFAULT_LEVEL, leaderboard


def query_dict(request: Request) -> dict[str, str]:
    """The query string as a plain dict (last value wins).

    A plain dict rather than the ``QueryDict``: DRF reads an empty HTML form value as
    "absent", but ``?date=`` is an invalid date, not a missing one.
    """
    return request.query_params.dict()


class LeagueScopedMixin(CachedReadMixin):
    """Resolves ``<league_slug>`` once per request and answers permission questions on it.

    Its anonymous reads are served from the pages' cache (``api.caching``).
    """

    permission_classes = [LeagueOrganiserOrReadOnly]
    parser_classes = [JSONBodyParser]
    pagination_class = StrictLimitOffsetPagination
    request: Request
    kwargs: dict[str, Any]

    def get_league(self) -> League:
        if not hasattr(self, "_league"):
            self._league = get_object_or_404(League, slug=self.kwargs["league_slug"])
        return self._league

    def user_is_organiser(self) -> bool:
        if not hasattr(self, "_is_organiser"):
            self._is_organiser = self.get_league().is_organiser(self.request.user)
        return self._is_organiser

    def get_serializer_context(self) -> dict[str, Any]:
        context = super().get_serializer_context()  # type: ignore[misc]
        if getattr(self, "swagger_fake_view", False):
            return context
        context.update(league=self.get_league(), is_organiser=self.user_is_organiser())
        return context

    def query(self, serializer_class: type[Serializer]) -> dict[str, Any]:
        """The request's query parameters, validated (400 on bad input)."""
        serializer = serializer_class(data=query_dict(self.request))
        serializer.is_valid(raise_exception=True)
        return serializer.validated_data

    def config_for(self, version: int | None) -> RatingConfig | None:
        """The configuration ``version`` of the league (404 if unknown), else the live one."""
        if version is None:
            return configurations.live_config(self.get_league())
        return self.config_version(version)

    def config_version(self, version: int) -> RatingConfig:
        """The configuration ``version`` of the league; 404 when it has none."""
        league = self.get_league()
        config = configurations.config_version(league, version)
        if config is None:
            raise Http404(f"{league.name} has no configuration version {version}.")
        return config

    def created(self, body: Any, detail_url: str, **url_kwargs: Any) -> Response:
        """A 201 with ``body`` and a ``Location`` of the new object's route in this league."""
        location = reverse(detail_url, kwargs={"league_slug": self.get_league().slug, **url_kwargs})
        return Response(body, status=status.HTTP_201_CREATED, headers={"Location": location})

    def record(self, serializer_class: type[RecordMatchSerializer]) -> Response:
        """Record the match of the request's body (any sides): a 201 with the stored match
        and its ``Location``, one-vs-one results under ``matches/``."""
        key = idempotency.client_key(self.request)
        context = self.get_serializer_context()
        serializer = serializer_class(data=self.request.data, context=context)
        serializer.is_valid(raise_exception=True)
        with fields_renamed(serializer.field_names_as_sent()):
            event = league_services.record_match(
                self.get_league(),
                **serializer.service_kwargs(),
                recorded_by=self.request.user,
                idempotency_key=idempotency.match_key(key),
            )
        detail = (
            "api:match-detail"
            if event.kind == Event.Kind.MATCH_RECORDED
            else "api:side-match-detail"
        )
        return self.created(recorded_match_body(event, context), detail, match_id=event.pk)

    def player_from_query(self, player_id: int, field: str) -> Player:
        """A player of this league named by a query parameter (404 naming the field when
        not one: a well-formed id of nobody here, like an unknown id in a path)."""
        player = querysets.players_of(self.get_league()).filter(pk=player_id).first()
        if player is None:
            raise NotFound({field: [f"No player with id {player_id} in this league."]})
        return player

    def pair_from_query(
        self, serializer_class: type[Serializer] = PairQuerySerializer
    ) -> tuple[Player, Player, RatingConfig | None]:
        """``?player_a=&player_b=&version=``: the two players and the configuration."""
        params = self.query(serializer_class)
        player_a = self.player_from_query(params["player_a"], "player_a")
        player_b = self.player_from_query(params["player_b"], "player_b")
        return player_a, player_b, self.config_for(params.get("version"))


# --- Leagues and players -----------------------------------------------------------------


@extend_schema(
    tags=["leagues"],
    parameters=[LeagueQuerySerializer],
    responses={200: LeagueSerializer(many=True), **schema.errors(400)},
)
class LeagueListView(CachedReadMixin, generics.ListAPIView):
    """Every league. ``?organised=true`` keeps the leagues the caller may change."""

    cache_query_serializers = (LeagueQuerySerializer,)
    serializer_class = LeagueSerializer
    pagination_class = StrictLimitOffsetPagination
    filter_backends = [filters.SearchFilter, filters.OrderingFilter]
    search_fields = ["name", "slug", "sport"]
    ordering_fields = ["name", "slug", "start_date", "created_at"]
    ordering = ["name"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return querysets.leagues()
        params = LeagueQuerySerializer(data=query_dict(self.request))
        params.is_valid(raise_exception=True)
        organised = bool(params.validated_data.get("organised"))
        return querysets.leagues(self.request.user, organised=organised)


@extend_schema(tags=["leagues"], responses={200: LeagueSerializer, **schema.errors(404)})
class LeagueDetailView(CachedReadMixin, generics.RetrieveAPIView):
    """One league."""

    serializer_class = LeagueSerializer
    lookup_field = "slug"
    lookup_url_kwarg = "league_slug"

    def get_queryset(self):
        return querysets.leagues()


@extend_schema(
    tags=["players"],
    parameters=[PlayerQuerySerializer],
    responses={200: PlayerSerializer(many=True), **schema.errors(400, 404)},
)
class PlayerListView(LeagueScopedMixin, generics.ListAPIView):
    """The league's players. ``?active=true|false`` filters on the active flag."""

    cache_query_serializers = (PlayerQuerySerializer,)
    serializer_class = PlayerSerializer
    filter_backends = [filters.SearchFilter, filters.OrderingFilter]
    search_fields = ["display_name", "slug"]
    ordering_fields = ["display_name", "created_at", "id"]
    ordering = ["display_name"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Player.objects.none()
        params = self.query(PlayerQuerySerializer)
        return querysets.players_of(self.get_league(), active=params.get("active"))


@extend_schema(
    tags=["players"],
    parameters=[schema.id_path("player_id", "The player's id.")],
    responses={200: PlayerSerializer, **schema.errors(404)},
)
class PlayerDetailView(LeagueScopedMixin, generics.RetrieveAPIView):
    """One player of the league."""

    serializer_class = PlayerSerializer
    lookup_url_kwarg = "player_id"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Player.objects.none()
        return querysets.players_of(self.get_league())


@extend_schema(
    tags=["players"],
    parameters=[VersionQuerySerializer, schema.id_path("player_id", "The player's id.")],
    responses={200: HistoryPointSerializer(many=True), **schema.errors(400, 404)},
)
class PlayerHistoryView(LeagueScopedMixin, generics.GenericAPIView):
    """The player's rating after each period they played, oldest first.

    Each row: period, its first and last day, rating, RD, the 95% interval, volatility,
    games and W-D-L in that period, and the rating change. ``?version=`` picks a
    configuration version (default: the live one).
    """

    cache_query_serializers = (VersionQuerySerializer,)
    serializer_class = HistoryPointSerializer

    def get(self, request: Request, league_slug: str, player_id: int) -> Response:
        params = self.query(VersionQuerySerializer)
        player = get_object_or_404(querysets.players_of(self.get_league()), pk=player_id)
        config = self.config_for(params.get("version"))
        points = [] if config is None else player_history(config, player)
        page = self.paginate_queryset(points)
        return self.get_paginated_response(self.get_serializer(page, many=True).data)


# --- Matches -----------------------------------------------------------------------------


class MatchesView(LeagueScopedMixin, generics.ListAPIView):
    """A list of the league's matches, newest first, and the recording of one: the same
    for every kind of match, which says how it is listed and recorded."""

    #: The body of a match to record.
    record_serializer: type[RecordMatchSerializer]
    #: The list's query parameters.
    query_serializer: type[Serializer]

    def matches(self, params: dict[str, Any]) -> Any:
        """The listed matches under the validated query ``params``."""
        raise NotImplementedError

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Event.objects.none()
        return self.matches(self.query(self.query_serializer))

    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    def post(self, request: Request, league_slug: str) -> Response:
        return self.record(self.record_serializer)


class MatchView(LeagueScopedMixin, generics.RetrieveAPIView):
    """One match of the league, of the kind ``matches`` lists."""

    lookup_url_kwarg = "match_id"
    matches: Callable[[League], Any]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Event.objects.none()
        return type(self).matches(self.get_league())


def match_view(
    name: str, serializer: type[Serializer], matches: Callable[[League], Any], doc: str
) -> type[MatchView]:
    """The detail view of one kind of match: ``serializer`` shows one of ``matches``."""
    view = type(
        name,
        (MatchView,),
        {"__doc__": doc, "serializer_class": serializer, "matches": staticmethod(matches)},
    )
    return extend_schema(
        tags=["matches"],
        parameters=[schema.id_path("match_id", "The match event's id.")],
        responses={200: serializer, **schema.errors(404)},
    )(view)


RECORD_ERRORS = schema.errors(400, 401, 403, 404, 413, 422)


@extend_schema(tags=["matches"])
@extend_schema_view(
    get=extend_schema(
        operation_id="matches_list",
        parameters=[MatchQuerySerializer],
        responses={200: MatchSerializer(many=True), **schema.errors(400, 404)},
    ),
    post=extend_schema(
        operation_id="matches_record",
        summary="Record a result",
        description=(
            "Organisers only. Send ``Idempotency-Key`` to make retries safe: the same key "
            "with the same body returns the original response and stores nothing new; the "
            "same key with a different body is refused with 422. A 400 lists every problem "
            "of the body at once (fields, players, date), keyed by the field sent."
        ),
        parameters=[schema.IDEMPOTENCY_KEY],
        request=RecordResultSerializer,
        responses={201: MatchEventSerializer, **RECORD_ERRORS},
    ),
)
class MatchListView(MatchesView):
    """The league's recorded results, voided ones included and marked."""

    serializer_class = MatchSerializer
    record_serializer = RecordResultSerializer
    query_serializer = MatchQuerySerializer
    filter_backends = [filters.OrderingFilter]
    ordering_fields = ["played_at", "seq", "recorded_at"]
    ordering = ["-played_at", "-seq"]

    def matches(self, params: dict[str, Any]) -> Any:
        return querysets.match_events(
            self.get_league(),
            player_id=params.get("player"),
            date_from=params.get("date_from"),
            date_to=params.get("date_to"),
            voided=params.get("voided"),
        )


MatchDetailView = match_view(
    "MatchDetailView",
    MatchSerializer,
    querysets.match_events,
    "One recorded result, with its void if it was voided.",
)


@extend_schema(
    tags=["matches"],
    summary="Void a result",
    description=(
        "Organisers only. The match stops counting; the void and its reason are stored as "
        "a new event. ``Idempotency-Key`` works as for recording a result."
    ),
    parameters=[schema.IDEMPOTENCY_KEY, schema.id_path("match_id", "The match event's id.")],
    request=VoidRequestSerializer,
    responses={201: VoidEventSerializer, **schema.errors(400, 401, 403, 404, 413, 422)},
)
class MatchVoidView(LeagueScopedMixin, generics.GenericAPIView):
    serializer_class = VoidRequestSerializer

    def post(self, request: Request, league_slug: str, match_id: int) -> Response:
        league = self.get_league()
        match = get_object_or_404(querysets.any_matches_of(league), pk=match_id)
        key = idempotency.client_key(request)
        serializer = VoidRequestSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        void = league_services.void_match(
            league,
            match,
            reason=serializer.validated_data["reason"],
            recorded_by=request.user,
            idempotency_key=idempotency.void_key(key),
        )
        body = VoidEventSerializer(void, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_201_CREATED)


@extend_schema(tags=["matches"])
@extend_schema_view(
    get=extend_schema(
        operation_id="side_matches_list",
        parameters=[SideMatchQuerySerializer],
        responses={200: SideMatchSerializer(many=True), **schema.errors(400, 404)},
    ),
    post=extend_schema(
        operation_id="side_matches_record",
        summary="Record a match with sides",
        description=(
            "Organisers only. ``sides`` lists each side's player ids; two sides take side "
            "A's ``score_a``, three or more a finishing position per side (``positions``). "
            "The league's format (singles only, a fixed side size, any) decides which shapes "
            "are accepted. Two sides of one player each are stored as a one-vs-one result "
            "(readable in ``matches/``). ``Idempotency-Key`` works as for a result."
        ),
        parameters=[schema.IDEMPOTENCY_KEY],
        request=RecordSideMatchSerializer,
        responses={201: SideMatchSerializer, **RECORD_ERRORS},
    ),
)
class SideMatchListView(MatchesView):
    """The league's matches with sides (doubles, teams, multi-player games), newest first.

    One-vs-one results stay in ``matches/``; a match with sides is voided through
    ``matches/<id>/void/`` like any other.
    """

    serializer_class = SideMatchSerializer
    record_serializer = RecordSideMatchSerializer
    query_serializer = SideMatchQuerySerializer

    def matches(self, params: dict[str, Any]) -> Any:
        return querysets.side_match_events(
            self.get_league(), player_id=params.get("player")
        ).order_by("-played_at", "-seq")


SideMatchDetailView = match_view(
    "SideMatchDetailView",
    SideMatchSerializer,
    querysets.side_match_events,
    "One match with sides.",
)


@extend_schema(
    tags=["matches"],
    summary="Record a round of results (all or nothing)",
    description=(
        "Organisers only. Either every result is stored or none is; errors name the row "
        "(``results.2.score_a``). With ``Idempotency-Key`` a retry of the same round returns "
        "the original response; the same key with different rows is refused with 422."
    ),
    parameters=[schema.IDEMPOTENCY_KEY],
    request=RecordRoundSerializer,
    responses={
        201: MatchEventSerializer(many=True),
        **schema.errors(400, 401, 403, 404, 413, 422),
    },
)
class RoundView(LeagueScopedMixin, generics.GenericAPIView):
    serializer_class = RecordRoundSerializer

    def post(self, request: Request, league_slug: str) -> Response:
        league = self.get_league()
        key = idempotency.client_key(request)
        serializer = RecordRoundSerializer(data=request.data, context=self.get_serializer_context())
        serializer.is_valid(raise_exception=True)
        rows = serializer.validated_data["results"]
        keys = idempotency.round_row_keys(key, len(rows))
        results = [
            {**RecordResultSerializer.service_kwargs_of(row), "idempotency_key": row_key}
            for row, row_key in zip(rows, keys, strict=True)
        ]
        with transaction.atomic(), fields_renamed(serializer.field_names_as_sent()):
            events = league_services.record_round(league, results, recorded_by=request.user)
            idempotency.check_round_is_whole(league, key, len(rows))
        context = self.get_serializer_context()
        body = MatchEventSerializer(events, many=True, context=context).data
        return Response(body, status=status.HTTP_201_CREATED)


# --- Standings and predictions -----------------------------------------------------------


@extend_schema(
    tags=["standings"],
    parameters=[
        StandingsQuerySerializer,
        OpenApiParameter(
            "If-None-Match",
            str,
            OpenApiParameter.HEADER,
            description="An ETag from an earlier response: 304 when nothing changed.",
        ),
        schema.ETAG,
        schema.LAST_MODIFIED,
    ],
    responses={
        200: OpenApiResponse(StandingsPageSerializer, description="A page of standings."),
        304: OpenApiResponse(description="Not modified since the ETag sent."),
        **schema.errors(400, 404),
    },
)
class StandingsView(LeagueScopedMixin, generics.GenericAPIView):
    """The league's standings: current, or at the end of a period (``?period=``/``?date=``).

    Only players meeting the league's eligibility rules are ranked (``?everyone=true``
    ranks every rated player; ``?listed=separate`` lists the others with their reasons);
    ``?level=`` sets the confidence level of every interval (default 95 %).

    ``?version=`` reads another configuration version's standings. Responses carry an
    ``ETag`` (and ``Last-Modified``, the time the standings were computed); send
    ``If-None-Match`` to poll cheaply (304 when nothing changed).
    """

    cache_query_serializers = (StandingsQuerySerializer,)
    serializer_class = StandingsPageSerializer
    pagination_class = None

    def get(self, request: Request, league_slug: str) -> Response:
        league = self.get_league()
        params = self.query(StandingsQuerySerializer)
        # The publication and the current period are read once and shared by the cache
        # validators and the leaderboard.
        published = configurations.publication(league)
        live = published.config if published else None
        version = params.get("version")
        config = live if version is None else self.config_version(version)
        clock = ReadClock.of(config) if config else None
        period = standings.requested_period(config, params)
        rules = eligibility(league, config)
        validators = standings.validators(league, config, published, clock, request, rules)
        headers = validators.headers()
        if validators.matches(request.headers.get("If-None-Match")):
            return Response(status=status.HTTP_304_NOT_MODIFIED, headers=headers)
        board = leaderboard(
            league,
            standings.leaderboard_query(params, period),
            config=config,
            is_live=live is not None and config is not None and live.pk == config.pk,
            clock=clock,
            rules=rules,
        )
        stored = validators.coverage
        coverage = coverage_at(stored, board.level) if stored is not None else None
        body = standings.page_body(request, board, validators.computed_at, coverage)
        return Response(StandingsPageSerializer(body).data, headers=headers)


@extend_schema(
    tags=["standings"],
    parameters=[PairQuerySerializer],
    responses={200: HeadToHeadSerializer, **schema.errors(400, 404)},
)
class HeadToHeadView(LeagueScopedMixin, generics.GenericAPIView):
    """Player A's record against player B (counted matches only) and A's expected score."""

    cache_query_serializers = (PairQuerySerializer,)
    serializer_class = HeadToHeadSerializer

    def get(self, request: Request, league_slug: str) -> Response:
        league = self.get_league()
        player_a, player_b, config = self.pair_from_query()
        clock = ReadClock.of(config) if config else None
        rows = head_to_head(league, config, player_a, clock=clock)
        row = next((r for r in rows if r.opponent_id == player_b.pk), None)
        # A's expected score on neutral ground, as the player page's head-to-head rows.
        if row is None:
            _, _, expected = _matchup(league, config, clock, player_a, player_b, advantage=0.0)
            wins = draws = losses = 0
        else:
            expected = row.win_probability
            wins, draws, losses = row.wins, row.draws, row.losses
        body = {
            "version": None if config is None else config.version,
            "player_a": player_a,
            "player_b": player_b,
            "games": wins + draws + losses,
            "wins_a": wins,
            "draws": draws,
            "wins_b": losses,
            "expected_score_a": expected,
            **_team_records(league, player_a, player_b),
        }
        return Response(HeadToHeadSerializer(body).data)


def _team_records(league: League, player_a: Player, player_b: Player) -> dict[str, dict]:
    """A's records with B as opponents and as partners in matches with sides."""
    partners, opponents = side_records(league, player_a)

    def record(rows: list[SideRecordRow]) -> dict[str, int]:
        row = next((r for r in rows if r.player.id == player_b.pk), None)
        if row is None:
            return {"results": 0, "wins": 0, "draws": 0, "losses": 0}
        return {"results": row.games, "wins": row.wins, "draws": row.draws, "losses": row.losses}

    return {"team_opponents": record(opponents), "team_partners": record(partners)}


def _matchup(
    league: League,
    config: RatingConfig | None,
    clock: ReadClock | None,
    player_a: Player,
    player_b: Player,
    *,
    advantage: float,
    level: ConfidenceLevel = DEFAULT_LEVEL,
) -> tuple[PlayerSummary, PlayerSummary, float]:
    """Both players' current standing (their ranks at ``level``) and A's expected score
    against B with A's ``advantage`` (rating points)."""
    a = player_summary(league, config, player_a, clock=clock, level=level)
    b = player_summary(league, config, player_b, clock=clock, level=level)
    return a, b, float(win_probability(a.rating, a.rd, b.rating, b.rd, advantage))


@extend_schema(
    tags=["standings"],
    parameters=[WinProbabilityQuerySerializer],
    responses={200: WinProbabilitySerializer, **schema.errors(400, 404)},
)
class WinProbabilityView(LeagueScopedMixin, generics.GenericAPIView):
    """The Glicko-2 expected score of A against B (a draw counts half), from current ratings.

    Ratings and RDs are each player's current ones (RD grown to the current period); an
    unrated player enters with the configuration's initial values. A is the first-named
    (home) side and gets the configuration's advantage unless ``?neutral=true``.
    """

    cache_query_serializers = (PairQuerySerializer,)
    serializer_class = WinProbabilitySerializer

    def get(self, request: Request, league_slug: str) -> Response:
        player_a, player_b, config = self.pair_from_query(WinProbabilityQuerySerializer)
        params = self.query(WinProbabilityQuerySerializer)
        neutral = bool(params.get("neutral"))
        advantage = first_named_advantage(config, neutral=neutral)
        clock = ReadClock.of(config) if config else None
        a, b, p = _matchup(
            self.get_league(),
            config,
            clock,
            player_a,
            player_b,
            advantage=advantage,
            level=params.get("level", DEFAULT_LEVEL),
        )
        body = {
            "version": None if config is None else config.version,
            "player_a": a,
            "player_b": b,
            "probability_a": p,
            "probability_b": 1.0 - p,
            "neutral": neutral,
            "advantage_a": advantage,
        }
        return Response(WinProbabilitySerializer(body).data)


# --- Configurations and replays ----------------------------------------------------------


@extend_schema(tags=["configurations"])
class ConfigListView(LeagueScopedMixin, generics.ListAPIView):
    """The league's rating configuration versions, newest first."""

    serializer_class = ConfigSerializer

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return []
        return configurations.config_versions(self.get_league())

    @extend_schema(
        operation_id="configurations_list",
        responses={200: ConfigSerializer(many=True), **schema.errors(400, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="configurations_create",
        summary="Create a configuration version (starts a full replay)",
        description=(
            "Organisers only. Omitted parameters take their defaults. The new version's "
            "standings are built by a replay and published when it completes."
        ),
        request=CreateConfigSerializer,
        responses={201: ConfigSerializer, **schema.errors(400, 401, 403, 404, 413)},
    )
    def post(self, request: Request, league_slug: str) -> Response:
        league = self.get_league()
        serializer = CreateConfigSerializer(data=request.data)
        serializer.is_valid(raise_exception=True)
        config = rating_services.create_config(
            league, created_by=request.user, start_rules=True, **serializer.validated_data
        )
        body = ConfigSerializer(
            configurations.config_info(league, config), context=self.get_serializer_context()
        ).data
        return self.created(body, "api:config-detail", version=config.version)


@extend_schema(
    tags=["configurations"],
    parameters=[schema.id_path("version", "The configuration version number.")],
    responses={200: ConfigSerializer, **schema.errors(404)},
)
class ConfigDetailView(LeagueScopedMixin, generics.GenericAPIView):
    """One configuration version."""

    serializer_class = ConfigSerializer

    def get(self, request: Request, league_slug: str, version: int) -> Response:
        config = self.config_for(version)
        info = configurations.config_info(self.get_league(), config)
        return Response(self.get_serializer(info).data)


@extend_schema(tags=["replays"])
class ReplayListView(LeagueScopedMixin, generics.ListAPIView):
    """The league's replays (every version), newest first, with status and progress."""

    # A replay's progress moves without its league's state (which shows the oldest
    # running replay only): read afresh.
    cache_reads = False

    serializer_class = ReplaySerializer
    filter_backends = [filters.OrderingFilter]
    ordering_fields = ["queued_at", "id"]
    ordering = ["-queued_at", "-id"]

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Replay.objects.none()
        params = self.query(ReplayQuerySerializer)
        return querysets.replays_of(
            self.get_league(), status=params.get("status"), version=params.get("version")
        )

    @extend_schema(
        operation_id="replays_list",
        parameters=[ReplayQuerySerializer],
        responses={200: ReplaySerializer(many=True), **schema.errors(400, 404)},
    )
    def get(self, request: Request, *args: Any, **kwargs: Any) -> Response:
        return super().get(request, *args, **kwargs)

    @extend_schema(
        operation_id="replays_start",
        summary="Start a full replay of the newest configuration version",
        description="Organisers only. Answers 202 with the queued replay; poll it for progress.",
        request=None,
        responses={202: ReplaySerializer, **schema.errors(400, 401, 403, 404)},
    )
    def post(self, request: Request, league_slug: str) -> Response:
        replay = rating_services.request_full_replay(self.get_league(), requested_by=request.user)
        replay = querysets.replays_of(self.get_league()).get(pk=replay.pk)
        body = ReplaySerializer(replay, context=self.get_serializer_context()).data
        return Response(body, status=status.HTTP_202_ACCEPTED)


@extend_schema(
    tags=["replays"],
    parameters=[schema.id_path("replay_id", "The replay's id.")],
    responses={200: ReplaySerializer, **schema.errors(404)},
)
class ReplayDetailView(LeagueScopedMixin, generics.RetrieveAPIView):
    """One replay: status, progress, timings; its error only for the league's organisers."""

    # A replay's progress moves without its league's state (which shows the oldest
    # running replay only): read afresh.
    cache_reads = False

    serializer_class = ReplaySerializer
    lookup_url_kwarg = "replay_id"

    def get_queryset(self):
        if getattr(self, "swagger_fake_view", False):
            return Replay.objects.none()
        return querysets.replays_of(self.get_league())


@extend_schema(tags=["replays"], responses={200: ProgressSerializer, **schema.errors(404)})
class ProgressView(LeagueScopedMixin, generics.GenericAPIView):
    """Whether a replay is under way for the league, and how far it got."""

    # A replay's progress moves without its league's state (which shows the oldest
    # running replay only): read afresh.
    cache_reads = False

    serializer_class = ProgressSerializer

    def get(self, request: Request, league_slug: str) -> Response:
        progress = league_progress(self.get_league())
        return Response(self.get_serializer({"replay": progress}).data)


@csrf_exempt
def not_found(request: HttpRequest, *args: Any, **kwargs: Any) -> JsonResponse:
    """Any unknown path under /api/: a 404 in the API's error format, not an HTML page."""
    return JsonResponse(error_body("Not found.", "not_found"), status=status.HTTP_404_NOT_FOUND)
