"""The API's querysets: what each list and detail endpoint reads, filtered as asked.

The list endpoints page, order and serialize model instances (DRF's generic views), so
these return querysets rather than plain data; every one is scoped to the league of the
URL and fetches in the same query what its serializer reads.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from django.db.models import Q, QuerySet

from league.calendar import league_zone, local_midnight
from league.models import Event, League, Player
from ratings.models import Replay


def leagues(user: Any = None, *, organised: bool = False) -> QuerySet[League]:
    """Every league with its live version; ``organised``: only those ``user`` may change."""
    found = League.objects.select_related("publication__config")
    if not organised:
        return found
    return found.organised_by(user)


def players_of(league: League, *, active: bool | None = None) -> QuerySet[Player]:
    """The league's players; ``active`` True or False keeps only those with that flag."""
    players = Player.objects.filter(league=league)
    if active is not None:
        players = players.filter(active=active)
    return players


def matches_of(league: League) -> QuerySet[Event]:
    """The league's recorded matches (voided or not), as the void endpoint looks them up."""
    return Event.objects.matches().filter(league=league)


def any_matches_of(league: League) -> QuerySet[Event]:
    """Every recorded match of the league, one-vs-one and with sides (for voiding)."""
    return Event.objects.all_matches().filter(league=league)


def side_match_events(league: League, *, player_id: int | None = None) -> QuerySet[Event]:
    """The league's matches with sides (voided ones included), with their participants."""
    matches = (
        Event.objects.side_matches()
        .filter(league=league)
        .select_related("league", "recorded_by", "voided_by")
        .prefetch_related("participants__player")
    )
    if player_id is not None:
        matches = matches.filter(participants__player_id=player_id)
    return matches


def _in_utc(moment: dt.datetime) -> dt.datetime | None:
    """``moment`` in UTC; None when that is before the calendar's first day (the first
    moment of 1 January of year 1 east of UTC), which bounds nothing."""
    try:
        return moment.astimezone(dt.UTC)
    except OverflowError:
        return None


def match_events(
    league: League,
    *,
    player_id: int | None = None,
    date_from: dt.date | None = None,
    date_to: dt.date | None = None,
    voided: bool | None = None,
) -> QuerySet[Event]:
    """The league's recorded matches as a queryset (for the API's filtered, paged lists).

    ``date_from``/``date_to`` are local dates in the league's time zone, both inclusive;
    ``voided`` True keeps only voided matches, False only the ones that count.
    """
    tz = league_zone(league)
    matches = matches_of(league).select_related(
        "league", "player_a", "player_b", "recorded_by", "voided_by__recorded_by"
    )
    if player_id is not None:
        matches = matches.filter(Q(player_a_id=player_id) | Q(player_b_id=player_id))
    start = None if date_from is None else _in_utc(local_midnight(date_from, tz))
    if start is not None:
        matches = matches.filter(played_at__gte=start)
    # The last day of the calendar has no next day: no upper bound.
    if date_to is not None and date_to < dt.date.max:
        next_day = date_to + dt.timedelta(days=1)
        matches = matches.filter(played_at__lt=local_midnight(next_day, tz))
    if voided is not None:
        matches = matches.filter(voided_by__isnull=not voided)
    return matches


def replays_of(
    league: League, *, status: str | None = None, version: int | None = None
) -> QuerySet[Replay]:
    """The league's replays (every configuration version, or ``version``), newest first."""
    replays = (
        Replay.objects.filter(config__league=league)
        .select_related("config", "requested_by")
        .order_by("-queued_at", "-pk")
    )
    if status is not None:
        replays = replays.filter(status=status)
    if version is not None:
        replays = replays.filter(config__version=version)
    return replays
