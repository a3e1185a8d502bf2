"""Backtests of instant updates: a sweep scores the update mode like any other parameter.

Every match of the instant run is predicted from both players' values just before it (the
values its update used); the expected figures are computed here from the engine's instant
fold of the league's matches, with the prediction formula of docs/glicko2.md written out.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from django.core.exceptions import ValidationError

from bench.synthetic import synthetic_league
from engine.instant import fold_instant
from engine.params import Glicko2Params
from ratings.backtest import services, tasks
from ratings.backtest.models import Sweep
from ratings.backtest.presentation import setting_label
from tests.integration.test_backtest import (
    N_MATCHES,
    N_PERIODS,
    N_PLAYERS,
    SCALE,
    SEED,
    _store,
    paper_configuration,
)


@pytest.fixture
def known() -> object:
    return synthetic_league(N_PLAYERS, N_MATCHES, N_PERIODS, seed=SEED)


@pytest.fixture
def synthetic(league, make_player, known):
    _store(league, make_player, known.matches, N_PLAYERS)
    paper_configuration(league)
    return league


def _instant_log_loss(matches, tau: float) -> float:
    """Log-loss of the predictions made just before each match, by the formula."""
    # _store plays period p's matches on day p % 7 of the period (weekly periods).
    moments = (matches.period % 7 + 1) / 7.0
    rated = fold_instant(
        matches, moments, N_PLAYERS, Glicko2Params(tau=tau), 0, int(matches.period.max())
    )
    n = len(matches)
    total = 0.0
    for i in range(n):
        ra, rda = rated.row_rating[i], rated.row_rd[i]
        rb, rdb = rated.row_rating[n + i], rated.row_rd[n + i]
        phi = math.sqrt((rda / SCALE) ** 2 + (rdb / SCALE) ** 2)
        g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
        p = 1 / (1 + math.exp(-g * (ra - rb) / SCALE))
        s = matches.score_a[i]
        total -= s * math.log(p) + (1 - s) * math.log(1 - p)
    return total / n


def test_a_sweep_scores_both_update_modes_and_adopts_the_chosen_one(synthetic, known, organiser):
    sweep = services.run_sweep_sync(synthetic, {"tau": [0.5], "update_mode": ["period", "instant"]})

    assert sweep.status == Sweep.Status.COMPLETE
    # The grid's two points (a new league's defaults, volatility 0.10, are a run of their own).
    runs = {run.parameters["update_mode"]: run for run in sweep.runs.filter(is_default=False)}
    assert set(runs) == {"period", "instant"}
    # The current configuration (τ 0.5, period updates) is the grid's period point.
    assert runs["period"].is_current
    instant = runs["instant"]
    assert instant.n_matches == N_MATCHES
    assert instant.log_loss == pytest.approx(_instant_log_loss(known.matches, 0.5), rel=1e-12)
    assert instant.log_loss != pytest.approx(runs["period"].log_loss, rel=1e-6)
    assert sum(row["count"] for row in instant.calibration) == N_MATCHES
    assert instant.log_loss_low < instant.log_loss < instant.log_loss_high
    assert setting_label(instant.parameters).endswith("· instant updates")
    assert "instant" not in setting_label(runs["period"].parameters)

    sweep.best_run = instant
    sweep.save(update_fields=["best_run"])
    config = services.adopt_best(sweep, user=organiser)
    assert config.update_mode == "instant"


@pytest.mark.parametrize("modes", [["sometimes"], ["period", 1]])
def test_a_grid_with_an_unknown_update_mode_is_refused(synthetic, modes):
    with pytest.raises(ValidationError) as caught:
        tasks.start_sweep(synthetic, {"tau": [0.5], "update_mode": modes})
    assert "update_mode" in caught.value.message_dict
    assert not Sweep.objects.exists()


def test_the_instant_runs_units_follow_the_played_order(synthetic):
    """Every run's per-period sums cover the same matches, whatever order it scores them in."""
    sweep = services.run_sweep_sync(synthetic, {"tau": [0.5], "update_mode": ["period", "instant"]})
    sums = {run.parameters["update_mode"]: run.period_sums for run in sweep.runs.all()}
    assert sums["period"]["units"] == sums["instant"]["units"]
    assert sums["period"]["matches"] == sums["instant"]["matches"]
    assert np.sum(sums["instant"]["matches"]) == N_MATCHES
