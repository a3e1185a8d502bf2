"""The backtest's verdict: plain words for a difference within noise, and for a real one.

Two leagues with known truths. In the first, players of fixed strength meet about once a
week: the volatility barely moves, so τ = 0.3 and τ = 0.5 predict almost the same and the
bootstrap over periods must call the difference noise ("no meaningful difference; keep the
current value"). In the second, the first-named side wins far more often than strength alone
says: a sweep over the advantage must find it and say it predicts meaningfully better. The
expected intervals are recomputed here from the runs' own per-match predictions, not read
from the verdict.
"""

from __future__ import annotations

import datetime as dt
import math
import random
from decimal import Decimal

import numpy as np
import pytest

from engine.bootstrap import PeriodBootstrap
from league.event_store.bulk import NewMatch, append_matches_bulk
from league.models import League
from ratings import services as rating_services
from ratings.backtest import services
from ratings.backtest.models import SweepRun

START = dt.date(2023, 1, 2)


def _league(organiser, slug: str) -> League:
    league = League.objects.create(name=slug.title(), slug=slug, time_zone="UTC", start_date=START)
    league.organisers.add(organiser)
    return league


def _play(league, make_player, *, weeks: int, players: int, home_edge: float, seed: int):
    """Round after round of random pairings; the first-named side gets ``home_edge`` Elo
    points of true advantage (none on neutral ground, every fifth match)."""
    rng = random.Random(seed)
    people = [make_player(league, f"Player {i:02d}") for i in range(players)]
    strength = [rng.gauss(0, 200) for _ in people]
    rows = []
    for week in range(weeks):
        order = list(range(players))
        rng.shuffle(order)
        for k in range(0, players - 1, 2):
            a, b = order[k], order[k + 1]
            neutral = rng.random() < 0.2
            edge = strength[a] - strength[b] + (0 if neutral else home_edge)
            p_win = 1 / (1 + 10 ** (-edge / 400))
            score = "1" if rng.random() < p_win else "0"
            rows.append(
                NewMatch(
                    player_a=people[a],
                    player_b=people[b],
                    score_a=Decimal(score),
                    played=START + dt.timedelta(days=7 * week + rng.randrange(7)),
                    neutral=neutral,
                )
            )
    append_matches_bulk(league, rows)


def test_two_indistinguishable_taus_are_called_noise(organiser, make_player):
    league = _league(organiser, "steady")
    _play(league, make_player, weeks=40, players=16, home_edge=0.0, seed=5)
    rating_services.create_config(league, tau=0.5, period_length=7)

    sweep = services.run_sweep_sync(league, {"tau": [0.3]})

    runs = {run.parameters["tau"]: run for run in sweep.runs.all()}
    assert set(runs) == {0.3, 0.5}
    current, other = runs[0.5], runs[0.3]
    assert current.is_current
    assert sweep.current_run == current
    # The two τ values do predict differently, by a hair.
    assert current.log_loss != other.log_loss
    assert abs(current.log_loss - other.log_loss) < 1e-3
    assert sweep.verdict.startswith("No meaningful difference; keep the current value.")
    low, high = sweep.difference["low"], sweep.difference["high"]
    assert low < 0 < high
    # Best minus current, or (when the current one is best) current minus the other.
    first, second = (current, other) if sweep.best_run == current else (other, current)
    assert sweep.difference["estimate"] == pytest.approx(
        first.log_loss - second.log_loss, abs=1e-12
    )
    assert all(run.within_noise_of_best for run in runs.values())


def test_a_real_home_advantage_is_called_meaningfully_better(organiser, make_player):
    league = _league(organiser, "home-fortress")
    _play(league, make_player, weeks=40, players=16, home_edge=250.0, seed=6)
    rating_services.create_config(league, tau=0.5, period_length=7)

    sweep = services.run_sweep_sync(league, {"tau": [0.5], "advantage": [0, 100, 200]})

    runs = {run.parameters["advantage"]: run for run in sweep.runs.all()}
    assert set(runs) == {0.0, 100.0, 200.0}  # advantage 0 is the current configuration
    assert runs[0.0].is_current
    assert sweep.best_run.parameters["advantage"] > 0
    assert sweep.verdict.startswith("The best setting predicts meaningfully better")
    assert sweep.difference["high"] < 0
    assert runs[0.0].within_noise_of_best is False
    # The yardsticks were scored beside Glicko-2 with the same advantage.
    assert all(run.glicko_log_loss is not None for run in runs.values())
    assert runs[200.0].elo_log_loss < runs[0.0].elo_log_loss


