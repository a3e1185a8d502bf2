"""Parameter sweeps over a league's history and the predictive score of each grid point.

Everything here is derived data (like the projection tables): a sweep can be deleted and
run again with the same result, because scoring is a pure function of the league's live
matches and the parameters of a run.
"""

from __future__ import annotations

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.utils import timezone
from django.utils.translation import pgettext_lazy

from league.models import League


class Sweep(models.Model):
    """A grid of rating parameters scored on one league's history, one ``SweepRun`` per point.

    ``grid`` holds the lists the organiser asked for (``tau`` and optionally ``initial_rd``,
    ``initial_volatility``, ``period_length`` with ``period_unit``) and ``base`` the values
    every run starts from (the league's live configuration when the sweep was requested).
    """

    class Status(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("sweep status", "queued")
        RUNNING = "running", pgettext_lazy("sweep status", "running")
        COMPLETE = "complete", pgettext_lazy("sweep status", "complete")
        FAILED = "failed", pgettext_lazy("sweep status", "failed")

    league = models.ForeignKey(League, on_delete=models.CASCADE, related_name="sweeps")
    requested_by = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    created_at = models.DateTimeField(default=timezone.now)
    finished_at = models.DateTimeField(null=True, blank=True)
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    grid = models.JSONField(help_text="Values swept: tau and optional RD, volatility, period.")
    base = models.JSONField(default=dict, help_text="Parameters every run starts from.")
    through_seq = models.PositiveBigIntegerField(
        default=0, help_text="Highest event sequence number scored (the same for every run)."
    )
    runs_total = models.PositiveIntegerField(default=0)
    runs_done = models.PositiveIntegerField(default=0)
    error = models.TextField(blank=True)
    best_run = models.ForeignKey(
        "SweepRun", on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    current_run = models.ForeignKey(
        "SweepRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The run of the base configuration (the current one) itself.",
    )
    verdict = models.TextField(
        blank=True,
        help_text="Whether the best run predicts meaningfully better than the current one.",
    )
    difference = models.JSONField(
        default=dict,
        blank=True,
        help_text="Best minus current log-loss: estimate and 95 % bootstrap interval.",
    )
    holdout = models.BooleanField(
        default=False,
        help_text="Walk-forward: tune on the earlier periods, judge on the later ones.",
    )
    holdout_from = models.DateField(
        null=True,
        blank=True,
        help_text="First day scored out of sample (the start of a rating period of the base).",
    )
    holdout_unit = models.IntegerField(
        null=True,
        blank=True,
        help_text="Index of the first base period scored out of sample.",
    )
    default_run = models.ForeignKey(
        "SweepRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="The run of a new league's default parameters (on the base's periods).",
    )
    tuned_run = models.ForeignKey(
        "SweepRun",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
        help_text="Walk-forward: the run with the lowest in-sample log-loss.",
    )
    walk_forward = models.JSONField(
        default=dict,
        blank=True,
        help_text="Walk-forward: the two parts' sizes and the tuned run's out-of-sample "
        "log-loss differences from the default and the live configuration (95 % intervals).",
    )

    class Meta:
        ordering = ["-created_at", "-pk"]
        constraints = [
            models.CheckConstraint(
                condition=Q(runs_done__lte=models.F("runs_total")), name="sweep_done_le_total"
            )
        ]

    def __str__(self) -> str:
        return f"Sweep #{self.pk} of {self.league} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.COMPLETE, self.Status.FAILED)

    @property
    def percent(self) -> int:
        return round(100 * self.runs_done / self.runs_total) if self.runs_total else 0


class SweepRun(models.Model):
    """The predictive score of one grid point, with the two baselines on the same matches."""

    class Status(models.TextChoices):
        QUEUED = "queued", pgettext_lazy("sweep run status", "queued")
        RUNNING = "running", pgettext_lazy("sweep run status", "running")
        COMPLETE = "complete", pgettext_lazy("sweep run status", "complete")
        FAILED = "failed", pgettext_lazy("sweep run status", "failed")

    sweep = models.ForeignKey(Sweep, on_delete=models.CASCADE, related_name="runs")
    position = models.PositiveIntegerField(help_text="Order of the point in the grid.")
    parameters = models.JSONField(help_text="Full configuration scored (base + grid point).")
    status = models.CharField(max_length=12, choices=Status.choices, default=Status.QUEUED)
    attempts = models.PositiveIntegerField(default=0)
    log_loss = models.FloatField(null=True, blank=True)
    brier = models.FloatField(null=True, blank=True)
    accuracy = models.FloatField(null=True, blank=True, help_text="Draws count as half.")
    n_matches = models.PositiveIntegerField(null=True, blank=True)
    calibration = models.JSONField(
        default=list,
        blank=True,
        help_text="Deciles: predicted mean, observed mean (with its 95 % interval), count.",
    )
    constant_log_loss = models.FloatField(null=True, blank=True)
    constant_brier = models.FloatField(null=True, blank=True)
    constant_accuracy = models.FloatField(null=True, blank=True)
    elo_log_loss = models.FloatField(null=True, blank=True)
    elo_brier = models.FloatField(null=True, blank=True)
    elo_accuracy = models.FloatField(null=True, blank=True)
    elo_k = models.FloatField(null=True, blank=True, help_text="Tuned K of the Elo baseline.")
    glicko_log_loss = models.FloatField(null=True, blank=True)
    glicko_brier = models.FloatField(null=True, blank=True)
    glicko_accuracy = models.FloatField(null=True, blank=True)
    glicko_c = models.FloatField(
        null=True, blank=True, help_text="Tuned c of the Glicko (1999) yardstick."
    )
    is_current = models.BooleanField(
        default=False, help_text="The run of the base (current) configuration."
    )
    is_default = models.BooleanField(
        default=False, help_text="The run of a new league's default parameters."
    )
    in_sample = models.JSONField(
        default=dict,
        blank=True,
        help_text="Walk-forward: scores on the earlier periods (used to choose), with intervals.",
    )
    out_of_sample = models.JSONField(
        default=dict,
        blank=True,
        help_text="Walk-forward: scores on the later periods (used to judge), with intervals.",
    )
    period_sums = models.JSONField(
        default=dict,
        blank=True,
        help_text="Matches, log-loss and Brier summed per period of the base configuration "
        "(the bootstrap's unit).",
    )
    log_loss_low = models.FloatField(null=True, blank=True, help_text="95 % interval, low end.")
    log_loss_high = models.FloatField(null=True, blank=True, help_text="95 % interval, high end.")
    brier_low = models.FloatField(null=True, blank=True, help_text="95 % interval, low end.")
    brier_high = models.FloatField(null=True, blank=True, help_text="95 % interval, high end.")
    accuracy_low = models.FloatField(null=True, blank=True, help_text="95 % interval, low end.")
    accuracy_high = models.FloatField(null=True, blank=True, help_text="95 % interval, high end.")
    within_noise_of_best = models.BooleanField(
        null=True, blank=True, help_text="Its log-loss is not meaningfully worse than the best's."
    )
    error = models.TextField(blank=True)
    elapsed = models.FloatField(null=True, blank=True, help_text="Seconds to load and score.")
    finished_at = models.DateTimeField(null=True, blank=True)

    class Meta:
        ordering = ["sweep", "position"]
        constraints = [
            models.UniqueConstraint(fields=["sweep", "position"], name="sweep_run_unique_position")
        ]

    def __str__(self) -> str:
        return f"Run {self.position} of sweep #{self.sweep_id} ({self.status})"

    @property
    def finished(self) -> bool:
        return self.status in (self.Status.COMPLETE, self.Status.FAILED)
