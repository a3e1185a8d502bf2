"""The season tables readers see: stored for a closed season, derived now for an open one.

Used by the season pages, the API, the CSV export and the embed alike, so every one of them
shows the same numbers.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from math import ceil

from league.models import League, Season
from league.seasons import DEFAULT_TIEBREAKS, tiebreak_order
from ratings.models import RatingConfig, SeasonTable
from ratings.seasons.derive import SeasonLine, derive_table
from ratings.selectors.common import PeriodInfo, period_info
from ratings.selectors.configurations import live_config


@dataclass(frozen=True)
class Derivation:
    """One stored table of a season: when, by whom, why, and from which version."""

    kind: str
    kind_label: str
    derived_at: dt.datetime
    derived_by: str
    reason: str
    config_version: int
    through_seq: int


@dataclass(frozen=True)
class Performer:
    """One of the season's best performers: what for (``kind``: ``TOP``, ``GAIN`` or
    ``RATE``), who (``line``, which holds the figures), and the numbers its title and
    figure need; the web layer writes them as text (``web.public.seasons``)."""

    kind: str
    line: SeasonLine
    #: The fewest games a player needs to count for the gain and the score rate.
    least_games: int = 0
    #: How many other players share the top's points (the table's order split them).
    level: int = 0
    #: Whether the tie-breaks (not the rating at the end) split a shared top.
    by_tiebreaks: bool = False


#: The kinds of best performer.
TOP, GAIN, RATE = "top", "gain", "rate"


@dataclass(frozen=True)
class SeasonView:
    """A season's table with what a reader needs to understand it."""

    season: Season
    lines: list[SeasonLine]
    archived: bool
    config_version: int | None
    start: PeriodInfo | None
    end: PeriodInfo | None
    derivations: list[Derivation]
    performers: list[Performer]
    initial_rating: float | None
    #: The end is read in the current, still open period (as if it closed now).
    end_open: bool = False
    #: The tie-breaks the table is ordered by, after points.
    tiebreak_order: tuple[str, ...] = DEFAULT_TIEBREAKS

    @property
    def has_newcomers(self) -> bool:
        """True when a player in the table was unrated before the season."""
        return any(line.rating_start is None for line in self.lines)


def league_seasons(league: League) -> list[Season]:
    """The league's seasons, newest first."""
    return list(Season.objects.filter(league=league).order_by("-start_date"))


def _stored_lines(table: SeasonTable) -> list[SeasonLine]:
    rows = table.rows.select_related("player").order_by("position", "player__display_name")
    return [
        SeasonLine(
            player_id=row.player_id,
            name=row.player.display_name,
            slug=row.player.slug,
            position=row.position,
            games=row.games,
            wins=row.wins,
            draws=row.draws,
            losses=row.losses,
            points=row.points,
            rating_start=row.rating_start,
            rank_start=row.rank_start,
            rating_end=row.rating_end,
            rd_end=row.rd_end,
            rank_end=row.rank_end,
            change=row.change,
            tiebreaks=dict(row.tiebreaks or {}),
        )
        for row in rows
    ]


def _periods(config: RatingConfig | None, start: int | None, end: int | None) -> tuple:
    if config is None or start is None or end is None:
        return None, None
    return period_info(config, start), (period_info(config, end) if end >= 0 else None)


def performers(
    lines: list[SeasonLine], order: tuple[str, ...] = DEFAULT_TIEBREAKS
) -> list[Performer]:
    """The season's best performers: top of the table, biggest rating gain, best score rate.

    ``lines`` come in the table's order, which ``order`` (the season's tie-breaks) decided.

    The gain and the score rate count only players with at least half as many games as the
    busiest player, and the gain only players rated before the season (a newcomer's first
    rating says where they stand, not how much they improved).
    """
    played = [line for line in lines if line.games]
    if not played:
        return []
    best: list[Performer] = []
    # The top of the table, as the table orders it (points, then rating at the end).
    top = played[0]
    level = sum(1 for line in played[1:] if line.points == top.points)
    best.append(Performer(TOP, top, level=level, by_tiebreaks=order != DEFAULT_TIEBREAKS))
    # Players with at least half as many games as the busiest: one lucky game (or a
    # newcomer's first rating finding its level) must not top these.
    least = ceil(max(line.games for line in played) / 2)
    regulars = [line for line in played if line.games >= least]
    improvers = [
        line for line in regulars if line.rating_start is not None and line.change is not None
    ]
    if improvers:
        gain = max(improvers, key=lambda line: line.change or 0.0)
        if (gain.change or 0.0) > 0:
            best.append(Performer(GAIN, gain, least_games=least))
    rate = max(regulars, key=lambda line: (line.score_rate, line.games))
    best.append(Performer(RATE, rate, least_games=least))
    return best


def season_table(season: Season) -> SeasonView:
    """The season's table: the newest archive for a closed season, else derived now."""
    tables = list(
        SeasonTable.objects.filter(season=season)
        .select_related("config", "derived_by")
        .order_by("-derived_at", "-pk")
    )
    derivations = [
        Derivation(
            kind=table.kind,
            kind_label=table.get_kind_display(),
            derived_at=table.derived_at,
            derived_by=table.derived_by.get_username() if table.derived_by else "",
            reason=table.reason,
            config_version=table.config.version,
            through_seq=table.through_seq,
        )
        for table in tables
    ]
    if season.closed and tables:
        newest = tables[0]
        lines = _stored_lines(newest)
        start, end = _periods(newest.config, newest.start_period, newest.end_period)
        return SeasonView(
            season, lines, True, newest.config.version, start, end, derivations,
            performers(lines, tiebreak_order(newest)), newest.config.initial_rating,
            tiebreak_order=tiebreak_order(newest),
        )  # fmt: skip
    config = live_config(season.league)
    derived = derive_table(season, config)
    start, end = _periods(config, derived.start_period, derived.end_period)
    return SeasonView(
        season, derived.lines, False, config.version if config else None, start, end,
        derivations, performers(derived.lines, tiebreak_order(season)), derived.initial_rating,
        derived.end_open,
        tiebreak_order(season),
    )  # fmt: skip


def player_line(view: SeasonView, player_id: int) -> SeasonLine | None:
    """The player's line in a season table, or None when they did not play in it."""
    return next((line for line in view.lines if line.player_id == player_id), None)
