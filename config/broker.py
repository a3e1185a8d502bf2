"""The Redis broker transport, made to survive a broker drop.

Two faults of kombu/Celery 5.7 (the newest releases; no upstream fix to pin) are handled here
and in ``config/reconnect.py``, selected by ``CELERY_BROKER_TRANSPORT``,
``CELERY_WORKER_CONSUMER`` and ``CELERY_BEAT_SCHEDULER`` in ``config/settings.py``:

- **A drop in the middle of a task kills the worker for good.** When the connection to Redis is
  lost, the consumer closes its channels twice: once through ``Connection.collect()`` (which
  then detaches the transport from its connection) and once through ``Connection.close()``.
  kombu's ``Channel.close`` first reads the BRPOP it has in flight; on a dead connection that
  read raises, so the first close stops before marking the channel closed. The second close
  then goes on to hand the unacknowledged messages back, builds a Redis client from the
  detached transport and fails with ``AttributeError: 'NoneType' object has no attribute
  'hostname'``, which no caller catches: "Unrecoverable error", and the main process exits.
  It takes an unacknowledged message, so a worker running a replay (``acks_late``) dies and
  an idle one does not. :class:`Channel` treats a connection error of that last read like an
  empty one, so the first close completes (and its failure to hand messages back to a
  server that is down is a connection error, which kombu ignores there); the message stays
  in Redis's unacknowledged set, the replay runs to its end in the pool process, and a
  redelivered copy finds it finished and does nothing.
- **Reconnecting backs off to 30 s between tries.** kombu's ``ensure_connection`` waits 2,
  4, 6 … up to 30 s between attempts and Celery gives it no setting, so a worker could come
  back up to half a minute after Redis did. ``config.reconnect`` retries every
  ``settings.BROKER_RECONNECT_SECONDS`` at most, in the worker and in beat.
"""

from __future__ import annotations

from queue import Empty

from kombu.transport import redis


class Channel(redis.Channel):
    """kombu's Redis channel, whose close completes when the connection is already dead."""

    def close(self) -> None:
        if self._in_poll:
            try:
                self._brpop_read()
            except Empty:
                pass
            except self.connection_errors:
                # The server is gone: there is nothing left to read, and the rest of the
                # close (mark the channel closed, hand back what it holds) must still run.
                pass
        super().close()


class Transport(redis.Transport):
    """kombu's Redis transport with :class:`Channel`."""

    Channel = Channel
