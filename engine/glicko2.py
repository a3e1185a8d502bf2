"""One Glicko-2 rating period for all players at once (Glickman, "Example of the Glicko-2
system", 2022 revision), vectorised across players, including the volatility iteration.

Every player is updated from the pre-period values of everyone (simultaneity). Players who do
not play in the period are not touched: their RD grows lazily (see :func:`grown_rd`).
The names follow the paper: mu, phi, sigma, g, E, v, Delta, tau, and the steps are marked.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.errors import ConvergenceError, InvalidParameterError
from engine.params import CENTRE, SCALE, Glicko2Params
from engine.state import NEVER, FloatArray, IntArray, RatingState, grown_rd

__all__ = [
    "PeriodGames",
    "PeriodOutcome",
    "apply",
    "expectation",
    "g",
    "grown_rd",
    "pre_period",
    "rate_period",
    "rate_player",
    "update_from_sums",
]

#: Largest |g(phi_j) (mu - mu_j)| used in E. At 100, E differs from 1 by 4e-44, far below
#: double precision, so only E(1 - E) is affected; clipping keeps v finite for absurd gaps
#: (17,000 rating points and more) instead of letting E(1 - E) underflow to 0.
MAX_EXPONENT = 100.0


def g(phi: FloatArray) -> FloatArray:
    """Glickman's g(phi) = 1 / sqrt(1 + 3 phi^2 / pi^2)."""
    result: FloatArray = 1.0 / np.sqrt(1.0 + 3.0 * phi * phi / (np.pi * np.pi))
    return result


def expectation(x: FloatArray) -> tuple[FloatArray, FloatArray]:
    """E = sigmoid(x) and E (1 - E) = sigmoid(x) sigmoid(-x), computed without overflow.

    With x clipped to +-MAX_EXPONENT, e = exp(-x) stays finite; sigmoid(-x) = e E, so
    E (1 - E) = e E^2 keeps its full relative precision even where 1 - E rounds to 0.
    """
    e = np.clip(x, -MAX_EXPONENT, MAX_EXPONENT)
    np.negative(e, out=e)
    np.exp(e, out=e)
    expected = e + 1.0
    np.reciprocal(expected, out=expected)
    e *= expected
    e *= expected
    return expected, e


@dataclass(frozen=True)
class PeriodGames:
    """The games of one period: ``score_a`` (1, 0.5 or 0) is the first-named player's score.

    Optional, off by default: ``neutral`` flags games where the first-named side has no
    advantage (read only when ``Glicko2Params.advantage`` is not 0); ``outcome`` is the score
    in [0, 1] the update uses instead of ``score_a`` (the margin mapping), while wins, draws and
    losses are still counted from ``score_a``.
    """

    player_a: IntArray
    player_b: IntArray
    score_a: FloatArray
    neutral: npt.NDArray[np.bool_] | None = None
    outcome: FloatArray | None = None

    def __post_init__(self) -> None:
        if self.neutral is not None:
            flags = np.asarray(self.neutral)
            if flags.shape != np.shape(self.player_a) or flags.dtype != np.bool_:
                raise InvalidParameterError("neutral must be a boolean array, one flag per game")
            object.__setattr__(self, "neutral", flags)
        if self.outcome is not None:
            outcome = np.asarray(self.outcome, dtype=np.float64)
            if outcome.shape != np.shape(self.player_a):
                raise InvalidParameterError("outcome must have one score per game")
            if not np.all((outcome >= 0.0) & (outcome <= 1.0)):
                raise InvalidParameterError("outcome scores must be in [0, 1]")
            object.__setattr__(self, "outcome", outcome)
        a = np.asarray(self.player_a)
        b = np.asarray(self.player_b)
        s = np.asarray(self.score_a)
        if a.ndim != 1 or a.shape != b.shape or a.shape != s.shape:
            raise InvalidParameterError(
                "player_a, player_b and score_a must be 1-D arrays of the same length"
            )
        if a.size and not (
            np.issubdtype(a.dtype, np.integer) and np.issubdtype(b.dtype, np.integer)
        ):
            raise InvalidParameterError("player_a and player_b must be integer player indices")
        object.__setattr__(self, "player_a", a.astype(np.int64, copy=False))
        object.__setattr__(self, "player_b", b.astype(np.int64, copy=False))
        object.__setattr__(self, "score_a", s.astype(np.float64, copy=False))
        if a.size == 0:
            return
        self_games = np.flatnonzero(self.player_a == self.player_b)
        if self_games.size:
            raise InvalidParameterError(
                f"a player cannot play themself (player {int(self.player_a[self_games[0]])}, "
                f"{self_games.size} game(s))"
            )
        score = self.score_a
        valid = (score == 1.0) | (score == 0.5) | (score == 0.0)
        if not valid.all():
            bad = score[~valid][0]
            raise InvalidParameterError(f"score_a must be 1, 0.5 or 0, got {bad!r}")

    def __len__(self) -> int:
        return int(self.player_a.size)


