"""Where a league's public pages stand: the positions their content is derived from.

A leaderboard, a player page or the home page changes only when one of these moves: the
league's own fields; its event log (a result, a void, a player registered, renamed or
(de)activated: every write appends an event); the published standings, which only a
replay changes, and only when it finishes (the runner publishes a version and records
how far its projection has folded the log in the transaction that marks the replay
finished), hence the newest finished replay and the newest projection position; the
replay banner (a replay queued or running, and its progress); and the league's local
date (the current rating period, and with it every RD shown, follows the clock; with the
log fixed, the date fixes the period). All of it is read in one statement, without
computing any standings and without reading the publication a second time (the page
itself reads it), so that a page cache can be keyed by it: a new publication or an
incremental replay is a new state, hence a new key, and nothing has to be invalidated.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from typing import Any

from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone

from league.calendar import local_day
from league.models import Event, League
from ratings.models import ProjectionState, Replay
from ratings.services import ACTIVE

#: Every column of the league, in model order (the row is also the page's ``League``).
_LEAGUE = tuple(field.attname for field in League._meta.concrete_fields)
_EVENT = ("seq", "recorded_at")
_FINISHED = ("pk", "status", "through_seq", "finished_at")
_PROJECTION = ("config_id", "through_seq", "through_period", "computed_at", "complete")
_ACTIVE = ("pk", "status", "periods_done", "periods_total", "attempts")


@dataclass(frozen=True)
class LeagueState:
    """One league's position: everything its public pages are derived from.

    ``parts`` is an opaque tuple of plain values, equal for two reads exactly when no
    input of the pages changed in between; ``last_modified`` is the latest stored moment
    among them (the last finished replay, the projection's computation, the last event).
    ``league`` is the league itself, read by the same statement, for the page to reuse.
    """

    league: League = field(compare=False, repr=False)
    parts: tuple[object, ...]
    last_modified: dt.datetime | None


def _with_positions(leagues: QuerySet[League]) -> QuerySet:
    """``leagues`` as rows of their fields, last event, replays and newest projection."""
    league = OuterRef("pk")
    last_event = Event.objects.filter(league=league).order_by("-seq")
    replays = Replay.objects.filter(config__league=league)
    finished = replays.filter(finished_at__isnull=False).order_by("-finished_at", "-pk")
    # The banner shows the oldest replay still to finish (ratings.services.league_progress).
    active = replays.filter(status__in=ACTIVE).order_by("pk")
    projection = ProjectionState.objects.filter(config__league=league).order_by(
        "-computed_at", "-config_id"
    )
    sources = (
        ("event", last_event, _EVENT),
        ("finished", finished, _FINISHED),
        ("projection", projection, _PROJECTION),
        ("active", active, _ACTIVE),
    )
    annotations = {
        f"{prefix}_{name}": Subquery(rows.values(name)[:1])
        for prefix, rows, names in sources
        for name in names
    }
    return leagues.annotate(**annotations).values_list(*_LEAGUE, *annotations, named=True)


def _state(row: Any, now: dt.datetime, db: str) -> LeagueState:
    """The state of one row of :func:`_with_positions`, on the league's date at ``now``."""
    moments = [
        moment
        for moment in (
            row.finished_finished_at,
            row.projection_computed_at,
            row.event_recorded_at,
        )
        if moment is not None
    ]
    today = local_day(now, row.time_zone)
    return LeagueState(
        league=League.from_db(db, _LEAGUE, row[: len(_LEAGUE)]),
        parts=(*(_plain(value) for value in row), today.isoformat()),
        last_modified=max(moments) if moments else None,
    )


def _plain(value: object) -> object:
    """A value as it goes into a cache key: moments and dates as ISO text."""
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return value


def league_state(slug: str, *, now: dt.datetime | None = None) -> LeagueState | None:
    """The position of the league called ``slug``, or None when there is none."""
    rows = _with_positions(League.objects.filter(slug=slug))
    row = rows.first()
    return None if row is None else _state(row, now or timezone.now(), rows.db)


def site_state(*, now: dt.datetime | None = None) -> tuple[LeagueState, ...]:
    """The position of every league, by primary key (the home page shows them all)."""
    now = now or timezone.now()
    rows = _with_positions(League.objects.order_by("pk"))
    return tuple(_state(row, now, rows.db) for row in rows)
