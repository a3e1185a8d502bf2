"""Leagues, players and the append-only event store.

Events are immutable facts in the past tense. A correction is a new event (a void,
optionally followed by a new result that names the match it replaces); nothing is ever
edited or deleted. Immutability is enforced three times: by the database (triggers, see
``league/migrations``), by the ORM (``Event.save``/``delete`` and the queryset below) and by
the admin (read-only).
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.urls import reverse
from django.utils import timezone

from league.calendar import day_text
from league.sports import has_home_ground, is_chess


class ImmutableEventError(Exception):
    """Raised on any attempt to change or remove a stored event."""


class LeagueQuerySet(models.QuerySet):
    """Leagues, with the one organiser-scope query."""

    def organised_by(self, user: Any) -> LeagueQuerySet:
        """The leagues ``user`` may change: all for a superuser, none for anyone anonymous
        or inactive, else those listing ``user`` as an organiser."""
        if not (getattr(user, "is_authenticated", False) and getattr(user, "is_active", False)):
            return self.none()
        if user.is_superuser:
            return self
        return self.filter(organisers=user)


class MatchFormat(models.TextChoices):
    """Which shapes of match a league accepts (``League.match_format``)."""

    SINGLES = "singles", "Singles only: one player against one"
    FIXED = "fixed", "Sides of a fixed size (doubles, teams of n, board games with n = 1)"
    ANY = "any", "Any sides: two or more sides of any size"


#: Limits of a match with sides: sides per match, players per side.
MAX_SIDES = 16
MAX_SIDE_PLAYERS = 16


class League(models.Model):
    """A club competition: its players, results and rating configurations."""

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    sport = models.CharField(max_length=60, blank=True, help_text="Chess, table tennis, …")
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        help_text="IANA time zone; a match belongs to the local date it was played on.",
    )
    start_date = models.DateField(help_text="No result may be dated before this day.")
    records_points = models.BooleanField(
        "results entered as points",
        default=True,
        help_text="On: organisers type the score (3-1) and the result follows from it. "
        "Off, for sports without scores (chess): they type the result alone (1-0, ½-½, 0-1).",
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organised_leagues", blank=True
    )
    match_format = models.CharField(
        max_length=16,
        choices=MatchFormat.choices,
        default=MatchFormat.SINGLES,
        help_text="Which matches the league accepts: singles only, sides of a fixed size, any.",
    )
    side_size = models.PositiveSmallIntegerField(
        default=2,
        help_text="Players per side when the format is a fixed side size (1 to 16).",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    # Who started the league from the browser: the per-account cap on new leagues counts
    # these (LEAGUE_MAX_LEAGUES_PER_ACCOUNT). None for leagues made by the operator.
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        editable=False,
        related_name="created_leagues",
    )

    objects = LeagueQuerySet.as_manager()

    class Meta:
        ordering = ["name"]
        constraints = [
            models.CheckConstraint(
                condition=Q(match_format__in=MatchFormat.values), name="league_match_format_known"
            ),
            models.CheckConstraint(
                condition=Q(side_size__gte=1, side_size__lte=MAX_SIDE_PLAYERS),
                name="league_side_size_in_range",
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse("pages:league", kwargs={"league_slug": self.slug})

    @property
    def takes_sides(self) -> bool:
        """Whether the league accepts matches with sides (doubles, teams, multi-player
        games): any format but singles only."""
        return self.match_format != MatchFormat.SINGLES

    @property
    def has_home_ground(self) -> bool:
        """Whether its matches may be played at one side's ground, so marked as played on
        neutral ground (``league.sports``: not chess and the other board games)."""
        return has_home_ground(self.sport)

    @property
    def is_chess(self) -> bool:
        """Whether the league plays chess (``league.sports.sport_key``): the first-named
        player of a match is White, pages use chess's vocabulary (``league.chess``)."""
        return is_chess(self.sport)

    @property
    def takes_one_vs_one(self) -> bool:
        """Whether the league accepts a match of one player against one: not a league of
        sides of two players or more (``league.sides.check_format``)."""
        return self.match_format != MatchFormat.FIXED or self.side_size == 1

    def is_organiser(self, user: Any) -> bool:
        """True when ``user`` may change this league (an organiser of it or a superuser)."""
        if self.pk is None:
            return False
        return League.objects.organised_by(user).filter(pk=self.pk).exists()


