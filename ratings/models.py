"""Rating configuration versions and the projection tables derived from the event store.

A league has numbered, immutable ``RatingConfig`` versions. Each version owns its own
projection (``PlayerPeriod`` history rows and ``Standing`` rows), built by a ``Replay``.
``Publication`` points at the version whose projection readers see; it moves in one
transaction when a newer version's replay completes, so readers never see a half-built
table and earlier versions stay viewable for comparison.
"""

from __future__ import annotations

from typing import Any

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from league.models import League, Player
from ratings.parameters import BY_NAME


def _described(name: str) -> dict[str, Any]:
    """A parameter's field options from the table: label, help, default and bounds."""
    parameter = BY_NAME[name]
    return {
        "verbose_name": parameter.label,
        "help_text": parameter.help_text,
        "default": parameter.default,
        "validators": parameter.validators(),
    }


class ImmutableConfigError(Exception):
    """Raised when a stored configuration version would be changed."""


class RatingConfig(models.Model):
    """One version of a league's rating parameters. Never changed once stored."""

    class PeriodUnit(models.TextChoices):
        DAYS = "days", _("days")
        MONTHS = "months", _("calendar months")

    class UpdateMode(models.TextChoices):
        PERIOD = "period", _("period: a rating period's games at once (the paper)")
        INSTANT = "instant", _("instant: each game when it is played")

    league = models.ForeignKey(League, on_delete=models.PROTECT, related_name="rating_configs")
    version = models.PositiveIntegerField()
    tau = models.FloatField(**_described("tau"))
    initial_rating = models.FloatField(**_described("initial_rating"))
    initial_rd = models.FloatField(**_described("initial_rd"))
    initial_volatility = models.FloatField(**_described("initial_volatility"))
    period_unit = models.CharField(
        max_length=8, choices=PeriodUnit.choices, **_described("period_unit")
    )
    period_length = models.PositiveIntegerField(**_described("period_length"))
    period_anchor = models.DateField(
        verbose_name=BY_NAME["period_anchor"].label, help_text=BY_NAME["period_anchor"].help
    )
    max_rd = models.FloatField(**_described("max_rd"))
    # Required for a new version (the table), null in versions stored before it was.
    volatility_ceiling = models.FloatField(
        null=True, blank=True, **_described("volatility_ceiling")
    )
    rating_floor = models.FloatField(null=True, blank=True, **_described("rating_floor"))
    advantage = models.FloatField(**_described("advantage"))
    margin_scale = models.FloatField(null=True, blank=True, **_described("margin_scale"))
    update_mode = models.CharField(
        max_length=8, choices=UpdateMode.choices, **_described("update_mode")
    )
    created_at = models.DateTimeField(default=timezone.now)
    created_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    note = models.CharField(max_length=200, blank=True)

    class Meta:
        ordering = ["league", "-version"]
        constraints = [
            models.UniqueConstraint(fields=["league", "version"], name="config_unique_version"),
            models.CheckConstraint(condition=Q(tau__gt=0), name="config_tau_positive"),
            models.CheckConstraint(condition=Q(initial_rd__gt=0), name="config_rd_positive"),
            models.CheckConstraint(
                condition=Q(initial_volatility__gt=0), name="config_volatility_positive"
            ),
            models.CheckConstraint(condition=Q(max_rd__gt=0), name="config_max_rd_positive"),
            models.CheckConstraint(
                condition=Q(period_length__gte=1), name="config_period_length_positive"
            ),
        ]

    def __str__(self) -> str:
        # Translators: a configuration version's name: "Riverside Chess Club v3".
        return gettext("%(league)s v%(version)s") % {"league": self.league, "version": self.version}

    def save(self, *args: Any, **kwargs: Any) -> None:
        if not self._state.adding:
            raise ImmutableConfigError(
                "A rating configuration version is immutable: create a new version instead."
            )
        super().save(*args, **kwargs)


class Publication(models.Model):
    """The league's live configuration: the one whose standings readers see."""

    league = models.OneToOneField(
        League, on_delete=models.CASCADE, primary_key=True, related_name="publication"
    )
    config = models.ForeignKey(RatingConfig, on_delete=models.PROTECT, related_name="+")
    published_at = models.DateTimeField(default=timezone.now)

    class Meta:
        verbose_name = _("live configuration")
        verbose_name_plural = _("live configurations")

    def __str__(self) -> str:
        return gettext("%(league)s: live %(config)s") % {
            "league": self.league,
            "config": self.config,
        }


