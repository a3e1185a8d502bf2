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
from django.utils.translation import gettext, pgettext_lazy
from django.utils.translation import gettext_lazy as _

from league.calendar import league_day, page_day_text
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

    SINGLES = "singles", _("Singles only: one player against one")
    FIXED = "fixed", _("Sides of a fixed size (doubles, teams of n, board games with n = 1)")
    ANY = "any", _("Any sides: two or more sides of any size")


#: Limits of a match with sides: sides per match, players per side.
MAX_SIDES = 16
MAX_SIDE_PLAYERS = 16


class League(models.Model):
    """A club competition: its players, results and rating configurations."""

    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=80, unique=True)
    description = models.TextField(blank=True)
    sport = models.CharField(max_length=60, blank=True, help_text=_("Chess, table tennis, …"))
    time_zone = models.CharField(
        max_length=64,
        default="UTC",
        help_text=_("IANA time zone; a match belongs to the local date it was played on."),
    )
    start_date = models.DateField(help_text=_("No result may be dated before this day."))
    records_points = models.BooleanField(
        "results entered as points",
        default=True,
        help_text=_(
            "On: organisers type the score (3-1) and the result follows from it. "
            "Off, for sports without scores (chess): they type the result alone (1-0, ½-½, 0-1)."
        ),
    )
    organisers = models.ManyToManyField(
        settings.AUTH_USER_MODEL, related_name="organised_leagues", blank=True
    )
    match_format = models.CharField(
        max_length=16,
        choices=MatchFormat.choices,
        default=MatchFormat.SINGLES,
        help_text=_("Which matches the league accepts: singles only, sides of a fixed size, any."),
    )
    side_size = models.PositiveSmallIntegerField(
        default=2,
        help_text=_("Players per side when the format is a fixed side size (1 to 16)."),
    )
    players_may_join = models.BooleanField(
        "players may ask to join",
        default=False,
        help_text=_(
            "On: a signed-in person may ask to join as a player (a new one, or one "
            "already listed); an organiser accepts or refuses each request."
        ),
    )
    default_language = models.CharField(
        "default language",
        max_length=8,
        choices=settings.LANGUAGES,
        default="en-gb",
        help_text=_(
            "The language of the public pages, embeds and feeds for a visitor who chose "
            "none (the language picker, their account or their browser's language win over it)."
        ),
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
        verbose_name = _("league")
        verbose_name_plural = _("leagues")
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
        player of a match is White, pages use chess's vocabulary (``league.chess.vocabulary``)."""
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
    recorded for them, the account holding it): only the event store changes it, in the
    transaction that appends the event saying so (registered, renamed, deactivated,
    reactivated, merged, unmerged, claimed, released, forgotten).
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
        help_text=_("The player this one was merged into: their matches count as that player's."),
    )
    # The person who holds this player record (``league.player_accounts``): changed only by
    # the event store, with the ``player_claimed`` / ``player_released`` event saying so.
    # PROTECT: an account holding a player is released (an event) before it can go.
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="players",
        help_text=_("The account of the person who claimed this player record."),
    )
    # From the latest ``player_identified`` fact (a TRF file's player record): the FIDE id
    # (digits), the federation's three letters and the chess title, each blank when unknown.
    fide_id = models.CharField(max_length=11, blank=True)
    federation = models.CharField(max_length=3, blank=True)
    title = models.CharField(max_length=3, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("player")
        verbose_name_plural = _("players")
        ordering = ["display_name"]
        constraints = [
            models.UniqueConstraint(fields=["league", "slug"], name="player_unique_slug"),
            models.UniqueConstraint(
                fields=["league", "account"],
                condition=Q(account__isnull=False),
                name="player_one_per_account",
            ),
            models.UniqueConstraint(
                fields=["league", "display_name"], name="player_unique_display_name"
            ),
            models.UniqueConstraint(
                fields=["league", "fide_id"],
                condition=~Q(fide_id=""),
                name="player_unique_fide_id",
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

    def rated_matches(self) -> EventQuerySet:
        """Live one-vs-one matches that count for the ratings: not results of an unrated
        competition (the replay's own read, ``ratings.replay.snapshot``, has the same rule)."""
        return self.live_matches().exclude(fixture__competition__rated=False)

    def live_all_matches(self) -> EventQuerySet:
        """Every recorded match, one-vs-one or with sides, that no later event has voided."""
        return self.all_matches().filter(voided_by__isnull=True)


class EventKind(models.TextChoices):
    """The kinds of fact (``league.event_store.vocabulary`` has one class for each)."""

    PLAYER_REGISTERED = "player_registered", _("Player registered")
    PLAYER_RENAMED = "player_renamed", _("Player renamed")
    PLAYER_DEACTIVATED = "player_deactivated", _("Player deactivated")
    PLAYER_REACTIVATED = "player_reactivated", _("Player reactivated")
    PLAYER_MERGED = "player_merged", _("Player merged")
    PLAYER_UNMERGED = "player_unmerged", _("Player unmerged")
    MATCH_RECORDED = "match_recorded", _("Match recorded")
    MATCH_VOIDED = "match_voided", _("Match voided")
    SIDE_MATCH_RECORDED = "side_match_recorded", _("Team match recorded")
    FIXTURE_SCHEDULED = "fixture_scheduled", _("Fixture scheduled")
    FIXTURE_RESCHEDULED = "fixture_rescheduled", _("Fixture rescheduled")
    FIXTURE_CANCELLED = "fixture_cancelled", _("Fixture cancelled")
    REPORT_SUBMITTED = "report_submitted", _("Result reported")
    REPORT_CONFIRMED = "report_confirmed", _("Reported result confirmed")
    REPORT_DISPUTED = "report_disputed", _("Reported result disputed")
    REPORT_REJECTED = "report_rejected", _("Reported result rejected")
    REPORT_WITHDRAWN = "report_withdrawn", _("Reported result withdrawn")
    CHALLENGE_ISSUED = "challenge_issued", _("Challenge issued")
    CHALLENGE_ACCEPTED = "challenge_accepted", _("Challenge accepted")
    CHALLENGE_DECLINED = "challenge_declined", _("Challenge declined")
    CHALLENGE_EXPIRED = "challenge_expired", _("Challenge expired")
    PLAYER_CLAIMED = "player_claimed", _("Player claimed")
    PLAYER_RELEASED = "player_released", _("Player released")
    PLAYER_FORGOTTEN = "player_forgotten", _("Player forgotten")
    COMPETITION_CREATED = "competition_created", _("Event created")
    ENTRANT_ENTERED = "entrant_entered", _("Player entered an event")
    ENTRANT_WITHDRAWN = "entrant_withdrawn", _("Player withdrawn from an event")
    BYE_REQUESTED = "bye_requested", _("Bye requested")
    ROUND_PAIRED = "round_paired", _("Round paired")
    FORFEIT_RECORDED = "forfeit_recorded", _("Forfeit recorded")
    PLAYER_IDENTIFIED = "player_identified", _("Player's FIDE details recorded")
    PLAYER_SEEDED = "player_seeded", _("Player seeded")
    PAIRING_FORBIDDEN = "pairing_forbidden", _("Pairing forbidden")
    TEAM_CREATED = "team_created", _("Team created")
    ROSTER_PLAYER_ADDED = "roster_player_added", _("Player added to a team")
    CLUB_MATCH_SCHEDULED = "club_match_scheduled", _("Club match scheduled")
    BOARD_ORDER_SUBMITTED = "board_order_submitted", _("Board order submitted")
    CLUB_MATCH_RECORDED = "club_match_recorded", _("Club match recorded")
    CLUB_MATCH_VOIDED = "club_match_voided", _("Club match voided")
    TEAM_CAPTAIN_SET = "team_captain_set", _("Team captain named")
    CLUB_SEASON_SET = "club_season_set", _("Club match settings set for a season")
    DIVISIONS_SET = "divisions_set", _("Divisions set for a season")
    DIVISION_PLAYER_MOVED = "division_player_moved", _("Player moved to another division")
    DIVISIONS_FIXED = "divisions_fixed", _("Divisions fixed for a season")


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
    EventKind.PLAYER_CLAIMED,
    EventKind.PLAYER_RELEASED,
    EventKind.PLAYER_FORGOTTEN,
    EventKind.PLAYER_IDENTIFIED,
    EventKind.PLAYER_SEEDED,
]

#: Claims and releases: facts about which account holds a player record.
ACCOUNT_KINDS = [EventKind.PLAYER_CLAIMED, EventKind.PLAYER_RELEASED]

#: Merges and unmerges: facts about which player a match counts for.
IDENTITY_KINDS = [EventKind.PLAYER_MERGED, EventKind.PLAYER_UNMERGED]

#: The kinds of fact about fixtures (scheduled pairings); none of them changes a rating.
FIXTURE_KINDS = [
    EventKind.FIXTURE_SCHEDULED,
    EventKind.FIXTURE_RESCHEDULED,
    EventKind.FIXTURE_CANCELLED,
]

#: The kinds of fact about results reported by players; none of them changes a rating (a
#: confirmed report is recorded as a match, a fact of its own).
REPORT_KINDS = [
    EventKind.REPORT_SUBMITTED,
    EventKind.REPORT_CONFIRMED,
    EventKind.REPORT_DISPUTED,
    EventKind.REPORT_REJECTED,
    EventKind.REPORT_WITHDRAWN,
]

#: The kinds of fact about challenges between players; none of them changes a rating.
CHALLENGE_KINDS = [
    EventKind.CHALLENGE_ISSUED,
    EventKind.CHALLENGE_ACCEPTED,
    EventKind.CHALLENGE_DECLINED,
    EventKind.CHALLENGE_EXPIRED,
]

#: The kinds of fact about competitions (events inside a league: their entrants, rounds,
#: byes and forfeits); none of them changes a rating (a forfeit is never rated).
COMPETITION_KINDS = [
    EventKind.COMPETITION_CREATED,
    EventKind.ENTRANT_ENTERED,
    EventKind.ENTRANT_WITHDRAWN,
    EventKind.BYE_REQUESTED,
    EventKind.ROUND_PAIRED,
    EventKind.PAIRING_FORBIDDEN,
    # Last: the only one that names a fixture rather than the competition (the constraint
    # below reads every other kind as naming the competition).
    EventKind.FORFEIT_RECORDED,
]


#: The kinds of fact about teams (clubs) and their matches over several boards
#: (``league.club_matches``); none of them changes a rating (each board is a
#: ``match_recorded`` fact of its own).
CLUB_KINDS = [
    EventKind.TEAM_CREATED,
    EventKind.ROSTER_PLAYER_ADDED,
    EventKind.CLUB_MATCH_SCHEDULED,
    EventKind.BOARD_ORDER_SUBMITTED,
    EventKind.CLUB_MATCH_RECORDED,
    EventKind.CLUB_MATCH_VOIDED,
    EventKind.TEAM_CAPTAIN_SET,
    EventKind.CLUB_SEASON_SET,
]


#: The kinds of fact about a season's divisions (``league.divisions``): set (by hand or as
#: proposed by promotion and relegation), a player moved, fixed. None changes a rating; each
#: names its season in ``details``.
DIVISION_KINDS = [
    EventKind.DIVISIONS_SET,
    EventKind.DIVISION_PLAYER_MOVED,
    EventKind.DIVISIONS_FIXED,
]


class Fixture(models.Model):
    """A scheduled pairing of two players (or of sides, ``FixtureSide``): the write side's
    current state of one fixture.

    Only the event store changes it, in the transaction that appends the event saying so
    (scheduled, rescheduled, cancelled). Its sides never change: a different pairing is a
    new fixture. Whether it was played is not stored here: a fixture is played while a live
    ``match_recorded`` (or, for a fixture with sides, ``side_match_recorded``) event names it
    (voiding that result opens it again).
    """

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="fixtures")
    player_a = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    player_b = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    scheduled_at = models.DateTimeField()
    deadline = models.DateField(help_text=_("The local day by which the fixture should be played."))
    venue = models.CharField(max_length=120, blank=True, help_text=_("Venue, table or board."))
    label = models.CharField(
        max_length=120, blank=True, help_text=_('Round, e.g. "Swiss round 2".')
    )
    cancelled = models.BooleanField(default=False)
    # A fixture of a competition's round (``league.competitions``): set when the round is
    # published, never changed. The first-named player is White in a chess league.
    competition = models.ForeignKey(
        "Competition", on_delete=models.PROTECT, null=True, blank=True, related_name="fixtures"
    )
    round_number = models.PositiveSmallIntegerField(null=True, blank=True)
    board = models.PositiveSmallIntegerField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("fixture")
        verbose_name_plural = _("fixtures")
        ordering = ["scheduled_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(player_a=models.F("player_b")), name="fixture_two_players"
            ),
            models.CheckConstraint(
                condition=Q(competition__isnull=True, round_number__isnull=True)
                | Q(competition__isnull=False, round_number__gte=1),
                name="fixture_round_of_competition",
            ),
        ]
        indexes = [models.Index(fields=["league", "scheduled_at"], name="fixture_league_when")]

    def __str__(self) -> str:
        # Translators: a fixture's name in the admin: "Ann v Bob, 2024-03-02".
        return gettext("%(a)s v %(b)s, %(day)s") % {
            "a": self.player_a,
            "b": self.player_b,
            # The day the league's players see, in the active language's own format.
            "day": page_day_text(league_day(self.league, self.scheduled_at)),
        }


