"""A sweep fanned out as a Celery group to two real worker processes."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest

from bench.synthetic import synthetic_league
from league.event_store.bulk import NewMatch, append_matches_bulk
from league.models import League
from league.services import register_player
from ratings.backtest import services, tasks
from ratings.backtest.models import Sweep, SweepRun
from tests.worker.conftest import wait_for

pytestmark = [pytest.mark.worker, pytest.mark.slow]

TAUS = [0.3, 0.5, 0.8, 1.2, 1.6, 2.0]


def build_league() -> League:
    league = League.objects.create(
        name="Sweep League", slug="sweep-league", start_date=dt.date(2024, 1, 1)
    )
    players = [register_player(league, f"P{i}") for i in range(20)]
    data = synthetic_league(20, 1200, 8, seed=0).matches
    append_matches_bulk(
        league,
        [
            NewMatch(
                players[a],
                players[b],
                Decimal(str(s)),
                league.start_date + dt.timedelta(days=7 * int(p)),
            )
            for p, a, b, s in zip(
                data.period, data.player_a, data.player_b, data.score_a, strict=True
            )
        ],
    )
    return league


def test_sweep_runs_on_two_workers_and_the_last_run_completes_it(worker_factory):
    first, second = worker_factory(), worker_factory()
    league = build_league()

    sweep = tasks.start_sweep(league, {"tau": TAUS})
    wait_for(
        lambda: Sweep.objects.filter(pk=sweep.pk, status=Sweep.Status.COMPLETE).exists(),
        120,
        "the sweep to complete on the workers",
    )

    sweep.refresh_from_db()
    runs = list(sweep.runs.all())
    assert sweep.runs_done == sweep.runs_total == len(runs) == len(TAUS)
    assert all(run.status == SweepRun.Status.COMPLETE and run.attempts == 1 for run in runs)
    assert sweep.best_run == min(runs, key=lambda run: (run.log_loss, run.position))
    # The defaults' τ 0.5 is in the grid: that run is the current configuration's.
    assert [run.parameters["tau"] for run in runs if run.is_current] == [0.5]
    # The workers computed exactly what this process computes for the same grid, the
    # yardsticks, the bootstrap intervals and the verdict included.
    local_sweep = services.run_sweep_sync(league, {"tau": TAUS})
    local = {run.parameters["tau"]: run for run in local_sweep.runs.all()}
    assert sweep.verdict == local_sweep.verdict
    for run in runs:
        twin = local[run.parameters["tau"]]
        assert (run.log_loss, run.brier, run.accuracy, run.elo_log_loss) == (
            twin.log_loss,
            twin.brier,
            twin.accuracy,
            twin.elo_log_loss,
        )
        assert (run.log_loss_low, run.log_loss_high, run.within_noise_of_best) == (
            twin.log_loss_low,
            twin.log_loss_high,
            twin.within_noise_of_best,
        )
        assert (run.glicko_log_loss, run.glicko_c) == (twin.glicko_log_loss, twin.glicko_c)
    logs = first.log.read_text() + second.log.read_text()
    assert logs.count("backtest.score_sweep_run") >= len(TAUS)
