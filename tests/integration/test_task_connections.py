"""A worker's database connection lives as a web request's does (``config/celery.py``).

Celery's Django fix-up closed every connection before and after each task; on PostgreSQL
each result's replay then paid a new server process and cold caches (docs/benchmarks.md,
"Many clubs at 20 results a second"). The tests send Celery's own task signals, as a
worker does around each task, and call the fix-up's hooks (a worker connects them when it
starts; this process is not a worker).
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from celery.fixups.django import DjangoWorkerFixup
from celery.signals import task_postrun, task_prerun
from django.conf import settings
from django.db import connection

from config.celery import app
from ratings.locks import LeagueReplayLock

pytestmark = pytest.mark.django_db(transaction=True)


class Task:
    """The part of a Celery task the hooks read (a signal's sender must be hashable)."""

    def __init__(self, *, eager: bool) -> None:
        self.request = SimpleNamespace(is_eager=eager)


def run_tasks(count: int, *, eager: bool = False, body=None) -> None:
    """What a worker does around ``count`` tasks: the fix-up's hooks and the signals."""
    fixup = DjangoWorkerFixup(app)
    task = Task(eager=eager)
    for number in range(count):
        fixup.on_task_prerun(task)
        task_prerun.send(sender=task, task_id=str(number), task=task, args=(), kwargs={})
        if body is None:
            with connection.cursor() as cursor:
                cursor.execute("SELECT 1")
        else:
            body()
        fixup.on_task_postrun(task)
        task_postrun.send(
            sender=task, task_id=str(number), task=task, args=(), kwargs={}, retval=None
        )


def test_the_fix_up_reads_the_reuse_setting():
    assert DjangoWorkerFixup(app).db_reuse_max == settings.CELERY_DB_REUSE_MAX


def test_a_task_keeps_the_connection_a_request_would_keep():
    connection.ensure_connection()
    first = connection.connection
    run_tasks(5)
    if settings.DATABASES["default"]["CONN_MAX_AGE"]:
        # PostgreSQL (``CONN_MAX_AGE`` 60 s): the same connection, from task to task.
        assert connection.connection is first
    else:
        # SQLite: closed after every task, as after every request.
        assert connection.connection is None


def test_a_connection_past_its_age_is_closed_between_tasks():
    connection.ensure_connection()
    first = connection.connection
    connection.close_at = time.monotonic() - 1
    run_tasks(1)
    # Closed before the task, which ran on a new one.
    connection.ensure_connection()
    assert connection.connection is not first


def test_an_eager_task_never_closes_its_callers_connection():
    connection.ensure_connection()
    first = connection.connection
    connection.close_at = time.monotonic() - 1
    run_tasks(2, eager=True)
    assert connection.connection is first


@pytest.mark.postgres
def test_a_league_lock_left_by_a_task_is_not_carried_into_the_next(league):
    # A replay releases its league's lock itself; one it could not release (interrupted
    # between taking it and noting it) must not outlive the task on a kept connection.
    run_tasks(1, body=lambda: LeagueReplayLock(league.pk).acquire())
    assert connection.connection is not None  # kept
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT count(*) FROM pg_locks WHERE locktype = 'advisory' AND pid = pg_backend_pid()"
        )
        assert cursor.fetchone() == (0,)
