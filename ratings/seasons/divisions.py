"""A season's divisions as readers see them: each division's table, its promotion and
relegation zones, and the forecast of who finishes first, goes up and goes down; and the
proposal of next season's divisions from those tables (:func:`propose`, the arithmetic on
players in table order: the top ``promotion`` of division k+1 swap with the bottom
``promotion`` of division k).

A division's table is the season table (``ratings.seasons.derive``) restricted to the
division's players: only the matches between two of them count, ordered by the season's
points and tie-breaks. It is derived now from the log, for a closed season too (its stored
archive is the whole league's table).

The forecast (``ratings.forecasts.simulate_places``) plays out the division's remaining games
from the current ratings, with the win / draw / loss chances the fixtures page shows. The
remaining games are the open fixtures (neither played nor cancelled) scheduled within the
season's dates between two of the division's players; where the division has none, one game
between every two of its players who have not met in the season yet (a round robin
completed), on neutral ground (the mean of the two first-named orders). A season that has
ended has no forecast: its tables are final.
"""

from __future__ import annotations

from collections.abc import Collection, Hashable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.utils.translation import gettext_lazy as _

from league.divisions import DivisionInput, set_divisions, setup_of
from league.models import Division, DivisionMember, DivisionSetup, Player, Season
from league.validation import Errors
from ratings.forecasts import (
    DEFAULT_SEED,
    DEFAULT_SIMULATIONS,
    Chance,
    Forecast,
    Remaining,
    simulate_places,
)
from ratings.replay.identities import merges_at
from ratings.seasons.derive import SeasonLine, derive_table, season_bounds, season_matches
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import OVERDUE, UPCOMING, fixture_rows, forecasts, league_today

#: What the forecast simulated: the division's open fixtures, or a completed round robin.
FIXTURES = "fixtures"
ROUND_ROBIN = "round_robin"


@dataclass(frozen=True)
class DivisionForecast:
    """A division's chances: first place, promotion (None for the top division) and
    relegation (None for the bottom one), by player id, from one set of simulations."""

    simulations: int
    seed: int
    remaining: int
    simulated: str
    first: dict[Hashable, Chance]
    promotion: dict[Hashable, Chance] | None
    relegation: dict[Hashable, Chance] | None

    @property
    def largest_error(self) -> float:
        """The largest standard error of any chance shown."""
        chances = [*self.first.values()]
        for more in (self.promotion, self.relegation):
            chances += list((more or {}).values())
        return max((chance.standard_error for chance in chances), default=0.0)


@dataclass(frozen=True)
class DivisionTable:
    """One division of a season: its table (top first), who is in the promotion and the
    relegation zone (nobody before the division's first game), and its forecast (None once
    the season has ended)."""

    division: Division
    lines: list[SeasonLine]
    promoted: frozenset[int]
    relegated: frozenset[int]
    forecast: DivisionForecast | None


def division_members(season: Season) -> list[tuple[Division, list[Player]]]:
    """The season's divisions, top first, each with its players by name."""
    divisions = list(Division.objects.filter(season=season).order_by("position"))
    members: dict[int, list[Player]] = {division.pk: [] for division in divisions}
    for member in (
        DivisionMember.objects.filter(season=season)
        .select_related("player")
        .order_by("player__display_name")
    ):
        members[member.division_id].append(member.player)
    return [(division, members[division.pk]) for division in divisions]


def season_ended(season: Season) -> bool:
    """Whether the season is over: closed, or its last day is past in the league's zone."""
    return season.closed or season.end_date < league_today(season.league)


def _members(season: Season) -> tuple[list[Division], dict[int, list[int]]]:
    divisions = list(Division.objects.filter(season=season).order_by("position"))
    members: dict[int, list[int]] = {division.pk: [] for division in divisions}
    for division_id, player_id in DivisionMember.objects.filter(season=season).values_list(
        "division_id", "player_id"
    ):
        members[division_id].append(player_id)
    return divisions, members


