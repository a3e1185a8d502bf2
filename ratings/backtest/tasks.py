"""Celery task of a sweep: score one grid point (thin: the work is in the services)."""

from __future__ import annotations

from celery import shared_task

from ratings.backtest import services


@shared_task(name="backtest.score_sweep_run", acks_late=True, reject_on_worker_lost=True)
def score_sweep_run(*, run_id: int) -> None:
    """Score the sweep run ``run_id`` and record its figures and the sweep's progress."""
    services.score_run(run_id)
