"""The Celery worker's consumer: back on the broker within seconds of its return.

kombu's ``Connection.ensure_connection`` waits 2, 4, 6 … up to 30 s between attempts to reach
the broker and Celery's consumer offers no setting for it, so a worker could come back up to
half a minute after Redis did, and every league's standings with it. :class:`Consumer` (the
``CELERY_WORKER_CONSUMER`` setting) tries every ``settings.BROKER_RECONNECT_SECONDS`` at most.
Retrying never stops (``CELERY_BROKER_CONNECTION_MAX_RETRIES = None``).
"""

from __future__ import annotations

import functools
from typing import Any

from celery.worker.consumer import Consumer as CeleryConsumer
from django.conf import settings


class Consumer(CeleryConsumer):
    """Celery's worker consumer, reconnecting every ``BROKER_RECONNECT_SECONDS`` at most."""

    def ensure_connected(self, conn: Any) -> Any:
        interval = settings.BROKER_RECONNECT_SECONDS
        conn.ensure_connection = functools.partial(
            conn.ensure_connection,
            interval_start=min(1.0, interval),
            interval_step=1.0,
            interval_max=interval,
        )
        return super().ensure_connected(conn)
