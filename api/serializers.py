"""Serializers: the API's documented field names, inputs and outputs.

Output serializers never compute ratings: they render model rows and the plain data
returned by ``ratings.selectors``. Private fields (who recorded an event, who asked for a
replay and why it failed) are ``null`` unless the reader organises the league; the view
puts ``is_organiser`` into the serializer context.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any
from zoneinfo import ZoneInfo

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import extend_schema_field
from rest_framework import serializers

from api.bodies import BodySerializer, FieldErrors, add_django_errors, add_error
from api.converters import MAX_ID
from api.fields import (
    AwareDateTimeField,
    QueryBooleanField,
    QueryIntegerField,
    QueryLevelField,
    ScoreField,
    StrictBooleanField,
    StrictCharField,
    StrictFloatField,
    StrictIntegerField,
)
from api.result_checks import check_result
from engine.intervals import ConfidenceLevel
from league.chess.vocabulary import result_text
from league.event_log import MAX_PER_PAGE
from league.models import Event, League, Player
from league.sides import positions_text, side_label
from league.validation import Errors
from ratings.models import RatingConfig, Replay
from ratings.parameters import BY_NAME
from ratings.selectors.standings import DEFAULT_LEVEL, LISTS, SORT_KEYS

MAX_ROUND_ROWS = 200


def _is_organiser(serializer: serializers.Serializer) -> bool:
    return bool(serializer.context.get("is_organiser"))


@extend_schema_field({"type": "string", "nullable": True})
class PrivateUsernameField(serializers.Field):
    """A user's username, shown only to the league's organisers (else ``null``)."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("read_only", True)
        super().__init__(**kwargs)

    def get_attribute(self, instance: Any) -> Any:
        if not _is_organiser(self.parent):
            return None
        return super().get_attribute(instance)

    def to_representation(self, value: Any) -> str | None:
        return None if value is None else value.get_username()


# --- Leagues and players -------------------------------------------------------------


class LeagueSerializer(serializers.ModelSerializer):
    live_version = serializers.SerializerMethodField(
        help_text="Version of the configuration whose standings are published (null: none yet)."
    )

    class Meta:
        model = League
        fields = [
            "slug",
            "name",
            "description",
            "sport",
            "time_zone",
            "start_date",
            "created_at",
            "live_version",
        ]
        read_only_fields = fields

    def get_live_version(self, league: League) -> int | None:
        publication = getattr(league, "publication", None)
        return None if publication is None else publication.config.version


class PlayerSerializer(serializers.ModelSerializer):
    """A player; ``merged_into`` is the id of the player they were merged into (their
    matches count as that player's), or null."""

    class Meta:
        model = Player
        fields = ["id", "slug", "display_name", "active", "merged_into", "created_at"]
        read_only_fields = fields


# --- Matches: one family for every match, whatever its sides ----------------------------


class RecordedMatchSerializer(serializers.ModelSerializer):
    """What every recorded match shows, from the event's immutable fields only.

    The write endpoints answer with these shapes, so a retried request rebuilds the same
    body from the stored event.
    """

    played_on = serializers.SerializerMethodField(
        help_text="Local date (league time zone) the match was played on."
    )
    replaces = serializers.IntegerField(source="replaces_id", read_only=True, allow_null=True)
    recorded_by = PrivateUsernameField(help_text="Organisers only; null for other readers.")

    @extend_schema_field(OpenApiTypes.DATE)
    def get_played_on(self, event: Event) -> str:
        return event.played_at.astimezone(ZoneInfo(event.league.time_zone)).date().isoformat()

    def voided_by(self, event: Event) -> Event | None:
        try:
            return event.voided_by
        except Event.DoesNotExist:
            return None

    def get_voided(self, event: Event) -> bool:
        return self.voided_by(event) is not None


class ColoursSerializer(serializers.Serializer):
    """Who had which colour in a chess game, and its result in chess's words."""

    white = serializers.IntegerField(read_only=True, help_text="White's player id.")
    black = serializers.IntegerField(read_only=True, help_text="Black's player id.")
    result = serializers.CharField(read_only=True, help_text='"1–0", "½–½" or "0–1".')


