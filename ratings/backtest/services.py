"""Backtesting services: start a sweep, score one of its runs, adopt the best configuration.

A sweep is a grid of configurations scored on a league's live matches. ``create_sweep``
stores one ``SweepRun`` row per grid point; ``ratings.backtest.tasks.start_sweep`` then
sends one Celery task per row as a ``celery.group`` once the transaction commits (this
module never imports the tasks: they import it). Each task reads the matches with the replay's
loader, folds and scores them with ``ratings.engine.scoring`` (the replay's own engine
and periods) and writes its row. There is no result backend, so there is no chord: the
run that finishes last notices it while holding the sweep's row lock, and completes the
sweep (best run = lowest log-loss).
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Max, Q
from django.utils import timezone

from league.models import Event, League
from ratings import services as rating_services
from ratings.backtest.grid import clean_grid, expand
from ratings.backtest.models import Sweep, SweepRun
from ratings.engine.fold import MatchArrays
from ratings.engine.scoring import Metrics, Scores, score_fold
from ratings.models import RatingConfig
from ratings.parameters import PARAMETERS, clean_config_params
from ratings.replay.compute import engine_matches
from ratings.replay.positions import league_player_ids
from ratings.replay.snapshot import read_matches
from ratings.selectors.configurations import live_config
from ratings.time import engine_params, first_match_day, period_spec

logger = logging.getLogger(__name__)

#: Configuration fields a run carries; the grid overrides some of them.
CONFIG_FIELDS = PARAMETERS


def base_parameters(league: League) -> dict[str, Any]:
    """The configuration a sweep varies: the live one, else the newest, else the defaults."""
    config = live_config(league) or rating_services.latest_config(league)
    if config is None:
        base = dict(rating_services.default_params(league))
        version = None
    else:
        base = {name: getattr(config, name) for name in CONFIG_FIELDS}
        version = config.version
    base["period_anchor"] = base["period_anchor"].isoformat()
    base["config_version"] = version
    return base


def config_values(parameters: dict[str, Any]) -> dict[str, Any]:
    """The configuration fields of a run's stored (JSON) parameters, the anchor as a date."""
    values = {name: parameters[name] for name in CONFIG_FIELDS}
    values["period_anchor"] = dt.date.fromisoformat(values["period_anchor"])
    return values


def run_config(league: League, parameters: dict[str, Any]) -> RatingConfig:
    """An unsaved ``RatingConfig`` carrying a run's parameters (for the replay's helpers)."""
    return RatingConfig(league=league, **config_values(parameters))


def _validate_points(league: League, base: dict[str, Any], points: list[dict[str, Any]]) -> None:
    """Refuse a grid with a point no configuration version could hold, storing nothing.

    Each point is checked by the same validation as a new configuration version (which
    also asks the engine), so any run of the sweep can later be adopted as it is.
    """
    errors: dict[str, list[str]] = {}
    first_day = first_match_day(league)
    for point in points:
        merged = {**base, **point}
        values = {name: merged[name] for name in CONFIG_FIELDS}
        try:
            clean_config_params(values, start_date=league.start_date, first_match_day=first_day)
        except ValidationError as error:
            for key, messages in error.message_dict.items():
                known = errors.setdefault(key if key != "__all__" else "grid", [])
                known.extend(m for m in messages if m not in known)
    if errors:
        raise ValidationError(errors)


def create_sweep(
    league: League, grid: Any, *, requested_by: Any = None
) -> tuple[Sweep, list[SweepRun]]:
    """Validate the grid and store the sweep with one queued run per point (nothing sent).

    Call inside a transaction; ``tasks.start_sweep`` and ``run_sweep_sync`` build on it.
    """
    cleaned = clean_grid(grid)
    matches = Event.objects.live_matches().filter(league=league)
    if not matches.exists():
        raise ValidationError({"league": [f"{league} has no matches to backtest yet."]})
    base = base_parameters(league)
    points = expand(cleaned)
    _validate_points(league, base, points)
    through_seq = Event.objects.filter(league=league).aggregate(top=Max("seq"))["top"] or 0
    sweep = Sweep.objects.create(
        league=league,
        requested_by=requester(requested_by),
        grid=cleaned,
        base=base,
        through_seq=through_seq,
        runs_total=len(points),
    )
    runs = SweepRun.objects.bulk_create(
        SweepRun(sweep=sweep, position=i, parameters={**base, **point})
        for i, point in enumerate(points)
    )
    return sweep, runs


def run_sweep_sync(league: League, grid: Any, *, requested_by: Any = None) -> Sweep:
    """Store a sweep and score every run in this process, one after the other.

    The same code path as the workers (``score_run``), with the matches read once per
    period configuration instead of once per run.
    """
    with transaction.atomic():
        sweep, runs = create_sweep(league, grid, requested_by=requested_by)
    cache: dict[tuple[Any, ...], LoadedMatches] = {}
    for run in runs:
        score_run(run.pk, cache=cache)
    sweep.refresh_from_db()
    return sweep


def requester(user: Any) -> Any:
    """The user to record as a sweep's requester (None for an anonymous one)."""
    return user if getattr(user, "is_authenticated", False) else None


@dataclass(frozen=True)
class LoadedMatches:
    """A league's live matches bucketed in one configuration's periods."""

    matches: MatchArrays
    n_players: int
    first_period: int
    last_period: int


def load(league: League, config: RatingConfig, through_seq: int) -> LoadedMatches:
    """The league's live matches up to ``through_seq`` in ``config``'s periods.

    Uses the replay's own reader, player indexing and period bucketing, so a run scores
    exactly the inputs a replay of that configuration would fold (from period 0).
    """
    player_ids = league_player_ids(league)
    matches = engine_matches(period_spec(config), read_matches(league, through_seq), player_ids)
    last = int(matches.period.max()) if len(matches) else 0
    return LoadedMatches(matches, len(player_ids), 0, last)


