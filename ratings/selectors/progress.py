"""A league's replays as the pages, the API and the commands report them: the latest one,
its progress and its outcome, as plain data."""

from __future__ import annotations

from typing import Any

from django.utils import timezone

from league.models import League
from ratings.models import Publication, Replay

#: The statuses of a replay still to finish.
ACTIVE = (Replay.Status.QUEUED, Replay.Status.RUNNING)


def league_progress(league: League) -> dict[str, Any] | None:
    """The league's latest replay as plain data (None when it never had one).

    A replay in progress is preferred over a more recent finished one.
    """
    replays = Replay.objects.filter(config__league=league).select_related("config")
    replay = (
        replays.filter(status__in=ACTIVE).order_by("pk").first() or replays.order_by("-pk").first()
    )
    if replay is None:
        return None
    published = (
        Publication.objects.filter(league=league).values_list("config_id", flat=True).first()
    )
    end = replay.finished_at or timezone.now()
    elapsed = (end - replay.started_at).total_seconds() if replay.started_at else None
    return {
        "replay_id": replay.pk,
        "kind": replay.kind,
        "status": replay.status,
        "in_progress": replay.status in ACTIVE,
        "periods_done": replay.periods_done,
        "periods_total": replay.periods_total,
        "elapsed_seconds": elapsed,
        "error": replay.error,
        "attempts": replay.attempts,
        "config_version": replay.config.version,
        "live": replay.config_id == published,
        "timings": replay.timings,
    }
