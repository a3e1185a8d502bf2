"""Read-side queries for the pages and the API: plain dataclasses, no model instances.

Every selector reads the projection of one configuration version (``PlayerPeriod`` and
``Standing`` rows) and the event store. Idle RD growth is lazy: a player's RD "now" is their
stored RD grown to the current period (in progress, as if it closed now) with the engine's
``grown_rd``, so these numbers agree with a replay to the last bit.

The leaderboard is one SQL statement (rank by a window function over the filtered field,
search and pagination applied after ranking, so searching never changes a rank); the player
page issues a fixed number of small queries whatever the length of the history.
"""

from __future__ import annotations

import datetime as dt
import re
import time
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from math import ceil
from zoneinfo import ZoneInfo

from django.conf import settings
from django.db import connection
from django.db.models import Count, Q

from league.calendar import league_zone, local_day, local_midnight
from league.models import Event, League, Player
from ratings.engine.params import SCALE
from ratings.engine.prediction import win_probability
from ratings.engine.state import grown_rd
from ratings.models import (
    PlayerPeriod,
    ProjectionState,
    Publication,
    RatingConfig,
    Replay,
    Standing,
)
from ratings.time import current_period, period_spec

#: Half-width of the 95% interval, in RDs.
Z95 = 1.96
#: Periods over which the leaderboard's "change" column is measured.
CHANGE_PERIODS = 4
DEFAULT_PER_PAGE = 50
MAX_PER_PAGE = 500

#: Leaderboard sort keys -> SQL ordering (a leading "-" reverses it).
SORT_COLUMNS = {
    "rank": "r.rating DESC",
    "rating": "r.rating",
    "rd": "rd_now",
    "low": f"r.rating - {Z95} * rd_now",
    "high": f"r.rating + {Z95} * rd_now",
    "volatility": "r.volatility",
    "games": "r.games",
    "wins": "r.wins",
    "last_played": "r.last_period",
    "name": "p.display_name",
}
SORT_KEYS = tuple(key for column in SORT_COLUMNS for key in (column, f"-{column}"))


# --- Plain data ------------------------------------------------------------------------


class _Interval:
    """The 95% interval of a row's rating: ``rating ± 1.96 RD``, from the row's own RD.

    Derived rather than stored, so it always uses the RD the row shows (grown to the
    period shown, where the selector grows it).
    """

    rating: float
    rd: float

    @property
    def low(self) -> float:
        return self.rating - Z95 * self.rd

    @property
    def high(self) -> float:
        return self.rating + Z95 * self.rd


@dataclass(frozen=True)
class PeriodInfo:
    """One rating period of a configuration."""

    index: int
    start: dt.date
    end: dt.date

    @property
    def label(self) -> str:
        if self.start == self.end:
            return f"Period {self.index} ({self.start:%d %b %Y})"
        return f"Period {self.index} ({self.start:%d %b %Y} to {self.end:%d %b %Y})"


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
    created_at: dt.datetime
    created_by: str
    note: str
    is_live: bool

    @property
    def period_description(self) -> str:
        unit = "day" if self.period_unit == "days" else "calendar month"
        plural = "" if self.period_length == 1 else "s"
        return f"{self.period_length} {unit}{plural} from {self.period_anchor:%d %b %Y}"


@dataclass(frozen=True)
class LeaderboardRow(_Interval):
    rank: int
    player_id: int
    name: str
    slug: str
    active: bool
    rating: float
    rd: float
    volatility: float
    games: int
    wins: int
    draws: int
    losses: int
    last_period: int
    last_played: dt.date | None
    change: float | None
    provisional: bool


@dataclass(frozen=True)
class Leaderboard:
    """One page of standings, with what the page needs to describe it."""

    config: ConfigInfo | None
    rows: list[LeaderboardRow]
    total: int
    page: int
    per_page: int
    sort: str
    current_period: PeriodInfo | None
    as_of: PeriodInfo | None
    change_periods: int = CHANGE_PERIODS

    @property
    def num_pages(self) -> int:
        return max(1, ceil(self.total / self.per_page))

    @property
    def in_progress(self) -> bool:
        """True when the standings are those of the current, still open period."""
        return self.current_period is not None and (
            self.as_of is None or self.as_of.index == self.current_period.index
        )


@dataclass(frozen=True)
class HistoryPoint(_Interval):
    period: int
    start: dt.date
    end: dt.date
    rating: float
    rd: float
    volatility: float
    games: int
    wins: int
    draws: int
    losses: int
    change: float


@dataclass(frozen=True)
class PlayerSummary(_Interval):
    """A player's current standing under one configuration (``rank`` None when unrated)."""

    player_id: int
    name: str
    slug: str
    active: bool
    rank: int | None
    rating: float
    rd: float
    volatility: float
    games: int
    wins: int
    draws: int
    losses: int
    last_played: dt.date | None
    provisional: bool


