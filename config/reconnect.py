"""Celery's worker and beat, back on the broker within seconds of its return.

kombu's ``Connection.ensure_connection`` waits 2, 4, 6 … up to 30 s between attempts to reach
the broker, and Celery gives neither the worker's consumer nor beat a setting for it: after a
long outage a worker could come back up to half a minute after Redis did (and every league's
standings with it), and so could beat's sweeps when its first connection fell in the outage.
:class:`Consumer` (``CELERY_WORKER_CONSUMER``) and :class:`Scheduler`
(``CELERY_BEAT_SCHEDULER``) try every ``settings.BROKER_RECONNECT_SECONDS`` at most, and never
give up (``CELERY_BROKER_CONNECTION_MAX_RETRIES = None``).
"""

from __future__ import annotations

import functools
from typing import Any

from celery import beat
from celery.worker.consumer import Consumer as CeleryConsumer
from django.conf import settings


def reconnect_quickly(connection: Any) -> Any:
    """``connection`` (a kombu connection), retrying every ``BROKER_RECONNECT_SECONDS``."""
    interval = settings.BROKER_RECONNECT_SECONDS
    connection.ensure_connection = functools.partial(
        connection.ensure_connection,
        interval_start=min(1.0, interval),
        interval_step=1.0,
        interval_max=interval,
    )
    return connection


class Consumer(CeleryConsumer):
    """Celery's worker consumer, reconnecting every ``BROKER_RECONNECT_SECONDS`` at most."""

    def ensure_connected(self, conn: Any) -> Any:
        return super().ensure_connected(reconnect_quickly(conn))


class Scheduler(beat.Scheduler):
    """Celery beat's in-memory scheduler, connecting every ``BROKER_RECONNECT_SECONDS`` at most.

    In memory: beat's first sweep comes one period after it starts, never a burst for the
    time it was stopped (there is nothing to persist for a sweep this frequent).
    """

    def _ensure_connected(self) -> Any:
        reconnect_quickly(self.connection)
        return super()._ensure_connected()