def _remaining(season: Season, players: list[int]) -> tuple[list[Remaining], str]:
    """The division's games still to play, with their chances, and what they are."""
    league = season.league
    config = live_config(league)
    among = set(players)
    start, after = season_bounds(season)
    rows = [
        row
        for row in fixture_rows(league, config, statuses=(UPCOMING, OVERDUE))
        if start <= row.scheduled_at < after
        and row.player_a_id in among
        and row.player_b_id in among
        and row.forecast is not None
    ]
    if rows:
        return [
            Remaining(
                r.player_a_id, r.player_b_id, r.forecast.win, r.forecast.draw, r.forecast.loss
            )
            for r in rows
            if r.forecast is not None
        ], FIXTURES
    merged = merges_at(league.pk, 10**18)
    met = {
        frozenset((merged.get(a, a), merged.get(b, b))) for a, b, _score in season_matches(season)
    }
    pairs = [
        (a, b)
        for i, a in enumerate(sorted(players))
        for b in sorted(players)[i + 1 :]
        if frozenset((a, b)) not in met
    ]
    chances = forecasts(league, config, pairs + [(b, a) for a, b in pairs])
    remaining = []
    for a, b in pairs:
        there, back = chances[(a, b)], chances[(b, a)]
        win, draw = (there.win + back.loss) / 2, (there.draw + back.draw) / 2
        remaining.append(Remaining(a, b, win, draw, 1 - win - draw))
    return remaining, ROUND_ROBIN


def zone_chances(
    points: dict[Hashable, float | Decimal],
    remaining: list[Remaining],
    scheme: tuple[Decimal | float, Decimal | float, Decimal | float],
    *,
    promotion: int,
    top: bool,
    bottom: bool,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = DEFAULT_SEED,
) -> tuple[Forecast, dict[Hashable, Chance] | None, dict[Hashable, Chance] | None]:
    """A division's chances of first place, of promotion (the top ``promotion``; None for
    the top division) and of relegation (the bottom ``promotion``; None for the bottom
    division): ``simulate_places`` over the same seed, relegation being the complement of
    finishing in the other places (same standard error). Players level at a zone's edge
    share its places, as a draw by lot would give them."""

    def places(count: int) -> Forecast:
        return simulate_places(
            points, remaining, scheme, places=count, simulations=simulations, seed=seed
        )

    first = places(1)
    up = places(promotion).chances if promotion and not top else None
    down = None
    if promotion and not bottom:
        staying = places(len(points) - promotion)
        down = {
            key: Chance(1.0 - chance.probability, chance.standard_error)
            for key, chance in staying.chances.items()
        }
    return first, up, down


def division_forecast(
    season: Season,
    lines: list[SeasonLine],
    *,
    promotion: int,
    top: bool,
    bottom: bool,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = DEFAULT_SEED,
) -> DivisionForecast:
    """The chances of the division whose table is ``lines`` (every player of it)."""
    remaining, simulated = _remaining(season, [line.player_id for line in lines])
    points: dict[Hashable, float | Decimal] = {line.player_id: line.points for line in lines}
    scheme = (season.points_win, season.points_draw, season.points_loss)
    first, up, down = zone_chances(
        points,
        remaining,
        scheme,
        promotion=promotion,
        top=top,
        bottom=bottom,
        simulations=simulations,
        seed=seed,
    )
    return DivisionForecast(simulations, seed, len(remaining), simulated, first.chances, up, down)


def division_tables(
    season: Season,
    *,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = DEFAULT_SEED,
    forecast: bool = True,
) -> list[DivisionTable]:
    """The season's divisions, top first, each with its table, zones and forecast."""
    setup = setup_of(season)
    if setup is None:
        return []
    divisions, members = _members(season)
    config = live_config(season.league)
    ended = season_ended(season)
    count = len(divisions)
    tables = []
    for index, division in enumerate(divisions):
        players = members[division.pk]
        lines = derive_table(season, config, among=players).lines
        top, bottom = index == 0, index == count - 1
        up = setup.promotion if not top else 0
        down = setup.promotion if not bottom else 0
        # Before the division's first game the table is no standing: nobody is in a zone.
        ids = [line.player_id for line in lines] if any(line.games for line in lines) else []
        promoted = frozenset(ids[:up])
        relegated = frozenset(ids[len(ids) - down :] if down else ())
        chances = None
        if forecast and not ended and count:
            chances = division_forecast(
                season,
                lines,
                promotion=setup.promotion,
                top=top,
                bottom=bottom,
                simulations=simulations,
                seed=seed,
            )
        tables.append(DivisionTable(division, lines, promoted, relegated, chances))
    return tables