class Player(models.Model):
    """A competitor in one league (a person, a pair or a team).

    The row is the write side's current state of the player (name, whether results may be
    recorded for them): only the event store changes it, in the transaction that appends
    the event saying so (registered, renamed, deactivated, reactivated, merged, unmerged).
    """

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="players")
    display_name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=140)
    active = models.BooleanField(default=True)
    merged_into = models.ForeignKey(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="merged_players",
        help_text="The player this one was merged into: their matches count as that player's.",
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["display_name"]
        constraints = [
            models.UniqueConstraint(fields=["league", "slug"], name="player_unique_slug"),
            models.UniqueConstraint(
                fields=["league", "display_name"], name="player_unique_display_name"
            ),
        ]

    def __str__(self) -> str:
        return self.display_name

    def get_absolute_url(self) -> str:
        return reverse(
            "pages:player", kwargs={"league_slug": self.league.slug, "player_slug": self.slug}
        )


class EventQuerySet(models.QuerySet):
    """Events can be appended and read; every bulk mutation is refused."""

    def update(self, **kwargs: Any) -> int:
        raise ImmutableEventError("Events are immutable: QuerySet.update() is refused.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise ImmutableEventError("Events are immutable: QuerySet.delete() is refused.")

    def bulk_update(self, objs: Any, fields: Any, batch_size: int | None = None) -> int:
        raise ImmutableEventError("Events are immutable: bulk_update() is refused.")

    def update_or_create(self, *args: Any, **kwargs: Any) -> Any:
        raise ImmutableEventError("Events are immutable: update_or_create() is refused.")

    def matches(self) -> EventQuerySet:
        """One-vs-one matches (``player_a``/``player_b``)."""
        return self.filter(kind=Event.Kind.MATCH_RECORDED)

    def side_matches(self) -> EventQuerySet:
        """Matches with sides (their players in ``MatchParticipant``)."""
        return self.filter(kind=Event.Kind.SIDE_MATCH_RECORDED)

    def all_matches(self) -> EventQuerySet:
        """Every recorded match: one-vs-one and with sides."""
        return self.filter(kind__in=MATCH_KINDS)

    def live_matches(self) -> EventQuerySet:
        """Recorded one-vs-one matches that no later event has voided."""
        return self.matches().filter(voided_by__isnull=True)

    def live_all_matches(self) -> EventQuerySet:
        """Every recorded match, one-vs-one or with sides, that no later event has voided."""
        return self.all_matches().filter(voided_by__isnull=True)


class EventKind(models.TextChoices):
    """The kinds of fact (``league.event_store.vocabulary`` has one class for each)."""

    PLAYER_REGISTERED = "player_registered", "Player registered"
    PLAYER_RENAMED = "player_renamed", "Player renamed"
    PLAYER_DEACTIVATED = "player_deactivated", "Player deactivated"
    PLAYER_REACTIVATED = "player_reactivated", "Player reactivated"
    PLAYER_MERGED = "player_merged", "Player merged"
    PLAYER_UNMERGED = "player_unmerged", "Player unmerged"
    MATCH_RECORDED = "match_recorded", "Match recorded"
    MATCH_VOIDED = "match_voided", "Match voided"
    SIDE_MATCH_RECORDED = "side_match_recorded", "Team match recorded"
    FIXTURE_SCHEDULED = "fixture_scheduled", "Fixture scheduled"
    FIXTURE_RESCHEDULED = "fixture_rescheduled", "Fixture rescheduled"
    FIXTURE_CANCELLED = "fixture_cancelled", "Fixture cancelled"
    PLAYER_SEEDED = "player_seeded", "Player seeded"


#: The kinds of fact that can change a rating (``vocabulary.Fact.affects_ratings``; a test
#: keeps the two in step).
RATING_KINDS = [
    EventKind.MATCH_RECORDED,
    EventKind.MATCH_VOIDED,
    EventKind.PLAYER_MERGED,
    EventKind.PLAYER_UNMERGED,
    EventKind.SIDE_MATCH_RECORDED,
    EventKind.PLAYER_SEEDED,
]

#: The kinds of recorded match: one-vs-one, and with sides.
MATCH_KINDS = [EventKind.MATCH_RECORDED, EventKind.SIDE_MATCH_RECORDED]

PLAYER_KINDS = [
    EventKind.PLAYER_REGISTERED,
    EventKind.PLAYER_RENAMED,
    EventKind.PLAYER_DEACTIVATED,
    EventKind.PLAYER_REACTIVATED,
    EventKind.PLAYER_MERGED,
    EventKind.PLAYER_UNMERGED,
    EventKind.PLAYER_SEEDED,
]

#: Merges and unmerges: facts about which player a match counts for.
IDENTITY_KINDS = [EventKind.PLAYER_MERGED, EventKind.PLAYER_UNMERGED]

#: The kinds of fact about fixtures (scheduled pairings); none of them changes a rating.
FIXTURE_KINDS = [
    EventKind.FIXTURE_SCHEDULED,
    EventKind.FIXTURE_RESCHEDULED,
    EventKind.FIXTURE_CANCELLED,
]


class Fixture(models.Model):
    """A scheduled pairing of two players: the write side's current state of one fixture.

    Only the event store changes it, in the transaction that appends the event saying so
    (scheduled, rescheduled, cancelled). Its sides never change: a different pairing is a
    new fixture. Whether it was played is not stored here: a fixture is played while a live
    ``match_recorded`` event names it (voiding that result opens it again).
    """

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="fixtures")
    player_a = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    player_b = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    scheduled_at = models.DateTimeField()
    deadline = models.DateField(help_text="The local day by which the fixture should be played.")
    venue = models.CharField(max_length=120, blank=True, help_text="Venue, table or board.")
    label = models.CharField(max_length=120, blank=True, help_text='Round, e.g. "Swiss round 2".')
    cancelled = models.BooleanField(default=False)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        ordering = ["scheduled_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(player_a=models.F("player_b")), name="fixture_two_players"
            ),
        ]
        indexes = [models.Index(fields=["league", "scheduled_at"], name="fixture_league_when")]

    def __str__(self) -> str:
        return f"{self.player_a} v {self.player_b}, {self.scheduled_at:%Y-%m-%d}"