class MatchEventSerializer(RecordedMatchSerializer):
    """A recorded one-vs-one result (two sides of one player: ``player_a``, ``player_b``),
    from the event's immutable fields only: the write endpoints answer with it, so a retried
    request rebuilds the same body from the stored event."""

    player_a = serializers.IntegerField(source="player_a_id", read_only=True)
    player_b = serializers.IntegerField(source="player_b_id", read_only=True)
    score_a = ScoreField(read_only=True)
    score_b = ScoreField(read_only=True)
    colours = serializers.SerializerMethodField(
        help_text="Chess leagues only (else null): the ids of White (player_a, named first) "
        'and Black (player_b), and the result as chess writes it ("1–0", "½–½", "0–1").'
    )

    class Meta:
        model = Event
        fields = [
            "id",
            "seq",
            "played_at",
            "played_on",
            "player_a",
            "player_b",
            "score_a",
            "score_b",
            "points",
            "neutral",
            "margin",
            "note",
            "replaces",
            "recorded_at",
            "recorded_by",
            "colours",
        ]
        read_only_fields = fields

    @extend_schema_field(ColoursSerializer(allow_null=True))
    def get_colours(self, event: Event) -> dict[str, Any] | None:
        league = self.context.get("league") or event.league
        if not league.is_chess:
            return None
        return {
            "white": event.player_a_id,
            "black": event.player_b_id,
            "result": result_text(event.score_a),
        }


class VoidInfoSerializer(serializers.ModelSerializer):
    recorded_by = PrivateUsernameField(help_text="Organisers only; null for other readers.")

    class Meta:
        model = Event
        fields = ["id", "seq", "reason", "recorded_at", "recorded_by"]
        read_only_fields = fields


class MatchSerializer(MatchEventSerializer):
    """A recorded result as read back: with player names and whether it was voided."""

    player_a_name = serializers.CharField(source="player_a.display_name", read_only=True)
    player_b_name = serializers.CharField(source="player_b.display_name", read_only=True)
    voided = serializers.SerializerMethodField()
    void = serializers.SerializerMethodField(help_text="The void event, or null.")

    class Meta(MatchEventSerializer.Meta):
        fields = [
            *MatchEventSerializer.Meta.fields,
            "player_a_name",
            "player_b_name",
            "voided",
            "void",
        ]
        read_only_fields = fields

    @extend_schema_field(VoidInfoSerializer(allow_null=True))
    def get_void(self, event: Event) -> dict | None:
        void = self.voided_by(event)
        return None if void is None else VoidInfoSerializer(void, context=self.context).data


class SidePlayerSerializer(serializers.Serializer):
    id = serializers.IntegerField(read_only=True)
    name = serializers.CharField(read_only=True)


class SideSerializer(serializers.Serializer):
    """One side of a match: its players, its finishing position and its score."""

    side = serializers.CharField(read_only=True, help_text='"A", "B", … in the order given.')
    players = SidePlayerSerializer(many=True, read_only=True)
    position = serializers.IntegerField(
        read_only=True, help_text="Finishing position, 1 for first; equal positions are a tie."
    )


class SideMatchSerializer(RecordedMatchSerializer):
    """A match with sides as read back (doubles, teams, multi-player games)."""

    sides = serializers.SerializerMethodField()
    score_a = ScoreField(
        read_only=True, allow_null=True, help_text="Side A's score for two sides; null for more."
    )
    voided = serializers.SerializerMethodField()

    class Meta:
        model = Event
        fields = [
            "id",
            "seq",
            "played_at",
            "played_on",
            "sides",
            "score_a",
            "points",
            "note",
            "replaces",
            "recorded_at",
            "recorded_by",
            "voided",
        ]
        read_only_fields = fields

    @extend_schema_field(SideSerializer(many=True))
    def get_sides(self, event: Event) -> list[dict[str, Any]]:
        members: dict[int, list[Any]] = {}
        places: dict[int, int] = {}
        for row in sorted(event.participants.all(), key=lambda row: (row.side, row.pk)):
            members.setdefault(row.side, []).append(row.player)
            places[row.side] = row.place
        order = sorted(members)
        positions = positions_text([places[x] for x in order])
        return [
            {
                "side": side_label(x),
                "players": [{"id": p.pk, "name": p.display_name} for p in members[x]],
                "position": position,
            }
            for x, position in zip(order, positions, strict=True)
        ]


