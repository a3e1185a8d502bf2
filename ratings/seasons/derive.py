"""A season's table, derived from the event log and the one continuous rating.

Games, wins, draws, losses and points count the season's counted (not voided) matches whose
local date lies in the season's dates. A match with sides counts for each of its players as
a game, and as one result against each other side, as in the ratings: a doubles match is
one win, draw or loss; fourth of four in a board game is three losses. Ratings come from
the published configuration's history at rating-period boundaries: the rating at the start
is each player's rating after the last period before the one holding the season's first
day, the rating at the end is their rating after the period holding its last day (or the
current period, for a season still running). A season that starts and ends on period
boundaries therefore reads exactly the ratings of its own days; the page names the periods
it read. The ranks beside those ratings are the leaderboard's at the same boundaries (its
past standings: the league's ranking rules, ``ratings.selectors.standings.leaderboard_ranks``),
None for a player it listed separately, so a season table never shows a rank the
leaderboard does not.

The season's order (its positions) is by season points, then by the season's tie-breaks
in the order its organisers chose (``league.seasons.tiebreak_order``; by default the rating
at the end, the order before tie-breaks could be chosen), then by name: a different
ordering from the rank, and the pages label it so. The FIDE tie-breaks
(``league.tiebreaks``) read the season's one-vs-one matches, each game once, with the
season's points; the average rating of opponents reads their ratings at the season's start
(the initial rating for a newcomer). Matches with sides count in the points but not in the
tie-breaks (an opponent's score is a player's, not a side's).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from math import nan

from django.db import connection

from engine.errors import MatchBeforeAnchorError
from league import tiebreaks
from league.calendar import league_zone, local_midnight
from league.models import Event, League, MatchParticipant, Player, Season
from league.seasons import RATING_AT_END, tiebreak_order
from league.sides import score_of_places
from ratings.models import PlayerPeriod, ProjectionState, RatingConfig
from ratings.replay.identities import merges_at
from ratings.replay.positions import max_seq
from ratings.selectors.common import ReadClock, rd_now
from ratings.selectors.configurations import period_for_date
from ratings.selectors.standings import leaderboard_ranks


@dataclass(frozen=True)
class PlayerState:
    """A player's rating after a period boundary, and the RD grown to it."""

    rating: float
    rd: float


@dataclass
class SeasonLine:
    """One player's line of a season table."""

    player_id: int
    name: str = ""
    slug: str = ""
    position: int = 0
    games: int = 0
    wins: int = 0
    draws: int = 0
    losses: int = 0
    points: Decimal = Decimal(0)
    rating_start: float | None = None
    rank_start: int | None = None
    rating_end: float | None = None
    rd_end: float | None = None
    rank_end: int | None = None
    change: float | None = None
    #: The season's tie-breaks (code -> value; None where a value does not exist).
    tiebreaks: dict[str, float | None] = field(default_factory=dict)

    @property
    def score_rate(self) -> float:
        """The share of the results won (a draw is half), 0 without games."""
        results = self.wins + self.draws + self.losses
        return (self.wins + self.draws / 2) / results if results else 0.0


@dataclass(frozen=True)
class DerivedTable:
    """A season's table as derived now (or as stored, read back by ``ratings.seasons.read``)."""

    season: Season
    lines: list[SeasonLine]
    config: RatingConfig | None
    start_period: int | None
    end_period: int | None
    through_seq: int
    initial_rating: float | None = None
    end_open: bool = False


def season_bounds(season: Season) -> tuple[dt.datetime, dt.datetime]:
    """The first moment of the season and the first moment after it, in the league's zone."""
    zone = league_zone(season.league)
    return (
        local_midnight(season.start_date, zone),
        local_midnight(season.end_date + dt.timedelta(days=1), zone),
    )


def season_matches(season: Season) -> Iterable[tuple]:
    """The season's counted matches as (player_a, player_b, score_a) id triples, as stored."""
    start, after = season_bounds(season)
    return (
        Event.objects.live_matches()
        .filter(league_id=season.league_id, played_at__gte=start, played_at__lt=after)
        .values_list("player_a_id", "player_b_id", "score_a")
    )


