"""A straightforward scalar Glicko-2, written from Glickman's paper, one player at a time.

It is the independent reference the vectorised engine is tested against (and the baseline of
bench/bench_engine.py). It shares no code with engine: plain floats and the math module,
the paper's formulas as printed, idle periods applied eagerly one at a time.
"""

from __future__ import annotations

import math
from collections import defaultdict

SCALE = 173.7178


def rate_one(
    rating: float,
    rd: float,
    sigma: float,
    results: list[tuple[float, float, float]],
    tau: float,
    epsilon: float = 1e-6,
    max_iterations: int = 1000,
    growth: float = 1.0,
) -> tuple[float, float, float]:
    """Steps 1-8 for one player; ``results`` are (opponent rating, opponent RD, score).

    ``growth`` is the number of periods step 6 widens the RD for (1 in the paper; the
    instant updates' fraction of a period, ``engine/instant.py``).
    """
    # Step 2
    mu = (rating - 1500.0) / SCALE
    phi = rd / SCALE
    if not results:
        return rating, SCALE * math.sqrt(phi**2 + sigma**2), sigma
    # Step 3
    v_inverse = 0.0
    total = 0.0
    for opponent_rating, opponent_rd, score in results:
        mu_j = (opponent_rating - 1500.0) / SCALE
        phi_j = opponent_rd / SCALE
        g_j = 1.0 / math.sqrt(1.0 + 3.0 * phi_j**2 / math.pi**2)
        e = 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))
        v_inverse += g_j**2 * e * (1.0 - e)
        total += g_j * (score - e)
    v = 1.0 / v_inverse
    # Step 4
    delta = v * total
    # Step 5
    a = math.log(sigma**2)

    def f(x: float) -> float:
        ex = math.exp(x)
        return ex * (delta**2 - phi**2 - v - ex) / (2.0 * (phi**2 + v + ex) ** 2) - (x - a) / tau**2

    big_a = a
    if delta**2 > phi**2 + v:
        big_b = math.log(delta**2 - phi**2 - v)
    else:
        k = 1
        while f(a - k * tau) < 0:
            k += 1
        big_b = a - k * tau
    f_a, f_b = f(big_a), f(big_b)
    iterations = 0
    while abs(big_b - big_a) > epsilon:
        iterations += 1
        if iterations > max_iterations:
            raise ArithmeticError("volatility iteration did not converge")
        big_c = big_a + (big_a - big_b) * f_a / (f_b - f_a)
        f_c = f(big_c)
        if f_c * f_b <= 0:
            big_a, f_a = big_b, f_b
        else:
            f_a = f_a / 2.0
        big_b, f_b = big_c, f_c
    sigma_new = math.exp(big_a / 2.0)
    # Steps 6-7
    phi_star = math.sqrt(phi**2 + growth * sigma_new**2)
    phi_new = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / v)
    mu_new = mu + phi_new**2 * total
    # Step 8
    return SCALE * mu_new + 1500.0, SCALE * phi_new, sigma_new


def rate_period(
    values: dict[int, tuple[float, float, float]],
    games: list[tuple[int, int, float]],
    tau: float,
    epsilon: float = 1e-6,
) -> dict[int, tuple[float, float, float]]:
    """New (rating, RD, sigma) of every player in ``games``, all from the pre-period ``values``."""
    results: dict[int, list[tuple[float, float, float]]] = defaultdict(list)
    for a, b, score in games:
        results[a].append((values[b][0], values[b][1], score))
        results[b].append((values[a][0], values[a][1], 1.0 - score))
    return {
        player: rate_one(*values[player], played, tau, epsilon)
        for player, played in results.items()
    }


def fold(
    matches: list[tuple[int, int, int, float]],
    first_period: int,
    last_period: int,
    *,
    tau: float = 0.5,
    initial: tuple[float, float, float] = (1500.0, 350.0, 0.06),
    max_rd: float = 350.0,
    volatility_ceiling: float | None = None,
    rating_floor: float | None = None,
) -> tuple[list[tuple[float, ...]], dict[int, tuple[float, float, float]]]:
    """Period-by-period fold of (period, a, b, score) matches; idle RD grows every period.

    Returns history rows (period, player, rating, rd, volatility, rating_before, rd_before,
    games, wins, draws, losses) ordered by (period, player), and the rated players' values.
    """
    rated: dict[int, tuple[float, float, float]] = {}
    history: list[tuple[float, ...]] = []
    by_period: dict[int, list[tuple[int, int, float]]] = defaultdict(list)
    for period, a, b, s in matches:
        by_period[period].append((a, b, s))
    for period in range(first_period, last_period + 1):
        games = by_period[period]
        playing = {a for a, _, _ in games} | {b for _, b, _ in games}
        before = {p: rated.get(p, initial) for p in playing}
        after = rate_period(before, games, tau)
        for player, (rating, rd, sigma) in after.items():
            if volatility_ceiling is not None and sigma > volatility_ceiling:
                # The ceiling applies to sigma' before step 6: redo steps 6-8 with it.
                rating, rd = _with_sigma(before[player], games, player, before, volatility_ceiling)
                sigma = volatility_ceiling
            if rating_floor is not None:
                rating = max(rating, rating_floor)
            after[player] = (rating, min(rd, max_rd), sigma)
        for player in rated.keys() - playing:
            rating, rd, sigma = rated[player]
            rated[player] = (
                rating,
                min(SCALE * math.sqrt((rd / SCALE) ** 2 + sigma**2), max_rd),
                sigma,
            )
        for player in sorted(playing):
            rated[player] = after[player]
            results = [s for a, _, s in games if a == player] + [
                1.0 - s for _, b, s in games if b == player
            ]
            history.append(
                (
                    period,
                    player,
                    *after[player],
                    before[player][0],
                    before[player][1],
                    len(results),
                    results.count(1.0),
                    results.count(0.5),
                    results.count(0.0),
                )
            )
    return history, rated


def _with_sigma(
    own: tuple[float, float, float],
    games: list[tuple[int, int, float]],
    player: int,
    before: dict[int, tuple[float, float, float]],
    sigma_new: float,
) -> tuple[float, float]:
    """Steps 3-4 and 6-8 for ``player`` with a given new volatility (the sigma ceiling)."""
    mu = (own[0] - 1500.0) / SCALE
    phi = own[1] / SCALE
    v_inverse = 0.0
    total = 0.0
    for a, b, score in games:
        if player not in (a, b):
            continue
        opponent, s = (b, score) if a == player else (a, 1.0 - score)
        mu_j = (before[opponent][0] - 1500.0) / SCALE
        phi_j = before[opponent][1] / SCALE
        g_j = 1.0 / math.sqrt(1.0 + 3.0 * phi_j**2 / math.pi**2)
        e = 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j)))
        v_inverse += g_j**2 * e * (1.0 - e)
        total += g_j * (s - e)
    phi_star = math.sqrt(phi**2 + sigma_new**2)
    phi_new = 1.0 / math.sqrt(1.0 / phi_star**2 + 1.0 / (1.0 / v_inverse))
    return SCALE * (mu + phi_new**2 * total) + 1500.0, SCALE * phi_new