class Replay(models.Model):
    """One recomputation of a configuration's projection, with its progress."""

    class Kind(models.TextChoices):
        FULL = "full", _("full")
        INCREMENTAL = "incremental", _("incremental")

    class Status(models.TextChoices):
        QUEUED = "queued", _("queued")
        RUNNING = "running", _("running")
        COMPLETE = "complete", _("complete")
        FAILED = "failed", _("failed")
        SUPERSEDED = "superseded", _("superseded")

    config = models.ForeignKey(RatingConfig, on_delete=models.CASCADE, related_name="replays")
    kind = models.CharField(max_length=12, choices=Kind.choices, default=Kind.FULL)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    from_period = models.IntegerField(default=0, help_text=_("First period recomputed."))
    periods_total = models.IntegerField(default=0)
    periods_done = models.IntegerField(default=0)
    through_seq = models.PositiveBigIntegerField(
        default=0, help_text=_("Highest event sequence number folded in.")
    )
    attempts = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    queued_at = models.DateTimeField(default=timezone.now)
    started_at = models.DateTimeField(null=True, blank=True)
    finished_at = models.DateTimeField(null=True, blank=True)
    timings = models.JSONField(
        default=dict, blank=True, help_text=_("Seconds reading/computing/writing.")
    )

    class Meta:
        ordering = ["-queued_at", "-pk"]
        indexes = [models.Index(fields=["config", "status"], name="replay_config_status")]

    def __str__(self) -> str:
        return gettext("%(kind)s replay of %(config)s (%(status)s)") % {
            "kind": self.get_kind_display(),
            "config": self.config,
            "status": self.get_status_display(),
        }


class ProjectionState(models.Model):
    """How far a configuration's projection has been computed."""

    config = models.OneToOneField(
        RatingConfig, on_delete=models.CASCADE, primary_key=True, related_name="projection"
    )
    complete = models.BooleanField(default=False)
    through_seq = models.PositiveBigIntegerField(default=0)
    through_period = models.IntegerField(
        default=-1, help_text=_("Last period computed (the current one, as if it closed now).")
    )
    computed_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        if self.complete:
            text = gettext("projection of config %(config)s (complete, through seq %(seq)s)")
        else:
            text = gettext("projection of config %(config)s (building, through seq %(seq)s)")
        return text % {"config": self.config_id, "seq": self.through_seq}


class PlayerPeriod(models.Model):
    """A player's rating after one period in which they played (derived data).

    The largest table (millions of rows, rewritten in bulk by replays): its foreign keys are
    not enforced by the database (a deferred check per row and key doubled the time of a
    full replay) and get no single-column indexes (the unique (config, player, period)
    index serves both); only ``ratings.replay`` writes it, with ids it has just read.
    """

    config = models.ForeignKey(
        RatingConfig,
        on_delete=models.CASCADE,
        related_name="+",
        db_constraint=False,
        db_index=False,
    )
    player = models.ForeignKey(
        Player, on_delete=models.CASCADE, related_name="+", db_constraint=False, db_index=False
    )
    period_index = models.IntegerField()
    period_start = models.DateField()
    period_end = models.DateField(help_text=_("Last day of the period (inclusive)."))
    rating = models.FloatField()
    rd = models.FloatField()
    volatility = models.FloatField()
    rating_before = models.FloatField()
    rd_before = models.FloatField()
    games = models.PositiveIntegerField()
    wins = models.PositiveIntegerField()
    draws = models.PositiveIntegerField()
    losses = models.PositiveIntegerField()

    class Meta:
        ordering = ["config", "player", "period_index"]
        constraints = [
            models.UniqueConstraint(
                fields=["config", "player", "period_index"], name="player_period_unique"
            )
        ]
        indexes = [
            models.Index(fields=["config", "period_index"], name="player_period_by_period"),
        ]

    def __str__(self) -> str:
        return gettext("player %(player)s in period %(period)s: %(rating)s") % {
            "player": self.player_id,
            "period": self.period_index,
            "rating": f"{self.rating:.1f}",
        }