def season_side_matches(season: Season) -> dict[int, list[tuple[int, int, int]]]:
    """The season's counted matches with sides: per event, its (side, place, player) rows."""
    start, after = season_bounds(season)
    rows = (
        MatchParticipant.objects.filter(
            event__in=Event.objects.side_matches().filter(
                league_id=season.league_id,
                played_at__gte=start,
                played_at__lt=after,
                voided_by__isnull=True,
            )
        )
        .order_by("event_id", "side")
        .values_list("event_id", "side", "place", "player_id")
    )
    matches: dict[int, list[tuple[int, int, int]]] = {}
    for event_id, side, place, player_id in rows:
        matches.setdefault(event_id, []).append((side, place, player_id))
    return matches


def _tally_results(
    merged: dict[int, int], season: Season, among: Collection[int] | None = None
) -> dict[int, list[int]]:
    """[wins, draws, losses, games] per player over the season's counted matches (with
    ``among``: only the matches all of whose players are among them, a division's)."""
    tallies: dict[int, list[int]] = {}

    def tally(stored: int) -> list[int]:
        player_id = merged.get(stored, stored)
        found = tallies.get(player_id)
        if found is None:
            found = tallies[player_id] = [0, 0, 0, 0]
        return found

    # A player's score (1, 0.5, 0) -> their tally's slot (wins, draws, losses).
    slot = {Decimal("1"): 0, Decimal("0.5"): 1, Decimal("0"): 2}
    for a, b, score_a in season_matches(season):
        if among is not None and not (merged.get(a, a) in among and merged.get(b, b) in among):
            continue
        for stored, score in ((a, score_a), (b, 1 - score_a)):
            counts = tally(stored)
            counts[slot[score]] += 1
            counts[3] += 1
    for rows in season_side_matches(season).values():
        if among is not None and not all(merged.get(p, p) in among for _s, _p, p in rows):
            continue
        places = {side: place for side, place, _player in rows}
        for side, place, player_id in rows:
            counts = tally(player_id)
            counts[3] += 1
            # One result against each other side, whatever its number of players.
            for other, other_place in places.items():
                if other != side:
                    counts[slot[score_of_places((place, other_place))]] += 1
    return tallies


def states_after(
    config: RatingConfig, period: int, *, rd_for: Collection[int] = ()
) -> dict[int, PlayerState]:
    """Every player's rating after ``period`` (their last played period up to it).

    One statement: each player's last history row at or before the period (the unique
    (config, player, period) index serves the inner MAX). The RD grown to the period is
    computed for the players in ``rd_for`` only (the others get NaN).
    """
    if period < 0:
        return {}
    history = PlayerPeriod._meta.db_table
    sql = f"""
        SELECT h.player_id, h.rating, h.rd, h.volatility, h.period_index
        FROM {history} h
        JOIN (
            SELECT player_id, MAX(period_index) AS last
            FROM {history}
            WHERE config_id = %s AND period_index <= %s
            GROUP BY player_id
        ) latest ON latest.player_id = h.player_id AND latest.last = h.period_index
        WHERE h.config_id = %s
    """
    with connection.cursor() as cursor:
        cursor.execute(sql, [config.pk, period, config.pk])
        rows = cursor.fetchall()
    states: dict[int, PlayerState] = {}
    for player_id, rating, rd, volatility, last in rows:
        grown = rd_now(config, rd, volatility, last, period) if player_id in rd_for else nan
        states[player_id] = PlayerState(rating, grown)
    return states


def ranks_after(league: League, config: RatingConfig, period: int) -> dict[int, int | None]:
    """The leaderboard's rank of every player rated after ``period`` (None: not ranked)."""
    if period < 0:
        return {}
    entries = leaderboard_ranks(league, config, as_of_period=period)
    return {player_id: entry.rank for player_id, entry in entries.items()}


def season_periods(season: Season, config: RatingConfig) -> tuple[int, int, bool]:
    """The last period before the season (-1 when none), the period its end is read at, and
    whether that period is the current one (still open: read as if it closed now)."""
    try:
        first = period_for_date(config, season.start_date)
    except MatchBeforeAnchorError:
        first = 0
    try:
        last = period_for_date(config, season.end_date)
    except MatchBeforeAnchorError:
        last = -1
    now = ReadClock.of(config).period
    return first - 1, min(last, now), last >= now