class FixtureSide(models.Model):
    """One player of one side of a fixture with sides (doubles, teams, multi-player games).

    Written by the event store with the ``fixture_scheduled`` event that creates the fixture
    and never changed. A fixture of two sides of one player has no rows here (its players
    are ``Fixture.player_a`` and ``player_b``); a fixture with sides keeps the first player
    of its sides A and B in those columns too, so that every reader of a fixture's "first
    named" players keeps working, and its full sides here. Sides are numbered 0, 1, … in
    the order given; players keep their order within a side (``id``).
    """

    fixture = models.ForeignKey(Fixture, on_delete=models.PROTECT, related_name="side_rows")
    side = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")

    class Meta:
        ordering = ["fixture", "side", "id"]
        constraints = [
            models.UniqueConstraint(fields=["fixture", "player"], name="fixture_side_player_once"),
            models.CheckConstraint(condition=Q(side__lt=MAX_SIDES), name="fixture_side_range"),
        ]
        indexes = [models.Index(fields=["player", "fixture"], name="fixture_side_player")]
        verbose_name = _("fixture side player")
        verbose_name_plural = _("fixture side players")

    def __str__(self) -> str:
        # Translators: a player of a fixture's side in the admin (sides are numbered from 1).
        return gettext("%(player)s on side %(side)s of fixture %(fixture)s") % {
            "player": self.player,
            "side": self.side + 1,
            "fixture": self.fixture_id,
        }


