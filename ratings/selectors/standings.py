"""The standings read model: the leaderboard, past standings, rank history, version comparison.

The leaderboard is one SQL statement (rank by a window function over the filtered field,
search and pagination applied after ranking, so searching never changes a rank); the
export reads every row of the same statement in one pass. RDs are grown to the current
period of a ``ReadClock`` (or to the period asked for, for past standings).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterator, Sequence
from dataclasses import dataclass
from math import ceil
from typing import Any

import numpy as np
from django.conf import settings
from django.db import connection
from django.db.models import Count, Max

from engine.intervals import ConfidenceLevel
from engine.params import SCALE
from engine.state import grown_rd
from league.calendar import league_zone, local_day, local_midnight
from league.event_log import DEFAULT_PER_PAGE, MAX_PER_PAGE, Page, clamp_page, last_page_at_most
from league.models import Event, League, Player
from ratings.eligibility import EVERYONE, Eligibility, activity_filter, eligibility
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
    "low": "r.rating - %(z)s * rd_now",
    "high": "r.rating + %(z)s * rd_now",
    "volatility": "r.volatility",
    "games": "r.games",
    "wins": "r.wins",
    "last_played": "r.last_period",
    "name": "p.display_name",
}
SORT_KEYS = tuple(key for column in SORT_COLUMNS for key in (column, f"-{column}"))
#: The two lists of the standings: the ranked players, and those listed separately.
LISTS = ("ranked", "separate")
#: The interval level shown unless another is asked for.
#: ``± 1.96 RD`` as everywhere in the project (95.0004 %, labelled "95 %").
DEFAULT_LEVEL = ConfidenceLevel.from_z(Z95)


@dataclass(frozen=True)
class LeaderboardQuery:
    """What a reader asks of the standings: which players, in which order, which page.

    ``active_only`` keeps those who played within the activity window and ``min_games``
    those with that many games, and the rest are ranked among them; ``search`` (a
    case-insensitive part of the name) only narrows the rows shown. ``as_of_period`` asks
    for the standings at the end of a past period (None: now). ``listed`` picks the ranked
    players (``"ranked"``) or those the eligibility rules list separately
    (``"separate"``); ``everyone`` ranks every rated player. ``change_periods`` is the
    window of the "change" column and ``level`` the confidence level of the intervals.
    Raises ValueError on an unknown sort or list.
    """

    active_only: bool = False
    min_games: int = 0
    search: str = ""
    sort: str = "rank"
    as_of_period: int | None = None
    page: int = 1
    per_page: int = DEFAULT_PER_PAGE
    change_periods: int = CHANGE_PERIODS
    everyone: bool = False
    listed: str = "ranked"
    level: ConfidenceLevel = DEFAULT_LEVEL

    def __post_init__(self) -> None:
        if self.sort not in SORT_KEYS:
            raise ValueError(f"Unknown sort {self.sort!r}; expected one of {', '.join(SORT_KEYS)}.")
        if self.listed not in LISTS:
            raise ValueError(f"Unknown list {self.listed!r}; expected one of {', '.join(LISTS)}.")


#: The first page of the current standings, ranked by rating.
FIRST_PAGE = LeaderboardQuery()


@dataclass(frozen=True)
class LeaderboardRow(Interval):
    """One row of the standings; ``rank`` is None for a player listed separately."""

    rank: int | None
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
    eligible: bool = True
    reasons: tuple[str, ...] = ()
    z: float = Z95


@dataclass(frozen=True)
class Leaderboard:
    """One page of standings, with what the page needs to describe it.

    ``listed`` says which list the rows are: the ranked players (``"ranked"``) or those the
    eligibility rules list separately (``"separate"``); ``ranked_total`` and
    ``separate_total`` count both lists under the same filters.
    """

    config: ConfigInfo | None
    rows: list[LeaderboardRow]
    total: int
    page: int
    per_page: int
    sort: str
    current_period: PeriodInfo | None
    as_of: PeriodInfo | None
    change_periods: int = CHANGE_PERIODS
    rules: Eligibility | None = None
    everyone: bool = False
    listed: str = "ranked"
    ranked_total: int = 0
    separate_total: int = 0
    level: ConfidenceLevel = DEFAULT_LEVEL
    #: The window of the "played recently" filter in words ("2 years", "105 weeks").
    active_window: str = ""

    @property
    def active_filter_matters(self) -> bool:
        """False on the ranked list under rules with an activity window: every ranked
        player played within it, so the "played recently" filter would change nothing."""
        return (
            self.everyone
            or self.listed != "ranked"
            or self.rules is None
            or self.rules.active_periods is None
        )

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

#: Stands for "no RD rule" in the statement (far above any RD the engine produces).
_NO_RD_LIMIT = 1e18


def _rd_now_sql(prefix: str) -> str:
    """The RD of row ``prefix`` grown to ``%(period)s`` (capped at ``%(max_rd)s``), in SQL."""
    least = "LEAST" if connection.vendor == "postgresql" else "MIN"
    # Idle periods since the player's last game, never negative.
    idle = (
        f"CASE WHEN %(period)s > {prefix}.last_period "
        f"THEN %(period)s - {prefix}.last_period ELSE 0 END"
    )
    sigma = f"({SCALE} * {prefix}.volatility)"
    return (
        f"CASE WHEN {idle} = 0 THEN {prefix}.rd ELSE {least}("
        f"SQRT({prefix}.rd * {prefix}.rd + ({idle}) * {sigma} * {sigma}), %(max_rd)s) END"
    )


def _field_sql(*, as_of: bool, active_only: bool, min_games: int) -> str:
    """The ``field`` of the leaderboard's statements: every rated player the filters keep,
    with the RD grown to ``%(period)s`` and whether the eligibility rules rank them.

    Current standings read the ``Standing`` rows; past ones (``as_of``) each player's last
    history row up to the period, with the totals up to it.
    """
    standing = Standing._meta.db_table
    history = PlayerPeriod._meta.db_table
    player = Player._meta.db_table
    if as_of and connection.vendor == "postgresql":
        # A backward probe of the (config, player, period) index per player; without
        # LATERAL the planner hashes the whole history table instead. The configuration is
        # the constant, not ``c.config_id``: a joined column would leave every partition of
        # the history (one per configuration) to the planner.
        last_row = f"""
            CROSS JOIN LATERAL (
                SELECT m.rating, m.rd, m.volatility, m.period_index
                FROM {history} m
                WHERE m.config_id = %(config)s AND m.player_id = c.player_id
                  AND m.period_index <= %(period)s
                ORDER BY m.period_index DESC
                LIMIT 1
            ) h
        """
    else:
        last_row = f"""
            JOIN {history} h
              ON h.config_id = %(config)s AND h.player_id = c.player_id
             AND h.period_index = (
                    SELECT MAX(m.period_index) FROM {history} m
                    WHERE m.config_id = %(config)s AND m.player_id = c.player_id
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
    filters = []
    if min_games > 0:
        filters.append("s.games >= %(min_games)s")
    if active_only:
        filters.append("s.last_period >= %(active_since)s AND a.active")
    where = f"WHERE {' AND '.join(filters)}" if filters else ""
    rd_now = _rd_now_sql("s")
    return f"""
        field AS (
            SELECT s.player_id, s.rating, s.rd, s.volatility, s.last_period, s.games,
                   s.wins, s.draws, s.losses, {rd_now} AS rd_now, a.active AS enrolled,
                   CASE WHEN (a.active OR %(everyone)s)
                             AND s.games >= %(elig_games)s
                             AND s.last_period >= %(elig_since)s
                             AND {rd_now} <= %(elig_rd)s
                        THEN 1 ELSE 0 END AS eligible
            FROM ({source}) s
            JOIN {player} a ON a.id = s.player_id
            {where}
        )
    """


def _leaderboard_sql(
    *,
    as_of: bool,
    active_only: bool,
    min_games: int,
    search: str,
    sort: str,
    by_lower_bound: bool = False,
    paged: bool = True,
    both_lists: bool = False,
    players: int = 0,
) -> tuple[str, str]:
    """The leaderboard's page and count statements; values are bound as parameters.

    The field (every rated player the filters keep) is split by the eligibility rules
    (``%(elig_*)s``) and ranked within its part, so a player listed separately never
    takes a rank; ``%(listed)s`` (1 or 0) picks the part returned, or ``both_lists`` returns
    both. Ranking by the interval's lower end uses the reader's level (``%(z)s``). Names
    are joined after ranking; ``players`` > 0 keeps only the rows of that many players
    (``%(player_0)s``…), after ranking too. Without ``paged``, the first statement returns
    every row (for the export).
    """
    player = Player._meta.db_table
    field = _field_sql(as_of=as_of, active_only=active_only, min_games=min_games)
    rank_key = "f.rating - %(z)s * f.rd_now" if by_lower_bound else "f.rating"
    key = sort.lstrip("-")
    direction = "DESC" if sort.startswith("-") else "ASC"
    if key == "rank":
        order = f"r.rank {'DESC' if direction == 'DESC' else 'ASC'}"
    else:
        column = SORT_COLUMNS[key].replace("rd_now", "r.rd_now")
        order = f"{column} {direction}"
    search_and = "AND LOWER(p.display_name) LIKE %(search)s ESCAPE '!'" if search else ""
    kept = ["1 = 1" if both_lists else "r.eligible = %(listed)s"]
    if players:
        wanted = ", ".join(f"%(player_{index})s" for index in range(players))
        kept.append(f"r.player_id IN ({wanted})")
    limit = "LIMIT %(limit)s OFFSET %(offset)s" if paged else ""
    page = f"""
        WITH {field},
        ranked AS (
            SELECT f.*, RANK() OVER (PARTITION BY f.eligible ORDER BY {rank_key} DESC) AS rank
            FROM field f
        )
        SELECT r.player_id, p.display_name, p.slug, p.active, r.rating, r.rd, r.volatility,
               r.last_period, r.games, r.wins, r.draws, r.losses, r.rank, r.eligible
        FROM ranked r
        JOIN {player} p ON p.id = r.player_id
        WHERE {" AND ".join(kept)} {search_and}
        ORDER BY {order}, r.rank, p.display_name, r.player_id
        {limit}
    """
    search_join = f"JOIN {player} p ON p.id = f.player_id {search_and}" if search else ""
    count = f"""
        WITH {field}
        SELECT COALESCE(SUM(f.eligible), 0), COUNT(*) FROM field f {search_join}
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


def last_played_until(
    league: League, player_ids: Sequence[int], day: dt.date
) -> dict[int, dt.date]:
    """Each player's last counted match on or before ``day`` (the league's local dates)."""
    tz = league_zone(league)
    until = local_midnight(day + dt.timedelta(days=1), tz)
    live = Event.objects.live_matches().filter(league=league, played_at__lt=until)
    latest: dict[int, dt.datetime] = {}
    for column in ("player_a", "player_b"):
        for pid, moment in (
            live.filter(**{f"{column}_id__in": list(player_ids)})
            .values_list(f"{column}_id")
            .annotate(last=Max("played_at"))
            .order_by()
        ):
            if moment is not None and (pid not in latest or moment > latest[pid]):
                latest[pid] = moment
    return {pid: local_day(moment, tz) for pid, moment in latest.items()}


def results_between(league: League, after: dt.date, until: dt.date) -> int:
    """Counted matches played after the day ``after`` and on or before ``until`` (local days)."""
    tz = league_zone(league)
    return (
        Event.objects.live_matches()
        .filter(
            league=league,
            played_at__gte=local_midnight(after + dt.timedelta(days=1), tz),
            played_at__lt=local_midnight(until + dt.timedelta(days=1), tz),
        )
        .count()
    )


def _leaderboard_rows(
    league: League,
    config: RatingConfig,
    fetched: Sequence[Sequence[Any]],
    *,
    period: int,
    as_of: bool,
    change_periods: int,
    rules: Eligibility | None = None,
    activity: Eligibility | None = None,
    z: float = Z95,
) -> list[LeaderboardRow]:
    """Leaderboard rows from fetched statement rows, with last played day and change.

    ``rules`` (the rules in force) give the reasons of a row listed separately;
    ``activity`` (the league's own rules) says who counts as active.
    """
    ids = [row[0] for row in fetched]
    if as_of:
        last_played = last_played_until(league, ids, period_info(config, period).end)
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
    active_since = (activity or EVERYONE).active_since(period)
    rows = []
    for fields in fetched:
        pid, name, slug, flag, rating, rd, vol, last, games, w, d, losses, rank, eligible = fields
        rd_shown = rd_now(config, rd, vol, last, period)
        listed = bool(eligible)
        reasons: tuple[str, ...] = ()
        if not listed and rules is not None:
            reasons = rules.reasons(
                games=int(games), last_period=int(last), rd=rd_shown,
                withdrawn=not flag, period=period,
            )  # fmt: skip
        rows.append(
            LeaderboardRow(
                rank=int(rank) if listed else None,
                player_id=pid,
                name=name,
                slug=slug,
                active=int(last) >= active_since and bool(flag),
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
                eligible=listed,
                reasons=reasons,
                z=z,
            )
        )
    return rows


def _statement_params(
    config: RatingConfig, period: int, rules: Eligibility, activity: Eligibility, z: float
) -> dict[str, Any]:
    """The eligibility and level parameters of the leaderboard's statements."""
    return {
        "config": config.pk,
        "period": period,
        "max_rd": config.max_rd,
        "everyone": rules is EVERYONE,
        "elig_games": rules.min_games,
        "elig_since": rules.active_since(period),
        "elig_rd": _NO_RD_LIMIT if rules.max_rd is None else rules.max_rd,
        "active_since": activity.active_since(period),
        "z": z,
    }


def leaderboard(
    league: League,
    query: LeaderboardQuery = FIRST_PAGE,
    *,
    config: RatingConfig | None = None,
    is_live: bool | None = None,
    clock: ReadClock | None = None,
    rules: Eligibility | None = None,
) -> Leaderboard:
    """One page of the league's standings under ``config`` (default: the live one), as
    ``query`` asks (see ``LeaderboardQuery``).

    The league's eligibility rules (``ratings.eligibility``; ``rules`` when the caller read
    them already) decide who is ranked; ``rank`` orders by rating (or by the interval's
    lower end, when the rules say so). RD is grown to the current period, or to the
    query's ``as_of_period`` for past standings (rebuilt from history rows up to that
    period).

    A caller that already knows whether ``config`` is the published version (``is_live``)
    and its current period (``clock``) passes them; otherwise they are looked up.
    """
    page, per_page = clamp_page(query.page, query.per_page)
    sort, level, listed = query.sort, query.level, query.listed
    change_periods = query.change_periods
    if config is None:
        config, is_live = live_config(league), True
    if config is None:
        return Leaderboard(None, [], 0, 1, per_page, sort, None, None, change_periods, level=level)
    if is_live is None:
        published = publication(league)
        is_live = published is not None and published.config_id == config.pk
    info = describe_config(config, is_live=is_live)
    league_rules = rules if rules is not None else eligibility(league, config)
    in_force = EVERYONE if query.everyone else league_rules
    now = ReadClock.period_for(config, clock)
    as_of_period = query.as_of_period
    period = now if as_of_period is None else max(0, min(int(as_of_period), now))
    as_of = as_of_period is not None and period != now
    search = query.search.strip()
    sql, count_sql = _leaderboard_sql(
        as_of=as_of,
        active_only=query.active_only,
        min_games=query.min_games,
        search=search,
        sort=sort,
        by_lower_bound=in_force.by_lower_bound,
    )
    recent = activity_filter(league_rules, config)
    params = {
        **_statement_params(config, period, in_force, league_rules, level.z),
        # ``active_only`` keeps those who played within the filter's window (the rules' own,
        # else two years), which the page names.
        "active_since": recent.active_since(period),
        "min_games": max(int(query.min_games), 0),
        "search": _like_pattern(search),
        "listed": 1 if listed == "ranked" else 0,
        "limit": per_page,
        "offset": (page - 1) * per_page,
    }
    with connection.cursor() as cursor:
        cursor.execute(count_sql, params)
        ranked_total, everybody = (int(value or 0) for value in cursor.fetchone())
        total = ranked_total if listed == "ranked" else everybody - ranked_total
        page = last_page_at_most(page, total, per_page)
        params["offset"] = (page - 1) * per_page
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
    rows = _leaderboard_rows(
        league,
        config,
        fetched,
        period=period,
        as_of=as_of,
        change_periods=change_periods,
        rules=in_force,
        activity=league_rules,
        z=level.z,
    )
    return Leaderboard(
        config=info,
        rows=rows,
        total=total,
        page=page,
        per_page=per_page,
        sort=sort,
        current_period=period_info(config, now),
        as_of=period_info(config, period) if as_of else None,
        change_periods=change_periods,
        rules=league_rules,
        everyone=query.everyone,
        listed=listed,
        active_window=recent.window,
        ranked_total=ranked_total,
        separate_total=everybody - ranked_total,
        level=level,
    )


def every_standing(
    league: League,
    config: RatingConfig,
    *,
    clock: ReadClock | None = None,
    chunk: int = MAX_PER_PAGE,
    level: ConfidenceLevel = DEFAULT_LEVEL,
) -> Iterator[LeaderboardRow]:
    """Every rated player of the current standings: the ranked ones by rank, then the others.

    The same rows, in the same order, as the leaderboard's ranked pages at ``level``
    followed by its separate list sorted by rating; the field is ranked once per list and
    read ``chunk`` rows at a time, rather than ranked again for every page.
    """
    period = ReadClock.period_for(config, clock)
    rules = eligibility(league, config)
    sql, _ = _leaderboard_sql(
        as_of=False,
        active_only=False,
        min_games=0,
        search="",
        sort="rank",
        by_lower_bound=rules.by_lower_bound,
        paged=False,
    )
    for listed in (1, 0):
        params = {**_statement_params(config, period, rules, rules, level.z), "listed": listed}
        with connection.cursor() as cursor:
            # Within the separate list, "rank" is the order by rating among its players.
            cursor.execute(sql, params)
            while fetched := cursor.fetchmany(chunk):
                yield from _leaderboard_rows(
                    league, config, fetched, period=period, as_of=False,
                    change_periods=CHANGE_PERIODS, rules=rules, activity=rules, z=level.z,
                )  # fmt: skip


@dataclass(frozen=True)
class RankEntry:
    """Where the leaderboard puts one rated player: ``rank`` (None: listed separately,
    for ``reasons``), with the rating and the RD grown to the period read."""

    rank: int | None
    rating: float
    rd: float
    games: int
    provisional: bool
    reasons: tuple[str, ...] = ()


#: Players a rank statement names one by one at most; a larger set reads the whole field.
_NAMED_PLAYERS = 200


def leaderboard_ranks(
    league: League,
    config: RatingConfig,
    players: Collection[int] | None = None,
    *,
    level: ConfidenceLevel = DEFAULT_LEVEL,
    as_of_period: int | None = None,
    clock: ReadClock | None = None,
    rules: Eligibility | None = None,
) -> dict[int, RankEntry]:
    """The leaderboard's rank of each rated player of ``players`` (None: every rated player).

    The one definition of a rank, which every page, embed, export and API field showing
    one reads: the leaderboard's own statement, under the league's eligibility rules
    (``rules`` when the caller read them already) and, when they rank by the interval's
    lower end, at the reader's ``level``; at the end of period ``as_of_period`` (None:
    now), with RDs grown to it. A player without a rated game by then is absent.
    """
    rules = rules if rules is not None else eligibility(league, config)
    now = ReadClock.period_for(config, clock)
    period = now if as_of_period is None else max(0, min(int(as_of_period), now))
    named = sorted(set(players)) if players is not None else []
    if players is not None and not named:
        return {}
    by_name = 0 < len(named) <= _NAMED_PLAYERS
    sql, _ = _leaderboard_sql(
        as_of=period != now,
        active_only=False,
        min_games=0,
        search="",
        sort="rank",
        by_lower_bound=rules.by_lower_bound,
        paged=False,
        both_lists=True,
        players=len(named) if by_name else 0,
    )
    params = _statement_params(config, period, rules, rules, level.z)
    if by_name:
        params.update({f"player_{index}": pid for index, pid in enumerate(named)})
    wanted = set(named)
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        fetched = cursor.fetchall()
    found = {}
    for pid, _name, _slug, flag, rating, rd, vol, last, games, *_wdl, rank, eligible in fetched:
        if players is not None and pid not in wanted:
            continue
        grown = rd_now(config, rd, vol, last, period)
        reasons: tuple[str, ...] = ()
        if not eligible:
            reasons = rules.reasons(
                games=int(games), last_period=int(last), rd=grown, withdrawn=not flag,
                period=period,
            )  # fmt: skip
        found[pid] = RankEntry(
            rank=int(rank) if eligible else None,
            rating=rating,
            rd=grown,
            games=int(games),
            provisional=grown > settings.PROVISIONAL_RD,
            reasons=reasons,
        )
    return found


@dataclass(frozen=True)
class RankingSummary:
    """How the league's rules split its rated players now, rule by rule.

    ``ranked`` of ``rated`` are ranked; among the others (listed separately), how many each
    rule keeps out (a player may fail more than one); ``provisional_ranked`` counts the
    ranked players whose RD is above the provisional threshold (marked P on the pages).
    """

    rules: Eligibility
    rated: int
    ranked: int
    withdrawn: int
    too_few_games: int
    inactive: int
    above_rd: int
    provisional_ranked: int

    @property
    def separate(self) -> int:
        return self.rated - self.ranked


def ranking_summary(
    league: League,
    config: RatingConfig,
    *,
    clock: ReadClock | None = None,
    rules: Eligibility | None = None,
) -> RankingSummary:
    """The current split of the league's rated players by its rules (``RankingSummary``),
    counted in one statement over the leaderboard's own field."""
    rules = rules if rules is not None else eligibility(league, config)
    period = ReadClock.period_for(config, clock)
    field = _field_sql(as_of=False, active_only=False, min_games=0)
    out = "f.eligible = 0 AND"
    sql = f"""
        WITH {field}
        SELECT COUNT(*), COALESCE(SUM(f.eligible), 0),
               COALESCE(SUM(CASE WHEN {out} NOT f.enrolled THEN 1 ELSE 0 END), 0),
               COALESCE(SUM(CASE WHEN {out} f.games < %(elig_games)s THEN 1 ELSE 0 END), 0),
               COALESCE(SUM(CASE WHEN {out} f.last_period < %(elig_since)s THEN 1 ELSE 0 END), 0),
               COALESCE(SUM(CASE WHEN {out} f.rd_now > %(elig_rd)s THEN 1 ELSE 0 END), 0),
               COALESCE(SUM(CASE WHEN f.eligible = 1 AND f.rd_now > %(provisional)s
                                 THEN 1 ELSE 0 END), 0)
        FROM field f
    """
    params = {
        **_statement_params(config, period, rules, rules, DEFAULT_LEVEL.z),
        "provisional": settings.PROVISIONAL_RD,
    }
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        counts = [int(value) for value in cursor.fetchone()]
    return RankingSummary(rules, *counts)


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
        board = leaderboard(by_slug[summary.slug], LeaderboardQuery(per_page=rows))
        if board.rows:
            featured.append((summary, board))
    return featured


# --- A player's rank, and two versions side by side ------------------------------------


@dataclass(frozen=True)
class RankPoint:
    """The player's rank at the end of ``period`` among the ``players`` ranked then."""

    period: int
    end: dt.date
    rank: int | None
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


def rank_history(
    league: League,
    config: RatingConfig,
    player: Player,
    *,
    clock: ReadClock | None = None,
    rules: Eligibility | None = None,
    level: ConfidenceLevel = DEFAULT_LEVEL,
) -> list[RankPoint]:
    """The player's leaderboard rank at the end of each period they played, and now.

    The same rank as the leaderboard's past standings of each period (``as_of_period``, at
    ``level``): among the players the league's eligibility rules rank at that period, by
    the same key, with RDs grown to it; ``rank`` is None where the player was not ranked
    (provisional, inactive, too few games). One pass over the history rows up to the last
    point, in NumPy: every player's state is carried forward period by period.
    """
    rules = rules if rules is not None else eligibility(league, config)
    played = list(
        PlayerPeriod.objects.filter(config=config, player=player)
        .order_by("period_index")
        .values_list("period_index", flat=True)
    )
    if not played:
        return []
    now = ReadClock.period_for(config, clock)
    points = sorted({*played, now})
    ids = list(Player.objects.filter(league=league).order_by("pk").values_list("pk", "active"))
    slot = {pid: index for index, (pid, _) in enumerate(ids)}
    withdrawn = np.array([not active for _, active in ids], dtype=bool)
    n = len(ids)
    rows = np.array(
        list(
            PlayerPeriod.objects.filter(config=config, period_index__lte=points[-1])
            .order_by("period_index")
            .values_list("player_id", "period_index", "rating", "rd", "volatility", "games")
        ),
        dtype=np.float64,
    ).reshape(-1, 6)
    rating = np.zeros(n)
    rd = np.zeros(n)
    volatility = np.zeros(n)
    last = np.full(n, -1, dtype=np.int64)
    games = np.zeros(n, dtype=np.int64)
    me = slot[player.pk]
    player_slots = np.array([slot[int(pid)] for pid in rows[:, 0]], dtype=np.int64)
    period_of = rows[:, 1].astype(np.int64)
    cursor = 0
    result = []
    for point in points:
        end = int(np.searchsorted(period_of, point, side="right"))
        if end > cursor:
            chunk = slice(cursor, end)
            who = player_slots[chunk]
            rating[who] = rows[chunk, 2]
            rd[who] = rows[chunk, 3]
            volatility[who] = rows[chunk, 4]
            last[who] = period_of[chunk]
            np.add.at(games, who, rows[chunk, 5].astype(np.int64))
            cursor = end
        rated = last >= 0
        idle = np.maximum(point - last, 0)
        grown = np.asarray(grown_rd(rd, volatility, idle, config.max_rd))
        eligible = rated & ~withdrawn & (games >= rules.min_games)
        eligible &= last >= rules.active_since(point)
        if rules.max_rd is not None:
            eligible &= grown <= rules.max_rd
        key = rating - level.z * grown if rules.by_lower_bound else rating
        field = int(np.count_nonzero(eligible))
        rank = int(np.count_nonzero(eligible & (key > key[me]))) + 1 if eligible[me] else None
        info = period_info(config, point)
        result.append(RankPoint(point, info.end, rank, field))
    return result


def compare_versions(
    league: League,
    config_a: RatingConfig,
    config_b: RatingConfig,
    *,
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
) -> Page:
    """Each player's rank and rating under two versions, ordered by rank under ``config_b``.

    The ranks are the leaderboard's under each version (``leaderboard_ranks``: the league's
    rules, RDs grown to each version's current period); a player either version lists
    separately has no rank there and comes after the ranked ones, by rating.
    """
    page, per_page = clamp_page(page, per_page)
    a = leaderboard_ranks(league, config_a)
    b = leaderboard_ranks(league, config_b)
    ids = set(a) | set(b)
    names = {
        pid: (name, slug)
        for pid, name, slug in Player.objects.filter(league=league, pk__in=ids).values_list(
            "pk", "display_name", "slug"
        )
    }
    missing = 10**12

    def order(entries: dict[int, RankEntry], pid: int) -> tuple[int, float]:
        entry = entries.get(pid)
        if entry is None:
            return missing, 0.0
        return (missing - 1 if entry.rank is None else entry.rank), -entry.rating

    ordered = sorted(ids, key=lambda pid: (order(b, pid), order(a, pid), names[pid][0], pid))
    total = len(ordered)
    page = last_page_at_most(page, total, per_page)
    chosen = ordered[(page - 1) * per_page : page * per_page]
    items = [
        ComparisonRow(
            player_id=pid,
            name=names[pid][0],
            slug=names[pid][1],
            rank_a=a[pid].rank if pid in a else None,
            rating_a=a[pid].rating if pid in a else None,
            rank_b=b[pid].rank if pid in b else None,
            rating_b=b[pid].rating if pid in b else None,
        )
        for pid in chosen
    ]
    return Page(items, total, page, per_page)