def recorded_match_body(event: Event, context: dict[str, Any]) -> Any:
    """A stored match as the API shows it: a one-vs-one result by its two players, any
    other match by its sides."""
    if event.kind == Event.Kind.MATCH_RECORDED:
        return MatchEventSerializer(event, context=context).data
    return SideMatchSerializer(event, context=context).data


def _played_at_field() -> serializers.Field:
    return AwareDateTimeField(
        required=False, help_text="When the match was played (ISO 8601 with a UTC offset)."
    )


def _played_on_field() -> serializers.Field:
    return serializers.DateField(
        required=False, help_text="Local date played (stored as noon in the league's zone)."
    )


def _points_field() -> serializers.Field:
    return StrictCharField(
        required=False, allow_blank=True, max_length=120, help_text='Display score, e.g. "3-1".'
    )


def _note_field() -> serializers.Field:
    return StrictCharField(required=False, allow_blank=True, max_length=2000)


class RecordMatchSerializer(BodySerializer):
    """A match to record, whatever its sides. Give ``played_at`` (a moment) or
    ``played_on`` (a local date).

    With the league in the context, the write side's own checks (players of this league,
    active, each on one side; a date neither in the future nor before the league's start)
    run here too, on whatever parsed, so one answer lists every problem of the body. The
    service checks again under the league lock: it stays the authority.
    """

    #: The service's names of this body's fields, where they differ.
    renamed: dict[str, str] = {}

    def check(self, data: Mapping[str, Any], attrs: dict[str, Any], errors: FieldErrors) -> None:
        if ("played_at" in data) == ("played_on" in data):
            add_error(errors, "played_at", "Give exactly one of played_at or played_on.")
        league = self.context.get("league")
        if league is not None:
            found = Errors()
            check_result(league, {self.renamed.get(k, k): v for k, v in attrs.items()}, found)
            add_django_errors(errors, {self._sent(k): v for k, v in found.by_field.items()})

    def _sent(self, name: str) -> str:
        sent = {service: field for field, service in self.renamed.items()}
        return sent.get(name, name)

    def field_names_as_sent(self) -> dict[str, str]:
        """The write service's error keys -> the fields this body used (``played_on``)."""
        return self.names_as_sent(self.validated_data)

    @classmethod
    def names_as_sent(cls, row: dict[str, Any], prefix: str = "") -> dict[str, str]:
        """``field_names_as_sent`` for one validated match, its keys under ``prefix``."""
        names = {f"{prefix}{service}": f"{prefix}{field}" for field, service in cls.renamed.items()}
        if "played_on" in row:
            names[f"{prefix}played_at"] = f"{prefix}played_on"
        return names

    def service_kwargs(self) -> dict[str, Any]:
        """Keyword arguments for ``league.services.record_match``."""
        return self.service_kwargs_of(self.validated_data)

    @classmethod
    def service_kwargs_of(cls, data: dict[str, Any]) -> dict[str, Any]:
        """``record_match`` keyword arguments from one validated match."""
        kwargs = {cls.renamed.get(name, name): value for name, value in data.items()}
        kwargs.pop("played_on", None)
        kwargs["played_at"] = data.get("played_at", data.get("played_on"))
        return kwargs


class RecordSideMatchSerializer(RecordMatchSerializer):
    """A match with sides to record: each side's player ids, and side A's ``score_a`` (two
    sides) or a finishing position per side (``positions``, 1 for first, ties allowed).

    Give ``played_at`` (a moment) or ``played_on`` (a local date). The write side's checks
    (players of this league, active, on one side only; the date; the league's format) answer
    every problem at once."""

    renamed = {"positions": "places"}

    sides = serializers.ListField(
        child=serializers.ListField(
            child=StrictIntegerField(min_value=1, max_value=MAX_ID), allow_empty=True
        ),
        help_text="Player ids per side, e.g. [[3, 7], [4, 9]] for a doubles match.",
    )
    score_a = ScoreField(required=False, help_text="Side A's score (two sides): 1, 0.5 or 0.")
    positions = serializers.ListField(
        child=StrictIntegerField(min_value=1, max_value=16),
        required=False,
        help_text="A finishing position per side (1 is first; equal positions tie).",
    )
    played_at = _played_at_field()
    played_on = _played_on_field()
    points = _points_field()
    note = _note_field()