class Event(models.Model):
    """One immutable fact of a league's history.

    ``seq`` numbers a league's events 1, 2, 3… in the order they were stored, so that a
    projection can record how far it has read. ``idempotency_key`` (unique per league)
    makes a retried submission store nothing new.
    """

    Kind = EventKind

    SCORES = (Decimal("1"), Decimal("0.5"), Decimal("0"))

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="events")
    seq = models.PositiveBigIntegerField(help_text=_("Per-league sequence number, from 1."))
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
        help_text=_("The name a player was registered under or renamed to."),
    )
    # player_merged (the surviving player), player_unmerged (the player it is separated from)
    other_player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("Merge: the player merged into; unmerge: the player separated from."),
    )

    # player_claimed (the account that took the player), player_released (the account whose
    # link ended). No database constraint and DO_NOTHING: an account may be deleted once it
    # holds no player, and the history keeps its number, which names nobody then.
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.DO_NOTHING,
        db_constraint=False,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("Claim or release: the account that took or gave up the player."),
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
        max_digits=2, decimal_places=1, null=True, blank=True, help_text=_("1, 0.5 or 0")
    )
    points = models.CharField(
        max_length=120, blank=True, help_text=_('Game or points score for display ("3–1").')
    )
    neutral = models.BooleanField(
        default=False,
        help_text=_("Played on neutral ground: the first-named side gets no advantage."),
    )
    margin = models.IntegerField(
        null=True,
        blank=True,
        editable=False,
        help_text=_(
            "The first-named side's points minus the other's, read from the points "
            'when they are one pair of whole numbers ("2–1"); empty when unknown.'
        ),
    )
    replaces = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="replaced_by",
        help_text=_("The voided match this result corrects."),
    )

    # match_voided
    voids = models.OneToOneField(
        "self",
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="voided_by",
        help_text=_("The match this event voids (a match is voided at most once)."),
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

    # report_*: the reported result the fact is about
    report = models.ForeignKey(
        "Report", on_delete=models.PROTECT, null=True, blank=True, related_name="events"
    )
    # challenge_*: the challenge the fact is about
    challenge = models.ForeignKey(
        "Challenge", on_delete=models.PROTECT, null=True, blank=True, related_name="events"
    )
    # The facts about competitions: the competition, the round a fact is about (an entry's
    # or a withdrawal's first round, a bye's round, the round paired; the planned rounds of
    # a new competition) and the rest of their content (``event_store.store``).
    competition = models.ForeignKey(
        "Competition", on_delete=models.PROTECT, null=True, blank=True, related_name="events"
    )
    round_number = models.PositiveSmallIntegerField(null=True, blank=True)
    details = models.JSONField(null=True, blank=True)
    # player_seeded: the starting rating and RD a player is given from a rating list
    seed_rating = models.FloatField(null=True, blank=True)
    seed_rd = models.FloatField(null=True, blank=True)
    seed_list = models.CharField(
        max_length=16, blank=True, help_text=_("The kind of rating list: fide, national or club.")
    )
    seed_games = models.PositiveIntegerField(
        null=True, blank=True, help_text=_("Rated games behind the listed rating, when known.")
    )

    objects = EventQuerySet.as_manager()

    class Meta:
        verbose_name = _("event")
        verbose_name_plural = _("event log")
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
                condition=~Q(kind__in=ACCOUNT_KINDS) | Q(account__isnull=False),
                name="event_claim_names_account",
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
            models.CheckConstraint(
                condition=~Q(kind__in=REPORT_KINDS) | Q(report__isnull=False),
                name="event_report_fact_names_report",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=CHALLENGE_KINDS) | Q(challenge__isnull=False),
                name="event_challenge_fact_names_challenge",
            ),
            models.CheckConstraint(
                condition=~Q(kind__in=COMPETITION_KINDS[:-1]) | Q(competition__isnull=False),
                name="event_competition_fact_names_competition",
            ),
            models.CheckConstraint(
                condition=~Q(kind="forfeit_recorded") | Q(fixture__isnull=False),
                name="event_forfeit_names_fixture",
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
        verbose_name = _("player of a side")
        verbose_name_plural = _("players of sides")
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
        return gettext("player %(player)s on side %(side)s of event %(event)s") % {
            "player": self.player_id,
            "side": self.side,
            "event": self.event_id,
        }

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
    start_date = models.DateField(help_text=_("First day of the season (league's local date)."))
    end_date = models.DateField(help_text=_("Last day of the season (inclusive)."))
    points_win = models.DecimalField(max_digits=4, decimal_places=1, default=Decimal("3"))
    points_draw = models.DecimalField(max_digits=4, decimal_places=1, default=Decimal("1"))
    points_loss = models.DecimalField(max_digits=4, decimal_places=1, default=Decimal("0"))
    tiebreaks = models.CharField(
        max_length=100,
        blank=True,
        default="",
        help_text=_(
            "Tie-break codes in order, comma-separated (league.seasons.SEASON_TIEBREAKS); "
            "empty: by rating at the end."
        ),
    )
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
        verbose_name = _("season")
        verbose_name_plural = _("seasons")
        ordering = ["league", "-start_date"]
        constraints = [
            models.UniqueConstraint(fields=["league", "slug"], name="season_unique_slug"),
            models.UniqueConstraint(fields=["league", "name"], name="season_unique_name"),
            models.CheckConstraint(
                condition=Q(end_date__gte=models.F("start_date")), name="season_ends_after_start"
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(name)s (%(start)s to %(end)s)") % {
            "name": self.name,
            "start": page_day_text(self.start_date),
            "end": page_day_text(self.end_date),
        }

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

    class Meta:
        verbose_name = _("website access")
        verbose_name_plural = _("website access")

    def __str__(self) -> str:
        return gettext("%(league)s: website access") % {"league": self.league}


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
    prefix = models.CharField(max_length=12, help_text=_("The secret's first characters."))
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
    """A link inviting someone to co-organise a league, or, with ``player``, to claim that
    player record (``league.invitations``).

    Single use, expiring, revocable; only the SHA-256 digest of its token is stored, so the
    link cannot be read back from the database: it is shown once, to the organiser who
    made it, or mailed to ``email`` by a task (which makes the token). Used, revoked and
    expired invitations stay listed as a record of who let whom in; forgetting a player
    erases the address and note of its invitations (``league.forgetting``).
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
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="invitations",
        help_text=_("The player record the invited person claims; empty: co-organise."),
    )
    email = models.EmailField(blank=True, help_text=_("Where the link was mailed, if it was."))
    sent_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return gettext("%(league)s: invitation %(label)s") % {
            "league": self.league,
            "label": self.label or self.pk,
        }

    def is_pending(self, now: dt.datetime | None = None) -> bool:
        """Neither used nor revoked, and not yet expired."""
        now = now or timezone.now()
        return self.accepted_at is None and self.revoked_at is None and self.expires_at > now


class SignInLink(models.Model):
    """An e-mailed one-time sign-in link of one account (``league.sign_in_links``).

    Only the SHA-256 digest of its token is stored; it expires after
    ``settings.SIGN_IN_LINK_MINUTES`` and signs in once (``used_at``).
    """

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="sign_in_links"
    )
    digest = models.CharField(max_length=64, unique=True)
    next_url = models.CharField(max_length=400, blank=True)
    created_at = models.DateTimeField(default=timezone.now)
    expires_at = models.DateTimeField()
    used_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["-created_at", "-pk"]

    def __str__(self) -> str:
        return gettext("sign-in link of user %(user)s, %(when)s") % {
            "user": self.user_id,
            "when": f"{self.created_at:%Y-%m-%d %H:%M}",
        }


class JoinRequest(models.Model):
    """A signed-in person asks to play in a league that lets players ask
    (``League.players_may_join``; ``league.join_requests``).

    ``name`` is the name they ask to play under and ``message`` what they tell the
    organisers; an organiser accepts it (registering a new player, or linking a listed one)
    or refuses it. Forgetting the player erases both texts.
    """

    class Status(models.TextChoices):
        PENDING = "pending", pgettext_lazy("join request", "Pending")
        ACCEPTED = "accepted", pgettext_lazy("join request", "Accepted")
        REFUSED = "refused", pgettext_lazy("join request", "Refused")
        WITHDRAWN = "withdrawn", pgettext_lazy("join request", "Withdrawn")

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="join_requests")
    account = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="join_requests"
    )
    name = models.CharField(max_length=120)
    message = models.TextField(blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.PENDING)
    player = models.ForeignKey(
        Player,
        on_delete=models.PROTECT,
        null=True,
        blank=True,
        related_name="+",
        help_text=_("The player the person holds once accepted."),
    )
    created_at = models.DateTimeField(default=timezone.now)
    decided_at = models.DateTimeField(null=True, blank=True)
    decided_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("join request")
        verbose_name_plural = _("join requests")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(
                fields=["league", "account"],
                condition=Q(status="pending"),
                name="join_request_one_pending",
            ),
            models.CheckConstraint(
                condition=Q(status__in=["pending", "accepted", "refused", "withdrawn"]),
                name="join_request_status_known",
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(league)s: %(name)s asks to join") % {
            "league": self.league,
            "name": self.name,
        }


class AccountPreferences(models.Model):
    """What one person chose for their own view of the leagues (the "My account" page)."""

    user = models.OneToOneField(
        settings.AUTH_USER_MODEL,
        on_delete=models.CASCADE,
        primary_key=True,
        related_name="league_preferences",
    )
    hide_own_rating = models.BooleanField(
        default=False,
        help_text=_("My own rating is hidden from me (others still see it)."),
    )
    language = models.CharField(
        max_length=8,
        choices=settings.LANGUAGES,
        blank=True,
        default="",
        help_text=_("The language last picked while signed in (empty: none picked)."),
    )

    def __str__(self) -> str:
        return gettext("preferences of user %(user)s") % {"user": self.user_id}


class ReportPolicy(models.TextChoices):
    """What a result reported by a player needs before it counts (``PlayerRules``)."""

    CONFIRM = "confirm", _("The opponent confirms it (or an organiser)")
    AUTO = "auto", _("Accepted after some days unless disputed")
    ORGANISERS = "organisers", _("Organisers only: players cannot report")


class IgnoredChallenge(models.TextChoices):
    """What a challenge left unanswered past its deadline becomes (``PlayerRules``)."""

    EXPIRED = "expired", _("It expires")
    FORFEIT = "forfeit", _("The challenger wins by forfeit (not rated)")


class PlayerRules(models.Model):
    """A league's rules for what players do themselves: reporting results, challenges.

    A league without a row has the defaults: reports need confirmation, no challenges.
    """

    league = models.OneToOneField(
        League, on_delete=models.CASCADE, primary_key=True, related_name="player_rules"
    )
    report_policy = models.CharField(
        max_length=16, choices=ReportPolicy.choices, default=ReportPolicy.CONFIRM
    )
    accept_after_days = models.PositiveSmallIntegerField(
        default=3, help_text=_("With the policy 'accepted after some days': how many (1 to 60).")
    )
    challenges = models.BooleanField(default=False, help_text=_("Players may challenge others."))
    challenge_places = models.PositiveSmallIntegerField(
        default=3, help_text=_("How many places up or down the ranking a player may challenge.")
    )
    challenge_days = models.PositiveSmallIntegerField(
        default=7, help_text=_("Days the challenged player has to accept or decline (1 to 60).")
    )
    ignored_challenge = models.CharField(
        max_length=16, choices=IgnoredChallenge.choices, default=IgnoredChallenge.EXPIRED
    )
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("player rules")
        verbose_name_plural = _("player rules")
        constraints = [
            models.CheckConstraint(
                condition=Q(report_policy__in=ReportPolicy.values), name="rules_report_policy_known"
            ),
            models.CheckConstraint(
                condition=Q(accept_after_days__gte=1, accept_after_days__lte=60),
                name="rules_accept_after_days_range",
            ),
            models.CheckConstraint(
                condition=Q(challenge_places__gte=1, challenge_places__lte=50),
                name="rules_challenge_places_range",
            ),
            models.CheckConstraint(
                condition=Q(challenge_days__gte=1, challenge_days__lte=60),
                name="rules_challenge_days_range",
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(league)s: player rules") % {"league": self.league}


class ReportStatus(models.TextChoices):
    """Where a reported result stands (``Report.status``, kept by the event store)."""

    PENDING = "pending", _("Waiting for confirmation")
    CONFIRMED = "confirmed", _("Confirmed")
    DISPUTED = "disputed", _("Disputed")
    REJECTED = "rejected", _("Rejected")
    WITHDRAWN = "withdrawn", _("Withdrawn")


class Report(models.Model):
    """A result reported by a player: the write side's current state of one report.

    Created by its ``report_submitted`` event with the result as reported (never changed
    afterwards); only the event store moves ``status`` on, in the transaction that appends
    the event saying so. ``match`` is the match a confirmation recorded.
    """

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="reports")
    reporter = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    sides = models.JSONField(help_text=_("Each side's player ids, as reported."))
    places = models.JSONField(help_text=_("Each side's place, from 0 (ties share one)."))
    played_at = models.DateTimeField()
    points = models.CharField(max_length=120, blank=True)
    note = models.TextField(blank=True)
    neutral = models.BooleanField(default=False)
    status = models.CharField(
        max_length=16, choices=ReportStatus.choices, default=ReportStatus.PENDING
    )
    match = models.OneToOneField(
        Event, on_delete=models.PROTECT, null=True, blank=True, related_name="confirms_report"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    settled_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("reported result")
        verbose_name_plural = _("reported results")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(status__in=ReportStatus.values), name="report_status_known"
            ),
        ]
        indexes = [models.Index(fields=["league", "status"], name="report_league_status")]

    def __str__(self) -> str:
        return gettext("%(league)s: report %(number)s (%(status)s)") % {
            "league": self.league,
            "number": self.pk,
            "status": self.get_status_display(),
        }

    @property
    def player_ids(self) -> list[int]:
        """Every player of the reported result, side by side."""
        return [player for side in self.sides for player in side]

    def side_of(self, player_id: int) -> int | None:
        """The side (from 0) ``player_id`` is on, or None."""
        for index, side in enumerate(self.sides):
            if player_id in side:
                return index
        return None

    @property
    def open(self) -> bool:
        """Waiting for a confirmation or an organiser's decision."""
        return self.status in (ReportStatus.PENDING, ReportStatus.DISPUTED)


class ChallengeStatus(models.TextChoices):
    """Where a challenge stands (``Challenge.status``, kept by the event store)."""

    ISSUED = "issued", _("Waiting for an answer")
    ACCEPTED = "accepted", _("Accepted")
    DECLINED = "declined", _("Declined")
    EXPIRED = "expired", _("Expired")
    FORFEITED = "forfeited", _("Won by forfeit")


class Challenge(models.Model):
    """A challenge from one player to another: the write side's current state of it.

    Created by its ``challenge_issued`` event; only the event store changes it afterwards.
    ``respond_by`` is the last local day to accept or decline; ``fixture`` the fixture an
    acceptance scheduled.
    """

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="challenges")
    challenger = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    challenged = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    respond_by = models.DateField()
    status = models.CharField(
        max_length=16, choices=ChallengeStatus.choices, default=ChallengeStatus.ISSUED
    )
    fixture = models.OneToOneField(
        Fixture, on_delete=models.PROTECT, null=True, blank=True, related_name="challenge"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("challenge")
        verbose_name_plural = _("challenges")
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(challenger=models.F("challenged")), name="challenge_two_players"
            ),
            models.CheckConstraint(
                condition=Q(status__in=ChallengeStatus.values), name="challenge_status_known"
            ),
        ]
        indexes = [models.Index(fields=["league", "status"], name="challenge_league_status")]

    def __str__(self) -> str:
        return gettext("%(challenger)s challenges %(challenged)s") % {
            "challenger": self.challenger,
            "challenged": self.challenged,
        }


