"""Reactions of the ratings app to the write side's signals."""

from __future__ import annotations

import datetime as dt

from django.db import transaction

from league.calendar import league_zone, local_day
from league.event_store.vocabulary import MatchRecorded, MatchVoided
from league.models import Event


def earliest_affected_day(league, events) -> dt.date | None:
    """Local date of the earliest match recorded or voided by ``events`` (None: no match)."""
    moments = []
    voided = []
    for event in events:
        if isinstance(event, MatchRecorded):
            moments.append(event.played_at)
        elif isinstance(event, MatchVoided):
            voided.append(event.match_id)
    if voided:
        moments.extend(Event.objects.filter(pk__in=voided).values_list("played_at", flat=True))
    if not moments:
        return None
    return local_day(min(moments), league_zone(league))


def on_events_appended(sender, *, league, events, **kwargs) -> None:
    """Queue an incremental replay from the earliest affected period, once committed."""
    day = earliest_affected_day(league, events)
    if day is None:
        return

    def request() -> None:
        from ratings.services import request_incremental_replay

        request_incremental_replay(league, day)

    # robust: the events are stored whatever happens here; a failure is logged, not raised
    # into the writer that committed them.
    transaction.on_commit(request, robust=True)