def test_intervals_are_a_bootstrap_over_the_base_periods(organiser, make_player):
    """Each run's interval and the verdict's difference, recomputed from the predictions."""
    league = _league(organiser, "recomputed")
    _play(league, make_player, weeks=30, players=12, home_edge=120.0, seed=7)
    config = rating_services.create_config(league, tau=0.5, period_length=7)

    sweep = services.run_sweep_sync(league, {"tau": [0.5], "advantage": [120]})

    current = sweep.runs.get(is_current=True)
    other = sweep.runs.get(is_current=False)
    sums = current.period_sums
    # One unit per weekly period with matches; every match counted once.
    assert sum(sums["matches"]) == current.n_matches == 30 * 6
    assert len(sums["units"]) == 30
    assert sum(sums["log_loss"]) / current.n_matches == pytest.approx(current.log_loss, rel=1e-12)
    boot = PeriodBootstrap(
        np.repeat(np.arange(len(sums["units"])), sums["matches"]),
        draws=services.BOOTSTRAP_DRAWS,
        seed=services.BOOTSTRAP_SEED,
    )
    for run in (current, other):
        interval = boot.interval_of_sums(run.period_sums["log_loss"])
        assert (run.log_loss_low, run.log_loss_high) == pytest.approx(
            (interval.low, interval.high), abs=1e-12
        )
        assert run.log_loss_low < run.log_loss < run.log_loss_high
        _assert_score_intervals(run, boot)
    best = sweep.best_run
    difference = boot.interval_of_sums(
        np.asarray(best.period_sums["log_loss"]) - np.asarray(current.period_sums["log_loss"])
    )
    assert best.pk != current.pk  # a real advantage of 120: modelling it is better
    assert sweep.difference == {
        "compared": "best",
        "estimate": pytest.approx(difference.estimate, abs=1e-12),
        "low": pytest.approx(difference.low, abs=1e-12),
        "high": pytest.approx(difference.high, abs=1e-12),
    }
    assert config.version == 1
    assert SweepRun.objects.filter(sweep=sweep).count() == 2
    assert math.isfinite(current.log_loss)


def _assert_score_intervals(run: SweepRun, boot: PeriodBootstrap) -> None:
    """The run's Brier, accuracy and per-decile observed intervals: the stored per-period
    sums add up to the run's own scores and calibration table, and each stored interval is
    the one of the same bootstrap (tolerance 1e-12)."""
    sums = run.period_sums
    assert sum(sums["brier"]) / run.n_matches == pytest.approx(run.brier, rel=1e-12)
    assert sum(sums["accuracy"]) / run.n_matches == pytest.approx(run.accuracy, rel=1e-12)
    for name in ("brier", "accuracy"):
        interval = boot.interval_of_sums(sums[name])
        low, high = getattr(run, f"{name}_low"), getattr(run, f"{name}_high")
        assert (low, high) == pytest.approx((interval.low, interval.high), abs=1e-12)
        assert low < getattr(run, name) < high
    assert len(run.calibration) == len(sums["decile_matches"]) == 10
    with_matches = 0
    for row, counts, observed in zip(
        run.calibration, sums["decile_matches"], sums["decile_observed"], strict=True
    ):
        assert sum(counts) == row["count"]
        if not row["count"]:
            assert row["observed_low"] is None
            continue
        with_matches += 1
        assert sum(observed) / sum(counts) == pytest.approx(row["observed"], rel=1e-12)
        interval = boot.interval_of_ratio(observed, counts)
        assert (row["observed_low"], row["observed_high"]) == pytest.approx(
            (interval.low, interval.high), abs=1e-12
        )
        assert 0.0 <= row["observed_low"] <= row["observed"] <= row["observed_high"] <= 1.0
    assert with_matches >= 3