class VoidEventSerializer(serializers.ModelSerializer):
    """A stored void (the answer to a void request)."""

    voids = serializers.IntegerField(source="voids_id", read_only=True)
    recorded_by = PrivateUsernameField(help_text="Organisers only; null for other readers.")

    class Meta:
        model = Event
        fields = ["id", "seq", "voids", "reason", "recorded_at", "recorded_by"]
        read_only_fields = fields


class RecordResultSerializer(RecordMatchSerializer):
    """One result to record: two sides of one player, ``player_a`` and ``player_b``. Give
    ``played_at`` (a moment) or ``played_on`` (a local date); the write side's checks
    (players of this league, active, two different ones; a date neither in the future nor
    before the league's start) run on whatever parsed, so one answer lists every problem."""

    player_a = StrictIntegerField(
        min_value=1, max_value=MAX_ID, help_text="Id of player A (of this league)."
    )
    player_b = StrictIntegerField(
        min_value=1, max_value=MAX_ID, help_text="Id of player B (of this league)."
    )
    score_a = ScoreField(help_text="Player A's score: 1 win, 0.5 draw, 0 loss.")
    played_at = _played_at_field()
    played_on = _played_on_field()
    points = _points_field()
    note = _note_field()
    neutral = StrictBooleanField(
        required=False,
        default=False,
        help_text="Played on neutral ground: no advantage for player A (default false).",
    )


class RecordRoundSerializer(BodySerializer):
    """A round of results, stored all together or not at all."""

    results = RecordResultSerializer(
        many=True, allow_empty=False, max_length=MAX_ROUND_ROWS, min_length=1
    )

    def field_names_as_sent(self) -> dict[str, str]:
        """The write service's error keys (``results.<i>.played_at``) -> the client's."""
        names: dict[str, str] = {}
        for index, row in enumerate(self.validated_data["results"]):
            names.update(RecordResultSerializer.names_as_sent(row, f"results.{index}."))
        return names


class VoidRequestSerializer(BodySerializer):
    reason = StrictCharField(max_length=2000, help_text="Why the result is voided (required).")


# --- Configurations and replays ----------------------------------------------------------


class ConfigSerializer(serializers.Serializer):
    """One configuration version (``ratings.selectors.configurations.ConfigInfo``)."""

    version = serializers.IntegerField()
    tau = serializers.FloatField()
    initial_rating = serializers.FloatField()
    initial_rd = serializers.FloatField()
    initial_volatility = serializers.FloatField()
    period_unit = serializers.ChoiceField(choices=RatingConfig.PeriodUnit.choices)
    period_length = serializers.IntegerField()
    period_anchor = serializers.DateField()
    max_rd = serializers.FloatField()
    volatility_ceiling = serializers.FloatField(allow_null=True)
    rating_floor = serializers.FloatField(allow_null=True)
    advantage = serializers.FloatField(help_text=BY_NAME["advantage"].help)
    margin_scale = serializers.FloatField(allow_null=True, help_text=BY_NAME["margin_scale"].help)
    update_mode = serializers.ChoiceField(
        choices=RatingConfig.UpdateMode.choices, help_text=BY_NAME["update_mode"].help
    )
    note = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()
    created_by = serializers.SerializerMethodField(
        help_text="Username; organisers only (null for other readers or when unknown)."
    )
    is_live = serializers.BooleanField(help_text="Its standings are the published ones.")

    def get_created_by(self, info: Any) -> str | None:
        return (info.created_by or None) if _is_organiser(self) else None


def _parameter_field(name: str) -> serializers.Field:
    """A rating parameter's input field, from the table (``ratings.parameters``).

    Strict JSON types (``api.fields``); the bounds are the table's validators, so an
    out-of-range value gets the same message as on the configuration page and in the
    admin, and the schema shows them as ``minimum``/``maximum``.
    """
    parameter = BY_NAME[name]
    field_class = StrictIntegerField if parameter.kind is int else StrictFloatField
    return field_class(
        required=False,
        allow_null=parameter.optional,
        help_text=parameter.help_text,
        validators=parameter.validators(),
    )


