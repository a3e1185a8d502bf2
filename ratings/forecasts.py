"""Forecasts: each entrant's chance of finishing first (or in the top places) of a table.

Monte Carlo: the remaining fixtures are played out ``simulations`` times, each result drawn
from the win / draw / loss probabilities the fixtures page shows
(``ratings.selectors.fixtures.forecasts``: the current ratings and RDs, the league's fitted
draw model, the first-named side's advantage), and the points added to the table as it
stands. A chance is the share of the simulations an entrant finishes in the places asked
for; entrants level on points at the edge of those places share them equally (the
simulation does not play out tie-breaks). Its Monte Carlo standard error is the standard
deviation of that share over the simulations divided by their square root. The random
numbers come from NumPy's PCG64 generator seeded by the caller, so one seed always gives
the same forecast.
"""

from __future__ import annotations

import math
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from decimal import Decimal

import numpy as np

from league.models import Season
from pairings import double_elimination as de
from ratings.seasons.derive import SeasonLine, season_bounds
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import OVERDUE, UPCOMING, fixture_rows

#: A cheap default: a standard error of at most 0.5 / sqrt(2000) = 0.011 on any chance.
DEFAULT_SIMULATIONS = 2000
#: The fixed seed of the pages' forecasts: the same table always shows the same numbers.
DEFAULT_SEED = 20240401
#: The most simulations a caller may ask for (a bound on the work of one request).
MAX_SIMULATIONS = 50_000


@dataclass(frozen=True)
class Remaining:
    """A fixture still to play: the first-named entrant's win, draw and loss probabilities."""

    first: Hashable
    second: Hashable
    win: float
    draw: float
    loss: float


@dataclass(frozen=True)
class Chance:
    """An entrant's chance and its Monte Carlo standard error."""

    probability: float
    standard_error: float


@dataclass(frozen=True)
class Forecast:
    """The chances of finishing in the first ``places`` places, and how they were found."""

    places: int
    simulations: int
    seed: int
    remaining: int
    chances: dict[Hashable, Chance]

    @property
    def largest_error(self) -> float:
        """The largest standard error of any chance (the one the pages state)."""
        return max((c.standard_error for c in self.chances.values()), default=0.0)


def simulate_places(
    points: Mapping[Hashable, float | Decimal],
    remaining: Sequence[Remaining],
    scheme: tuple[float | Decimal, float | Decimal, float | Decimal] = (1.0, 0.5, 0.0),
    *,
    places: int = 1,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = DEFAULT_SEED,
) -> Forecast:
    """Each entrant's chance of ending in the first ``places`` places of the points table.

    ``points``: the table now (every entrant, including those with no fixture left);
    ``scheme``: the points of a win, a draw and a loss.
    """
    if simulations < 1 or simulations > MAX_SIMULATIONS:
        raise ValueError(f"Give between 1 and {MAX_SIMULATIONS} simulations.")
    if places < 1:
        raise ValueError("Give at least one place.")
    keys = list(points)
    index = {key: i for i, key in enumerate(keys)}
    n = len(keys)
    if n == 0:
        return Forecast(places, simulations, seed, len(remaining), {})
    base = np.array([float(points[key]) for key in keys])
    win, draw, loss = (float(value) for value in scheme)
    rng = np.random.Generator(np.random.PCG64(seed))
    totals = np.tile(base, (simulations, 1))
    if remaining:
        first = np.array([index[r.first] for r in remaining])
        second = np.array([index[r.second] for r in remaining])
        p_win = np.array([r.win for r in remaining])
        p_draw = np.array([r.draw for r in remaining])
        u = rng.random((simulations, len(remaining)))
        won, drawn = u < p_win, (u >= p_win) & (u < p_win + p_draw)
        lost = ~(won | drawn)
        first_points = np.where(won, win, np.where(drawn, draw, loss))
        second_points = np.where(lost, win, np.where(drawn, draw, loss))
        # Each fixture's points go to its two entrants: one weighted count over (simulation,
        # entrant) cells, so an entrant with several fixtures gets the points of each.
        rows = np.arange(simulations)[:, None] * n
        cells = np.concatenate([(rows + first).ravel(), (rows + second).ravel()])
        weights = np.concatenate([first_points.ravel(), second_points.ravel()])
        totals += np.bincount(cells, weights, minlength=simulations * n).reshape(simulations, n)
    # The points of the last place asked for, per simulation: above it an entrant is in,
    # below it out, on it they share the seats left among everyone on it. (One partition
    # per simulation: memory stays simulations x entrants for a table of any size.)
    k = min(places, n)
    edge = np.partition(totals, n - k, axis=1)[:, n - k][:, None]
    above = (totals > edge).sum(axis=1, keepdims=True)
    level = (totals == edge).sum(axis=1, keepdims=True)
    share = np.where(totals > edge, 1.0, np.where(totals == edge, (k - above) / level, 0.0))
    mean = share.mean(axis=0)
    spread = share.std(axis=0, ddof=1) if simulations > 1 else np.zeros(n)
    error = spread / math.sqrt(simulations)
    return Forecast(
        places,
        simulations,
        seed,
        len(remaining),
        {key: Chance(float(mean[i]), float(error[i])) for i, key in enumerate(keys)},
    )