@dataclass(frozen=True)
class PeriodOutcome:
    """The players who played in ``period`` (ascending index) with before/after values.

    ``rd_before`` is the RD they entered the period with (grown over idle periods);
    ``rating``/``rd``/``volatility`` are the values after the period (RD capped).
    """

    period: int
    players: IntArray
    rating_before: FloatArray
    rd_before: FloatArray
    volatility_before: FloatArray
    rating: FloatArray
    rd: FloatArray
    volatility: FloatArray
    games: IntArray
    wins: IntArray
    draws: IntArray
    losses: IntArray


def pre_period(
    state: RatingState, players: IntArray, params: Glicko2Params, period: int
) -> tuple[FloatArray, FloatArray, FloatArray]:
    """Rating, RD and volatility the players enter ``period`` with (unrated: the values the
    state holds for them, the defaults unless seeded)."""
    last = state.last_period[players]
    late = last >= period
    if late.any():
        raise InvalidParameterError(
            f"period {period} is not after the last rated period of player(s) "
            f"{players[late][:10].tolist()} (last period {last[late][:10].tolist()})"
        )
    rated = last != NEVER
    idle = np.where(rated, period - 1 - last, 0)
    # An unrated player enters with the values the state holds for them: the initial ones
    # (``RatingState.unrated``), or a seed from a rating list that the caller put there.
    rating = state.rating[players]
    rd = np.where(
        rated,
        grown_rd(state.rd[players], state.volatility[players], idle, params.max_rd),
        state.rd[players],
    )
    sigma = state.volatility[players]
    return rating, rd, sigma


def _new_volatility(
    players: IntArray,
    phi: FloatArray,
    sigma: FloatArray,
    v: FloatArray,
    delta: FloatArray,
    params: Glicko2Params,
) -> FloatArray:
    """Step 5 for all players together: the Illinois iteration, masked until all converge."""
    tau = params.tau
    tau2 = tau * tau
    epsilon = params.epsilon
    phi2 = phi * phi
    delta2 = delta * delta
    # Step 5.1
    a = np.log(sigma * sigma)

    def f(x: FloatArray, i: IntArray) -> FloatArray:
        # f(x) = e^x (Delta^2 - phi^2 - v - e^x) / (2 (phi^2 + v + e^x)^2) - (x - a) / tau^2,
        # written as (e^x / d)(Delta^2 / d - 1) / 2 with d = phi^2 + v + e^x, which is the same
        # quantity but cannot overflow when Delta is astronomically large.
        ex = np.exp(x)
        d = phi2[i] + v[i] + ex
        result: FloatArray = 0.5 * (ex / d) * (delta2[i] / d - 1.0) - (x - a[i]) / tau2
        return result

    everyone = np.arange(phi.size)
    # Step 5.2: initial bracket
    A = a.copy()
    gap = delta2 - phi2 - v
    big = gap > 0
    B = np.where(big, np.log(np.where(big, gap, 1.0)), 0.0)
    pending = everyone[~big]
    k = 1
    while pending.size:
        if k > params.max_iterations:
            raise ConvergenceError(
                _convergence_message("bracketing", players[pending], sigma[pending], delta[pending])
            )
        candidate = a[pending] - k * tau
        bracketed = f(candidate, pending) >= 0
        B[pending[bracketed]] = candidate[bracketed]
        pending = pending[~bracketed]
        k += 1
    # Step 5.3
    fA = f(A, everyone)
    fB = f(B, everyone)
    # Step 5.4
    active = everyone[np.abs(B - A) > epsilon]
    iterations = 0
    while active.size:
        iterations += 1
        if iterations > params.max_iterations:
            raise ConvergenceError(
                _convergence_message("Illinois", players[active], sigma[active], delta[active])
            )
        A_i, B_i, fA_i, fB_i = A[active], B[active], fA[active], fB[active]
        # Step 5.4(a)
        C = A_i + (A_i - B_i) * fA_i / (fB_i - fA_i)
        fC = f(C, active)
        # Step 5.4(b): the 2022 revision's "<=" (with "<" the loop can stall forever)
        swap = fC * fB_i <= 0
        A_i = np.where(swap, B_i, A_i)
        fA_i = np.where(swap, fB_i, fA_i / 2.0)
        # Step 5.4(c)
        A[active], fA[active], B[active], fB[active] = A_i, fA_i, C, fC
        active = active[np.abs(C - A_i) > epsilon]
    # Step 5.5
    sigma_new: FloatArray = np.exp(A / 2.0)
    broken = ~np.isfinite(sigma_new)
    if broken.any():
        raise ConvergenceError(
            _convergence_message("Illinois", players[broken], sigma[broken], delta[broken])
        )
    if params.volatility_ceiling is not None:
        sigma_new = np.minimum(sigma_new, params.volatility_ceiling)
    return sigma_new