class CompetitionFormat(models.TextChoices):
    """How a competition's entrants meet (``Competition.format``)."""

    ROUND_ROBIN = "round_robin", _("Round robin")
    SWISS = "swiss", _("Swiss")
    KNOCKOUT = "knockout", _("Knockout cup")
    TEAM_MATCH = "team_match", _("Team match")


class CupDrawRule(models.TextChoices):
    """How a knockout cup settles a drawn game (``Competition.draw_rule``): the tie is
    decided by another game of the same tie, a replay or a tie-break game."""

    REPLAY = "replay", _("Replay")
    DECIDER = "decider", _("Tie-break game")


class Competition(models.Model):
    """An event inside a league: a round robin, a Swiss event, a cup, with its entrants,
    rounds and standings, over the league's one continuous rating.

    The write side's current state of the competition: only the event store changes it, in
    the transaction that appends the fact saying so (``competition_created``,
    ``round_paired``). Its settings are fixed when it is created: whether its results are
    rated is read by every replay, so it may never change under them.
    """

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="competitions")
    slug = models.SlugField(max_length=80)
    name = models.CharField(max_length=120)
    format = models.CharField(max_length=16, choices=CompetitionFormat.choices)
    planned_rounds = models.PositiveSmallIntegerField()
    bye_points = models.DecimalField(
        max_digits=3,
        decimal_places=1,
        default=Decimal("1"),
        help_text=_("Points for a bye the pairing allocates (1, ½ or 0)."),
    )
    rated = models.BooleanField(
        default=True, help_text=_("Results feed the league's ratings (off: recorded, not rated).")
    )
    tiebreaks = models.JSONField(default=list, blank=True)
    start_date = models.DateField(null=True, blank=True)
    end_date = models.DateField(null=True, blank=True)
    season = models.ForeignKey(
        Season, on_delete=models.PROTECT, null=True, blank=True, related_name="competitions"
    )
    rounds_paired = models.PositiveSmallIntegerField(default=0)
    draw_rule = models.CharField(
        max_length=16,
        choices=CupDrawRule.choices,
        blank=True,
        default="",
        help_text=_("A knockout cup's way of settling a drawn game (blank for other formats)."),
    )
    third_place = models.BooleanField(
        default=False, help_text=_("A knockout cup plays a match for third place.")
    )
    double_elimination = models.BooleanField(
        default=False,
        help_text=_("A knockout cup with a losers' bracket: a player is out after two lost ties."),
    )
    bracket_reset = models.BooleanField(
        default=False,
        help_text=_(
            "A double-elimination cup plays the grand final again when the losers' "
            "bracket champion wins it."
        ),
    )
    accelerated = models.BooleanField(
        default=False,
        help_text=_("A chess Swiss event paired with Baku acceleration (FIDE C.04.5.1)."),
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("competition")
        verbose_name_plural = _("competitions")
        ordering = ["league", "-created_at", "-pk"]
        constraints = [
            models.UniqueConstraint(fields=["league", "slug"], name="competition_unique_slug"),
            models.CheckConstraint(
                condition=Q(format__in=CompetitionFormat.values), name="competition_format_known"
            ),
            models.CheckConstraint(
                condition=Q(planned_rounds__gte=1), name="competition_has_rounds"
            ),
        ]

    def __str__(self) -> str:
        return self.name

    def get_absolute_url(self) -> str:
        return reverse(
            "pages:competition",
            kwargs={"league_slug": self.league.slug, "competition_slug": self.slug},
        )


class Entrant(models.Model):
    """A player entered in a competition, from round ``from_round`` (a late entry: after 1),
    until the round before ``withdrawn_from_round`` (when they withdrew).

    ``number`` is the pairing (start) number, given in the order of entry; ``seed_rating``
    the rating the entry was seeded by, when one was given. Changed only by the event store.
    """

    competition = models.ForeignKey(Competition, on_delete=models.PROTECT, related_name="entrants")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="entries")
    number = models.PositiveSmallIntegerField()
    seed_rating = models.FloatField(null=True, blank=True)
    from_round = models.PositiveSmallIntegerField(default=1)
    withdrawn_from_round = models.PositiveSmallIntegerField(null=True, blank=True)

    class Meta:
        verbose_name = _("entrant")
        verbose_name_plural = _("entrants")
        ordering = ["competition", "number"]
        constraints = [
            models.UniqueConstraint(
                fields=["competition", "player"], name="entrant_once_per_competition"
            ),
            models.UniqueConstraint(fields=["competition", "number"], name="entrant_unique_number"),
            models.CheckConstraint(condition=Q(from_round__gte=1), name="entrant_from_round"),
            models.CheckConstraint(
                condition=Q(withdrawn_from_round__isnull=True)
                | Q(withdrawn_from_round__gte=models.F("from_round")),
                name="entrant_withdrawn_after_entry",
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(number)s. %(player)s in %(competition)s") % {
            "number": self.number,
            "player": self.player,
            "competition": self.competition,
        }

    def plays_in(self, round_number: int) -> bool:
        """Whether the entrant is in the competition in ``round_number``: entered by then and
        not withdrawn from it."""
        return self.from_round <= round_number and (
            self.withdrawn_from_round is None or round_number < self.withdrawn_from_round
        )


class ByeKind(models.TextChoices):
    """Why a player sits a round out (``RoundBye.kind``)."""

    PAIRING_ALLOCATED = "pairing_allocated", _("Bye (pairing)")
    REQUESTED_HALF = "requested_half", _("Half-point bye (requested)")
    REQUESTED_ZERO = "requested_zero", _("Zero-point bye (requested)")
    #: A bye scored as a win that the pairing did not allocate (TRF's "F": given by the
    #: arbiter, such as for a player away on national duty); comes in from a TRF file.
    REQUESTED_FULL = "requested_full", _("Full-point bye")


class RoundBye(models.Model):
    """A player's bye in one round of a competition and the points it scores.

    A requested bye is stored when it is requested (``bye_requested``), before the round is
    paired; a pairing-allocated one when the round is published (``round_paired``). Changed
    only by the event store.
    """

    competition = models.ForeignKey(Competition, on_delete=models.PROTECT, related_name="byes")
    round_number = models.PositiveSmallIntegerField()
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    kind = models.CharField(max_length=20, choices=ByeKind.choices)
    points = models.DecimalField(max_digits=3, decimal_places=1)

    class Meta:
        verbose_name = _("bye")
        verbose_name_plural = _("byes")
        ordering = ["competition", "round_number", "player"]
        constraints = [
            models.UniqueConstraint(
                fields=["competition", "round_number", "player"], name="bye_once_per_round"
            ),
            models.CheckConstraint(condition=Q(kind__in=ByeKind.values), name="bye_kind_known"),
            models.CheckConstraint(condition=Q(round_number__gte=1), name="bye_round_positive"),
        ]

    def __str__(self) -> str:
        return gettext("%(player)s: %(kind)s in round %(round)s") % {
            "player": self.player,
            "kind": self.get_kind_display(),
            "round": self.round_number,
        }


class Team(models.Model):
    """A team (a club) of a league: players of the league on its roster meet another
    team's over several boards (``ClubMatch``). Created by its ``team_created`` fact."""

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="teams")
    name = models.CharField(max_length=120)
    slug = models.SlugField(max_length=80)
    #: The roster player who hands in the team's board orders (``team_captain_set``).
    captain = models.ForeignKey(
        Player, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("team")
        verbose_name_plural = _("teams")
        ordering = ["league", "name"]
        constraints = [
            models.UniqueConstraint(fields=["league", "slug"], name="team_unique_slug"),
            models.UniqueConstraint(fields=["league", "name"], name="team_unique_name"),
        ]

    def __str__(self) -> str:
        return self.name


class RosterEntry(models.Model):
    """A player on a team's roster (``roster_player_added``); a player plays for one team
    of a league."""

    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="roster")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    added_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("roster entry")
        verbose_name_plural = _("roster entries")
        ordering = ["team", "added_at", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["team", "player"], name="roster_player_once"),
        ]

    def __str__(self) -> str:
        return gettext("%(player)s for %(team)s") % {"player": self.player, "team": self.team}