def season_forecast(
    season: Season,
    lines: Sequence[SeasonLine],
    *,
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = DEFAULT_SEED,
) -> Forecast | None:
    """Who wins the season: its open fixtures (scheduled within its dates, neither played
    nor cancelled) simulated from the table ``lines``. None for a closed season or one with
    no fixture left to play."""
    if season.closed:
        return None
    league = season.league
    config = live_config(league)
    start, after = season_bounds(season)
    rows = [
        row
        for row in fixture_rows(league, config, statuses=(UPCOMING, OVERDUE))
        if start <= row.scheduled_at < after and row.forecast is not None
    ]
    if not rows:
        return None
    points: dict[Hashable, float | Decimal] = {line.player_id: line.points for line in lines}
    for row in rows:
        points.setdefault(row.player_a_id, Decimal(0))
        points.setdefault(row.player_b_id, Decimal(0))
    remaining = [
        Remaining(
            row.player_a_id,
            row.player_b_id,
            row.forecast.win,
            row.forecast.draw,
            row.forecast.loss,
        )
        for row in rows
        if row.forecast is not None
    ]
    scheme = (season.points_win, season.points_draw, season.points_loss)
    return simulate_places(points, remaining, scheme, simulations=simulations, seed=seed)


def simulate_cup(
    slots: Sequence[Hashable | None],
    decided: Mapping[tuple[int, int], Hashable | None],
    tie_win: Mapping[tuple[Hashable, Hashable], float],
    *,
    out: frozenset[Hashable] = frozenset(),
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = DEFAULT_SEED,
) -> Forecast:
    """Each entrant's chance of winning a knockout cup.

    ``slots``: round 1's bracket (``pairings.brackets``: a power of two of players, None for an
    empty slot); ``decided``: the winner of every tie already decided, by (round, tie from
    1; None: nobody went through); ``tie_win[(a, b)]``: the chance ``a`` wins a tie against
    ``b`` (a drawn game is played again until one wins, so ``win / (win + loss)`` of one
    game); ``out``: players withdrawn, whose opponents go through. Every open tie is played
    out ``simulations`` times, round by round; a chance is the share of the simulations an
    entrant wins the final, its standard error as ``simulate_places`` states it.
    """
    if simulations < 1 or simulations > MAX_SIMULATIONS:
        raise ValueError(f"Give between 1 and {MAX_SIMULATIONS} simulations.")
    keys = [player for player in slots if player is not None]
    index = {key: i for i, key in enumerate(keys)}
    n = len(keys)
    if n == 0:
        return Forecast(1, simulations, seed, 0, {})
    # A tie's chances as a matrix (row beats column); a last row and column for nobody.
    beats = np.full((n + 1, n + 1), 0.5)
    for (a, b), p in tie_win.items():
        if a in index and b in index:
            beats[index[a], index[b]] = p
    nobody = n
    rng = np.random.Generator(np.random.PCG64(seed))
    absent = np.array([key in out for key in keys] + [True])
    sides = np.array(
        [[nobody if player is None else index[player] for player in slots]] * simulations
    ).reshape(simulations, len(slots))
    remaining = 0
    number = 1
    while sides.shape[1] > 1:
        firsts, seconds = sides[:, 0::2], sides[:, 1::2]
        winners = np.empty_like(firsts)
        for tie in range(firsts.shape[1]):
            key = (number, tie + 1)
            if key in decided:
                winner = decided[key]
                winners[:, tie] = nobody if winner is None else index[winner]
                continue
            a, b = firsts[:, tie], seconds[:, tie]
            a_in, b_in = ~absent[a], ~absent[b]
            remaining += 1
            u = rng.random(simulations)
            played = np.where(u < beats[a, b], a, b)
            winners[:, tie] = np.where(
                a_in & b_in, played, np.where(a_in, a, np.where(b_in, b, nobody))
            )
        sides = winners
        number += 1
    champion = sides[:, 0]
    share = (champion[:, None] == np.arange(n)[None, :]).astype(float)
    mean = share.mean(axis=0)
    spread = share.std(axis=0, ddof=1) if simulations > 1 else np.zeros(n)
    error = spread / math.sqrt(simulations)
    return Forecast(
        1,
        simulations,
        seed,
        remaining,
        {key: Chance(float(mean[i]), float(error[i])) for i, key in enumerate(keys)},
    )