def propose(
    orders: Sequence[Sequence[int]],
    promotion: int,
    *,
    newcomers: Sequence[int] = (),
    newcomer_division: int = 0,
    leaving: Collection[int] = (),
) -> list[list[int]]:
    """Next season's divisions from this season's, each in its table's order (top first).

    The top ``promotion`` of division k+1 go up to division k and the bottom ``promotion``
    of division k go down to k+1; the others stay. ``newcomers`` join division
    ``newcomer_division`` (1 = top; 0: the bottom one); players in ``leaving`` (no longer
    playing) are left out. Each new division lists those relegated into it first, then those
    who stayed, then those promoted into it, then newcomers, each group in table order.
    """
    count = len(orders)
    down_into: list[list[int]] = [[] for _ in range(count)]
    stay: list[list[int]] = [[] for _ in range(count)]
    up_into: list[list[int]] = [[] for _ in range(count)]
    for index, order in enumerate(orders):
        size = len(order)
        up = promotion if index > 0 else 0
        down = promotion if index < count - 1 else 0
        for place, player in enumerate(order):
            if place < up:
                up_into[index - 1].append(player)
            elif place >= size - down:
                down_into[index + 1].append(player)
            else:
                stay[index].append(player)
    result = [down_into[i] + stay[i] + up_into[i] for i in range(count)]
    if count:
        target = (newcomer_division or count) - 1
        result[min(max(target, 0), count - 1)].extend(newcomers)
    gone = set(leaving)
    return [[player for player in division if player not in gone] for division in result]


def next_season(season: Season) -> Season | None:
    """The league's first season after ``season``."""
    return (
        Season.objects.filter(league_id=season.league_id, start_date__gt=season.end_date)
        .order_by("start_date")
        .first()
    )


def previous_season(season: Season) -> Season | None:
    """The league's last season before ``season``."""
    return (
        Season.objects.filter(league_id=season.league_id, end_date__lt=season.start_date)
        .order_by("-start_date")
        .first()
    )


def propose_next(season: Season, *, by: Any = None) -> Season:
    """Propose the next season's divisions from ``season``'s tables and rule (one
    ``divisions_set`` fact, marked proposed; the organiser adjusts and fixes them).

    Refused, naming ``season``, while the season has no fixed divisions or has not ended,
    when the league has no later season, or when that season's divisions are fixed.
    """
    errors = Errors()
    setup: DivisionSetup | None = setup_of(season)
    following = next_season(season)
    if setup is None or not setup.fixed:
        errors.add(
            "season",
            _("%(season)s has no fixed divisions to promote and relegate from."),
            "no_divisions",
            season=season.name,
        )
    elif not season_ended(season):
        errors.add(
            "season",
            _("%(season)s has not ended yet (its last day is %(day)s)."),
            "season_running",
            season=season.name,
            day=season.end_date.isoformat(),
        )
    elif following is None:
        errors.add(
            "season",
            _("There is no season after %(season)s to propose divisions for; create it first."),
            "no_next_season",
            season=season.name,
        )
    else:
        later = setup_of(following)
        if later is not None and later.fixed:
            errors.add(
                "season",
                _("The divisions of %(season)s are already fixed."),
                "divisions_fixed",
                season=following.name,
            )
    errors.raise_if_any()
    assert setup is not None
    assert following is not None
    tables = division_tables(season, forecast=False)
    orders = [[line.player_id for line in table.lines] for table in tables]
    placed = {pid for order in orders for pid in order}
    playing = set(
        Player.objects.filter(
            league_id=season.league_id, active=True, merged_into__isnull=True
        ).values_list("pk", flat=True)
    )
    newcomers = sorted(playing - placed)
    proposal = propose(
        orders,
        setup.promotion,
        newcomers=newcomers,
        newcomer_division=setup.newcomers,
        leaving=placed - playing,
    )
    set_divisions(
        following,
        [
            DivisionInput(table.division.name, tuple(players))
            for table, players in zip(tables, proposal, strict=True)
        ],
        promotion=setup.promotion,
        newcomers=setup.newcomers,
        proposed=True,
        by=by,
    )
    return following