class Standing(models.Model):
    """A player's latest state under one configuration (derived data).

    ``rd`` is the RD after the player's last played period; the RD shown for a later
    period grows from it by ``sqrt(rd² + k σ²)`` (capped), computed by the selectors.
    """

    config = models.ForeignKey(RatingConfig, on_delete=models.CASCADE, related_name="+")
    player = models.ForeignKey(Player, on_delete=models.CASCADE, related_name="+")
    rating = models.FloatField()
    rd = models.FloatField()
    volatility = models.FloatField()
    last_period = models.IntegerField()
    games = models.PositiveIntegerField()
    wins = models.PositiveIntegerField()
    draws = models.PositiveIntegerField()
    losses = models.PositiveIntegerField()
    last_played_at = models.DateTimeField(null=True)

    class Meta:
        verbose_name = _("standing")
        verbose_name_plural = _("standings")
        ordering = ["config", "-rating"]
        constraints = [
            models.UniqueConstraint(fields=["config", "player"], name="standing_unique_player")
        ]
        indexes = [models.Index(fields=["config", "-rating"], name="standing_by_rating")]

    def __str__(self) -> str:
        return gettext("player %(player)s: %(rating)s ± %(margin)s") % {
            "player": self.player_id,
            "rating": f"{self.rating:.1f}",
            "margin": f"{1.96 * self.rd:.1f}",
        }


class ReplayLease(models.Model):
    """Who may replay a league right now, on databases without advisory locks (SQLite).

    A replay takes the lease inside an IMMEDIATE transaction, renews it while it runs and
    deletes it when done; a lease whose holder died expires at ``expires_at``.
    """

    league = models.OneToOneField(
        League, on_delete=models.CASCADE, primary_key=True, related_name="+"
    )
    holder = models.CharField(max_length=64)
    expires_at = models.DateTimeField()

    def __str__(self) -> str:
        return gettext("%(league)s: %(holder)s until %(time)s") % {
            "league": self.league_id,
            "holder": self.holder,
            "time": f"{self.expires_at:%H:%M:%S}",
        }


class RankingRules(models.Model):
    """Who a league's standings rank: an organiser's eligibility rules (display rules only).

    A league created now gets a row when its first configuration is made
    (``ratings.eligibility.new_league_rules``: one game within two years of periods, no RD
    limit, provisional ratings ranked and marked). Without a row (a league from before
    those rules) the league uses ``ratings.eligibility.eligibility``'s older defaults (the
    same window, RD at most the provisional threshold). A blank limit means "no such
    rule". Players who fail a rule are not ranked; the pages and the API list them
    separately with the reason. Changing the rules changes no rating: the standings are
    read again, nothing is replayed.
    """

    class RankBy(models.TextChoices):
        RATING = "rating", _("rating")
        # xgettext:no-python-format
        LOWER_BOUND = "lower_bound", _("lower end of the 95 % interval")

    league = models.OneToOneField(
        League, on_delete=models.CASCADE, primary_key=True, related_name="ranking_rules"
    )
    min_games = models.PositiveIntegerField(
        default=1, help_text=_("Games a player must have played to be ranked.")
    )
    active_periods = models.PositiveIntegerField(
        null=True,
        blank=True,
        help_text=_("A player must have played within this many rating periods (blank: no rule)."),
    )
    max_rd = models.FloatField(
        null=True,
        blank=True,
        help_text=_("A player's RD (grown while idle) must be at most this (blank: no rule)."),
    )
    rank_by = models.CharField(max_length=12, choices=RankBy.choices, default=RankBy.RATING)
    updated_at = models.DateTimeField(default=timezone.now)
    updated_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )

    class Meta:
        verbose_name = _("ranking rules")
        verbose_name_plural = _("ranking rules")
        constraints = [
            models.CheckConstraint(
                condition=Q(active_periods__isnull=True) | Q(active_periods__gte=1),
                name="ranking_rules_active_periods_positive",
            ),
            models.CheckConstraint(
                condition=Q(max_rd__isnull=True) | Q(max_rd__gt=0),
                name="ranking_rules_max_rd_positive",
            ),
        ]

    def __str__(self) -> str:
        return gettext("ranking rules of %(league)s") % {"league": self.league}