def simulate_double_elimination(
    specs: Sequence[de.TieSpec],
    slots: Sequence[Hashable | None],
    decided: Mapping[int, tuple[Hashable | None, Hashable | None]],
    tie_win: Mapping[tuple[Hashable, Hashable], float],
    *,
    out: frozenset[Hashable] = frozenset(),
    simulations: int = DEFAULT_SIMULATIONS,
    seed: int = DEFAULT_SEED,
) -> Forecast:
    """Each entrant's chance of winning a double-elimination cup.

    ``specs``: the cup's layout (``pairings.double_elimination.layout``); ``slots``: round 1's
    bracket; ``decided``: the (winner, loser) of every tie already decided, by its index in
    the layout (None: nobody; a walkover has no loser); ``tie_win`` and ``out`` as for
    ``simulate_cup``. Every open tie is played out ``simulations`` times in the layout's
    order; the grand final's reset is played only in the simulations where the losers'
    bracket champion wins the grand final. A chance is the share of the simulations an
    entrant wins the cup, its standard error as ``simulate_places`` states it.
    """
    if simulations < 1 or simulations > MAX_SIMULATIONS:
        raise ValueError(f"Give between 1 and {MAX_SIMULATIONS} simulations.")
    keys = [player for player in slots if player is not None]
    index = {key: i for i, key in enumerate(keys)}
    n = len(keys)
    if n == 0:
        return Forecast(1, simulations, seed, 0, {})
    beats = np.full((n + 1, n + 1), 0.5)
    for (a, b), p in tie_win.items():
        if a in index and b in index:
            beats[index[a], index[b]] = p
    nobody = n
    rng = np.random.Generator(np.random.PCG64(seed))
    absent = np.array([key in out for key in keys] + [True])

    def constant(player: Hashable | None) -> np.ndarray:
        return np.full(simulations, nobody if player is None else index[player])

    firsts: dict[int, np.ndarray] = {}
    seconds: dict[int, np.ndarray] = {}
    winners: dict[int, np.ndarray] = {}
    losers: dict[int, np.ndarray] = {}
    champion = np.full(simulations, nobody)
    remaining = 0
    for spec in specs:

        def side(feed: de.Feed) -> np.ndarray:
            if feed.kind == de.SLOT:
                return constant(slots[feed.ref])
            return winners[feed.ref] if feed.kind == de.WINNER_OF else losers[feed.ref]

        if spec.part == de.RESET:
            final = spec.first.ref
            a, b = firsts[final], seconds[final]
            needed = (winners[final] == b) & (losers[final] != nobody)
        else:
            a, b = side(spec.first), side(spec.second)
        firsts[spec.index], seconds[spec.index] = a, b
        if spec.index in decided:
            winner, loser = decided[spec.index]
            winners[spec.index], losers[spec.index] = constant(winner), constant(loser)
        else:
            remaining += 1
            a_in, b_in = ~absent[a], ~absent[b]
            u = rng.random(simulations)
            first_wins = u < beats[a, b]
            both = a_in & b_in
            winners[spec.index] = np.where(
                both, np.where(first_wins, a, b), np.where(a_in, a, np.where(b_in, b, nobody))
            )
            losers[spec.index] = np.where(both, np.where(first_wins, b, a), nobody)
        if spec.part == de.FINAL:
            champion = winners[spec.index]
        elif spec.part == de.RESET:
            champion = np.where(needed, winners[spec.index], champion)
    share = (champion[:, None] == np.arange(n)[None, :]).astype(float)
    mean = share.mean(axis=0)
    spread = share.std(axis=0, ddof=1) if simulations > 1 else np.zeros(n)
    error = spread / math.sqrt(simulations)
    return Forecast(
        1,
        simulations,
        seed,
        remaining,
        {key: Chance(float(mean[i]), float(error[i])) for i, key in enumerate(keys)},
    )
