"""Synthetic leagues with known strengths, for benchmarks and backtesting tests.

Strengths are fixed ratings on the Elo/Glicko scale (normal, mean 1500, sd 200). Players
arrive over time (a few at period 0, the rest spread over the first 80% of the periods); each
match is in a uniformly random period between two distinct players who have arrived by then.
The first-named player's expected score is ``1 / (1 + 10^(-(s_a - s_b) / 400))``; a draw
happens with probability ``draw_rate * 4 p (1 - p)`` (most likely between equals), and wins are
split so the expected score stays ``p``.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.fold import MatchArrays

__all__ = ["SyntheticLeague", "synthetic_league"]


@dataclass(frozen=True)
class SyntheticLeague:
    """Matches sorted by period, and the true strength of each player (index 0..n-1)."""

    matches: MatchArrays
    strengths: npt.NDArray[np.float64]
    arrival: npt.NDArray[np.int64]


def synthetic_league(
    n_players: int,
    n_matches: int,
    n_periods: int,
    seed: int = 0,
    draw_rate: float = 0.2,
) -> SyntheticLeague:
    """A reproducible league: same arguments, same matches."""
    if n_players < 2:
        raise ValueError(f"n_players must be at least 2, got {n_players}")
    if n_matches < 0 or n_periods < 1:
        raise ValueError("n_matches must be >= 0 and n_periods >= 1")
    if not 0.0 <= draw_rate <= 0.5:
        raise ValueError(f"draw_rate must be between 0 and 0.5, got {draw_rate}")
    rng = np.random.default_rng(seed)
    strengths = rng.normal(1500.0, 200.0, n_players)

    # Arrival period of each player; at least two players (10%) are there from the start.
    founders = max(2, n_players // 10)
    arrival = np.zeros(n_players, dtype=np.int64)
    arrival[founders:] = rng.integers(0, max(1, int(n_periods * 0.8)), n_players - founders)
    arrival = rng.permutation(arrival)
    by_arrival = np.argsort(arrival, kind="stable")
    present = np.searchsorted(arrival[by_arrival], np.arange(n_periods), side="right")

    period = np.sort(rng.integers(0, n_periods, n_matches)).astype(np.int64)
    available = present[period]
    first = rng.integers(0, available)
    second = (first + 1 + rng.integers(0, available - 1)) % available
    player_a = by_arrival[first].astype(np.int64)
    player_b = by_arrival[second].astype(np.int64)

    p = 1.0 / (1.0 + 10.0 ** (-(strengths[player_a] - strengths[player_b]) / 400.0))
    draw = draw_rate * 4.0 * p * (1.0 - p)
    u = rng.random(n_matches)
    score = np.where(u < p - draw / 2.0, 1.0, np.where(u < p + draw / 2.0, 0.5, 0.0))
    return SyntheticLeague(
        matches=MatchArrays(period, player_a, player_b, score),
        strengths=strengths,
        arrival=arrival,
    )