def _convergence_message(
    stage: str, players: IntArray, sigma: FloatArray, delta: FloatArray
) -> str:
    shown = ", ".join(
        f"player {p} (sigma={s!r}, Delta={d!r})"
        for p, s, d in zip(
            players[:10].tolist(), sigma[:10].tolist(), delta[:10].tolist(), strict=True
        )
    )
    more = f" and {players.size - 10} more" if players.size > 10 else ""
    return f"volatility {stage} step did not converge for {shown}{more}"


def rate_period(
    state: RatingState, games: PeriodGames, params: Glicko2Params, period: int
) -> PeriodOutcome:
    """Rate one period: every player who played, from everyone's pre-period values.

    ``state`` is not modified; pass the outcome to :func:`apply` to commit it.
    """
    n = state.n_players
    a, b, s = games.player_a, games.player_b, games.score_a
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n):
        raise InvalidParameterError(f"player indices must be in 0..{n - 1}")
    # Losses, draws and wins per player in one count: index 3 * player + 2 * score.
    code = (s * 2.0).astype(np.int64)
    index = a * 3
    index += code
    flat_results = np.bincount(index, minlength=3 * n)
    np.multiply(b, 3, out=index)
    index += 2
    index -= code
    flat_results += np.bincount(index, minlength=3 * n)
    results = flat_results.reshape(n, 3)
    played = results[:, 0] + results[:, 1] + results[:, 2]
    players = np.flatnonzero(played).astype(np.int64)

    # Steps 1-2: pre-period values on the Glicko-2 scale
    rating_before, rd_before, sigma = pre_period(state, players, params, period)
    mu = (rating_before - CENTRE) / SCALE
    phi = rd_before / SCALE
    # Per-player arrays over all n indices, so games can index them directly.
    mu_all = np.zeros(n)
    mu_all[players] = mu
    g_all = np.zeros(n)
    g_all[players] = g(phi)

    # Steps 3-4: sums over each player's games, scatter-added with bincount (a player may
    # play many games, and the same opponent several times). Each game is seen from both
    # sides: the first-named player against b, scoring s; the second against a, scoring 1 - s.
    mu_diff = mu_all[a] - mu_all[b]
    if params.advantage != 0.0:
        # The first-named side's advantage h' = h / 173.7178 (ADVANTAGE.md): a's opponent's mu
        # is lowered by h', b's opponent's mu raised by h'; neutral games have none.
        if games.neutral is None:
            mu_diff = mu_diff + params.advantage / SCALE
        else:
            mu_diff = mu_diff + np.where(games.neutral, 0.0, params.advantage / SCALE)
    if games.outcome is not None:
        s = games.outcome  # the margin mapping's scores (counts above used score_a)
    g_a, g_b = g_all[a], g_all[b]
    v_inverse = np.zeros(n)
    improvement_all = np.zeros(n)
    for me, g_j, x, score in ((a, g_b, g_b * mu_diff, s), (b, g_a, -g_a * mu_diff, 1.0 - s)):
        E, v_terms = expectation(x)
        v_terms *= g_j  # in place (speed): g(phi_j)^2 E (1 - E)
        v_terms *= g_j
        v_inverse += np.bincount(me, weights=v_terms, minlength=n)
        surprise = score - E
        surprise *= g_j  # g(phi_j) (s_j - E)
        improvement_all += np.bincount(me, weights=surprise, minlength=n)
    return update_from_sums(
        period,
        players,
        (rating_before, rd_before, sigma),
        v_inverse,
        improvement_all,
        played[players].astype(np.int64),
        results[players].astype(np.int64),
        params,
    )


