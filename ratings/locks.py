"""At most one replay per league at a time.

PostgreSQL: a session-level advisory lock keyed by the league id (``pg_try_advisory_lock``);
the server drops it when the holder's connection dies, so a killed worker frees it at once.
SQLite: a ``ReplayLease`` row taken inside an IMMEDIATE transaction (the database's single
write lock makes the check-and-take atomic), renewed while the replay runs and expiring
``settings.REPLAY_LEASE_SECONDS`` after the last renewal when the holder died.
"""

from __future__ import annotations

import datetime as dt
import math
import time
import uuid

from django.conf import settings
from django.db import connection, transaction
from django.utils import timezone

from ratings.models import ReplayLease

#: Seconds within which a renewed lease is not renewed again (see ``renew``).
RENEW_AGAIN_SECONDS = 1.0
#: First key of the advisory lock pair: "replay" locks, apart from any other advisory lock.
ADVISORY_NAMESPACE = 0x52504C59 & 0x7FFFFFFF


class LockLost(RuntimeError):
    """The lease expired and another replay may have taken it: the work must not be published."""


def _uses_advisory_locks() -> bool:
    return connection.vendor == "postgresql"


def _league_key(league_id: int) -> int:
    return int(league_id) & 0x7FFFFFFF


class LeagueReplayLock:
    """The replay lock of one league, held by this process until :meth:`release`."""

    def __init__(self, league_id: int) -> None:
        self.league_id = int(league_id)
        self.token = uuid.uuid4().hex
        self.held = False
        #: ``time.monotonic()`` when the lease was last taken or renewed (SQLite).
        self.renewed_at = -math.inf

    def acquire(self) -> bool:
        """Take the lock if it is free; True when this object now holds it."""
        if _uses_advisory_locks():
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_try_advisory_lock(%s, %s)",
                    [ADVISORY_NAMESPACE, _league_key(self.league_id)],
                )
                self.held = bool(cursor.fetchone()[0])
            return self.held
        now = timezone.now()
        with transaction.atomic():
            lease = ReplayLease.objects.filter(league_id=self.league_id).first()
            if lease is not None and lease.holder != self.token and lease.expires_at > now:
                return False
            ReplayLease.objects.update_or_create(
                league_id=self.league_id,
                defaults={"holder": self.token, "expires_at": self._expiry(now)},
            )
        self.held = True
        self.renewed_at = time.monotonic()
        return True

    def renew(self) -> None:
        """Extend the lease (SQLite); raise LockLost if another holder took it over."""
        if not self.held or _uses_advisory_locks():
            return
        # A lease renewed a moment ago cannot have expired, so nobody can have taken it: a
        # second renewal within a tenth of its length (at most a second) is skipped. A
        # one-result replay renewed twice in a millisecond (its progress, then its write).
        since = time.monotonic() - self.renewed_at
        if since < min(RENEW_AGAIN_SECONDS, settings.REPLAY_LEASE_SECONDS / 10):
            return
        now = timezone.now()
        renewed = ReplayLease.objects.filter(league_id=self.league_id, holder=self.token).update(
            expires_at=self._expiry(now)
        )
        if not renewed:
            self.held = False
            raise LockLost(f"The replay lease of league {self.league_id} was taken over.")
        self.renewed_at = time.monotonic()

    def check_in_transaction(self) -> None:
        """Inside the publishing transaction: make sure the lock is still ours."""
        if _uses_advisory_locks():
            return
        still = ReplayLease.objects.filter(
            league_id=self.league_id, holder=self.token, expires_at__gt=timezone.now()
        ).exists()
        if not still:
            raise LockLost(f"The replay lease of league {self.league_id} expired.")

    def release(self) -> None:
        """Give the lock back (safe to call when not held)."""
        if not self.held:
            return
        self.held = False
        if _uses_advisory_locks():
            with connection.cursor() as cursor:
                cursor.execute(
                    "SELECT pg_advisory_unlock(%s, %s)",
                    [ADVISORY_NAMESPACE, _league_key(self.league_id)],
                )
            return
        ReplayLease.objects.filter(league_id=self.league_id, holder=self.token).delete()

    @staticmethod
    def _expiry(now: dt.datetime) -> dt.datetime:
        return now + dt.timedelta(seconds=settings.REPLAY_LEASE_SECONDS)

    def __enter__(self) -> LeagueReplayLock:
        return self

    def __exit__(self, *exc: object) -> None:
        self.release()