class ClubMatch(models.Model):
    """Two teams of a league meeting over ``boards`` boards: the write side's current state.

    Created by ``club_match_scheduled``; ``games`` lists the board games (``match_recorded``
    event ids, board 1 first) of its live ``club_match_recorded`` fact, empty while it is
    not recorded or once that was voided. Match points for a win, a draw and a loss are
    fixed when it is scheduled.
    """

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="club_matches")
    home = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="+")
    away = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="+")
    boards = models.PositiveSmallIntegerField()
    scheduled_at = models.DateTimeField()
    venue = models.CharField(max_length=120, blank=True)
    points_win = models.DecimalField(max_digits=3, decimal_places=1, default=Decimal("2"))
    points_draw = models.DecimalField(max_digits=3, decimal_places=1, default=Decimal("1"))
    points_loss = models.DecimalField(max_digits=3, decimal_places=1, default=Decimal("0"))
    games = models.JSONField(default=list, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta:
        verbose_name = _("club match")
        verbose_name_plural = _("club matches")
        ordering = ["league", "scheduled_at", "pk"]
        constraints = [
            models.CheckConstraint(
                condition=~Q(home=models.F("away")), name="club_match_two_teams"
            ),
            models.CheckConstraint(condition=Q(boards__gte=1), name="club_match_has_boards"),
        ]

    def __str__(self) -> str:
        # Translators: a club match's name: "Riverside v Hilltop".
        return gettext("%(home)s v %(away)s") % {"home": self.home, "away": self.away}

    def get_absolute_url(self) -> str:
        return reverse(
            "pages:club_match", kwargs={"league_slug": self.league.slug, "match_id": self.pk}
        )

    @property
    def recorded(self) -> bool:
        return bool(self.games)


class BoardOrder(models.Model):
    """A team's board order for one club match as last submitted (``board_order_submitted``):
    ``players`` holds player ids, board 1 first."""

    club_match = models.ForeignKey(ClubMatch, on_delete=models.PROTECT, related_name="orders")
    team = models.ForeignKey(Team, on_delete=models.PROTECT, related_name="+")
    players = models.JSONField()
    submitted_at = models.DateTimeField(default=timezone.now)
    #: Who handed it in: "organiser" or "captain" (the team's captain, signed in).
    submitted_by = models.CharField(max_length=10, default="organiser")

    class Meta:
        verbose_name = _("board order")
        verbose_name_plural = _("board orders")
        constraints = [
            models.UniqueConstraint(fields=["club_match", "team"], name="board_order_once"),
        ]

    def __str__(self) -> str:
        return gettext("board order of %(team)s for %(match)s") % {
            "team": self.team,
            "match": self.club_match,
        }


class ClubSeason(models.Model):
    """A season's club league: the number of boards and the match points of the club
    matches played in it (``club_season_set``). A club match scheduled on a day of the
    season takes them; they can change only while no club match falls in the season."""

    season = models.OneToOneField(
        Season, on_delete=models.PROTECT, primary_key=True, related_name="club_settings"
    )
    boards = models.PositiveSmallIntegerField()
    points_win = models.DecimalField(max_digits=3, decimal_places=1, default=Decimal("2"))
    points_draw = models.DecimalField(max_digits=3, decimal_places=1, default=Decimal("1"))
    points_loss = models.DecimalField(max_digits=3, decimal_places=1, default=Decimal("0"))
    set_at = models.DateTimeField(default=timezone.now)

    class Meta:
        constraints = [
            models.CheckConstraint(condition=Q(boards__gte=1), name="club_season_has_boards"),
        ]
        verbose_name = _("club season")
        verbose_name_plural = _("club seasons")

    def __str__(self) -> str:
        return gettext("club matches of %(season)s") % {"season": self.season}


class DivisionSetup(models.Model):
    """A season's divisions as a whole: the promotion and relegation rule, whether the
    divisions were proposed by the rules, and when they were fixed.

    The write side's current state, changed only by the event store with the
    ``divisions_set`` / ``divisions_fixed`` facts (``league.divisions``).
    """

    season = models.OneToOneField(
        Season, on_delete=models.PROTECT, primary_key=True, related_name="division_setup"
    )
    promotion = models.PositiveSmallIntegerField(
        default=1, help_text=_("How many go up and down between adjacent divisions.")
    )
    newcomers = models.PositiveSmallIntegerField(
        default=0,
        help_text=_("The division (1 = top) next season's newcomers go to; 0: the bottom one."),
    )
    proposed = models.BooleanField(
        default=False, help_text=_("Proposed by promotion and relegation from the season before.")
    )
    fixed_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        verbose_name = _("divisions of a season")
        verbose_name_plural = _("divisions of seasons")

    def __str__(self) -> str:
        return gettext("divisions of %(season)s") % {"season": self.season}

    @property
    def fixed(self) -> bool:
        """Whether the divisions are fixed (no more changes)."""
        return self.fixed_at is not None


class Division(models.Model):
    """One division (or box) of a season: its place from the top (1) and its name."""

    season = models.ForeignKey(Season, on_delete=models.PROTECT, related_name="divisions")
    position = models.PositiveSmallIntegerField()
    name = models.CharField(max_length=60)

    class Meta:
        verbose_name = _("division")
        verbose_name_plural = _("divisions")
        ordering = ["season", "position"]
        constraints = [
            models.UniqueConstraint(fields=["season", "position"], name="division_unique_position"),
            models.UniqueConstraint(fields=["season", "name"], name="division_unique_name"),
            models.CheckConstraint(condition=Q(position__gte=1), name="division_position"),
        ]

    def __str__(self) -> str:
        return f"{self.season}: {self.name}"


class DivisionMember(models.Model):
    """A player in a division of a season (at most one division per season)."""

    season = models.ForeignKey(Season, on_delete=models.PROTECT, related_name="+")
    division = models.ForeignKey(Division, on_delete=models.CASCADE, related_name="members")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")

    class Meta:
        verbose_name = _("division member")
        verbose_name_plural = _("division members")
        ordering = ["division", "player"]
        constraints = [
            models.UniqueConstraint(
                fields=["season", "player"], name="division_member_once_per_season"
            ),
        ]

    def __str__(self) -> str:
        return gettext("%(player)s in %(division)s") % {
            "player": self.player,
            "division": self.division,
        }
