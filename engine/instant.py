"""Instant updates with fractional rating periods: every match rated when it is played.

The period fold (:mod:`engine.fold`, :mod:`engine.side_fold`) treats a period's games as
simultaneous, as the paper does. Here, as in Lichess's liglicko2, each match updates its
players at once, from everyone's values just before it, and a player's RD grows with the
time that passed since their previous match, counted in fractions of a period. The rating
periods stay: they date the history rows, and a period's end is where every player who played
in it is brought up to date (their RD grown to the period's end), so the stored rows, the idle
growth and a resumed fold work exactly as in the period fold. Method, deviations from the
paper and the measured coverage of the intervals: ``docs/intervals.md``.

Time: match ``m`` of period ``p`` happens at ``T = p + moment[m]`` with ``moment`` in
``[0, 1]``, the fraction of its period gone by (the replay passes the end of the match's local
day, so a period of one day puts every match at ``moment = 1``). A player rated at time ``t0``
(``p0 + 1`` after period ``p0``'s end) who plays at ``T`` has ``e = T - t0`` periods elapsed:

    Step 2  phi    = sqrt(phi0^2 + max(e - 1, 0) sigma^2)       (growth before the last period)
    Step 6  phi*   = sqrt(phi^2 + min(e, 1) sigma'^2)           (the last period's, as the paper)

and every opponent enters with its own Step 2 value (liglicko2 previews both at ``T - 1``).
A newcomer enters with the initial values and ``e = 1``. Steps 3-5, 7 and 8 are the paper's
on the match's virtual games (:func:`engine.teams.virtual_games` for matches with sides, the
one-vs-one games as :func:`engine.glicko2.rate_period` forms them).

**Exactly the paper** when every player plays at most one match per period and every match is
at its period's end (``moment = 1``): then ``e`` is a whole number of periods, Step 2 is the
paper's idle growth and Step 6 its ``phi* = sqrt(phi^2 + sigma'^2)``, bit for bit.

Matches sharing no player do not affect each other, so the matches of a period are rated in
*levels*: a match's level is one more than the highest level among its players' previous
matches in the period. Every match of a level is rated at once (vectorised), which gives the
same numbers as rating the matches one by one in the order given.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidParameterError
from engine.fold import FoldResult, History, MatchArrays, check_fold_range, initial_state, keep
from engine.glicko2 import _new_volatility, pre_period
from engine.params import CENTRE, SCALE, Glicko2Params
from engine.sides import SideMatches
from engine.state import NEVER, FloatArray, IntArray, RatingState
from engine.teams import DEFAULT_METHOD, TeamMethod, VirtualGames, _sums, virtual_games

__all__ = ["InstantFold", "fold_instant", "fold_sides_instant", "match_levels", "rank_weights"]


@dataclass(frozen=True)
class InstantFold:
    """A fold's result and, per match, the values its players entered it with.

    ``rating_a``/``rd_a`` and ``rating_b``/``rd_b`` (one-vs-one folds, in the input's order)
    or ``row_rating``/``row_rd`` (folds of side matches, one per row of the input's
    ``SideMatches``) are the values each match's update used: the Step 2 values above. A
    prediction made just before the match uses exactly these.
    """

    fold: FoldResult
    row_rating: FloatArray
    row_rd: FloatArray


def match_levels(row_match: IntArray, row_player: IntArray, period: IntArray) -> IntArray:
    """Per match, its level within its period: 0 when none of its players played earlier in
    the period, else one more than the highest level of their previous matches there.

    ``row_match``/``row_player`` list every (match, player) pair, grouped by match in match
    order; ``period`` has one entry per match, non-decreasing. Matches of one level share no
    player, and each player's matches have increasing levels, so rating level after level is
    rating match after match.
    """
    n = int(period.size)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # A sequential scan, so plain Python over lists. Each player's last level is kept as a
    # stamp, offset + level, in a list indexed by player; the offset of a period is above
    # every stamp of the earlier ones, so a stamp below it means "not yet this period" and
    # nothing is cleared between periods (no dictionary: half the time at 200,000 matches).
    seen = [-1] * (int(row_player.max()) + 1) if row_player.size else []
    cuts = (np.flatnonzero(np.diff(period)) + 1).tolist()
    bounds = list(zip([0, *cuts], [*cuts, n], strict=True))
    stamps = [0] * n
    offsets = np.zeros(len(bounds), dtype=np.int64)
    top = -1
    if row_player.size == 2 * n and np.array_equal(row_match, np.arange(2 * n) // 2):
        # One-vs-one: two rows a match.
        players_a = row_player[0::2].tolist()
        players_b = row_player[1::2].tolist()
        for k, (first, stop) in enumerate(bounds):
            offset = top + 1
            offsets[k] = offset
            floor = offset - 1
            for m in range(first, stop):
                a = players_a[m]
                b = players_b[m]
                stamp = seen[a]
                other = seen[b]
                if other > stamp:
                    stamp = other
                if stamp < floor:
                    stamp = floor
                stamp += 1
                seen[a] = seen[b] = stamps[m] = stamp
                if stamp > top:
                    top = stamp
    else:
        starts = np.searchsorted(row_match, np.arange(n + 1, dtype=np.int64)).tolist()
        players = row_player.tolist()
        for k, (first, stop) in enumerate(bounds):
            offset = top + 1
            offsets[k] = offset
            for m in range(first, stop):
                members = players[starts[m] : starts[m + 1]]
                stamp = offset - 1
                for p in members:
                    if seen[p] > stamp:
                        stamp = seen[p]
                stamp += 1
                for p in members:
                    seen[p] = stamp
                stamps[m] = stamp
                if stamp > top:
                    top = stamp
    lengths = np.array([stop - first for first, stop in bounds], dtype=np.int64)
    levels: IntArray = np.asarray(stamps, dtype=np.int64) - np.repeat(offsets, lengths)
    return levels


def _grown(rd: FloatArray, sigma: FloatArray, elapsed: FloatArray, max_rd: float) -> FloatArray:
    """RD after ``elapsed`` periods (any non-negative reals) of growth with volatility sigma.

    The same expression as :func:`engine.state.grown_rd` (so whole numbers give its bits),
    and ``elapsed = 0`` returns ``rd`` unchanged.
    """
    phi = rd / SCALE
    grown = np.minimum(SCALE * np.sqrt(phi * phi + elapsed * (sigma * sigma)), max_rd)
    result: FloatArray = np.where(elapsed == 0, rd, grown)
    return result


@dataclass
class _Period:
    """What the fold keeps about the current period's players while it runs."""

    at: FloatArray  # per player: time of their last update in this period (NaN: none yet)
    rating_before: FloatArray
    rd_before: FloatArray
    counts: IntArray  # per player: games, losses, draws, wins
    # Per player, scratch of one level (only the level's players' entries are read): their
    # Step 2 mu and phi, and their position in the level. Kept across levels because a
    # level rates a few hundred players of many: filling arrays of every player on each
    # level cost more than the level's own arithmetic.
    mu: FloatArray
    phi: FloatArray
    slot: IntArray

    @classmethod
    def of(cls, n_players: int) -> _Period:
        """Nobody has played in the period yet."""
        return cls(
            at=np.full(n_players, np.nan),
            rating_before=np.zeros(n_players),
            rd_before=np.zeros(n_players),
            counts=np.zeros((n_players, 4), dtype=np.int64),
            mu=np.zeros(n_players),
            phi=np.zeros(n_players),
            slot=np.zeros(n_players, dtype=np.int64),
        )

    def played(self) -> IntArray:
        """The players who have played in the period so far, ascending."""
        players: IntArray = np.flatnonzero(~np.isnan(self.at))
        return players


def _level_update(
    state: RatingState,
    period: _Period,
    players: IntArray,
    when: FloatArray,
    blocks_of: Callable[[FloatArray, FloatArray], tuple[list[VirtualGames], IntArray, FloatArray]],
    params: Glicko2Params,
    period_index: int,
) -> tuple[FloatArray, FloatArray]:
    """Rate one level: ``players`` (distinct) each at time ``when`` (within the period).

    ``blocks_of(mu_all, phi_all)`` gives the level's virtual games from everyone's Step 2
    values, and the (player, score) pairs for the counts. Updates ``state`` and ``period``
    in place; returns the players' Step 2 rating and RD.
    """
    rated = state.last_period[players] != NEVER
    first = np.isnan(period.at[players])
    # Values at the start of the period for players new to it: the history's "before".
    if first.any():
        newcomers = players[first]
        before = pre_period(state, newcomers, params, period_index)
        period.rating_before[newcomers] = before[0]
        period.rd_before[newcomers] = before[1]
    start = np.where(first, float(period_index), period.at[players])
    # A rated player new to the period was last brought up to date at its start (the end of
    # their previous period, grown over idle ones: elapsed counts from their last period's end).
    idle = np.where(first & rated, period_index - 1 - state.last_period[players], 0)
    elapsed = np.where(rated | ~first, when - start + idle, 1.0)
    # Unrated players hold their starting values in the state (initial, or a seed).
    rating = state.rating[players]
    rd0 = state.rd[players]
    sigma = state.volatility[players]
    # Step 2: everything but the last period's growth, with the volatility held until now.
    rd = _grown(rd0, sigma, np.maximum(elapsed - 1.0, 0.0), params.max_rd)
    mu = (rating - CENTRE) / SCALE
    phi = rd / SCALE
    # A level's matches name only its own players: the other entries are never read.
    mu_all, phi_all = period.mu, period.phi
    mu_all[players] = mu
    phi_all[players] = phi
    blocks, counted, scores = blocks_of(mu_all, phi_all)
    # Steps 3-4: the sums over each player's virtual games of this match, in one bin per
    # player of the level (in the order of ``players``).
    period.slot[players] = np.arange(players.size)
    v_inverse, improvement = _sums(blocks, mu_all, players.size, period.slot)
    v = 1.0 / v_inverse
    delta = v * improvement
    # Step 5
    sigma_new = _new_volatility(players, phi, sigma, v, delta, params)
    # Step 6: the growth of (at most) the last period, with the new volatility.
    phi_star = np.sqrt(phi * phi + np.minimum(elapsed, 1.0) * (sigma_new * sigma_new))
    # Step 7
    phi_new = 1.0 / np.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    # Step 8
    rating_new = SCALE * mu_new + CENTRE
    if params.rating_floor is not None:
        rating_new = np.maximum(rating_new, params.rating_floor)
    state.rating[players] = rating_new
    state.rd[players] = np.minimum(SCALE * phi_new, params.max_rd)
    state.volatility[players] = sigma_new
    period.at[players] = when
    period.counts[players, 0] += 1
    code = (scores * 2.0).astype(np.int64)
    np.add.at(period.counts, (counted, 1 + code), 1)
    return rating, rd


def _close_period(
    state: RatingState, period: _Period, players: IntArray, period_index: int, params: Glicko2Params
) -> History:
    """Bring the period's players up to its end (RD grown for the rest of the period) and
    return their history rows."""
    rest = (period_index + 1.0) - period.at[players]
    state.rd[players] = _grown(state.rd[players], state.volatility[players], rest, params.max_rd)
    state.last_period[players] = period_index
    counts = period.counts[players]
    rows = History(
        period=np.full(players.size, period_index, dtype=np.int64),
        player=players,
        rating=state.rating[players].copy(),
        rd=state.rd[players].copy(),
        volatility=state.volatility[players].copy(),
        rating_before=period.rating_before[players].copy(),
        rd_before=period.rd_before[players].copy(),
        games=counts[:, 0].copy(),
        wins=counts[:, 3].copy(),
        draws=counts[:, 2].copy(),
        losses=counts[:, 1].copy(),
    )
    period.at[players] = np.nan
    period.counts[players] = 0
    return rows


def _moments(moment: npt.ArrayLike, period: IntArray) -> FloatArray:
    """The moments, checked: one per match, each a fraction of the period in [0, 1]."""
    values = np.asarray(moment, dtype=np.float64)
    if values.shape != period.shape:
        raise InvalidParameterError("moment must have one entry per match")
    if values.size and not np.all((values >= 0.0) & (values <= 1.0)):
        raise InvalidParameterError("moment must be a fraction of the period, in [0, 1]")
    return values


def _played_order(period: IntArray, moment: FloatArray) -> IntArray | None:
    """The order that sorts matches by (period, moment), keeping the given order among equal
    ones; None when they already are in it."""
    if period.size < 2:
        return None
    same = period[1:] == period[:-1]
    if np.all((period[1:] > period[:-1]) | (same & (moment[1:] >= moment[:-1]))):
        return None
    order: IntArray = np.lexsort((moment, period))
    return order


def _run(
    n_matches: int,
    period: IntArray,
    moment: FloatArray,
    row_match: IntArray,
    row_player: IntArray,
    n_players: int,
    params: Glicko2Params,
    first_period: int,
    last_period: int,
    start_state: RatingState | None,
    level_blocks: Callable[
        [IntArray, FloatArray, FloatArray], tuple[list[VirtualGames], IntArray, FloatArray]
    ],
    on_progress: Callable[[int, int], None] | None,
    on_history: Callable[[History], None] | None,
) -> tuple[FoldResult, FloatArray, FloatArray]:
    """The loop shared by both folds: periods in order, levels in order within each.

    ``level_blocks(matches, mu_all, phi_all)`` gives the virtual games of the matches (their
    indices, all of one level). Returns the fold and the Step 2 values per row.
    """
    check_fold_range(period, first_period, last_period)
    if row_player.size and (int(row_player.max()) >= n_players or int(row_player.min()) < 0):
        raise InvalidParameterError(f"player indices must be in 0..{n_players - 1}")
    state = initial_state(start_state, n_players, first_period, params)
    current = _Period.of(n_players)
    row_rating = np.zeros(row_player.size)
    row_rd = np.zeros(row_player.size)
    levels = match_levels(row_match, row_player, period)
    row_start = np.searchsorted(row_match, np.arange(n_matches + 1, dtype=np.int64))
    period_bounds = np.flatnonzero(np.diff(period)) + 1
    starts = np.concatenate([[0], period_bounds]).astype(np.int64) if n_matches else period[:0]
    ends = np.append(starts[1:], n_matches) if n_matches else starts

    total = last_period - first_period + 1
    step = max(1, total // 100)
    reported = 0
    parts: list[History] = []
    for start, end in zip(starts.tolist(), ends.tolist(), strict=True):
        p = int(period[start])
        local = np.arange(start, end, dtype=np.int64)
        order = local[np.argsort(levels[start:end], kind="stable")]
        level_of = levels[order]
        cuts = np.flatnonzero(np.diff(level_of)) + 1
        for group in np.split(order, cuts):
            rows = _rows_of(row_start, group)
            players = row_player[rows]
            when = p + moment[row_match[rows]]

            blocks = partial(level_blocks, group)
            rating, rd = _level_update(state, current, players, when, blocks, params, p)
            row_rating[rows] = rating
            row_rd[rows] = rd
        played = current.played()
        keep(parts, _close_period(state, current, played, p, params), on_history)
        done = p - first_period + 1
        if on_progress is not None and done - reported >= step:
            on_progress(done, total)
            reported = done
    if on_progress is not None and reported < total:
        on_progress(total, total)
    result = FoldResult(
        history=History.concat(parts),
        final_state=state,
        first_period=first_period,
        last_period=last_period,
    )
    return result, row_rating, row_rd


def _rows_of(row_start: IntArray, matches: IntArray) -> IntArray:
    """The rows of ``matches`` (each match's rows are contiguous), match by match."""
    first, stop = row_start[matches], row_start[matches + 1]
    size = stop - first
    offsets = np.arange(int(size.sum()), dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
    rows: IntArray = np.repeat(first, size) + offsets
    return rows


def fold_instant(
    matches: MatchArrays,
    moment: npt.ArrayLike,
    n_players: int,
    params: Glicko2Params,
    first_period: int,
    last_period: int,
    start_state: RatingState | None = None,
    on_progress: Callable[[int, int], None] | None = None,
    on_history: Callable[[History], None] | None = None,
) -> InstantFold:
    """Rate one-vs-one matches one by one, in the order of (period, moment), then as given.

    ``moment[m]`` is match m's position in its period, in ``[0, 1]``. Arguments and result
    as for :func:`engine.fold.fold` (the advantage, neutral flags and margin mapping
    included); ``row_rating``/``row_rd`` of the result hold, per
    match, player A's values in ``[:n]`` and player B's in ``[n:]``.
    """
    moments = _moments(moment, matches.period)
    order = _played_order(matches.period, moments)
    if order is not None:
        ordered = fold_instant(
            matches.take(order),
            moments[order],
            n_players,
            params,
            first_period,
            last_period,
            start_state,
            on_progress,
            on_history,
        )
        n = len(matches)
        back = np.empty(n, dtype=np.int64)
        back[order] = np.arange(n, dtype=np.int64)
        both = np.concatenate([back, back + n])
        return InstantFold(ordered.fold, ordered.row_rating[both], ordered.row_rd[both])
    n = len(matches)
    period = matches.period
    a, b = matches.player_a, matches.player_b
    scores = matches.score_a
    outcome = matches.outcome(params)
    update = scores if outcome is None else outcome
    shift = matches.advantage(params.advantage) / SCALE if params.advantage != 0.0 else None
    # Rows: player A then B of each match (match order), as the sides' rows would be.
    row_match = np.repeat(np.arange(n, dtype=np.int64), 2)
    row_player = np.empty(2 * n, dtype=np.int64)
    row_player[0::2] = a
    row_player[1::2] = b

    def level_blocks(
        group: IntArray, mu_all: FloatArray, phi_all: FloatArray
    ) -> tuple[list[VirtualGames], IntArray, FloatArray]:
        ga, gb = a[group], b[group]
        # rate_period's terms: A against B scoring s, B against A scoring 1 - s; the
        # advantage lowers A's opponent's mu and raises B's.
        mu_a, mu_b = mu_all[ga], mu_all[gb]
        opp_of_a, opp_of_b = mu_b, mu_a
        if shift is not None:
            opp_of_a = mu_b - shift[group]
            opp_of_b = mu_a + shift[group]
        s = update[group]
        ones = np.ones(group.size)
        blocks = [
            VirtualGames(ga, opp_of_a, phi_all[gb], s, ones),
            VirtualGames(gb, opp_of_b, phi_all[ga], 1.0 - s, ones),
        ]
        plain = scores[group]
        return blocks, np.concatenate([ga, gb]), np.concatenate([plain, 1.0 - plain])

    folded, row_rating, row_rd = _run(
        n,
        period,
        moments,
        row_match,
        row_player,
        n_players,
        params,
        first_period,
        last_period,
        start_state,
        level_blocks,
        on_progress,
        on_history,
    )
    # Per match: A's values then B's.
    return InstantFold(
        folded,
        np.concatenate([row_rating[0::2], row_rating[1::2]]),
        np.concatenate([row_rd[0::2], row_rd[1::2]]),
    )


def fold_sides_instant(
    matches: SideMatches,
    moment: npt.ArrayLike,
    n_players: int,
    params: Glicko2Params,
    first_period: int,
    last_period: int,
    start_state: RatingState | None = None,
    method: TeamMethod = DEFAULT_METHOD,
    on_progress: Callable[[int, int], None] | None = None,
    on_history: Callable[[History], None] | None = None,
    rank_weight: bool = True,
) -> InstantFold:
    """Rate matches with sides one by one, in the order of (period, moment), then match order.

    ``moment`` as for :func:`fold_instant`; the rest as for
    :func:`engine.side_fold.fold_sides`. Every player of a match is updated from the values
    everyone in it entered the match with; the result's ``row_rating``/``row_rd`` follow the
    rows of ``matches``. In a match of k >= 3 sides each side result counts
    :func:`rank_weights` of a game (``rank_weight=False``: a whole game, as the period fold).
    """
    moments = _moments(moment, matches.period)
    order = _played_order(matches.period, moments)
    if order is not None:
        ordered = matches.take(order)
        rated = fold_sides_instant(
            ordered,
            moments[order],
            n_players,
            params,
            first_period,
            last_period,
            start_state,
            method,
            on_progress,
            on_history,
            rank_weight,
        )
        # Rows are identified by (match, player): put the results back in the input's rows.
        mine = np.lexsort((ordered.player, order[ordered.match]))
        theirs = np.lexsort((matches.player, matches.match))
        back = np.empty(matches.n_rows, dtype=np.int64)
        back[theirs] = mine
        return InstantFold(rated.fold, rated.row_rating[back], rated.row_rd[back])
    n = len(matches)
    period = matches.period

    weight_of_player = np.ones(n_players)

    def level_blocks(
        group: IntArray, mu_all: FloatArray, phi_all: FloatArray
    ) -> tuple[list[VirtualGames], IntArray, FloatArray]:
        subset = _subset(matches, group)
        blocks, counted, scores = virtual_games(subset, mu_all, phi_all, method, params.advantage)
        if not rank_weight:
            return blocks, counted, scores
        sides = _sides_per_match(subset)
        if np.all(sides == 2):
            return blocks, counted, scores
        # A player is in one match of a level: their match's weight applies to all their games.
        weight_of_player[subset.player] = rank_weights(sides)[subset.match]
        weighted = [
            VirtualGames(
                block.player,
                block.opponent_mu,
                block.opponent_phi,
                block.score,
                block.weight * weight_of_player[block.player],
            )
            for block in blocks
        ]
        return weighted, counted, scores

    folded, row_rating, row_rd = _run(
        n,
        period,
        moments,
        matches.match,
        matches.player,
        n_players,
        params,
        first_period,
        last_period,
        start_state,
        level_blocks,
        on_progress,
        on_history,
    )
    return InstantFold(folded, row_rating, row_rd)


def rank_weights(sides: IntArray) -> FloatArray:
    """The weight of one side result in a match of ``sides`` sides: 1 for two sides, and
    ``4 (k - H_k) / (k (k - 1))`` for k sides (``H_k = 1 + 1/2 + ... + 1/k``).

    A finishing order of k sides, under the Plackett-Luce model (each side performs at its
    strength plus a Gumbel draw, so every pair finishes in the order of the engine's logistic
    model), tells ``(k - H_k) / k`` units of Fisher information about one side among equals;
    its k - 1 side results, counted as independent games, would tell ``(k - 1) / 4``. The
    weight scales them to the order's information: 0.78 for 3 sides, 0.64 for 4, 0.47 for 6.
    """
    k = np.asarray(sides, dtype=np.float64)
    top = int(k.max()) if k.size else 2
    harmonic = np.cumsum(1.0 / np.arange(1, top + 1, dtype=np.float64))
    h = harmonic[np.asarray(sides, dtype=np.int64) - 1]
    weights: FloatArray = np.where(k == 2, 1.0, 4.0 * (k - h) / (k * (k - 1.0)))
    return weights


def _sides_per_match(matches: SideMatches) -> IntArray:
    """The number of sides of each match (rows sorted by match and side)."""
    new_side = np.ones(matches.n_rows, dtype=bool)
    new_side[1:] = (matches.match[1:] != matches.match[:-1]) | (
        matches.side[1:] != matches.side[:-1]
    )
    counts: IntArray = np.bincount(matches.match[new_side], minlength=len(matches)).astype(np.int64)
    return counts


def _subset(matches: SideMatches, group: IntArray) -> SideMatches:
    """The matches ``group`` (ascending indices) as their own ``SideMatches``, renumbered.

    Built without :class:`SideMatches`' checks and sort: the rows are taken from a checked,
    sorted ``SideMatches`` in the same order, so they already satisfy them.
    """
    row_start = np.searchsorted(matches.match, group)
    row_stop = np.searchsorted(matches.match, group, side="right")
    size = row_stop - row_start
    offsets = np.arange(int(size.sum()), dtype=np.int64) - np.repeat(np.cumsum(size) - size, size)
    rows = np.repeat(row_start, size) + offsets
    subset = object.__new__(SideMatches)
    values: dict[str, Any] = {
        "period": matches.period[group],
        "match": np.repeat(np.arange(group.size, dtype=np.int64), size),
        "side": matches.side[rows],
        "player": matches.player[rows],
        "place": matches.place[rows],
        "neutral": None if matches.neutral is None else matches.neutral[group],
    }
    for name, value in values.items():
        object.__setattr__(subset, name, value)
    return subset
