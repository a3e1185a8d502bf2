"""Backtesting services: start a sweep, score one of its runs, adopt the best configuration.

A sweep is a grid of configurations scored on a league's live matches. ``create_sweep``
stores one ``SweepRun`` row per grid point; ``ratings.backtest.tasks.start_sweep`` then
sends one Celery task per row as a ``celery.group`` once the transaction commits (this
module never imports the tasks: they import it). Each task reads the matches with the replay's
loader, folds and scores them with ``engine.scoring`` (the replay's own engine
and periods) and writes its row. There is no result backend, so there is no chord: the
run that finishes last notices it while holding the sweep's row lock, and completes the
sweep (best run = lowest log-loss).

Every sweep also scores the current configuration itself (the base, unless a grid point
equals it), so that it can say whether the best setting really predicts better: each run
keeps its losses summed per period of the base configuration, and the completing run
bootstraps those periods (``engine.bootstrap``) for each run's 95 % interval and for
the paired difference between the best run and the current one. When that difference's
interval contains zero the verdict is "no meaningful difference; keep the current value".

Beside Glicko-2 each run scores the yardsticks on the same matches: Elo with its K tuned
and the run's advantage, and (for the first τ of each setting; they do not depend on τ)
Glicko (1999) with its c tuned, the run's initial RD, advantage and margin mapping.
"""

from __future__ import annotations

import datetime as dt
import logging
import time
from dataclasses import dataclass
from typing import Any

import numpy as np
import numpy.typing as npt
from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Count, Q
from django.utils import timezone
from django.utils.translation import gettext

from engine.bootstrap import PeriodBootstrap, compare_sums
from engine.fold import MatchArrays
from engine.scoring import (
    Metrics,
    Scores,
    metrics,
    score_fold,
    score_instant,
)
from engine.yardsticks import DEFAULT_C, GlickoParams, glicko_predictions
from league.models import Event, League
from ratings import services as rating_services
from ratings.backtest import walk_forward
from ratings.backtest.grid import clean_grid, expand
from ratings.backtest.models import Sweep, SweepRun
from ratings.backtest.presentation import stored_verdict
from ratings.models import RatingConfig
from ratings.parameters import DEFAULTS, PARAMETERS, clean_config_params, default_volatility
from ratings.replay.compute import engine_matches
from ratings.replay.positions import league_player_ids, max_seq
from ratings.replay.seeds import seeds_of, with_seeds
from ratings.replay.snapshot import needs_extras, read_matches
from ratings.selectors.configurations import live_config
from ratings.time import engine_params, first_match_day, period_spec

#: c values tried for the Glicko (1999) yardstick; the lowest log-loss is reported.
GLICKO_C_GRID: tuple[float, ...] = (10.0, 15.0, 25.0, DEFAULT_C)
#: Bootstrap replicates and seed: the same sweep always gets the same intervals.
BOOTSTRAP_DRAWS = 400
BOOTSTRAP_SEED = 19

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
    """The configuration fields of a run's stored (JSON) parameters, the anchor as a date.

    A sweep stored before a parameter existed takes that parameter's default (the value
    its runs were scored with).
    """
    values = {
        name: parameters[name] if name in parameters else DEFAULTS[name] for name in CONFIG_FIELDS
    }
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
    league: League,
    grid: Any,
    *,
    requested_by: Any = None,
    holdout: bool = True,
    holdout_from: dt.date | None = None,
    holdout_share: float = walk_forward.HOLDOUT_SHARE,
) -> tuple[Sweep, list[SweepRun]]:
    """Validate the grid and store the sweep with one queued run per point (nothing sent).

    Besides the grid's points, the sweep scores the live configuration and a new league's
    default parameters (on the base's periods), unless a point equals them. With
    ``holdout`` (walk-forward) the history is cut at the rating period holding
    ``holdout_from``, else before the last ``holdout_share`` of the periods with matches;
    a history too short for the default cut is scored without one, a requested cut that
    leaves too little on either side is refused. Call inside a transaction;
    ``tasks.start_sweep`` and ``run_sweep_sync`` build on it.
    """
    cleaned = clean_grid(grid)
    matches = Event.objects.live_matches().filter(league=league)
    if not matches.exists():
        raise ValidationError(
            {"league": [gettext("%(league)s has no matches to backtest yet.") % {"league": league}]}
        )
    base = base_parameters(league)
    points = expand(cleaned)
    _validate_points(league, base, points)
    current = _current_position(base, points)
    if current is None:
        points.append({})
        current = len(points) - 1
    default = _default_position(base, points)
    if default is None:
        points.append(default_point(base))
        default = len(points) - 1
    through_seq = max_seq(league.pk)
    split = _split(league, base, through_seq, holdout_from, holdout_share) if holdout else None
    sweep = Sweep.objects.create(
        league=league,
        requested_by=requester(requested_by),
        grid=cleaned,
        base=base,
        through_seq=through_seq,
        runs_total=len(points),
        holdout=holdout,
        holdout_from=split.first_day if split else None,
        holdout_unit=split.unit if split else None,
    )
    first_tau = cleaned["tau"][0]
    runs = SweepRun.objects.bulk_create(
        SweepRun(
            sweep=sweep,
            position=i,
            parameters={**base, **point, "yardsticks": point.get("tau", first_tau) == first_tau},
            is_current=i == current,
            is_default=i == default,
        )
        for i, point in enumerate(points)
    )
    return sweep, runs