class CreateConfigSerializer(BodySerializer):
    """Parameters of a new configuration version; omitted ones take the service's defaults."""

    tau = _parameter_field("tau")
    initial_rating = _parameter_field("initial_rating")
    initial_rd = _parameter_field("initial_rd")
    initial_volatility = _parameter_field("initial_volatility")
    period_unit = serializers.ChoiceField(
        choices=RatingConfig.PeriodUnit.choices,
        required=False,
        help_text=BY_NAME["period_unit"].help,
    )
    period_length = _parameter_field("period_length")
    period_anchor = serializers.DateField(required=False, help_text=BY_NAME["period_anchor"].help)
    max_rd = _parameter_field("max_rd")
    volatility_ceiling = _parameter_field("volatility_ceiling")
    rating_floor = _parameter_field("rating_floor")
    advantage = _parameter_field("advantage")
    margin_scale = _parameter_field("margin_scale")
    update_mode = serializers.ChoiceField(
        choices=RatingConfig.UpdateMode.choices,
        required=False,
        help_text=BY_NAME["update_mode"].help,
    )
    note = StrictCharField(required=False, allow_blank=True, max_length=200)


class ReplaySerializer(serializers.ModelSerializer):
    version = serializers.IntegerField(source="config.version", read_only=True)
    progress = serializers.SerializerMethodField(help_text="Fraction done, 0 to 1.")
    error = serializers.SerializerMethodField(help_text="Organisers only; null for other readers.")
    requested_by = PrivateUsernameField(help_text="Organisers only; null for other readers.")

    class Meta:
        model = Replay
        fields = [
            "id",
            "version",
            "kind",
            "status",
            "from_period",
            "periods_total",
            "periods_done",
            "progress",
            "through_seq",
            "attempts",
            "queued_at",
            "started_at",
            "finished_at",
            "error",
            "requested_by",
        ]
        read_only_fields = fields

    def get_progress(self, replay: Replay) -> float:
        if replay.status == Replay.Status.COMPLETE:
            return 1.0
        if replay.periods_total <= 0:
            return 0.0
        return min(1.0, replay.periods_done / replay.periods_total)

    def get_error(self, replay: Replay) -> str | None:
        return replay.error if _is_organiser(self) else None


# --- Query parameters ------------------------------------------------------------------


class MatchQuerySerializer(serializers.Serializer):
    player = QueryIntegerField(
        required=False,
        min_value=1,
        max_value=MAX_ID,
        help_text="Only matches this player id played.",
    )
    date_from = serializers.DateField(
        required=False, help_text="Played on or after this local date."
    )
    date_to = serializers.DateField(
        required=False,
        help_text="Played on or before this local date (before date_from: no matches).",
    )
    voided = QueryBooleanField(
        required=False, help_text="true: only voided results; false: only live ones."
    )


class SideMatchQuerySerializer(serializers.Serializer):
    player = QueryIntegerField(
        required=False,
        min_value=1,
        max_value=MAX_ID,
        help_text="Only matches with sides this player id played in.",
    )


class PlayerQuerySerializer(serializers.Serializer):
    active = QueryBooleanField(required=False, help_text="Filter on the active flag.")


class VersionQuerySerializer(serializers.Serializer):
    version = QueryIntegerField(
        required=False,
        min_value=1,
        max_value=10**9,
        help_text="Configuration version (default: the live one).",
    )