@dataclass(frozen=True)
class ResultRow:
    seq: int
    played_on: dt.date
    opponent: str
    opponent_slug: str
    score: Decimal
    outcome: str
    points: str
    period: int | None
    rating_change: float | None
    note: str


@dataclass(frozen=True)
class Page:
    """A page of any list, with its position."""

    items: list
    total: int
    page: int
    per_page: int

    @property
    def num_pages(self) -> int:
        return max(1, ceil(self.total / self.per_page))


@dataclass(frozen=True)
class HeadToHeadRow:
    opponent_id: int
    opponent: str
    opponent_slug: str
    games: int
    wins: int
    draws: int
    losses: int
    win_probability: float


@dataclass(frozen=True)
class RankPoint:
    period: int
    end: dt.date
    rank: int
    players: int


@dataclass(frozen=True)
class ComparisonRow:
    player_id: int
    name: str
    slug: str
    rank_a: int | None
    rating_a: float | None
    rank_b: int | None
    rating_b: float | None

    @property
    def rank_change(self) -> int | None:
        """Places gained going from A to B (positive = moved up)."""
        if self.rank_a is None or self.rank_b is None:
            return None
        return self.rank_a - self.rank_b

    @property
    def rating_change(self) -> float | None:
        if self.rating_a is None or self.rating_b is None:
            return None
        return self.rating_b - self.rating_a


@dataclass(frozen=True)
class MatchRow:
    seq: int
    played_on: dt.date
    player_a: str
    player_a_slug: str
    player_b: str
    player_b_slug: str
    score_a: Decimal
    score_b: Decimal
    points: str
    note: str
    voided_by: int | None
    replaces: int | None


@dataclass(frozen=True)
class EventRow:
    seq: int
    kind: str
    kind_label: str
    recorded_at: dt.datetime
    recorded_by: str
    summary: str
    reason: str
    voided_by: int | None
    voids: int | None


# --- Helpers ---------------------------------------------------------------------------


def _local_date(value: dt.datetime | None, tz: ZoneInfo) -> dt.date | None:
    return None if value is None else local_day(value, tz)


def _period(config: RatingConfig, index: int) -> PeriodInfo:
    start, end = period_spec(config).bounds(index)
    return PeriodInfo(index, start, end)


def _clamp_page(page: int, per_page: int) -> tuple[int, int]:
    per_page = max(1, min(int(per_page), MAX_PER_PAGE))
    return max(1, int(page)), per_page


def _config_info(config: RatingConfig, live_id: int | None) -> ConfigInfo:
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
        created_at=config.created_at,
        created_by=creator.get_username() if creator else "",
        note=config.note,
        is_live=config.pk == live_id,
    )


def _now_period(config: RatingConfig) -> int:
    """The current period (in progress), read once per request for a configuration.

    ``current_period`` looks up the league's latest match; a page calls several selectors
    with the same configuration instance, so the answer is kept on it for a second.
    """
    cached = getattr(config, "_selectors_now", None)
    moment = time.monotonic()
    if cached is not None and moment - cached[1] < 1.0:
        return cached[0]
    period = max(current_period(config), 0)
    config._selectors_now = (period, moment)
    return period


def _rd_now(config: RatingConfig, rd: float, volatility: float, last: int, period: int) -> float:
    return grown_rd(rd, volatility, max(period - last, 0), config.max_rd)


@dataclass(frozen=True)
class LeagueSummary:
    name: str
    slug: str
    sport: str
    description: str
    players: int
    matches: int


def league_summaries() -> list[LeagueSummary]:
    """Every league with its number of players and of counted matches, by name."""
    players = dict(Player.objects.values_list("league_id").annotate(n=Count("pk")).order_by())
    matches = dict(
        Event.objects.live_matches().values_list("league_id").annotate(n=Count("pk")).order_by()
    )
    return [
        LeagueSummary(name, slug, sport, description, players.get(pk, 0), matches.get(pk, 0))
        for pk, name, slug, sport, description in League.objects.order_by("name").values_list(
            "pk", "name", "slug", "sport", "description"
        )
    ]


def featured_leaderboards(
    summaries: list[LeagueSummary], *, leagues: int = 3, rows: int = 10
) -> list[tuple[LeagueSummary, Leaderboard]]:
    """The top ``rows`` of the busiest ``leagues`` with standings, for the home page."""
    busiest = sorted((s for s in summaries if s.matches), key=lambda s: -s.matches)[:leagues]
    by_slug = League.objects.in_bulk([s.slug for s in busiest], field_name="slug")
    featured = []
    for summary in busiest:
        board = leaderboard(by_slug[summary.slug], per_page=rows)
        if board.rows:
            featured.append((summary, board))
    return featured