#: The parameters that say when the rating periods fall: the default run keeps the base's.
PERIOD_FIELDS = ("period_unit", "period_length", "period_anchor")


def default_point(base: dict[str, Any]) -> dict[str, Any]:
    """A new league's default parameters on ``base``'s periods, as overrides of it.

    The volatility is the one a new league with those periods gets
    (:func:`ratings.parameters.default_volatility`), not the weekly default.
    """
    point = {name: DEFAULTS[name] for name in CONFIG_FIELDS if name not in PERIOD_FIELDS}
    point["initial_volatility"] = default_volatility(base["period_unit"], base["period_length"])
    return point


def _default_position(base: dict[str, Any], points: list[dict[str, Any]]) -> int | None:
    """The grid point equal to the default parameters on the base's periods, if there is one."""
    wanted = {**base, **default_point(base)}
    for position, point in enumerate(points):
        merged = {**base, **point}
        if all(merged[name] == wanted[name] for name in CONFIG_FIELDS):
            return position
    return None


def _split(
    league: League,
    base: dict[str, Any],
    through_seq: int,
    holdout_from: dt.date | None,
    share: float,
) -> walk_forward.Split | None:
    """Where the walk-forward cuts the league's history, in the base's rating periods."""
    spec = period_spec(run_config(league, base))
    raw = read_matches(league, through_seq)
    try:
        return walk_forward.choose_split(spec.indices_of(raw.day), spec, holdout_from, share)
    except walk_forward.SplitError as error:
        messages = {
            "before_anchor": gettext(
                "The out-of-sample part must start on or after %(anchor)s, the first day of "
                "the first rating period."
            ),
            "too_few": gettext(
                "A cut on %(date)s leaves %(before)d rating period(s) with matches before it "
                "and %(after)d from it on; each part needs at least %(minimum)d."
            ),
            "share": gettext("The out-of-sample share must be between 0 and 1, got %(share)s."),
        }
        field = "holdout_share" if error.kind == "share" else "holdout_from"
        raise ValidationError({field: [messages[error.kind] % error.values]}) from None


def _current_position(base: dict[str, Any], points: list[dict[str, Any]]) -> int | None:
    """The grid point equal to the base configuration, if there is one."""
    for position, point in enumerate(points):
        if all(base.get(key) == value for key, value in point.items()):
            return position
    return None


