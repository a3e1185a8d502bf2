"""Where a league's public pages stand: the positions their content is derived from.

A leaderboard, a player page or the home page changes only when one of these moves: the
league's own fields; its event log (a result, a void, a player registered, renamed or
(de)activated: every write appends an event); the published standings, which only a
replay changes, and only when it finishes (the runner publishes a version and records
how far its projection has folded the log in the transaction that marks the replay
finished), hence the newest finished replay and the newest projection position; the
replay banner (a replay queued or running, and its progress); its seasons (their names,
dates and archived tables); the league's ranking rules (who is ranked,
``ratings.eligibility``: saving them stamps ``updated_at``); and the league's local
date (the current rating period, and with it every RD shown, follows the clock; with the
log fixed, the date fixes the period); and the newest coverage measurement of its
configurations (shown beside every interval's level, stored after a replay completes).
All of it is read in one statement, without computing any standings and without reading
the publication a second time (the page itself reads it), so that a page cache can be
keyed by it: a new publication or an incremental replay is a new state, hence a new key,
and nothing has to be invalidated.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass, field
from functools import cache

from django.db import router
from django.db.models import OuterRef, QuerySet, Subquery
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from league.calendar import local_day
from league.models import Event, League, Season
from ratings.models import IntervalCoverage, ProjectionState, RankingRules, Replay
from ratings.selectors.progress import ACTIVE

#: Every column of the league, in model order (the row is also the page's ``League``).
_LEAGUE = tuple(field.attname for field in League._meta.concrete_fields)
_EVENT = ("seq", "recorded_at")
_FINISHED = ("pk", "status", "through_seq", "finished_at")
_PROJECTION = ("config_id", "through_seq", "through_period", "computed_at", "complete")
_ACTIVE = ("pk", "status", "periods_done", "periods_total", "attempts")
_RULES = ("updated_at",)
_SEASON = ("pk", "updated_at")
_COVERAGE = ("config_id", "measured_at")


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
    # The banner shows the oldest replay still to finish (ratings.selectors.progress).
    active = replays.filter(status__in=ACTIVE).order_by("pk")
    projection = ProjectionState.objects.filter(config__league=league).order_by(
        "-computed_at", "-config_id"
    )
    # Every change of a season (created, edited, closed, re-derived) moves its updated_at.
    season = Season.objects.filter(league=league).order_by("-updated_at", "-pk")
    # A measurement stored after its replay finished changes what the pages say of coverage.
    coverage = IntervalCoverage.objects.filter(config__league=league).order_by(
        "-measured_at", "-config_id"
    )
    sources = (
        ("season", season, _SEASON),
        ("event", last_event, _EVENT),
        ("finished", finished, _FINISHED),
        ("projection", projection, _PROJECTION),
        ("active", active, _ACTIVE),
        ("rules", RankingRules.objects.filter(league=league), _RULES),
        ("coverage", coverage, _COVERAGE),
    )
    annotations = {
        f"{prefix}_{name}": Subquery(rows.values(name)[:1])
        for prefix, rows, names in sources
        for name in names
    }
    return leagues.annotate(**annotations).values(*_LEAGUE, *annotations)


#: Stands for the slug while the one-league statement is compiled.
_SLUG = "\x00slug"


@cache
def _statement(alias: str, *, one: bool) -> tuple[str, tuple[object, ...], tuple[str, ...]]:
    """The SQL of :func:`_with_positions` on ``alias``, compiled once per process.

    Compiling a statement with sixteen subqueries costs the ORM several milliseconds,
    more than running it; a cached page is served in less than that.
    """
    leagues = League.objects.using(alias)
    rows = _with_positions(leagues.filter(slug=_SLUG) if one else leagues.order_by("pk"))
    sql, params = rows.query.sql_with_params()
    return sql, params, tuple(rows.query.values_select) + tuple(rows.query.annotation_select)


def _read(alias: str, *, slug: str | None = None) -> list[League]:
    """Leagues (one by ``slug``, or all) with their positions as extra attributes."""
    sql, params, _ = _statement(alias, one=slug is not None)
    if slug is not None:
        params = tuple(slug if param == _SLUG else param for param in params)
    return list(League.objects.using(alias).raw(sql, params))


def _moment(value: object) -> dt.datetime | None:
    """A stored moment as an aware datetime (SQLite hands extra columns back as text)."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if isinstance(value, dt.datetime) and timezone.is_naive(value):
        value = timezone.make_aware(value, dt.UTC)
    return value if isinstance(value, dt.datetime) else None


def _state(league: League, now: dt.datetime, columns: tuple[str, ...]) -> LeagueState:
    """The state of one league read by :func:`_read`, on the league's date at ``now``."""
    moments = [
        _moment(getattr(league, name))
        for name in (
            "finished_finished_at",
            "projection_computed_at",
            "event_recorded_at",
            "coverage_measured_at",
        )
    ]
    known = [moment for moment in moments if moment is not None]
    today = local_day(now, league.time_zone)
    return LeagueState(
        league=league,
        parts=(*(_plain(getattr(league, name)) for name in columns), today.isoformat()),
        last_modified=max(known) if known else None,
    )


def _plain(value: object) -> object:
    """A value as it goes into a cache key: moments and dates as ISO text."""
    if isinstance(value, dt.date | dt.datetime):
        return value.isoformat()
    return value


def league_state(slug: str, *, now: dt.datetime | None = None) -> LeagueState | None:
    """The position of the league called ``slug``, or None when there is none."""
    alias = router.db_for_read(League)
    leagues = _read(alias, slug=slug)
    columns = _statement(alias, one=True)[2]
    return _state(leagues[0], now or timezone.now(), columns) if leagues else None


def site_state(*, now: dt.datetime | None = None) -> tuple[LeagueState, ...]:
    """The position of every league, by primary key (the home page shows them all)."""
    alias = router.db_for_read(League)
    columns = _statement(alias, one=False)[2]
    now = now or timezone.now()
    return tuple(_state(league, now, columns) for league in _read(alias))
