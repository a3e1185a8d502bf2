"""Reactions of the ratings app to the write side's signals."""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from league.calendar import league_zone, local_day
from league.models import Event


def earliest_affected_day(league, events: list[Event]) -> dt.date | None:
    """Local date of the earliest match recorded or voided by ``events`` (None: no match)."""
    moments = []
    for event in events:
        if event.kind == Event.Kind.MATCH_RECORDED:
            moments.append(event.played_at)
        elif event.kind == Event.Kind.MATCH_VOIDED:
            voided = event.voids
            moments.append(voided.played_at)
    if not moments:
        return None
    return local_day(min(moments), league_zone(league))


def on_events_appended(sender, *, league, events, **kwargs) -> None:
    """Queue an incremental replay from the earliest affected period, once committed."""
    # A bulk append (league.bulk_append) names its earliest match: no need to read them all.
    earliest = kwargs.get("earliest_played_at")
    if earliest is not None:
        day = local_day(earliest, league_zone(league))
    else:
        day = earliest_affected_day(league, events)
    if day is None:
        return

    def request() -> None:
        from ratings.services import request_incremental_replay

        request_incremental_replay(league, day)

    # robust: the events are stored whatever happens here; a failure is logged, not raised
    # into the writer that committed them.
    transaction.on_commit(request, robust=True)