def run_sweep_sync(league: League, grid: Any, *, requested_by: Any = None, **holdout: Any) -> Sweep:
    """Store a sweep and score every run in this process, one after the other.

    The same code path as the workers (``score_run``), with the matches read once per
    period configuration instead of once per run. ``holdout`` takes ``create_sweep``'s
    walk-forward arguments.
    """
    with transaction.atomic():
        sweep, runs = create_sweep(league, grid, requested_by=requested_by, **holdout)
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
    """A league's live matches bucketed in one configuration's periods.

    ``unit`` holds each match's period in the sweep's base configuration: the bootstrap's
    resampling unit, the same for every run whatever its own periods.
    """

    matches: MatchArrays
    n_players: int
    first_period: int
    last_period: int
    unit: npt.NDArray[np.int64]
    #: Instant updates only: the matches in played order, each one's moment in its period.
    moment: npt.NDArray[np.float64] | None = None


def load(
    league: League, config: RatingConfig, through_seq: int, base: RatingConfig | None = None
) -> LoadedMatches:
    """The league's live matches up to ``through_seq`` in ``config``'s periods.

    Uses the replay's own reader, player indexing and period bucketing, so a run scores
    exactly the inputs a replay of that configuration would fold (from period 0); the
    neutral flags and margins are read when ``config`` uses them. With instant updates the
    matches come in played order with their moments, as the replay feeds them.
    """
    player_ids = league_player_ids(league)
    raw = read_matches(league, through_seq, extras=needs_extras(engine_params(config)))
    spec = period_spec(config)
    instant = config.update_mode == RatingConfig.UpdateMode.INSTANT
    matches = engine_matches(spec, raw, player_ids, played_order=instant)
    # engine_matches orders by (period, seq) (instant: (period, played_at, seq)): the units
    # follow the same order.
    period = spec.indices_of(raw.day)
    order = (
        np.lexsort((raw.seq, raw.played_us, period)) if instant else np.lexsort((raw.seq, period))
    )
    unit = period_spec(base or config).indices_of(raw.day)[order]
    moment = spec.end_of_day_fractions(raw.day[order]) if instant else None
    last = int(matches.period.max()) if len(matches) else 0
    return LoadedMatches(matches, len(player_ids), 0, last, unit, moment)


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
        # Stored as written; pages say it in the reader's language (presentation.run_error).
        _finish(run, error=f"Gave up after {run.attempts - 1} attempts.", started=started)
        return
    try:
        config = run_config(sweep.league, run.parameters)
        params = engine_params(config)
        key = (
            config.period_unit,
            config.period_length,
            config.period_anchor,
            needs_extras(params),
            config.update_mode,
        )
        loaded = cache.get(key) if cache is not None else None
        if loaded is None:
            base = run_config(sweep.league, sweep.base)
            loaded = load(sweep.league, config, sweep.through_seq, base)
            if cache is not None:
                cache[key] = loaded
        # Seeded players start from their seeds, as in the replay (ratings.replay.seeds).
        start = with_seeds(
            None,
            seeds_of(sweep.league_id, sweep.through_seq),
            league_player_ids(sweep.league),
            params,
        )
        if loaded.moment is not None:
            scores = score_instant(
                loaded.matches,
                loaded.moment,
                loaded.n_players,
                params,
                loaded.first_period,
                loaded.last_period,
                start,
            )
        else:
            scores = score_fold(
                loaded.matches,
                loaded.n_players,
                params,
                loaded.first_period,
                loaded.last_period,
                start,
            )
        extra = _period_sums(loaded, scores)
        if run.parameters.get("yardsticks"):
            extra.update(_glicko_yardstick(loaded, config))
    except Exception as error:
        # Whatever went wrong, the run must finish (failed), or the sweep would wait for
        # it forever: the message is acknowledged even when the task raises.
        logger.exception("Sweep run %s failed", run_id)
        _finish(run, error=f"{type(error).__name__}: {error}", started=started)
        return
    _finish(run, scores=scores, started=started, extra=extra)


def _period_sums(loaded: LoadedMatches, scores: Scores) -> dict[str, Any]:
    """The run's matches, log-loss and Brier score summed per base period (bootstrap units)."""
    return {
        "period_sums": walk_forward.period_sums(
            loaded.unit, scores.predictions, loaded.matches.score_a
        )
    }