class SeasonTable(models.Model):
    """One derivation of a season's table, stored: the archive readers see once it is closed.

    Written when an organiser closes the season and again each time they choose to re-derive
    it (``kind``), with who, when and why; never changed afterwards. The newest one is the
    season's table; the older ones stay as the record of what was shown before. ``config``
    and ``through_seq`` say which rating version and how much of the event log it read.
    """

    class Kind(models.TextChoices):
        ARCHIVED = "archived", _("archived at closing")
        REDERIVED = "rederived", _("re-derived")

    season = models.ForeignKey("league.Season", on_delete=models.PROTECT, related_name="tables")
    kind = models.CharField(max_length=12, choices=Kind.choices)
    config = models.ForeignKey(RatingConfig, on_delete=models.PROTECT, related_name="+")
    through_seq = models.PositiveBigIntegerField()
    start_period = models.IntegerField()
    end_period = models.IntegerField()
    points_win = models.DecimalField(max_digits=4, decimal_places=1)
    points_draw = models.DecimalField(max_digits=4, decimal_places=1)
    points_loss = models.DecimalField(max_digits=4, decimal_places=1)
    tiebreaks = models.CharField(
        max_length=100,
        blank=True,
        default="",
        help_text=_("The tie-break codes the table was ordered by (empty: rating at the end)."),
    )
    derived_at = models.DateTimeField(default=timezone.now)
    derived_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.PROTECT, null=True, blank=True, related_name="+"
    )
    reason = models.TextField(blank=True)

    class Meta:
        verbose_name = _("archived season table")
        verbose_name_plural = _("archived season tables")
        ordering = ["season", "-derived_at", "-pk"]

    def __str__(self) -> str:
        return gettext("%(season)s table (%(kind)s %(day)s)") % {
            "season": self.season,
            "kind": self.get_kind_display(),
            "day": f"{self.derived_at:%Y-%m-%d}",
        }


class SeasonRow(models.Model):
    """One player's line in a stored season table."""

    table = models.ForeignKey(SeasonTable, on_delete=models.CASCADE, related_name="rows")
    player = models.ForeignKey(Player, on_delete=models.PROTECT, related_name="+")
    position = models.PositiveIntegerField()
    games = models.PositiveIntegerField()
    wins = models.PositiveIntegerField()
    draws = models.PositiveIntegerField()
    losses = models.PositiveIntegerField()
    points = models.DecimalField(max_digits=8, decimal_places=1)
    rating_start = models.FloatField(null=True)
    rank_start = models.PositiveIntegerField(null=True)
    rating_end = models.FloatField()
    rd_end = models.FloatField()
    rank_end = models.PositiveIntegerField(null=True)
    change = models.FloatField(
        help_text=_("Rating change over the season (from the initial rating if unrated before).")
    )
    tiebreaks = models.JSONField(
        default=dict, blank=True, help_text=_("The tie-break values: code -> number or null.")
    )

    class Meta:
        verbose_name = _("season table row")
        verbose_name_plural = _("season table rows")
        ordering = ["table", "position", "pk"]
        constraints = [
            models.UniqueConstraint(fields=["table", "player"], name="season_row_unique_player")
        ]

    def __str__(self) -> str:
        return gettext("%(position)s. player %(player)s: %(points)s points") % {
            "position": self.position,
            "player": self.player_id,
            "points": self.points,
        }


class IntervalCoverage(models.Model):
    """How often a configuration's intervals held the true skill on simulated leagues like its
    league (``ratings.coverage``), measured after its replay completes (``ratings.coverage_jobs``).

    ``coverage`` and ``error`` are the share of rating ± z RD intervals holding the true skill,
    and its Monte Carlo error, at z = 0, 0.01, …, 5 (``ratings.coverage.GRID``): any level's
    figure by interpolation. The shape fields say what was simulated, so a later replay
    measures again only when the league's shape has changed.
    """

    config = models.OneToOneField(
        RatingConfig, on_delete=models.CASCADE, primary_key=True, related_name="interval_coverage"
    )
    coverage = models.JSONField(help_text=_("Coverage at z = 0, 0.01, ..., 5 RDs (fractions)."))
    error = models.JSONField(help_text=_("Monte Carlo standard error of each coverage."))
    leagues = models.PositiveIntegerField()
    players = models.PositiveIntegerField()
    periods = models.PositiveIntegerField()
    sides = models.PositiveIntegerField()
    side_size = models.PositiveIntegerField()
    games = models.PositiveIntegerField(help_text=_("Games per player per period simulated."))
    period_days = models.FloatField()
    spread = models.FloatField(help_text=_("Standard deviation of the simulated true skills."))
    spread_from_league = models.BooleanField()
    seconds = models.FloatField(help_text=_("Time the measurement took."))
    measured_at = models.DateTimeField(default=timezone.now)

    def __str__(self) -> str:
        return gettext("%(config)s coverage (%(day)s)") % {
            "config": self.config,
            "day": f"{self.measured_at:%Y-%m-%d}",
        }