class StandingsQuerySerializer(VersionQuerySerializer):
    period = QueryIntegerField(
        required=False,
        min_value=0,
        max_value=10**6,
        help_text="Standings at the end of this period index (capped at the current one).",
    )
    date = serializers.DateField(
        required=False,
        help_text="Standings at the end of the period containing this date (404 before the "
        "first period). Give period or date, not both (400).",
    )
    ordering = serializers.ChoiceField(
        choices=SORT_KEYS, required=False, help_text="Sort key; a leading - reverses it."
    )
    search = serializers.CharField(
        required=False,
        allow_blank=True,
        max_length=120,
        help_text="Part of a player's name (ranks unchanged).",
    )
    active = QueryBooleanField(
        required=False,
        help_text="true: only players who played within the league's activity window "
        "(and were not withdrawn by the organisers).",
    )
    min_games = QueryIntegerField(
        required=False, min_value=0, max_value=10**6, help_text="Minimum games played."
    )
    everyone = QueryBooleanField(
        required=False,
        help_text="true: rank every rated player, ignoring the league's eligibility rules. "
        "Default false: only players meeting the rules (minimum games, a game within the "
        "activity window, RD at most the limit, not withdrawn) are ranked; the others are "
        "listed separately (see listed).",
    )
    listed = serializers.ChoiceField(
        choices=LISTS,
        required=False,
        help_text="ranked (default): the ranked players; separate: the players the "
        "eligibility rules do not rank, by rating, each with its reasons.",
    )
    level = QueryLevelField(
        required=False,
        help_text="Confidence level of low/high: a percent strictly between 0 and 100 "
        "(68, 95, 99.9, optionally with %, at most 12 decimals) or a number of deviations "
        "either side (z2, z=1.5, 2z, 2sd; above 0, at most 10). Default 95: rating ± 1.96 RD.",
    )

    def validate_level(self, value: ConfidenceLevel) -> ConfidenceLevel:
        return DEFAULT_LEVEL if value.percent == 95.0 else value

    page = QueryIntegerField(required=False, min_value=1, max_value=10**6, help_text="From 1.")
    per_page = QueryIntegerField(
        required=False, min_value=1, max_value=MAX_PER_PAGE, help_text="Rows per page."
    )

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "period" in attrs and "date" in attrs:
            raise serializers.ValidationError({"period": ["Give period or date, not both."]})
        return attrs


class LeagueQuerySerializer(serializers.Serializer):
    organised = QueryBooleanField(
        required=False, help_text="true: only leagues the caller organises (or all, superuser)."
    )


class ReplayQuerySerializer(serializers.Serializer):
    status = serializers.ChoiceField(choices=Replay.Status.choices, required=False)
    version = QueryIntegerField(required=False, min_value=1, max_value=10**9)


class PairQuerySerializer(VersionQuerySerializer):
    player_a = QueryIntegerField(
        min_value=1,
        max_value=MAX_ID,
        help_text="Id of player A, a player of this league (404 otherwise).",
    )
    player_b = QueryIntegerField(
        min_value=1,
        max_value=MAX_ID,
        help_text="Id of player B, a player of this league (404 otherwise). B may be A: "
        "no games, an expected score of 0.5.",
    )


class WinProbabilityQuerySerializer(PairQuerySerializer):
    neutral = QueryBooleanField(
        required=False,
        help_text="true: on neutral ground, neither side has an advantage. Default false: "
        "player A is the first-named (home) side and gets the configuration's advantage, "
        "as in a recorded match.",
    )
    level = QueryLevelField(
        required=False,
        help_text="The standings' level the players' ranks are read at (it orders players "
        "when the league ranks by the interval's lower end), written as for the standings' "
        "level (68, 95, 99.9, z2 ...). Default 95.",
    )

    def validate_level(self, value: ConfidenceLevel) -> ConfidenceLevel:
        return DEFAULT_LEVEL if value.percent == 95.0 else value


# --- Standings, history and predictions ----------------------------------------------------


class PeriodSerializer(serializers.Serializer):
    index = serializers.IntegerField()
    start = serializers.DateField(help_text="First day of the period.")
    end = serializers.DateField(help_text="Last day of the period (inclusive).")