def _glicko_yardstick(loaded: LoadedMatches, config: RatingConfig) -> dict[str, Any]:
    """Glicko (1999) over the run's periods with its c tuned over ``GLICKO_C_GRID``."""
    best: tuple[float, float, Metrics] | None = None
    for c in GLICKO_C_GRID:
        params = GlickoParams(
            c=c,
            initial_rating=config.initial_rating,
            initial_rd=config.initial_rd,
            max_rd=config.max_rd,
            advantage=config.advantage,
            margin_scale=config.margin_scale,
        )
        predictions = glicko_predictions(
            loaded.matches, loaded.n_players, params, loaded.first_period, loaded.last_period
        )
        scored = metrics(predictions, loaded.matches.score_a)
        if best is None or scored.log_loss < best[1]:
            best = (c, scored.log_loss, scored)
    assert best is not None
    c, _, scored = best
    return {"glicko_c": c, **_metric_fields("glicko_", scored)}


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
    run: SweepRun,
    *,
    started: float,
    scores: Scores | None = None,
    error: str = "",
    extra: dict[str, Any] | None = None,
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
            **(extra or {}),
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
            fields += judge(sweep)
            # The stored error stays in the site's words (a record, like the run's own
            # error); pages word it in the reader's language (presentation.sweep_error).
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


def judge(sweep: Sweep) -> list[str]:
    """Bootstrap the finished runs' scores: each run's interval, whether it is within noise
    of the best, and the sweep's verdict on the best against the current configuration.

    Called under the sweep's row lock by the run that completes the sweep; returns the
    sweep's fields it set.
    """
    runs = list(
        SweepRun.objects.filter(sweep=sweep, status=SweepRun.Status.COMPLETE).order_by("position")
    )
    usable = [run for run in runs if run.period_sums.get("units")]
    best = sweep.best_run
    current = next((run for run in runs if run.is_current), None)
    sweep.current_run = current
    sweep.default_run = next((run for run in runs if run.is_default), None)
    fields = ["current_run", "default_run", "verdict", "difference", "tuned_run", "walk_forward"]
    sweep.tuned_run, sweep.walk_forward = None, {}
    if best is None or not usable or best not in usable:
        sweep.verdict = ""
        sweep.difference = {}
        return fields
    first = usable[0].period_sums
    boot = PeriodBootstrap(
        np.repeat(np.arange(len(first["units"])), first["matches"]),
        draws=BOOTSTRAP_DRAWS,
        seed=BOOTSTRAP_SEED,
    )
    best_sums = np.asarray(best.period_sums["log_loss"])
    for run in usable:
        sums = np.asarray(run.period_sums["log_loss"])
        interval = boot.interval_of_sums(sums)
        run.log_loss_low, run.log_loss_high = interval.low, interval.high
        worse = compare_sums(boot, sums, best_sums).b_better
        run.within_noise_of_best = run.pk == best.pk or not worse
        _score_intervals(boot, run)
    SweepRun.objects.bulk_update(
        usable,
        [
            "log_loss_low",
            "log_loss_high",
            "within_noise_of_best",
            "brier_low",
            "brier_high",
            "accuracy_low",
            "accuracy_high",
            "calibration",
        ],
    )
    if sweep.holdout_unit is not None:
        _walk_forward(sweep, usable, current)
    runner_up = min(
        (run for run in usable if run.pk != best.pk),
        key=lambda run: (run.log_loss, run.position),
        default=None,
    )
    sweep.difference = _difference(boot, best, current, runner_up)
    sweep.verdict = stored_verdict(sweep)
    return fields