class Event(models.Model):
    """One immutable fact of a league's history.

    ``seq`` numbers a league's events 1, 2, 3… in the order they were stored, so that a
    projection can record how far it has read. ``idempotency_key`` (unique per league)
    makes a retried submission store nothing new.
    """

    Kind = EventKind

    SCORES = (Decimal("1"), Decimal("0.5"), Decimal("0"))

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveBigIntegerField(help_text="Per-league sequence number, from 1.")
    kind = models.CharField(max_length=32, choices=Kind.choices)
    recorded_at = models.DateTimeField(default=timezone.now)
    recorded_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
    )
    # NULL, not "", means "no key": the UNIQUE constraint applies only where a key is given.
    idempotency_key = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001

    # player_registered, player_renamed, player_deactivated, player_reactivated
    player = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    display_name = models.CharField(
        max_length=120,
        blank=True,
        help_text="The name a player was registered under or renamed to.",
    )
    # player_merged (the surviving player), player_unmerged (the player it is separated from)
    other_player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text="Merge: the player merged into; unmerge: the player separated from.",
    )

    # match_recorded
    played_at = models.DateTimeField(null=True, blank=True)
    player_a = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    player_b = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    score_a = models.DecimalField(
        max_digits=2, decimal_places=1, null=True, blank=True, help_text="1, 0.5 or 0"
    )
    points = models.CharField(
        max_length=120, blank=True, help_text='Game or points score for display ("3–1").'
    )
    neutral = models.BooleanField(
        default=False,
        help_text="Played on neutral ground: the first-named side gets no advantage.",
    )
    margin = models.IntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text="The first-named side's points minus the other's, read from the points "
        'when they are one pair of whole numbers ("2–1"); empty when unknown.',
    )
    replaces = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="replaced_by",
        help_text="The voided match this result corrects.",
    )

    # match_voided
    voids = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="voided_by",
        help_text="The match this event voids (a match is voided at most once).",
    )
    reason = models.TextField(blank=True)
    note = models.TextField(blank=True)

    # fixture_scheduled, fixture_rescheduled, fixture_cancelled; on match_recorded: the
    # fixture the match played (empty for a match recorded without one)
    fixture = models.ForeignKey(
        Fixture, on_delete=models.PROTECT, null=True, blank=True, related_name="events"
    )
    scheduled_at = models.DateTimeField(null=True, blank=True)
    deadline = models.DateField(null=True, blank=True)
    venue = models.CharField(max_length=120, blank=True)

    # player_seeded: the starting rating and RD a player is given from a rating list
    seed_rating = models.FloatField(null=True, blank=True)
    seed_rd = models.FloatField(null=True, blank=True)
    seed_list = models.CharField(
        max_length=16, blank=True, help_text="The kind of rating list: fide, national or club."
    )
    seed_games = models.PositiveIntegerField(
        null=True, blank=True, help_text="Rated games behind the listed rating, when known."
    )

    objects = EventQuerySet.as_manager()

    class Meta:
        ordering = ["league", "seq"]
        constraints = [
            models.UniqueConstraint(fields=["league", "seq"], name="event_unique_seq"),
            models.UniqueConstraint(
                fields=["league", "idempotency_key"],
                condition=Q(idempotency_key__isnull=False),
                name="event_unique_idempotency_key",
            ),
            models.CheckConstraint(condition=Q(seq__gte=1), name="event_seq_positive"),
            models.CheckConstraint(condition=Q(kind__in=EventKind.values), name="event_kind_known"),
            models.CheckConstraint(
                condition=~Q(kind__in=PLAYER_KINDS) | Q(player__isnull=False),
                name="event_player_fact_names_player",
            ),
            models.CheckConstraint(
                condition=~Q(kind="player_renamed") | ~Q(display_name=""),
                name="event_rename_names_new_name",
            ),
            models.CheckConstraint(
                condition=~Q(kind="match_recorded")
                | (
                    Q(played_at__isnull=False)
                    & Q(player_a__isnull=False)
                    & Q(player_b__isnull=False)
                    & Q(score_a__in=[Decimal("0"), Decimal("0.5"), Decimal("1")])
                    & ~Q(player_a=models.F("player_b"))
                ),
                name="event_match_is_complete",
            ),
            models.CheckConstraint(
                condition=~Q(kind="match_voided") | Q(voids__isnull=False),
                name="event_void_names_match",
            ),
            # A match with sides keeps its players in MatchParticipant, never in the
            # one-vs-one columns; score_a is side 0's score for two sides, NULL for more.
            models.CheckConstraint(
                condition=~Q(kind="side_match_recorded")
                | (
                    Q(played_at__isnull=False)
                    & Q(player_a__isnull=True)
                    & Q(player_b__isnull=True)
                    & (
                        Q(score_a__isnull=True)
                        | Q(score_a__in=[Decimal("0"), Decimal("0.5"), Decimal("1")])
                    )
                ),
                name="event_side_match_is_complete",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=IDENTITY_KINDS)
                | (Q(other_player__isnull=False) & ~Q(other_player=models.F("player"))),
                name="event_merge_names_two_players",
            ),
            models.CheckConstraint(
                condition=~Q(kind="player_seeded")
                | (Q(seed_rating__isnull=False) & Q(seed_rd__gt=0) & ~Q(seed_list="")),
                name="event_seed_is_complete",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=FIXTURE_KINDS) | Q(fixture__isnull=False),
                name="event_fixture_fact_names_fixture",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=["fixture_scheduled", "fixture_rescheduled"])
                | (Q(scheduled_at__isnull=False) & Q(deadline__isnull=False)),
                name="event_fixture_has_date",
            ),
        ]
        indexes = [
            models.Index(fields=["league", "kind", "played_at"], name="event_league_kind_played"),
        ]

    def __str__(self) -> str:
        return f"#{self.seq} {self.get_kind_display()}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise ImmutableEventError("Events are immutable: an existing event cannot be saved.")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise ImmutableEventError("Events are immutable: an event cannot be deleted.")

    @property
    def affects_ratings(self) -> bool:
        """Whether this fact can change a rating (see ``vocabulary.Fact.affects_ratings``)."""
        return self.kind in RATING_KINDS

    @property
    def score_b(self) -> Decimal | None:
        return None if self.score_a is None else Decimal(1) - self.score_a


