"""The standings read model: the leaderboard, past standings, rank history, version comparison.

The leaderboard is one SQL statement (rank by a window function over the filtered field,
search and pagination applied after ranking, so searching never changes a rank); the
export reads every row of the same statement in one pass. RDs are grown to the current
period of a ``ReadClock`` (or to the period asked for, for past standings).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from math import ceil
from typing import Any

from django.conf import settings
from django.db import connection
from django.db.models import Count

from league.calendar import league_zone
from league.event_log import DEFAULT_PER_PAGE, MAX_PER_PAGE, Page, clamp_page, last_page_at_most
from league.models import Event, League, Player
from ratings.engine.params import SCALE
from ratings.models import PlayerPeriod, RatingConfig, Standing
from ratings.selectors.common import (
    Z95,
    Interval,
    PeriodInfo,
    ReadClock,
    local_date,
    period_info,
    rd_now,
)
from ratings.selectors.configurations import ConfigInfo, describe_config, live_config, publication

#: Periods over which the leaderboard's "change" column is measured.
CHANGE_PERIODS = 4

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


@dataclass(frozen=True)
class LeaderboardRow(Interval):
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


# --- The leaderboard ---------------------------------------------------------------------


def _leaderboard_sql(
    *,
    as_of: bool,
    active_only: bool,
    min_games: int,
    search: str,
    sort: str,
    paged: bool = True,
) -> tuple[str, str]:
    """The leaderboard's page and count statements; values are bound as parameters.

    Ranking runs over narrow projection rows only; names are joined after it, and RD grown
    to the period is computed in SQL only when the page is sorted by it (for display it is
    computed in Python with the engine's own formula). Without ``paged``, the first
    statement returns every row (for the one-pass export).
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
    limit = "LIMIT %(limit)s OFFSET %(offset)s" if paged else ""
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
        {limit}
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


def _leaderboard_rows(
    league: League,
    config: RatingConfig,
    fetched: Sequence[Sequence[Any]],
    *,
    period: int,
    as_of: bool,
    change_periods: int,
) -> list[LeaderboardRow]:
    """Leaderboard rows from fetched statement rows, with last played day and change."""
    ids = [row[0] for row in fetched]
    if as_of:
        last_played = {row[0]: period_info(config, row[7]).end for row in fetched}
    else:
        tz = league_zone(league)
        last_played = {
            player_id: local_date(when, tz)
            for player_id, when in Standing.objects.filter(
                config=config, player_id__in=ids
            ).values_list("player_id", "last_played_at")
        }
    ratings = {row[0]: row[4] for row in fetched}
    changes = _changes(config, ratings, period - change_periods, period)
    rows = []
    for pid, name, slug, active, rating, rd, vol, last, games, w, d, losses, rank, _ in fetched:
        rd_shown = rd_now(config, rd, vol, last, period)
        rows.append(
            LeaderboardRow(
                rank=int(rank),
                player_id=pid,
                name=name,
                slug=slug,
                active=bool(active),
                rating=rating,
                rd=rd_shown,
                volatility=vol,
                games=int(games),
                wins=int(w),
                draws=int(d),
                losses=int(losses),
                last_period=int(last),
                last_played=last_played.get(pid),
                change=changes.get(pid),
                provisional=rd_shown > settings.PROVISIONAL_RD,
            )
        )
    return rows


def leaderboard(
    league: League,
    *,
    config: RatingConfig | None = None,
    is_live: bool | None = None,
    clock: ReadClock | None = None,
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

    A caller that already knows whether ``config`` is the published version (``is_live``)
    and its current period (``clock``) passes them; otherwise they are looked up.
    """
    if sort not in SORT_KEYS:
        raise ValueError(f"Unknown sort {sort!r}; expected one of {', '.join(SORT_KEYS)}.")
    page, per_page = clamp_page(page, per_page)
    if config is None:
        config, is_live = live_config(league), True
    if config is None:
        return Leaderboard(None, [], 0, 1, per_page, sort, None, None, change_periods)
    if is_live is None:
        published = publication(league)
        is_live = published is not None and published.config_id == config.pk
    info = describe_config(config, is_live=is_live)
    now = ReadClock.period_for(config, clock)
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
    rows = _leaderboard_rows(
        league, config, fetched, period=period, as_of=as_of, change_periods=change_periods
    )
    return Leaderboard(
        config=info,
        rows=rows,
        total=int(total),
        page=page,
        per_page=per_page,
        sort=sort,
        current_period=period_info(config, now),
        as_of=period_info(config, period) if as_of else None,
        change_periods=change_periods,
    )


def standings_as_of(
    league: League, config: RatingConfig, period: int, **filters: object
) -> Leaderboard:
    """The standings at the end of ``period``: history rows up to it, RD grown to it."""
    return leaderboard(league, config=config, as_of_period=period, **filters)  # type: ignore[arg-type]


def every_standing(
    league: League,
    config: RatingConfig,
    *,
    clock: ReadClock | None = None,
    chunk: int = MAX_PER_PAGE,
) -> Iterator[LeaderboardRow]:
    """Every row of the current leaderboard (by rank, no filters), ranked in one statement.

    The same rows, in the same order, as the leaderboard's pages one after the other; the
    field is ranked once and read ``chunk`` rows at a time, rather than ranked again for
    every page.
    """
    period = ReadClock.period_for(config, clock)
    sql, _ = _leaderboard_sql(
        as_of=False, active_only=False, min_games=0, search="", sort="rank", paged=False
    )
    params = {"config": config.pk, "period": period, "max_rd": config.max_rd}
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        while fetched := cursor.fetchmany(chunk):
            yield from _leaderboard_rows(
                league, config, fetched, period=period, as_of=False, change_periods=CHANGE_PERIODS
            )


# --- The home page ---------------------------------------------------------------------


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


# --- A player's rank, and two versions side by side ------------------------------------


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
    page, per_page = clamp_page(page, per_page)
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
    page = last_page_at_most(page, total, per_page)
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
