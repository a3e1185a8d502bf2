"""Celery side of a sweep: the task scoring one grid point, and starting a sweep on workers.

The work is in ``ratings.backtest.services``; this module imports it, never the other way.
"""

from __future__ import annotations

from typing import Any

from celery import group, shared_task
from django.db import transaction

from league.models import League
from ratings.backtest import services
from ratings.backtest.models import Sweep


@shared_task(name="backtest.score_sweep_run", acks_late=True, reject_on_worker_lost=True)
def score_sweep_run(*, run_id: int) -> None:
    """Score the sweep run ``run_id`` and record its figures and the sweep's progress."""
    services.score_run(run_id)


def start_sweep(league: League, grid: Any, *, requested_by: Any = None, **holdout: Any) -> Sweep:
    """Store a sweep and its runs, and send one task per run (a group) once committed.

    ``holdout`` takes ``services.create_sweep``'s walk-forward arguments. Raises
    ``ValidationError`` (dict of field -> messages) for a bad grid, a bad cut or a league
    without matches; nothing is stored or sent then.
    """
    with transaction.atomic():
        sweep, runs = services.create_sweep(league, grid, requested_by=requested_by, **holdout)
        job = group(score_sweep_run.si(run_id=run.pk) for run in runs)
        transaction.on_commit(job.apply_async)
    return sweep