class StandingRowSerializer(serializers.Serializer):
    """One leaderboard row (``ratings.selectors.standings.LeaderboardRow``)."""

    rank = serializers.IntegerField(
        allow_null=True, help_text="Rank among the ranked players (null: listed separately)."
    )
    player_id = serializers.IntegerField()
    name = serializers.CharField()
    slug = serializers.CharField()
    active = serializers.BooleanField(
        help_text="Played within the league's activity window and not withdrawn."
    )
    rating = serializers.FloatField()
    rd = serializers.FloatField(help_text="RD grown to the period shown.")
    low = serializers.FloatField(help_text="rating - z RD at the requested level (default 1.96).")
    high = serializers.FloatField(help_text="rating + z RD at the requested level (default 1.96).")
    volatility = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    last_period = serializers.IntegerField()
    last_played = serializers.DateField(allow_null=True)
    change = serializers.FloatField(
        allow_null=True, help_text="Rating change over the last few periods (null: no games)."
    )
    provisional = serializers.BooleanField(help_text="RD above the provisional threshold.")
    eligible = serializers.BooleanField(help_text="Ranked under the rules in force.")
    reasons = serializers.ListField(
        child=serializers.CharField(),
        help_text="Why the player is not ranked (empty for a ranked player).",
    )


class LevelSerializer(serializers.Serializer):
    percent = serializers.FloatField(help_text="Two-sided coverage in percent.")
    z = serializers.FloatField(help_text="Deviations either side: low/high are rating ± z RD.")


class IntervalCoverageSerializer(serializers.Serializer):
    """How often intervals at the requested level held the true skill on simulated leagues like
    this one (``ratings.selectors.coverage.CoverageAtLevel``)."""

    level_percent = serializers.FloatField(help_text="The intervals' level in percent.")
    z = serializers.FloatField(help_text="Deviations either side.")
    coverage = serializers.FloatField(
        help_text="Measured share of intervals holding the true skill (0 to 1)."
    )
    error = serializers.FloatField(help_text="Its Monte Carlo standard error (a fraction).")
    leagues = serializers.IntegerField(help_text="Simulated leagues measured.")
    players = serializers.IntegerField(help_text="Players in each simulated league.")
    periods = serializers.IntegerField(help_text="Rating periods of each simulated league.")
    games = serializers.IntegerField(help_text="Games per player per period simulated.")
    measured_at = serializers.DateTimeField()


class RulesSerializer(serializers.Serializer):
    """The league's eligibility rules (``ratings.eligibility.Eligibility``)."""

    min_games = serializers.IntegerField()
    active_periods = serializers.IntegerField(
        allow_null=True, help_text="A game within this many periods (null: no rule)."
    )
    max_rd = serializers.FloatField(allow_null=True, help_text="RD limit (null: no rule).")
    rank_by = serializers.CharField(
        help_text="rating or lower_bound (of the interval at the requested level)."
    )
    custom = serializers.BooleanField(help_text="false: the defaults.")


class StandingsPageSerializer(serializers.Serializer):
    """One page of standings with what describes it."""

    version = serializers.IntegerField(
        allow_null=True, help_text="Configuration version (null: the league has none yet)."
    )
    is_live = serializers.BooleanField()
    computed_at = serializers.DateTimeField(
        allow_null=True, help_text="When these standings were last computed."
    )
    current_period = PeriodSerializer(allow_null=True)
    as_of = PeriodSerializer(
        allow_null=True, help_text="The past period shown (null: the current standings)."
    )
    count = serializers.IntegerField(help_text="Rows in all pages.")
    listed = serializers.CharField(help_text="Which list the results are: ranked or separate.")
    everyone = serializers.BooleanField(help_text="true: the eligibility rules were ignored.")
    ranked_count = serializers.IntegerField(help_text="Ranked players under these filters.")
    separate_count = serializers.IntegerField(
        help_text="Players listed separately (not ranked) under these filters."
    )
    rules = RulesSerializer(allow_null=True, help_text="The league's eligibility rules.")
    level = LevelSerializer(help_text="The level of every row's low/high.")
    interval_coverage = IntervalCoverageSerializer(
        allow_null=True,
        help_text="The measured coverage of this level's intervals under this configuration, "
        "on simulated leagues like this one (null: not measured yet).",
    )
    page = serializers.IntegerField()
    per_page = serializers.IntegerField()
    num_pages = serializers.IntegerField()
    next = serializers.URLField(allow_null=True)
    previous = serializers.URLField(allow_null=True)
    results = StandingRowSerializer(many=True)