# --- Configurations --------------------------------------------------------------------


def live_config(league: League) -> RatingConfig | None:
    """The configuration whose standings readers see, or None before the first one."""
    publication = Publication.objects.select_related("config").filter(league=league).first()
    return publication.config if publication else None


def config_info(league: League, config: RatingConfig) -> ConfigInfo:
    """The parameters of ``config`` as plain data (``is_live`` tells if it is published)."""
    live = Publication.objects.filter(league=league).values_list("config_id", flat=True).first()
    return _config_info(config, live)


def config_versions(league: League) -> list[ConfigInfo]:
    """Every configuration version of the league, newest first."""
    live = Publication.objects.filter(league=league).values_list("config_id", flat=True).first()
    configs = RatingConfig.objects.filter(league=league).select_related("created_by")
    return [_config_info(config, live) for config in configs.order_by("-version")]


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


def period_choices(config: RatingConfig, *, limit: int = 104) -> list[PeriodInfo]:
    """The most recent periods in which games were played, newest first (for pickers).

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
        LIMIT %(limit)s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, {"config": config.pk, "limit": limit})
        indices = [row[0] for row in cursor.fetchall()]
    return [_period(config, index) for index in indices]


def period_for_date(config: RatingConfig, day: dt.date) -> int:
    """The period containing ``day``; raises ``MatchBeforeAnchorError`` before the anchor."""
    return period_spec(config).index_of(day)


# --- Leaderboard -----------------------------------------------------------------------


def _leaderboard_sql(
    *,
    as_of: bool,
    active_only: bool,
    min_games: int,
    search: str,
    sort: str,
) -> tuple[str, str]:
    """The leaderboard's page and count statements; values are bound as parameters.

    Ranking runs over narrow projection rows only; names are joined after it, and RD grown
    to the period is computed in SQL only when the page is sorted by it (for display it is
    computed in Python with the engine's own formula).
    """
    standing = Standing._meta.db_table
    history = PlayerPeriod._meta.db_table
    player = Player._meta.db_table
    least = "LEAST" if connection.vendor == "postgresql" else "MIN"
    if as_of and connection.vendor == "postgresql":
        # A backward probe of the (config, player, period) index per player; without
        # LATERAL the planner hashes the whole history table instead.
        last_row = f"""
            CROSS JOIN LATERAL (
                SELECT m.rating, m.rd, m.volatility, m.period_index
                FROM {history} m
                WHERE m.config_id = c.config_id AND m.player_id = c.player_id
                  AND m.period_index <= %(period)s
                ORDER BY m.period_index DESC
                LIMIT 1
            ) h
        """
    else:
        last_row = f"""
            JOIN {history} h
              ON h.config_id = c.config_id AND h.player_id = c.player_id
             AND h.period_index = (
                    SELECT MAX(m.period_index) FROM {history} m
                    WHERE m.config_id = c.config_id AND m.player_id = c.player_id
                      AND m.period_index <= %(period)s
                 )
        """
    if as_of:
        # The state at the end of a past period. Each player's last row up to it is one
        # index probe on (config, player, period); their totals up to it are the current
        # totals minus the games played after it, which reads only the rows after the
        # period (few for recent periods, the usual question) instead of all before it.
        source = f"""
            SELECT c.player_id, h.rating, h.rd, h.volatility, h.period_index AS last_period,
                   c.games - COALESCE(later.games, 0) AS games,
                   c.wins - COALESCE(later.wins, 0) AS wins,
                   c.draws - COALESCE(later.draws, 0) AS draws,
                   c.losses - COALESCE(later.losses, 0) AS losses
            FROM {standing} c
            {last_row}
            LEFT JOIN (
                SELECT player_id, SUM(games) AS games, SUM(wins) AS wins,
                       SUM(draws) AS draws, SUM(losses) AS losses
                FROM {history}
                WHERE config_id = %(config)s AND period_index > %(period)s
                GROUP BY player_id
            ) later ON later.player_id = c.player_id
            WHERE c.config_id = %(config)s
        """
    else:
        source = f"""
            SELECT player_id, rating, rd, volatility, last_period, games, wins, draws, losses
            FROM {standing}
            WHERE config_id = %(config)s AND games > 0 AND last_period >= 0
        """
    active_join = f"JOIN {player} a ON a.id = s.player_id AND a.active" if active_only else ""
    where = "WHERE s.games >= %(min_games)s" if min_games > 0 else ""
    # Idle periods since the player's last game, never negative.
    idle = "CASE WHEN %(period)s > r.last_period THEN %(period)s - r.last_period ELSE 0 END"
    rd_now = (
        f"CASE WHEN {idle} = 0 THEN r.rd ELSE {least}("
        f"SQRT(r.rd * r.rd + ({idle}) * ({SCALE} * r.volatility) * ({SCALE} * r.volatility)),"
        f" %(max_rd)s) END"
    )
    key = sort.lstrip("-")
    direction = "DESC" if sort.startswith("-") else "ASC"
    if key == "rank":
        order = f"r.rating {'ASC' if direction == 'DESC' else 'DESC'}"
    else:
        column = SORT_COLUMNS[key].replace("rd_now", f"({rd_now})")
        order = f"{column} {direction}"
    search_where = "WHERE LOWER(p.display_name) LIKE %(search)s ESCAPE '!'" if search else ""
    # A window count would make the database rank every row before returning the first
    # page; past standings are aggregated in full anyway, so they count in the same pass.
    total = "COUNT(*) OVER ()" if as_of else "NULL"
    page = f"""
        WITH ranked AS (
            SELECT s.player_id, s.rating, s.rd, s.volatility, s.last_period, s.games,
                   s.wins, s.draws, s.losses,
                   RANK() OVER (ORDER BY s.rating DESC) AS rank
            FROM ({source}) s
            {active_join}
            {where}
        )
        SELECT r.player_id, p.display_name, p.slug, p.active, r.rating, r.rd, r.volatility,
               r.last_period, r.games, r.wins, r.draws, r.losses, r.rank, {total} AS total
        FROM ranked r
        JOIN {player} p ON p.id = r.player_id
        {search_where}
        ORDER BY {order}, r.rank, p.display_name, r.player_id
        LIMIT %(limit)s OFFSET %(offset)s
    """
    search_join = f"JOIN {player} p ON p.id = s.player_id" if search else ""
    search_and = search_where.replace("WHERE", "AND" if where else "WHERE")
    count = f"""
        SELECT COUNT(*) FROM ({source}) s {active_join} {search_join} {where} {search_and}
    """
    return page, count


def _like_pattern(search: str) -> str:
    escaped = search.lower().replace("!", "!!").replace("%", "!%").replace("_", "!_")
    return f"%{escaped}%"


def _changes(
    config: RatingConfig, ratings: dict[int, float], since: int, until: int
) -> dict[int, float]:
    """Rating change of each player from the end of period ``since`` to that of ``until``.

    Measured from the rating before the first period played in that window (for a new
    player, the initial rating); players without games in it have no change, whatever
    they played after ``until`` (past standings).
    """
    changes: dict[int, float] = {}
    rows = (
        PlayerPeriod.objects.filter(
            config=config,
            player_id__in=list(ratings),
            period_index__gt=since,
            period_index__lte=until,
        )
        .order_by("player_id", "period_index")
        .values_list("player_id", "rating_before")
    )
    for player_id, before in rows:
        changes.setdefault(player_id, ratings[player_id] - before)
    return changes


def leaderboard(
    league: League,
    *,
    config: RatingConfig | None = None,
    active_only: bool = False,
    min_games: int = 0,
    search: str = "",
    sort: str = "rank",
    as_of_period: int | None = None,
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
    change_periods: int = CHANGE_PERIODS,
) -> Leaderboard:
    """One page of the league's standings under ``config`` (default: the live one).

    ``rank`` orders rated players by rating among those the filters keep (``active_only``,
    ``min_games``); ``search`` (a case-insensitive part of the name) only narrows the rows
    shown. RD is grown to the current period, or to ``as_of_period`` for past standings
    (rebuilt from history rows up to that period). Raises ValueError on an unknown sort.
    """
    if sort not in SORT_KEYS:
        raise ValueError(f"Unknown sort {sort!r}; expected one of {', '.join(SORT_KEYS)}.")
    page, per_page = _clamp_page(page, per_page)
    config = config or live_config(league)
    if config is None:
        return Leaderboard(None, [], 0, 1, per_page, sort, None, None, change_periods)
    info = config_info(league, config)
    now = _now_period(config)
    period = now if as_of_period is None else max(0, min(int(as_of_period), now))
    as_of = as_of_period is not None and period != now
    search = search.strip()
    sql, count_sql = _leaderboard_sql(
        as_of=as_of, active_only=active_only, min_games=min_games, search=search, sort=sort
    )
    params = {
        "config": config.pk,
        "period": period,
        "max_rd": config.max_rd,
        "min_games": max(int(min_games), 0),
        "search": _like_pattern(search),
        "limit": per_page,
        "offset": (page - 1) * per_page,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
        if as_of and fetched:
            total = int(fetched[0][-1])
        else:
            cursor.execute(count_sql, params)
            total = int(cursor.fetchone()[0])
        if not fetched and total and page > 1:
            # Past the last page: show the last one rather than an empty table.
            page = max(1, ceil(total / per_page))
            params["offset"] = (page - 1) * per_page
            cursor.execute(sql, params)
            fetched = cursor.fetchall()
    ids = [row[0] for row in fetched]
    if as_of:
        last_played = {row[0]: _period(config, row[7]).end for row in fetched}
    else:
        tz = league_zone(league)
        last_played = {
            player_id: _local_date(when, tz)
            for player_id, when in Standing.objects.filter(
                config=config, player_id__in=ids
            ).values_list("player_id", "last_played_at")
        }
    ratings = {row[0]: row[4] for row in fetched}
    changes = _changes(config, ratings, period - change_periods, period)
    rows = []
    for pid, name, slug, active, rating, rd, vol, last, games, w, d, losses, rank, _ in fetched:
        rd_now = _rd_now(config, rd, vol, last, period)
        rows.append(
            LeaderboardRow(
                rank=int(rank),
                player_id=pid,
                name=name,
                slug=slug,
                active=bool(active),
                rating=rating,
                rd=rd_now,
                volatility=vol,
                games=int(games),
                wins=int(w),
                draws=int(d),
                losses=int(losses),
                last_period=int(last),
                last_played=last_played.get(pid),
                change=changes.get(pid),
                provisional=rd_now > settings.PROVISIONAL_RD,
            )
        )
    return Leaderboard(
        config=info,
        rows=rows,
        total=int(total),
        page=page,
        per_page=per_page,
        sort=sort,
        current_period=_period(config, now),
        as_of=_period(config, period) if as_of else None,
        change_periods=change_periods,
    )


def standings_as_of(
    league: League, config: RatingConfig, period: int, **filters: object
) -> Leaderboard:
    """The standings at the end of ``period``: history rows up to it, RD grown to it."""
    return leaderboard(league, config=config, as_of_period=period, **filters)  # type: ignore[arg-type]


# --- Player ----------------------------------------------------------------------------


def player_summary(league: League, config: RatingConfig | None, player: Player) -> PlayerSummary:
    """The player's current rank and rating (the initial values while unrated)."""
    standing = None
    if config is not None:
        standing = (
            Standing.objects.filter(config=config, player=player, games__gt=0)
            .values_list(
                "rating",
                "rd",
                "volatility",
                "last_period",
                "games",
                "wins",
                "draws",
                "losses",
                "last_played_at",
            )
            .first()
        )
    if standing is None:
        rating = config.initial_rating if config else 1500.0
        rd = config.initial_rd if config else 350.0
        vol = config.initial_volatility if config else 0.06
        return PlayerSummary(
            player.pk, player.display_name, player.slug, player.active, None, rating, rd,
            vol, 0, 0, 0, 0, None, True,
        )  # fmt: skip
    rating, rd, vol, last, games, wins, draws, losses, last_played_at = standing
    rank = Standing.objects.filter(config=config, games__gt=0, rating__gt=rating).count() + 1
    rd_now = _rd_now(config, rd, vol, last, _now_period(config))
    return PlayerSummary(
        player_id=player.pk,
        name=player.display_name,
        slug=player.slug,
        active=player.active,
        rank=rank,
        rating=rating,
        rd=rd_now,
        volatility=vol,
        games=games,
        wins=wins,
        draws=draws,
        losses=losses,
        last_played=_local_date(last_played_at, league_zone(league)),
        provisional=rd_now > settings.PROVISIONAL_RD,
    )


def player_history(config: RatingConfig, player: Player) -> list[HistoryPoint]:
    """One point per period the player played, oldest first."""
    rows = (
        PlayerPeriod.objects.filter(config=config, player=player)
        .order_by("period_index")
        .values_list(
            "period_index",
            "period_start",
            "period_end",
            "rating",
            "rd",
            "volatility",
            "games",
            "wins",
            "draws",
            "losses",
            "rating_before",
        )
    )
    return [
        HistoryPoint(
            period=index,
            start=start,
            end=end,
            rating=rating,
            rd=rd,
            volatility=vol,
            games=games,
            wins=wins,
            draws=draws,
            losses=losses,
            change=rating - before,
        )
        for index, start, end, rating, rd, vol, games, wins, draws, losses, before in rows
    ]


#: "3-1", "3:1" or the same with an en dash.
_POINTS = re.compile(r"^\s*(\d+)\s*([-\u2013:])\s*(\d+)\s*$")


def _points_for(points: str, as_player_a: bool) -> str:
    """The recorded points from the player's side ("3-1" read as player B is "1-3")."""
    match = _POINTS.match(points)
    if as_player_a or not match:
        return points
    return f"{match.group(3)}{match.group(2)}{match.group(1)}"


_OUTCOME = {Decimal("1"): "Win", Decimal("0.5"): "Draw", Decimal("0"): "Loss"}


def player_results(
    league: League,
    player: Player,
    *,
    config: RatingConfig | None = None,
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
) -> Page:
    """The player's counted matches, newest first, with the rating change of each period."""
    page, per_page = _clamp_page(page, per_page)
    config = config or live_config(league)
    matches = (
        Event.objects.live_matches()
        .filter(league=league)
        .filter(Q(player_a=player) | Q(player_b=player))
        .order_by("-played_at", "-seq")
    )
    total = matches.count()
    page = min(page, max(1, ceil(total / per_page)))
    offset = (page - 1) * per_page
    fetched = list(
        matches.values_list(
            "seq",
            "played_at",
            "player_a_id",
            "player_a__display_name",
            "player_a__slug",
            "player_b__display_name",
            "player_b__slug",
            "score_a",
            "points",
            "note",
        )[offset : offset + per_page]
    )
    tz = league_zone(league)
    spec = period_spec(config) if config else None
    periods: dict[int, int | None] = {}
    for seq, played_at, *_ in fetched:
        day = _local_date(played_at, tz)
        periods[seq] = spec.index_of(day) if spec and day >= spec.anchor else None
    changes: dict[int, float] = {}
    if config is not None:
        changes = {
            index: after - before
            for index, after, before in PlayerPeriod.objects.filter(
                config=config, player=player, period_index__in=set(periods.values()) - {None}
            ).values_list("period_index", "rating", "rating_before")
        }
    items = []
    for seq, played_at, a_id, a_name, a_slug, b_name, b_slug, score_a, points, note in fetched:
        as_a = a_id == player.pk
        score = score_a if as_a else Decimal(1) - score_a
        period = periods[seq]
        items.append(
            ResultRow(
                seq=seq,
                played_on=_local_date(played_at, tz),
                opponent=b_name if as_a else a_name,
                opponent_slug=b_slug if as_a else a_slug,
                score=score,
                outcome=_OUTCOME.get(score, str(score)),
                points=_points_for(points, as_a),
                period=period,
                rating_change=changes.get(period) if period is not None else None,
                note=note,
            )
        )
    return Page(items, total, page, per_page)


def _current_states(
    config: RatingConfig | None, player_ids: Sequence[int]
) -> dict[int, tuple[float, float]]:
    """(rating, RD grown to now) of each player; unrated players get the initial values."""
    if config is None:
        return dict.fromkeys(player_ids, (1500.0, 350.0))
    now = _now_period(config)
    states = dict.fromkeys(player_ids, (config.initial_rating, config.initial_rd))
    for pid, rating, rd, vol, last in Standing.objects.filter(
        config=config, player_id__in=list(player_ids), games__gt=0
    ).values_list("player_id", "rating", "rd", "volatility", "last_period"):
        states[pid] = (rating, _rd_now(config, rd, vol, last, now))
    return states


def head_to_head(
    league: League, config: RatingConfig | None, player: Player
) -> list[HeadToHeadRow]:
    """Per opponent: the player's W-D-L and the probability they win a next game."""
    live = Event.objects.live_matches().filter(league=league)
    tallies: dict[int, list[int]] = {}
    for mine, theirs in (("player_a", "player_b"), ("player_b", "player_a")):
        won = Decimal("1") if mine == "player_a" else Decimal("0")
        lost = Decimal("0") if mine == "player_a" else Decimal("1")
        grouped = (
            live.filter(**{mine: player})
            .values_list(f"{theirs}_id")
            .annotate(
                wins=Count("pk", filter=Q(score_a=won)),
                draws=Count("pk", filter=Q(score_a=Decimal("0.5"))),
                losses=Count("pk", filter=Q(score_a=lost)),
            )
            .order_by()
        )
        for opponent_id, wins, draws, losses in grouped:
            tally = tallies.setdefault(opponent_id, [0, 0, 0])
            tally[0] += wins
            tally[1] += draws
            tally[2] += losses
    if not tallies:
        return []
    names = {
        pid: (name, slug)
        for pid, name, slug in Player.objects.filter(pk__in=list(tallies)).values_list(
            "pk", "display_name", "slug"
        )
    }
    states = _current_states(config, [player.pk, *tallies])
    mine_rating, mine_rd = states[player.pk]
    rows = []
    for opponent_id, (wins, draws, losses) in tallies.items():
        rating, rd = states[opponent_id]
        name, slug = names[opponent_id]
        rows.append(
            HeadToHeadRow(
                opponent_id=opponent_id,
                opponent=name,
                opponent_slug=slug,
                games=wins + draws + losses,
                wins=wins,
                draws=draws,
                losses=losses,
                win_probability=float(win_probability(mine_rating, mine_rd, rating, rd)),
            )
        )
    rows.sort(key=lambda row: (-row.games, row.opponent))
    return rows


#: Periods shown in a player's rank history (the most recent ones they played).
RANK_HISTORY_PERIODS = 52


def rank_history(
    config: RatingConfig, player: Player, *, limit: int = RANK_HISTORY_PERIODS
) -> list[RankPoint]:
    """The player's rank among the players who played in each of their last ``limit`` periods.

    A rank among everyone rated at the time would need every player's state at every
    period (a scan of the whole history per point). The rank within each period's field is
    exact and says how the player did against the people active at the same time; it costs
    one index range per period (the field of that period), hence the bounded ``limit``.
    """
    periods = list(
        PlayerPeriod.objects.filter(config=config, player=player)
        .order_by("-period_index")
        .values_list("period_index", "rating", "period_end")[:limit]
    )
    if not periods:
        return []
    history = PlayerPeriod._meta.db_table
    oldest = periods[-1][0]
    if connection.vendor == "postgresql":
        # LATERAL: one pass over each period's field through the (config, period) index
        # (a plain join lets the planner scan the whole history instead).
        sql = f"""
            SELECT me.period_index, field.above + 1, field.players
            FROM {history} me
            CROSS JOIN LATERAL (
                SELECT COUNT(*) FILTER (WHERE other.rating > me.rating) AS above,
                       COUNT(*) AS players
                FROM {history} other
                WHERE other.config_id = me.config_id AND other.period_index = me.period_index
            ) field
            WHERE me.config_id = %s AND me.player_id = %s AND me.period_index >= %s
        """
    else:
        sql = f"""
            SELECT me.period_index,
                   (SELECT COUNT(*) FROM {history} other
                    WHERE other.config_id = me.config_id
                      AND other.period_index = me.period_index
                      AND other.rating > me.rating) + 1,
                   (SELECT COUNT(*) FROM {history} other
                    WHERE other.config_id = me.config_id
                      AND other.period_index = me.period_index)
            FROM {history} me
            WHERE me.config_id = %s AND me.player_id = %s AND me.period_index >= %s
        """
    with connection.cursor() as cursor:
        cursor.execute(sql, [config.pk, player.pk, oldest])
        ranks = {index: (int(rank), int(players)) for index, rank, players in cursor.fetchall()}
    return [RankPoint(index, end, *ranks[index]) for index, _, end in reversed(periods)]


# --- Versions, matches, events ---------------------------------------------------------


def _ranked_ratings(config: RatingConfig) -> dict[int, tuple[int, float]]:
    standing = Standing._meta.db_table
    sql = f"""
        SELECT player_id, RANK() OVER (ORDER BY rating DESC), rating
        FROM {standing} WHERE config_id = %s AND games > 0
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [config.pk])
        return {pid: (int(rank), rating) for pid, rank, rating in cursor.fetchall()}


def compare_versions(
    league: League,
    config_a: RatingConfig,
    config_b: RatingConfig,
    *,
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
) -> Page:
    """Each player's rank and rating under two versions, ordered by rank under ``config_b``."""
    page, per_page = _clamp_page(page, per_page)
    a = _ranked_ratings(config_a)
    b = _ranked_ratings(config_b)
    ids = set(a) | set(b)
    names = {
        pid: (name, slug)
        for pid, name, slug in Player.objects.filter(league=league, pk__in=ids).values_list(
            "pk", "display_name", "slug"
        )
    }
    missing = 10**12
    ordered = sorted(
        ids,
        key=lambda pid: (b.get(pid, (missing,))[0], a.get(pid, (missing,))[0], names[pid][0]),
    )
    total = len(ordered)
    page = min(page, max(1, ceil(total / per_page)))
    chosen = ordered[(page - 1) * per_page : page * per_page]
    items = [
        ComparisonRow(
            player_id=pid,
            name=names[pid][0],
            slug=names[pid][1],
            rank_a=a[pid][0] if pid in a else None,
            rating_a=a[pid][1] if pid in a else None,
            rank_b=b[pid][0] if pid in b else None,
            rating_b=b[pid][1] if pid in b else None,
        )
        for pid in chosen
    ]
    return Page(items, total, page, per_page)


def match_list(league: League, *, page: int = 1, per_page: int = DEFAULT_PER_PAGE) -> Page:
    """Every recorded match, newest first; voided ones say which event voided them."""
    page, per_page = _clamp_page(page, per_page)
    matches = Event.objects.matches().filter(league=league).order_by("-played_at", "-seq")
    total = matches.count()
    page = min(page, max(1, ceil(total / per_page)))
    offset = (page - 1) * per_page
    tz = league_zone(league)
    items = [
        MatchRow(
            seq=seq,
            played_on=_local_date(played_at, tz),
            player_a=a_name,
            player_a_slug=a_slug,
            player_b=b_name,
            player_b_slug=b_slug,
            score_a=score_a,
            score_b=Decimal(1) - score_a,
            points=points,
            note=note,
            voided_by=voided_by,
            replaces=replaces,
        )
        for (
            seq, played_at, a_name, a_slug, b_name, b_slug, score_a, points, note, voided_by,
            replaces,
        ) in matches.values_list(
            "seq", "played_at", "player_a__display_name", "player_a__slug",
            "player_b__display_name", "player_b__slug", "score_a", "points", "note",
            "voided_by__seq", "replaces__seq",
        )[offset : offset + per_page]
    ]  # fmt: skip
    return Page(items, total, page, per_page)


def _score_text(score_a: Decimal) -> str:
    dash = "\u2013"
    texts = {
        Decimal("1"): f"1{dash}0",
        Decimal("0.5"): f"\u00bd{dash}\u00bd",
        Decimal("0"): f"0{dash}1",
    }
    return texts.get(score_a, str(score_a))


def event_log(league: League, *, page: int = 1, per_page: int = DEFAULT_PER_PAGE) -> Page:
    """Every event of the league, newest first, described in words."""
    page, per_page = _clamp_page(page, per_page)
    events = Event.objects.filter(league=league).order_by("-seq")
    total = events.count()
    page = min(page, max(1, ceil(total / per_page)))
    offset = (page - 1) * per_page
    tz = league_zone(league)
    labels = dict(Event.Kind.choices)
    items = []
    for (
        seq, kind, recorded_at, recorded_by, player, played_at, a_name, b_name, score_a,
        points, reason, voids, voids_a, voids_b, voided_by, replaces,
    ) in events.values_list(
        "seq", "kind", "recorded_at", "recorded_by__username", "player__display_name",
        "played_at", "player_a__display_name", "player_b__display_name", "score_a", "points",
        "reason", "voids__seq", "voids__player_a__display_name",
        "voids__player_b__display_name", "voided_by__seq", "replaces__seq",
    )[offset : offset + per_page]:  # fmt: skip
        if kind == Event.Kind.PLAYER_REGISTERED:
            summary = f"{player} registered"
        elif kind == Event.Kind.MATCH_RECORDED:
            summary = f"{a_name} {_score_text(score_a)} {b_name}"
            if points:
                summary += f" ({points})"
            summary += f", played {_local_date(played_at, tz):%d %b %Y}"
            if replaces:
                summary += f"; corrects match #{replaces}"
        else:
            summary = f"Match #{voids} ({voids_a} v {voids_b}) voided"
        items.append(
            EventRow(
                seq=seq,
                kind=kind,
                kind_label=labels.get(kind, kind),
                recorded_at=recorded_at.astimezone(tz),
                recorded_by=recorded_by or "",
                summary=summary,
                reason=reason,
                voided_by=voided_by,
                voids=voids,
            )
        )
    return Page(items, total, page, per_page)


# --- API selectors ---


def match_events(
    league: League,
    *,
    player_id: int | None = None,
    date_from: dt.date | None = None,
    date_to: dt.date | None = None,
    voided: bool | None = None,
):
    """The league's recorded matches as a queryset (for the API's filtered, paged lists).

    ``date_from``/``date_to`` are local dates in the league's time zone, both inclusive;
    ``voided`` True keeps only voided matches, False only the ones that count.
    """
    tz = league_zone(league)
    matches = (
        Event.objects.matches()
        .filter(league=league)
        .select_related("league", "player_a", "player_b", "recorded_by", "voided_by__recorded_by")
    )
    if player_id is not None:
        matches = matches.filter(Q(player_a_id=player_id) | Q(player_b_id=player_id))
    if date_from is not None:
        matches = matches.filter(played_at__gte=local_midnight(date_from, tz))
    if date_to is not None:
        next_day = date_to + dt.timedelta(days=1)
        matches = matches.filter(played_at__lt=local_midnight(next_day, tz))
    if voided is not None:
        matches = matches.filter(voided_by__isnull=not voided)
    return matches


def replays_of(league: League):
    """The league's replays (every configuration version), newest first, as a queryset."""
    return (
        Replay.objects.filter(config__league=league)
        .select_related("config", "requested_by")
        .order_by("-queued_at", "-pk")
    )
