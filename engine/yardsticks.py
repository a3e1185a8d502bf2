"""Yardsticks beside Glicko-2: the original Glicko (Glickman 1999), over the same periods.

Glicko keeps a rating ``r`` and a deviation ``RD`` per player, no volatility. At the start of
each rating period a rated player's RD grows with the time since their last period,
``RD = min(sqrt(RD0^2 + c^2 t), max_rd)`` (``t`` periods), then all the period's games count as
simultaneous, every player rated from everyone's pre-period values:

    q = ln(10) / 400,   g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)
    E = 1 / (1 + 10^(-g(RD_j) (r - r_j) / 400))
    d^2 = [q^2 sum_j g(RD_j)^2 E (1 - E)]^-1
    r' = r + q / (1/RD^2 + 1/d^2) sum_j g(RD_j) (s_j - E),   RD' = (1/RD^2 + 1/d^2)^-1/2

The result is a :class:`~engine.fold.FoldResult` whose history rows carry
``rating_before``/``rd_before`` (the rating and the grown RD each player entered the period
with), so :func:`~engine.scoring.match_predictions` scores it like Glicko-2's fold
(its pairing formula is Glickman's 1999 one, with 173.7178 = 400 / ln 10 rounded); the
``volatility`` columns hold 0. The advantage and the margin mapping apply as in Glicko-2
(``engine/ADVANTAGE.md``). Elo, the other yardstick, is
:func:`~engine.scoring.elo_predictions`.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from engine.errors import InvalidParameterError
from engine.fold import FoldResult, History, MatchArrays
from engine.glicko2 import expectation
from engine.params import Glicko2Params, _number, _positive
from engine.scoring import ELO_K_GRID, Metrics, match_predictions, metrics, tune_elo
from engine.state import NEVER, FloatArray, IntArray, RatingState

__all__ = [
    "DEFAULT_C",
    "GlickoParams",
    "Q",
    "YardstickScores",
    "glicko_fold",
    "glicko_predictions",
    "score_yardsticks",
]

#: q = ln(10) / 400, Glickman's conversion between the base-10 rating scale and natural logs.
Q = math.log(10.0) / 400.0
#: The article's constant: RD grows from a typical 50 back to 350 in 100 idle periods,
#: ``350 = sqrt(50^2 + 100 c^2)``, so ``c = sqrt((350^2 - 50^2) / 100)``, about 34.6.
DEFAULT_C = math.sqrt((350.0**2 - 50.0**2) / 100.0)


@dataclass(frozen=True)
class GlickoParams:
    """Glicko's constant ``c`` (RD growth per period), unrated defaults, the RD ceiling, and the
    deviations shared with Glicko-2 (``advantage``, ``margin_scale``; off by default)."""

    c: float = DEFAULT_C
    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    max_rd: float = 350.0
    advantage: float = 0.0
    margin_scale: float | None = None

    def __post_init__(self) -> None:
        _number("c", self.c)
        if self.c < 0:
            raise InvalidParameterError(f"c must be >= 0, got {self.c!r}")
        _number("initial_rating", self.initial_rating)
        initial_rd = _positive("initial_rd", self.initial_rd)
        if initial_rd > _positive("max_rd", self.max_rd):
            raise InvalidParameterError(
                f"initial_rd ({self.initial_rd!r}) must not exceed max_rd ({self.max_rd!r})"
            )
        _number("advantage", self.advantage)
        if self.margin_scale is not None:
            _positive("margin_scale", self.margin_scale)

    def as_glicko2(self) -> Glicko2Params:
        """The Glicko-2 parameters sharing the defaults and options (to read margins with)."""
        return Glicko2Params(
            initial_rating=self.initial_rating,
            initial_rd=self.initial_rd,
            max_rd=self.max_rd,
            advantage=self.advantage,
            margin_scale=self.margin_scale,
        )


def g1(rd: FloatArray) -> FloatArray:
    """Glicko's g(RD) = 1 / sqrt(1 + 3 q^2 RD^2 / pi^2)."""
    result: FloatArray = 1.0 / np.sqrt(1.0 + 3.0 * (Q * Q) * rd * rd / (np.pi * np.pi))
    return result


def _period(
    state: RatingState,
    a: IntArray,
    b: IntArray,
    s: FloatArray,
    update_scores: FloatArray,
    shift: FloatArray | None,
    params: GlickoParams,
    period: int,
) -> History:
    n = state.n_players
    # Losses, draws and wins per player (from the plain results).
    code = (s * 2.0).astype(np.int64)
    results = (
        np.bincount(a * 3 + code, minlength=3 * n) + np.bincount(b * 3 + 2 - code, minlength=3 * n)
    ).reshape(n, 3)
    played = results.sum(axis=1)
    players = np.flatnonzero(played).astype(np.int64)
    # Step 1: RD grown over the t = period - last periods since the last competition.
    last = state.last_period[players]
    rated = last != NEVER
    t = np.where(rated, period - last, 0)
    grown = np.minimum(np.sqrt(state.rd[players] ** 2 + params.c**2 * t), params.max_rd)
    rd_before = np.where(rated, grown, params.initial_rd)
    rating_before = np.where(rated, state.rating[players], params.initial_rating)
    r_all = np.zeros(n)
    r_all[players] = rating_before
    rd_all = np.zeros(n)
    rd_all[players] = rd_before
    g_all = np.zeros(n)
    g_all[players] = g1(rd_before)
    # Step 2: both sides of every game; E in base 10 is sigmoid(q * g * (r - r_j)).
    diff = r_all[a] - r_all[b]
    if shift is not None:
        diff = diff + shift
    d2_inverse = np.zeros(n)
    surprise = np.zeros(n)
    g_a, g_b = g_all[a], g_all[b]
    for me, g_j, x, score in (
        (a, g_b, Q * g_b * diff, update_scores),
        (b, g_a, -Q * g_a * diff, 1.0 - update_scores),
    ):
        E, E_one_minus_E = expectation(x)
        d2_inverse += np.bincount(me, weights=g_j * g_j * E_one_minus_E, minlength=n)
        surprise += np.bincount(me, weights=g_j * (score - E), minlength=n)
    precision = 1.0 / (rd_before * rd_before) + Q * Q * d2_inverse[players]
    rating = rating_before + Q / precision * surprise[players]
    # Step 3
    rd = np.minimum(np.sqrt(1.0 / precision), params.max_rd)
    counts = results[players]
    return History(
        period=np.full(players.size, period, dtype=np.int64),
        player=players,
        rating=rating,
        rd=rd,
        volatility=np.zeros(players.size),
        rating_before=rating_before,
        rd_before=rd_before,
        games=played[players].astype(np.int64),
        wins=counts[:, 2].astype(np.int64),
        draws=counts[:, 1].astype(np.int64),
        losses=counts[:, 0].astype(np.int64),
    )