def _claim(run_id: int) -> SweepRun | None:
    """Mark a run running (counting the attempt), or None if it already finished."""
    with transaction.atomic():
        run = SweepRun.objects.select_for_update().select_related("sweep__league").get(pk=run_id)
        if run.finished:
            return None
        run.status = SweepRun.Status.RUNNING
        run.attempts += 1
        run.save(update_fields=["status", "attempts"])
        Sweep.objects.filter(pk=run.sweep_id, status=Sweep.Status.QUEUED).update(
            status=Sweep.Status.RUNNING
        )
    return run


def score_run(run_id: int, *, cache: dict[tuple[Any, ...], LoadedMatches] | None = None) -> None:
    """Score one run of a sweep and record it; what the Celery task calls.

    Safe to call again for the same run (a redelivered task): a finished run is left
    alone, and a run that failed ``REPLAY_MAX_ATTEMPTS`` times is marked failed.
    """
    run = _claim(run_id)
    if run is None:
        return
    started = time.perf_counter()
    sweep = run.sweep
    if run.attempts > settings.REPLAY_MAX_ATTEMPTS:
        _finish(run, error=f"Gave up after {run.attempts - 1} attempts.", started=started)
        return
    try:
        config = run_config(sweep.league, run.parameters)
        key = (config.period_unit, config.period_length, config.period_anchor)
        loaded = cache.get(key) if cache is not None else None
        if loaded is None:
            loaded = load(sweep.league, config, sweep.through_seq)
            if cache is not None:
                cache[key] = loaded
        scores = score_fold(
            loaded.matches,
            loaded.n_players,
            engine_params(config),
            loaded.first_period,
            loaded.last_period,
        )
    except Exception as error:
        # Whatever went wrong, the run must finish (failed), or the sweep would wait for
        # it forever: the message is acknowledged even when the task raises.
        logger.exception("Sweep run %s failed", run_id)
        _finish(run, error=f"{type(error).__name__}: {error}", started=started)
        return
    _finish(run, scores=scores, started=started)


def _metric_fields(prefix: str, metrics: Metrics) -> dict[str, float]:
    return {
        f"{prefix}log_loss": metrics.log_loss,
        f"{prefix}brier": metrics.brier,
        f"{prefix}accuracy": metrics.accuracy,
    }


def calibration_rows(metrics: Metrics) -> list[dict[str, Any]]:
    """The calibration deciles as plain dicts (JSON-ready)."""
    return [
        {
            "low": b.low,
            "high": b.high,
            "count": b.count,
            "predicted": b.mean_predicted,
            "observed": b.observed,
        }
        for b in metrics.calibration
    ]


def _finish(
    run: SweepRun, *, started: float, scores: Scores | None = None, error: str = ""
) -> None:
    """Write the run's outcome and, under the sweep's row lock, the sweep's progress."""
    values: dict[str, Any] = {
        "elapsed": time.perf_counter() - started,
        "finished_at": timezone.now(),
    }
    if scores is None:
        values.update(status=SweepRun.Status.FAILED, error=error)
    else:
        values.update(
            status=SweepRun.Status.COMPLETE,
            n_matches=scores.glicko2.n,
            calibration=calibration_rows(scores.glicko2),
            elo_k=scores.elo_k,
            error="",
            **_metric_fields("", scores.glicko2),
            **_metric_fields("constant_", scores.constant),
            **_metric_fields("elo_", scores.elo),
        )
    with transaction.atomic():
        # The sweep row lock serialises the runs' bookkeeping: the count below sees every
        # run that finished before, so exactly one run sees the last one done.
        sweep = Sweep.objects.select_for_update().get(pk=run.sweep_id)
        SweepRun.objects.filter(pk=run.pk).update(**values)
        finished = [SweepRun.Status.COMPLETE, SweepRun.Status.FAILED]
        counts = SweepRun.objects.filter(sweep=sweep).aggregate(
            done=Count("pk", filter=Q(status__in=finished)),
            complete=Count("pk", filter=Q(status=SweepRun.Status.COMPLETE)),
        )
        sweep.runs_done = counts["done"]
        fields = ["runs_done"]
        if sweep.runs_done >= sweep.runs_total and not sweep.finished:
            best = (
                SweepRun.objects.filter(sweep=sweep, status=SweepRun.Status.COMPLETE)
                .order_by("log_loss", "position")
                .first()
            )
            sweep.best_run = best
            sweep.finished_at = timezone.now()
            if counts["complete"]:
                sweep.status = Sweep.Status.COMPLETE
                failed = sweep.runs_total - counts["complete"]
                sweep.error = f"{failed} run(s) failed." if failed else ""
            else:
                sweep.status = Sweep.Status.FAILED
                sweep.error = "Every run failed; see the runs' errors."
            fields += ["best_run", "finished_at", "status", "error"]
        elif sweep.status == Sweep.Status.QUEUED:
            sweep.status = Sweep.Status.RUNNING
            fields.append("status")
        sweep.save(update_fields=fields)


def adopt_best(sweep: Sweep, *, user: Any = None) -> RatingConfig:
    """Create a new configuration version from the sweep's best run (which replays).

    Raises ``ValidationError`` when the sweep has not finished or has no successful run.
    """
    if sweep.status != Sweep.Status.COMPLETE or sweep.best_run is None:
        raise ValidationError({"sweep": ["The sweep has no best run to adopt yet."]})
    return rating_services.create_config(
        sweep.league,
        created_by=requester(user),
        note=f"Best of sweep #{sweep.pk}",
        **config_values(sweep.best_run.parameters),
    )