class ParticipantQuerySet(models.QuerySet):
    """Participants are stored with their match and never changed."""

    def update(self, **kwargs: Any) -> int:
        raise ImmutableEventError("Match participants are immutable: update() is refused.")

    def delete(self) -> tuple[int, dict[str, int]]:
        raise ImmutableEventError("Match participants are immutable: delete() is refused.")

    def bulk_update(self, objs: Any, fields: Any, batch_size: int | None = None) -> int:
        raise ImmutableEventError("Match participants are immutable: bulk_update() is refused.")


class MatchParticipant(models.Model):
    """One player of a match with sides: the side they played on and its finishing place.

    Part of the ``side_match_recorded`` event it belongs to, written in the same transaction
    and as immutable (database triggers, see ``league/migrations``). ``place`` is 0 for the
    best side; equal places are a tie. Sides are numbered 0, 1, … in the order given.
    """

    event = models.ForeignKey(Event, on_delete=models.PROTECT, related_name="participants")
    side = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    place = models.PositiveSmallIntegerField()

    objects = ParticipantQuerySet.as_manager()

    class Meta:
        ordering = ["event", "side", "id"]
        constraints = [
            models.UniqueConstraint(fields=["event", "player"], name="participant_once_per_match"),
            models.CheckConstraint(condition=Q(side__lt=MAX_SIDES), name="participant_side_range"),
            models.CheckConstraint(
                condition=Q(place__lt=MAX_SIDES), name="participant_place_range"
            ),
        ]
        indexes = [models.Index(fields=["player", "event"], name="participant_player_event")]

    def __str__(self) -> str:
        return f"{self.player_id} on side {self.side} of event {self.event_id}"

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise ImmutableEventError("Match participants are immutable.")
        kwargs["force_insert"] = True
        super().save(*args, **kwargs)

    def delete(self, *args: Any, **kwargs: Any) -> tuple[int, dict[str, int]]:
        raise ImmutableEventError("Match participants are immutable.")