def glicko_fold(
    matches: MatchArrays,
    n_players: int,
    params: GlickoParams,
    first_period: int,
    last_period: int,
    start_state: RatingState | None = None,
) -> FoldResult:
    """Glicko over periods ``first_period..last_period`` (inclusive, in order).

    ``start_state`` is the state at the start of ``first_period`` (default: everyone unrated;
    its volatility is not read). History rows are ordered by (period, player) like the
    Glicko-2 fold's; ``final_state`` holds each player's rating and RD after their last period
    and the period it was (volatility 0).
    """
    if last_period < first_period - 1 or first_period < 0:
        raise InvalidParameterError(
            f"bad period range {first_period}..{last_period} (first >= 0, last >= first - 1)"
        )
    if len(matches):
        low, high = int(matches.period.min()), int(matches.period.max())
        if low < first_period or high > last_period:
            raise InvalidParameterError(
                f"matches in periods {low}..{high} fall outside the folded range "
                f"{first_period}..{last_period}"
            )
        top = int(max(matches.player_a.max(), matches.player_b.max()))
        if top >= n_players or int(min(matches.player_a.min(), matches.player_b.min())) < 0:
            raise InvalidParameterError(f"player indices must be in 0..{n_players - 1}")
    state = RatingState(
        rating=np.full(n_players, params.initial_rating),
        rd=np.full(n_players, params.initial_rd),
        volatility=np.zeros(n_players),
        last_period=np.full(n_players, NEVER, dtype=np.int64),
    )
    if start_state is not None:
        size = start_state.n_players
        if size > n_players or np.any(start_state.last_period >= first_period):
            raise InvalidParameterError(
                f"start_state must hold at most {n_players} players, none rated in period "
                f"{first_period} or later"
            )
        state.rating[:size] = start_state.rating
        state.rd[:size] = start_state.rd
        state.last_period[:size] = start_state.last_period
    order = np.argsort(matches.period, kind="stable")
    period = matches.period[order]
    a, b, s = matches.player_a[order], matches.player_b[order], matches.score_a[order]
    update = matches.outcome(params.as_glicko2())
    update_scores = s if update is None else update[order]
    shift = matches.advantage(params.advantage)[order] if params.advantage != 0.0 else None
    played, starts = np.unique(period, return_index=True)
    ends = np.append(starts[1:], period.size) if period.size else starts
    parts: list[History] = []
    for p, start, end in zip(played.tolist(), starts.tolist(), ends.tolist(), strict=True):
        rows = slice(start, end)
        part = _period(
            state,
            a[rows],
            b[rows],
            s[rows],
            update_scores[rows],
            None if shift is None else shift[rows],
            params,
            p,
        )
        state.rating[part.player] = part.rating
        state.rd[part.player] = part.rd
        state.last_period[part.player] = p
        parts.append(part)
    return FoldResult(
        history=History.concat(parts),
        final_state=state,
        first_period=first_period,
        last_period=last_period,
    )


def glicko_predictions(
    matches: MatchArrays,
    n_players: int,
    params: GlickoParams,
    first_period: int,
    last_period: int,
) -> FloatArray:
    """Each match's Glicko prediction from the start-of-period ratings, in input order."""
    result = glicko_fold(matches, n_players, params, first_period, last_period)
    return match_predictions(matches, result.history, n_players, params.advantage)


@dataclass(frozen=True)
class YardstickScores:
    """Glicko and Elo (K tuned over ``ks``) scored on the same matches as Glicko-2's backtest;
    predictions in input order, metrics against the plain results."""

    glicko: Metrics
    elo: Metrics
    elo_k: float
    glicko_predictions: FloatArray
    elo_predictions: FloatArray


def score_yardsticks(
    matches: MatchArrays,
    n_players: int,
    params: GlickoParams,
    first_period: int,
    last_period: int,
    ks: Sequence[float] = ELO_K_GRID,
) -> YardstickScores:
    """Both yardsticks over the same periods, with ``params.advantage`` in both."""
    if len(matches) == 0:
        raise InvalidParameterError("there are no matches to score")
    glicko = glicko_predictions(matches, n_players, params, first_period, last_period)
    elo_k, elo = tune_elo(matches, n_players, ks, params.advantage)
    return YardstickScores(
        glicko=metrics(glicko, matches.score_a),
        elo=metrics(elo, matches.score_a),
        elo_k=elo_k,
        glicko_predictions=glicko,
        elo_predictions=elo,
    )
