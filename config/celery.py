"""The Celery application, configured from Django settings (``CELERY_*``).

A task's database connections live as a request's do (``settings.CELERY_DB_REUSE_MAX`` says
why): before and after each task, :func:`_connections_as_for_a_request` closes those that
are too old (``CONN_MAX_AGE``) or broken, and the next query checks a kept one first
(``CONN_HEALTH_CHECKS``), so a worker outlives a database restart as the web server does.
After each task, :func:`_release_session_locks` lets go of any PostgreSQL session lock the
task still held (a replay's league lock, ``ratings.locks``, is released by the replay; a
connection closed after every task used to drop one the replay could not release, and a
kept connection must not carry it into the next task). Pools of one task per process or
thread only (prefork, solo, threads): under gevent or eventlet every task's greenlet would
open a connection that nothing closes.
"""

import os
from typing import Any

from celery import Celery
from celery.signals import task_postrun, task_prerun

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Celery's Django fix-up runs every system check when a worker starts, and with them loads
# the URL configuration, every view, DRF and the schema generator (about 0.6 s of start-up)
# that a worker never uses. The checks run in CI (``manage.py check --deploy``), in the web
# server and in the tests.
os.environ.setdefault("CELERY_SKIP_CHECKS", "1")

app = Celery("league")
app.config_from_object("django.conf:settings", namespace="CELERY")
app.autodiscover_tasks()


def _in_worker(task: Any) -> bool:
    # An eager task runs inside its caller's transaction (the tests'): closing there would
    # end it. Celery's fix-up skips eager tasks for the same reason.
    return task is not None and not getattr(task.request, "is_eager", False)


@task_postrun.connect
def _release_session_locks(task: Any = None, **_: Any) -> None:
    if not _in_worker(task):
        return
    from django.db import DatabaseError, connections

    for connection in connections.all(initialized_only=True):
        if connection.vendor != "postgresql" or connection.connection is None:
            continue
        try:
            with connection.cursor() as cursor:
                cursor.execute("SELECT pg_advisory_unlock_all()")
        except DatabaseError:
            connection.close()  # the server drops a closed session's locks


@task_prerun.connect
@task_postrun.connect
def _connections_as_for_a_request(task: Any = None, **_: Any) -> None:
    if _in_worker(task):
        from django.db import close_old_connections

        close_old_connections()
