"""The configuration read model: versions, the published one, replays and period pickers."""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass

from django.db import connection

from league.models import League
from ratings.models import PlayerPeriod, ProjectionState, Publication, RatingConfig, Replay
from ratings.selectors.common import PeriodInfo, period_info
from ratings.time import period_spec


@dataclass(frozen=True)
class ConfigInfo:
    """The parameters of one configuration version."""

    id: int
    version: int
    tau: float
    initial_rating: float
    initial_rd: float
    initial_volatility: float
    period_unit: str
    period_length: int
    period_anchor: dt.date
    max_rd: float
    volatility_ceiling: float | None
    rating_floor: float | None
    advantage: float
    margin_scale: float | None
    update_mode: str
    created_at: dt.datetime
    created_by: str
    note: str
    is_live: bool


def describe_config(config: RatingConfig, *, is_live: bool) -> ConfigInfo:
    """The parameters of ``config`` as plain data, when the caller knows if it is live."""
    creator = config.created_by
    return ConfigInfo(
        id=config.pk,
        version=config.version,
        tau=config.tau,
        initial_rating=config.initial_rating,
        initial_rd=config.initial_rd,
        initial_volatility=config.initial_volatility,
        period_unit=config.period_unit,
        period_length=config.period_length,
        period_anchor=config.period_anchor,
        max_rd=config.max_rd,
        volatility_ceiling=config.volatility_ceiling,
        rating_floor=config.rating_floor,
        advantage=config.advantage,
        margin_scale=config.margin_scale,
        update_mode=config.update_mode,
        created_at=config.created_at,
        created_by=creator.get_username() if creator else "",
        note=config.note,
        is_live=is_live,
    )


def _live_id(league: League) -> int | None:
    return Publication.objects.filter(league=league).values_list("config_id", flat=True).first()


def publication(league: League) -> Publication | None:
    """The league's publication with its configuration (and that one's league and author).

    One query answers which version readers see, since when, and everything a request
    needs to describe that version, compute its current period and say how often its
    intervals cover (its ``IntervalCoverage``, when measured).
    """
    return (
        Publication.objects.select_related(
            "config__league", "config__created_by", "config__interval_coverage"
        )
        .filter(league=league)
        .first()
    )


def live_config(league: League) -> RatingConfig | None:
    """The configuration whose standings readers see, or None before the first one."""
    published = publication(league)
    return published.config if published else None


def config_version(league: League, version: int) -> RatingConfig | None:
    """Configuration ``version`` of the league (with its league and author), or None."""
    return (
        RatingConfig.objects.select_related("league", "created_by")
        .filter(league=league, version=version)
        .first()
    )


def config_info(league: League, config: RatingConfig) -> ConfigInfo:
    """The parameters of ``config`` as plain data (``is_live`` tells if it is published)."""
    return describe_config(config, is_live=config.pk == _live_id(league))


def config_versions(league: League) -> list[ConfigInfo]:
    """Every configuration version of the league, newest first."""
    live = _live_id(league)
    configs = RatingConfig.objects.filter(league=league).select_related("created_by")
    return [
        describe_config(config, is_live=config.pk == live)
        for config in configs.order_by("-version")
    ]


@dataclass(frozen=True)
class ReplayInfo:
    id: int
    version: int
    kind: str
    status: str
    periods_done: int
    periods_total: int
    attempts: int
    error: str
    queued_at: dt.datetime
    started_at: dt.datetime | None
    finished_at: dt.datetime | None
    seconds: float | None


def recent_replays(league: League, *, limit: int = 10) -> list[ReplayInfo]:
    """The league's latest replays, newest first, with their outcome."""
    replays = (
        Replay.objects.filter(config__league=league)
        .order_by("-queued_at", "-pk")
        .values_list(
            "pk", "config__version", "kind", "status", "periods_done", "periods_total",
            "attempts", "error", "queued_at", "started_at", "finished_at",
        )[:limit]
    )  # fmt: skip
    return [
        ReplayInfo(
            *row,
            seconds=(row[10] - row[9]).total_seconds() if row[9] and row[10] else None,
        )
        for row in replays
    ]


def projection_ready(config: RatingConfig) -> bool:
    """True once a replay has written this version's standings (they are never half-built)."""
    return ProjectionState.objects.filter(config=config, complete=True).exists()


def period_choices(config: RatingConfig, *, limit: int | None = None) -> list[PeriodInfo]:
    """The periods in which games were played, newest first (for pickers): every one of
    them, or the ``limit`` most recent.

    Walks down from the latest period probing the (config, period) index, rather than a
    DISTINCT over the whole history: a few index lookups instead of a full scan.
    """
    history = PlayerPeriod._meta.db_table
    sql = f"""
        WITH RECURSIVE walk(i) AS (
            SELECT MAX(period_index) FROM {history} WHERE config_id = %(config)s
            UNION ALL
            SELECT i - 1 FROM walk WHERE i > 0
        )
        SELECT i FROM walk
        WHERE i IS NOT NULL AND EXISTS (
            SELECT 1 FROM {history} h WHERE h.config_id = %(config)s AND h.period_index = walk.i
        )
        {"" if limit is None else "LIMIT %(limit)s"}
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, {"config": config.pk, "limit": limit})
        indices = [row[0] for row in cursor.fetchall()]
    return [period_info(config, index) for index in indices]


def period_for_date(config: RatingConfig, day: dt.date) -> int:
    """The period containing ``day``; raises ``MatchBeforeAnchorError`` before the anchor."""
    return period_spec(config).index_of(day)