class Season(models.Model):
    """A named date range of a league (first and last day inclusive, local dates).

    A season is a view over the one continuous rating, not a reset: its table is derived
    from the event log and the projection (``ratings.seasons``). Seasons of one league never
    overlap (``league.seasons`` refuses it under the league lock). Closing a season archives
    its table; ``closed_at`` says when, and ``updated_at`` moves on every change so that the
    public pages' cache key moves with it (``ratings.page_state``).
    """

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="seasons")
    name = models.CharField(max_length=80)
    slug = models.SlugField(max_length=90)
    start_date = models.DateField(help_text="First day of the season (league's local date).")
    end_date = models.DateField(help_text="Last day of the season (inclusive).")
    points_win = models.DecimalField(max_digits=4, decimal_places=1, default=Decimal("3"))
    points_draw = models.DecimalField(max_digits=4, decimal_places=1, default=Decimal("1"))
    points_loss = models.DecimalField(max_digits=4, decimal_places=1, default=Decimal("0"))
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    updated_at = models.DateTimeField(default=timezone.now)
    closed_at = models.DateTimeField(null=True, blank=True)
    closed_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )

    class Meta:
        ordering = ["league", "-start_date"]
        constraints = [
            models.UniqueConstraint(fields=["league", "slug"], name="season_unique_slug"),
            models.UniqueConstraint(fields=["league", "name"], name="season_unique_name"),
            models.CheckConstraint(
                condition=Q(end_date__gte=models.F("start_date")), name="season_ends_after_start"
            ),
        ]

    def __str__(self) -> str:
        return f"{self.name} ({day_text(self.start_date)} to {day_text(self.end_date)})"

    def get_absolute_url(self) -> str:
        return reverse(
            "pages:season", kwargs={"league_slug": self.league.slug, "season_slug": self.slug}
        )

    @property
    def closed(self) -> bool:
        return self.closed_at is not None


class WebsiteAccess(models.Model):
    """Which other websites may show the league: frame its embed, read its API from a page.

    Both lists hold origins (``https://club.example``, scheme, host and port only), empty by
    default: nothing may frame the league's pages and no other origin may read the API from
    a browser until an organiser lists it (``league.website``).
    """

    league = models.OneToOneField(
        League, on_delete=models.CASCADE, primary_key=True, related_name="website_access"
    )
    frame_origins = models.JSONField(default=list, blank=True)
    api_origins = models.JSONField(default=list, blank=True)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    def __str__(self) -> str:
        return f"{self.league}: website access"


class ApiToken(models.Model):
    """A named API token of one user; only the SHA-256 digest of its secret is stored.

    The secret is shown once, when the token is created (``league.api_tokens``); a revoked
    token stays listed with the moment it was revoked and authenticates nobody.
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="api_tokens"
    )
    name = models.CharField(max_length=80)
    digest = models.CharField(max_length=64, unique=True)
    prefix = models.CharField(max_length=12, help_text="The secret's first characters.")
    created_at = models.DateTimeField(default=timezone.now)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def active(self) -> bool:
        return self.revoked_at is None


class Invitation(models.Model):
    """A link inviting someone to co-organise a league (``league.invitations``).

    Single use, expiring, revocable; only the SHA-256 digest of its token is stored, so the
    link cannot be read back from the database: it is shown once, to the organiser who
    made it. Used, revoked and expired invitations stay listed as a record of who let whom in.
    """

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="invitations")
    digest = models.CharField(max_length=64, unique=True)
    label = models.CharField(max_length=80, blank=True)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    accepted_by = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    accepted_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return f"{self.league}: invitation {self.label or self.pk}"

    def is_pending(self, now: dt.datetime | None = None) -> bool:
        """Neither used nor revoked, and not yet expired."""
        now = now or timezone.now()
        return self.accepted_at is None and self.revoked_at is None and self.expires_at > now
