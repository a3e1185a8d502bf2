"""A worker's database connection lives as a web request's does (``config/celery.py``).

Celery's Django fix-up closed every connection before and after each task; on PostgreSQL
each result's replay then paid a new server process and cold caches (docs/benchmarks.md,
"Many clubs: a connection a task"). The test drives the fix-up's own task hooks and ours,
as a worker calls them around each task.
"""

from __future__ import annotations

import time
from types import SimpleNamespace

import pytest
from celery.fixups.django import DjangoWorkerFixup
from django.conf import settings
from django.db import connection

from config.celery import _connections_as_for_a_request, app

pytestmark = pytest.mark.django_db(transaction=True)


def run_tasks(count: int, *, eager: bool = False) -> None:
    """What a worker does around ``count`` tasks: the fix-up's hooks, then ours."""
    fixup = DjangoWorkerFixup(app)
    task = SimpleNamespace(request=SimpleNamespace(is_eager=eager))
    for _ in range(count):
        fixup.on_task_prerun(task)
        _connections_as_for_a_request(task=task)
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
        fixup.on_task_postrun(task)
        _connections_as_for_a_request(task=task)


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