def _walk_forward(sweep: Sweep, usable: list[SweepRun], current: SweepRun | None) -> None:
    """Score every run on the two parts of the history, choose the tuned run by its
    in-sample log-loss and judge it out of sample against the default and the live runs."""
    first = usable[0].period_sums
    if any(run.period_sums["units"] != first["units"] for run in usable):
        # Every run scores the same matches in the same base periods; if not, say nothing.
        logger.error("Sweep %s: runs scored different periods; no walk-forward", sweep.pk)
        return
    later, boot_in, boot_out = walk_forward.bootstraps(
        first, sweep.holdout_unit, draws=BOOTSTRAP_DRAWS, seed=BOOTSTRAP_SEED
    )
    for run in usable:
        run.in_sample = walk_forward.part_scores(run.period_sums, ~later, boot_in)
        run.out_of_sample = walk_forward.part_scores(run.period_sums, later, boot_out)
    SweepRun.objects.bulk_update(usable, ["in_sample", "out_of_sample"])
    tuned = usable[walk_forward.tuned_index([run.in_sample["log_loss"] for run in usable])]
    sweep.tuned_run = tuned
    comparisons = {}
    for name, baseline in (("default", sweep.default_run), ("live", current)):
        if baseline is None or baseline not in usable:
            continue
        entry: dict[str, Any] = {"run": baseline.pk, "same": baseline.pk == tuned.pk}
        if not entry["same"]:
            entry["out_of_sample"] = walk_forward.difference(
                boot_out, later, tuned.period_sums, baseline.period_sums
            )
            entry["in_sample"] = walk_forward.difference(
                boot_in, ~later, tuned.period_sums, baseline.period_sums
            )
        entry["outcome"] = walk_forward.outcome(entry.get("out_of_sample"))
        comparisons[name] = entry
    sweep.walk_forward = {
        "in_sample": {"matches": tuned.in_sample["matches"], "periods": tuned.in_sample["periods"]},
        "out_of_sample": {
            "matches": tuned.out_of_sample["matches"],
            "periods": tuned.out_of_sample["periods"],
        },
        "comparisons": comparisons,
    }


def _score_intervals(boot: PeriodBootstrap, run: SweepRun) -> None:
    """Set the run's Brier and accuracy intervals and each calibration decile's interval of
    the observed score, from the same replicates as its log-loss interval.

    Runs stored before these sums were kept (no ``accuracy`` or decile sums) keep no interval.
    """
    sums = run.period_sums
    for name in ("brier", "accuracy"):
        interval = boot.interval_of_sums(sums[name]) if name in sums else None
        setattr(run, f"{name}_low", interval.low if interval else None)
        setattr(run, f"{name}_high", interval.high if interval else None)
    if "decile_matches" not in sums:
        return
    rows = []
    for row, counts, observed in zip(
        run.calibration or [], sums["decile_matches"], sums["decile_observed"], strict=False
    ):
        interval = boot.interval_of_ratio(observed, counts)
        rows.append(
            {
                **row,
                "observed_low": interval.low if interval else None,
                "observed_high": interval.high if interval else None,
            }
        )
    run.calibration = rows


def _difference(
    boot: PeriodBootstrap, best: SweepRun, current: SweepRun | None, runner_up: SweepRun | None
) -> dict[str, Any]:
    """The best run's log-loss minus the current one's (its estimate and 95 % interval);
    when the current configuration scores best, the current one's minus the next best
    run's, so that its interval says how clear the lead is. Empty when nothing can be
    compared (``presentation.verdict_text`` words each case)."""
    if current is None or not current.period_sums.get("units"):
        return {}
    if current.pk == best.pk:
        if runner_up is None or not runner_up.period_sums.get("units"):
            return {}
        a, b, compared = current, runner_up, "runner-up"
    else:
        a, b, compared = best, current, "best"
    d = compare_sums(
        boot, np.asarray(a.period_sums["log_loss"]), np.asarray(b.period_sums["log_loss"])
    ).difference
    return {"compared": compared, "estimate": d.estimate, "low": d.low, "high": d.high}


def adopt_best(sweep: Sweep, *, user: Any = None) -> RatingConfig:
    """Create a new configuration version from the sweep's best run (which replays).

    Raises ``ValidationError`` when the sweep has not finished or has no successful run.
    """
    if sweep.status != Sweep.Status.COMPLETE or sweep.best_run is None:
        raise ValidationError({"sweep": [gettext("The sweep has no best run to adopt yet.")]})
    return rating_services.create_config(
        sweep.league,
        created_by=requester(user),
        note=f"Best of sweep #{sweep.pk}",
        **config_values(sweep.best_run.parameters),
    )