def season_tournament(
    season: Season,
    merged: dict[int, int],
    lines: dict[int, SeasonLine],
    initial: float | None,
    among: Collection[int] | None = None,
) -> tiebreaks.Tournament:
    """The season's one-vs-one matches as the tie-breaks read them (no rounds, no colours;
    with ``among``: only the matches between two of them)."""
    games = [
        tiebreaks.Game(merged.get(a, a), merged.get(b, b), Fraction(score_a))
        for a, b, score_a in season_matches(season)
        if merged.get(a, a) != merged.get(b, b)
        and (among is None or (merged.get(a, a) in among and merged.get(b, b) in among))
    ]
    points = tiebreaks.Points(
        *(Fraction(value) for value in (season.points_win, season.points_draw, season.points_loss)),
        Fraction(season.points_win),
    )
    ratings = {
        pid: line.rating_start if line.rating_start is not None else initial
        for pid, line in lines.items()
    }
    return tiebreaks.Tournament(ratings, games, points=points)


def order_lines(
    lines: list[SeasonLine],
    order: tuple[str, ...] = (RATING_AT_END,),
    tournament: tiebreaks.Tournament | None = None,
) -> list[SeasonLine]:
    """Lines by points, then each tie-break of ``order``, then name; positions 1, 2, 3…

    Players level on points and on every tie-break share a position. Each line's
    ``tiebreaks`` gets its values (direct encounter: among the players still level when
    its turn came).
    """
    by_id = {line.player_id: line for line in lines}
    if tournament is None:
        tournament = tiebreaks.Tournament(dict.fromkeys(by_id))
    placings = tiebreaks.rank(
        tournament,
        order,
        extra={RATING_AT_END: {pid: line.rating_end for pid, line in by_id.items()}},
        scores={pid: Fraction(line.points) for pid, line in by_id.items()},
    )
    for placing in placings:
        line = by_id[placing.player]
        line.position = placing.position
        line.tiebreaks = {
            code: None if value is None else float(value)
            for code, value in placing.values.items()
            if code != RATING_AT_END
        }
    lines.sort(key=lambda line: (line.position, line.name, line.player_id))
    return lines


def derive_table(
    season: Season, config: RatingConfig | None, among: Collection[int] | None = None
) -> DerivedTable:
    """The season's table as the event log and ``config``'s projection stand now.

    With ``among`` (a division's players): the table of those players alone, counting only
    the matches between them, every one of them listed (with no games yet, too).
    """
    league: League = season.league
    through = max_seq(league.pk)
    # A merged-away player's matches count as the player they were merged into, as in the
    # ratings (``ratings.replay.identities``).
    merged = merges_at(league.pk, through)
    # Wins, draws, losses and games per player, counted first; points follow from them.
    lines: dict[int, SeasonLine] = {}
    for player_id, (wins, draws, losses, games) in _tally_results(merged, season, among).items():
        lines[player_id] = SeasonLine(
            player_id,
            games=games,
            wins=wins,
            draws=draws,
            losses=losses,
            points=wins * season.points_win
            + draws * season.points_draw
            + losses * season.points_loss,
        )
    for player_id in among or ():
        lines.setdefault(player_id, SeasonLine(player_id))
    for player_id, name, slug in Player.objects.filter(pk__in=list(lines)).values_list(
        "pk", "display_name", "slug"
    ):
        lines[player_id].name, lines[player_id].slug = name, slug
    order = tiebreak_order(season)
    if config is None:
        games = season_tournament(season, merged, lines, None, among)
        ordered = order_lines(list(lines.values()), order, games)
        return DerivedTable(season, ordered, None, None, None, through)
    before, end, end_open = season_periods(season, config)
    at_start = states_after(config, before)
    at_end = states_after(config, end, rd_for=set(lines))
    ranks_start, ranks_end = ranks_after(league, config, before), ranks_after(league, config, end)
    for player_id, line in lines.items():
        start_state, end_state = at_start.get(player_id), at_end.get(player_id)
        if start_state is not None:
            line.rating_start, line.rank_start = start_state.rating, ranks_start.get(player_id)
        if end_state is not None:
            line.rating_end, line.rd_end, line.rank_end = (
                end_state.rating,
                end_state.rd,
                ranks_end.get(player_id),
            )
            base = config.initial_rating if start_state is None else start_state.rating
            line.change = end_state.rating - base
    projected = (
        ProjectionState.objects.filter(config=config).values_list("through_seq", flat=True).first()
    )
    games = season_tournament(season, merged, lines, config.initial_rating, among)
    return DerivedTable(
        season,
        order_lines(list(lines.values()), order, games),
        config,
        before + 1,
        end,
        min(through, projected) if projected is not None else through,
        config.initial_rating,
        end_open,
    )