def update_from_sums(
    period: int,
    players: IntArray,
    before: tuple[FloatArray, FloatArray, FloatArray],
    v_inverse_all: FloatArray,
    improvement_all: FloatArray,
    games: IntArray,
    counts: IntArray,
    params: Glicko2Params,
) -> PeriodOutcome:
    """Steps 3-8 for ``players`` from their summed game terms, indexed by player over all n.

    ``before`` is (rating, RD, volatility) each player enters the period with;
    ``v_inverse_all[p]`` is sum_j g(phi_j)^2 E (1 - E) and ``improvement_all[p]`` is
    sum_j g(phi_j) (s_j - E) over player p's games; ``games`` and ``counts`` (losses, draws,
    wins) per row of ``players`` go to the outcome as they are. Every way of producing games
    (1-vs-1, teams, multi-side) ends here, so the period update is one algorithm.
    """
    rating_before, rd_before, sigma = before
    mu = (rating_before - CENTRE) / SCALE
    phi = rd_before / SCALE
    # Step 3: v
    v = 1.0 / v_inverse_all[players]
    # Step 4: Delta = v * sum g(phi_j) (s_j - E)
    improvement = improvement_all[players]
    delta = v * improvement
    # Step 5: new volatility
    sigma_new = _new_volatility(players, phi, sigma, v, delta, params)
    # Step 6: pre-rating-period value phi*
    phi_star = np.sqrt(phi * phi + sigma_new * sigma_new)
    # Step 7: new phi and mu
    phi_new = 1.0 / np.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    # Step 8: back to the rating scale, with the project's guards
    rating = SCALE * mu_new + CENTRE
    if params.rating_floor is not None:
        rating = np.maximum(rating, params.rating_floor)
    rd = np.minimum(SCALE * phi_new, params.max_rd)

    return PeriodOutcome(
        period=period,
        players=players,
        rating_before=rating_before,
        rd_before=rd_before,
        volatility_before=sigma,
        rating=rating,
        rd=rd,
        volatility=sigma_new,
        games=games,
        wins=np.ascontiguousarray(counts[:, 2]),
        draws=np.ascontiguousarray(counts[:, 1]),
        losses=np.ascontiguousarray(counts[:, 0]),
    )


def apply(state: RatingState, outcome: PeriodOutcome) -> None:
    """Commit a period's outcome to ``state`` in place (after the whole period was rated)."""
    players = outcome.players
    state.rating[players] = outcome.rating
    state.rd[players] = outcome.rd
    state.volatility[players] = outcome.volatility
    state.last_period[players] = outcome.period


def rate_player(
    rating: float,
    rd: float,
    volatility: float,
    results: Sequence[tuple[float, float, float]],
    params: Glicko2Params,
) -> tuple[float, float, float]:
    """One player's period, scalar, for reading alongside the paper.

    ``results`` holds ``(opponent_rating, opponent_rd, score)``; no games means step 6 only.
    The fold never calls this: it uses :func:`rate_period`.
    """
    # Step 2
    mu = (rating - CENTRE) / SCALE
    phi = rd / SCALE
    sigma = volatility
    if not results:
        # Step 6 only
        return rating, min(SCALE * math.sqrt(phi * phi + sigma * sigma), params.max_rd), sigma
    # Steps 3-4
    opponents_mu = np.array([(r - CENTRE) / SCALE for r, _, _ in results])
    opponents_phi = np.array([d / SCALE for _, d, _ in results])
    scores = np.array([s for _, _, s in results])
    g_j = g(opponents_phi)
    E, E_one_minus_E = expectation(g_j * (mu - opponents_mu))
    v = 1.0 / float(np.sum(g_j * g_j * E_one_minus_E))
    improvement = float(np.sum(g_j * (scores - E)))
    delta = v * improvement
    # Step 5 (shared with the vectorised path, on a single player)
    sigma_new = float(
        _new_volatility(
            np.zeros(1, dtype=np.int64),
            np.array([phi]),
            np.array([sigma]),
            np.array([v]),
            np.array([delta]),
            params,
        )[0]
    )
    # Steps 6-8
    phi_star = math.sqrt(phi * phi + sigma_new * sigma_new)
    phi_new = 1.0 / math.sqrt(1.0 / (phi_star * phi_star) + 1.0 / v)
    mu_new = mu + phi_new * phi_new * improvement
    new_rating = SCALE * mu_new + CENTRE
    if params.rating_floor is not None:
        new_rating = max(new_rating, params.rating_floor)
    return new_rating, min(SCALE * phi_new, params.max_rd), sigma_new
