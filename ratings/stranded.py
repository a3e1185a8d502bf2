"""Stranded replays: queued or running with nothing working on them.

A replay row is committed first and its message sent after; if the broker is unreachable at
that moment, or the web process dies between the two, the row waits with no message, and
every later request of its league is absorbed into it. A worker killed mid-replay leaves a
"running" row whose message the broker may never hand back.

Such a replay is recognised without asking the broker: its league's replay lock is free
(whoever holds it runs the league's queued replays before letting go) and it is either
running or has been queued longer than ``settings.REPLAY_RESEND_SECONDS`` (a message sent
normally is picked up within it unless the workers are busy with other leagues). Sending one
again is always safe: a replay runs under its league's lock and a finished one is skipped;
``claim_resend`` still bounds how often one replay is re-sent, so a replay that merely waits
behind other leagues' long replays does not collect a duplicate message at every sweep.

A claim only stands for a message that left: a re-send whose publish fails (the broker is
still unreachable) gives its claim back (``release_resend``), so the first request or sweep
after the broker's return sends the replay at once. The cool-down is two grace periods, so
even a message the broker lost (Redis restarted without its data) is sent again within
three grace periods of its claim.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.core.cache import cache
from django.db.models import Q
from django.utils import timezone

from ratings.locks import LeagueReplayLock
from ratings.models import Replay


def grace() -> dt.timedelta:
    """How long a queued replay may wait for its message before it counts as stranded."""
    return dt.timedelta(seconds=settings.REPLAY_RESEND_SECONDS)


def resend_cooldown() -> dt.timedelta:
    """How long after a re-send the same replay may be re-sent again (two grace periods)."""
    return 2 * grace()


def _claim_key(replay_id: int, queued_at: dt.datetime) -> str:
    # The moment it was queued keeps the key apart from a replay of an earlier database that
    # had the same id (test databases, a restored backup) in a cache that outlived it.
    return f"ratings:replay-resent:{replay_id}:{queued_at.timestamp()}"


def claim_resend(replay_id: int, queued_at: dt.datetime) -> bool:
    """True for the first re-send of this replay in its cool-down (per cache: shared by
    every process in production)."""
    return cache.add(
        _claim_key(replay_id, queued_at), True, timeout=resend_cooldown().total_seconds()
    )


def release_resend(replay_id: int) -> None:
    """Give back the re-send claim of replay ``replay_id`` (its message did not leave)."""
    queued_at = Replay.objects.filter(pk=replay_id).values_list("queued_at", flat=True).first()
    if queued_at is not None:
        cache.delete(_claim_key(replay_id, queued_at))


def nobody_replays(league_id: int) -> bool:
    """True when no live process holds the league's replay lock (taken and given back)."""
    lock = LeagueReplayLock(league_id)
    if not lock.acquire():
        return False
    lock.release()
    return True


def is_stranded(replay: Replay) -> bool:
    """Whether ``replay`` waits with nothing working on it (see the module's docstring)."""
    if replay.status == Replay.Status.QUEUED:
        if timezone.now() - replay.queued_at < grace():
            return False
    elif replay.status != Replay.Status.RUNNING:
        return False
    return nobody_replays(replay.config.league_id)


def stranded_replays() -> list[int]:
    """The ids of the oldest stranded replay of each league that has one.

    One per league is enough: the replay's run holds the league's lock and runs the league's
    other queued or running replays before letting it go.
    """
    candidates = (
        Replay.objects.filter(
            Q(status=Replay.Status.QUEUED, queued_at__lte=timezone.now() - grace())
            | Q(status=Replay.Status.RUNNING)
        )
        .order_by("pk")
        .values_list("pk", "config__league_id", "queued_at")
    )
    oldest: dict[int, tuple[int, dt.datetime]] = {}
    for pk, league_id, queued_at in candidates:
        oldest.setdefault(league_id, (pk, queued_at))
    return [
        pk
        for league_id, (pk, queued_at) in oldest.items()
        if nobody_replays(league_id) and claim_resend(pk, queued_at)
    ]