class HistoryPointSerializer(serializers.Serializer):
    """A player's state after one period played (``ratings.selectors.players.HistoryPoint``)."""

    period = serializers.IntegerField()
    start = serializers.DateField()
    end = serializers.DateField()
    rating = serializers.FloatField()
    rd = serializers.FloatField()
    low = serializers.FloatField()
    high = serializers.FloatField()
    volatility = serializers.FloatField()
    games = serializers.IntegerField()
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()
    change = serializers.FloatField(help_text="Rating change over the period.")


class PlayerRefSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    slug = serializers.CharField()
    display_name = serializers.CharField()


class TeamRecordSerializer(serializers.Serializer):
    """Side results of player A with player B in matches with sides, from A's side."""

    results = serializers.IntegerField(
        help_text="Side results (a game of k sides is k - 1 results for each player)."
    )
    wins = serializers.IntegerField()
    draws = serializers.IntegerField()
    losses = serializers.IntegerField()


class HeadToHeadSerializer(serializers.Serializer):
    version = serializers.IntegerField(allow_null=True)
    player_a = PlayerRefSerializer()
    player_b = PlayerRefSerializer()
    games = serializers.IntegerField(help_text="Counted (not voided) matches between them.")
    wins_a = serializers.IntegerField()
    draws = serializers.IntegerField()
    wins_b = serializers.IntegerField()
    expected_score_a = serializers.FloatField(
        help_text="Glicko-2 expected score of A in a next game (a draw counts half)."
    )
    team_opponents = TeamRecordSerializer(
        help_text="A's record against B on opposing sides of matches with sides."
    )
    team_partners = TeamRecordSerializer(
        help_text="A's record with B on the same side of matches with sides."
    )


class PlayerRatingSerializer(serializers.Serializer):
    """A player's current rating (``ratings.selectors.players.PlayerSummary``)."""

    id = serializers.IntegerField(source="player_id")
    name = serializers.CharField()
    slug = serializers.CharField()
    rank = serializers.IntegerField(
        allow_null=True,
        help_text="The leaderboard's rank (the league's ranking rules); null while unrated "
        "or when the rules list the player separately.",
    )
    reasons = serializers.ListField(
        child=serializers.CharField(),
        help_text="Why the player is not ranked (empty for a ranked or unrated player).",
    )
    rating = serializers.FloatField()
    rd = serializers.FloatField(help_text="RD grown to the current period.")
    games = serializers.IntegerField()
    provisional = serializers.BooleanField()


class WinProbabilitySerializer(serializers.Serializer):
    version = serializers.IntegerField(allow_null=True)
    player_a = PlayerRatingSerializer()
    player_b = PlayerRatingSerializer()
    probability_a = serializers.FloatField(
        help_text="Expected score of A (Glicko-2, a draw counting half), 0 to 1, with A's "
        "advantage (advantage_a)."
    )
    probability_b = serializers.FloatField(help_text="1 - probability_a.")
    neutral = serializers.BooleanField(help_text="Whether the pairing is on neutral ground.")
    advantage_a = serializers.FloatField(
        help_text="A's advantage in rating points: the configuration's advantage for the "
        "first-named side, 0 on neutral ground."
    )


class ReplayProgressSerializer(serializers.Serializer):
    """The league's latest replay (``ratings.selectors.progress.league_progress``)."""

    replay_id = serializers.IntegerField()
    config_version = serializers.IntegerField()
    kind = serializers.ChoiceField(choices=Replay.Kind.choices)
    status = serializers.ChoiceField(choices=Replay.Status.choices)
    in_progress = serializers.BooleanField(help_text="Queued or running.")
    periods_done = serializers.IntegerField()
    periods_total = serializers.IntegerField()
    elapsed_seconds = serializers.FloatField(allow_null=True)
    attempts = serializers.IntegerField()
    live = serializers.BooleanField(help_text="Its version is the published one.")
    timings = serializers.DictField(help_text="Seconds spent reading, computing, writing.")
    error = serializers.SerializerMethodField(help_text="Organisers only; null for others.")

    def get_error(self, progress: dict) -> str | None:
        return progress.get("error") if _is_organiser(self) else None


class ProgressSerializer(serializers.Serializer):
    replay = ReplayProgressSerializer(
        allow_null=True,
        help_text="The replay in progress, else the latest one; null if there was none.",
    )
