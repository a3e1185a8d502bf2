"""Periodic sweeps run by Celery beat that keep every league's standings moving.

``ratings.tasks.resend_stranded_replays`` re-sends replays whose message was lost. This
module covers the other loss: a web process that died after committing a result but before
committing the replay request its commit was to queue leaves no replay row at all. The
sweep finds each league whose live projection has not read the league's latest rating fact
while nothing is queued or running for it, and requests a catch-up as a new result would.

It lives apart from ``ratings.tasks`` because it goes through ``ratings.services``, which
sends ``ratings.tasks``' replay task.
"""

from __future__ import annotations

import logging

from celery import shared_task
from django.db.models import Max, OuterRef, Subquery
from django.utils import timezone

from league.models import RATING_KINDS, Event, League
from ratings.models import ProjectionState, Replay
from ratings.selectors.progress import ACTIVE
from ratings.services import request_catch_up
from ratings.stranded import grace

logger = logging.getLogger(__name__)


def lagging_leagues() -> list[League]:
    """Leagues whose standings are behind their latest rating fact with no replay queued or
    running: the live projection has not read it, or nothing is published at all. A league
    whose latest such fact is younger than the grace period is left to the writer's own
    request, about to commit."""
    latest = (
        Event.objects.filter(league=OuterRef("pk"), kind__in=RATING_KINDS)
        .values("league_id")
        .annotate(top=Max("seq"))
        .values("top")
    )
    position = ProjectionState.objects.filter(config_id=OuterRef("publication__config_id")).values(
        "through_seq"
    )
    leagues = League.objects.annotate(
        latest_seq=Subquery(latest), through_seq=Subquery(position)
    ).filter(latest_seq__isnull=False)
    cutoff = timezone.now() - grace()
    found = []
    for league in leagues:
        if league.through_seq is not None and league.latest_seq <= league.through_seq:
            continue
        if Replay.objects.filter(config__league=league, status__in=ACTIVE).exists():
            continue
        newest = Event.objects.filter(league=league, seq=league.latest_seq).first()
        if newest is not None and newest.recorded_at > cutoff:
            continue
        found.append(league)
    return found


@shared_task(ignore_result=True)
def catch_up_lagging_leagues() -> int:
    """Request a catch-up for every lagging league; return how many were behind."""
    leagues = lagging_leagues()
    for league in leagues:
        logger.warning(
            "%s: the live standings are behind the event log and no replay is queued; "
            "requesting a catch-up.",
            league.slug,
        )
        try:
            request_catch_up(league)
        except Exception:
            # One league's failure must not leave the others behind; the next sweep retries.
            logger.exception("%s: the catch-up request failed", league.slug)
    return len(leagues)
