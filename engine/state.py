"""The rating state of every player, and the lazy growth of RD while idle."""

from __future__ import annotations

from dataclasses import dataclass
from typing import overload

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidParameterError
from engine.params import SCALE, Glicko2Params

FloatArray = npt.NDArray[np.float64]
IntArray = npt.NDArray[np.int64]

#: ``last_period`` of a player who has never played (unrated).
NEVER = -1


@overload
def grown_rd(rd: float, volatility: float, idle_periods: int, max_rd: float) -> float: ...
@overload
def grown_rd(
    rd: FloatArray, volatility: FloatArray, idle_periods: IntArray | int, max_rd: float
) -> FloatArray: ...
def grown_rd(
    rd: float | FloatArray,
    volatility: float | FloatArray,
    idle_periods: int | IntArray,
    max_rd: float,
) -> float | FloatArray:
    """RD after ``idle_periods`` periods without games: step 6 applied k times at once.

    ``min(173.7178 * sqrt(phi^2 + k sigma^2), max_rd)`` with ``phi = rd / 173.7178``;
    ``k = 0`` returns ``rd`` unchanged (bit for bit), so a stored RD reads back exactly.
    """
    phi = np.asarray(rd, dtype=np.float64) / SCALE
    sigma = np.asarray(volatility, dtype=np.float64)
    k = np.asarray(idle_periods)
    if np.any(k < 0):
        raise InvalidParameterError("idle_periods must be >= 0")
    grown = np.minimum(SCALE * np.sqrt(phi * phi + k * (sigma * sigma)), max_rd)
    result = np.where(k == 0, np.asarray(rd, dtype=np.float64), grown)
    if result.ndim == 0:
        return float(result)
    return result


@dataclass
class RatingState:
    """Per-player arrays indexed by a dense player index ``0..n-1``.

    ``rating``, ``rd`` and ``volatility`` hold each player's values right after the last period
    they played (RD already capped); ``last_period`` is that period, or -1 for a player who has
    never played (unrated, holding the values they will start from: the initial ones, or a
    seed from a rating list). RD growth while idle is computed on
    read with :func:`grown_rd`, so idle periods cost nothing.
    """

    rating: FloatArray
    rd: FloatArray
    volatility: FloatArray
    last_period: IntArray

    def __post_init__(self) -> None:
        n = len(self.last_period)
        for name in ("rating", "rd", "volatility"):
            if len(getattr(self, name)) != n:
                raise InvalidParameterError(f"{name} must have one value per player ({n})")

    @classmethod
    def unrated(cls, n: int, params: Glicko2Params) -> RatingState:
        """``n`` players who have never played."""
        if n < 0:
            raise InvalidParameterError(f"number of players must be >= 0, got {n}")
        return cls(
            rating=np.full(n, params.initial_rating, dtype=np.float64),
            rd=np.full(n, params.initial_rd, dtype=np.float64),
            volatility=np.full(n, params.initial_volatility, dtype=np.float64),
            last_period=np.full(n, NEVER, dtype=np.int64),
        )

    @property
    def n_players(self) -> int:
        return len(self.last_period)

    def copy(self) -> RatingState:
        return RatingState(
            rating=self.rating.copy(),
            rd=self.rd.copy(),
            volatility=self.volatility.copy(),
            last_period=self.last_period.copy(),
        )

    def resized(self, n: int, params: Glicko2Params) -> RatingState:
        """A copy with room for ``n`` players; new players are unrated. Never shrinks."""
        if n < self.n_players:
            raise InvalidParameterError(
                f"cannot shrink a rating state from {self.n_players} to {n} players"
            )
        grown = RatingState.unrated(n, params)
        size = self.n_players
        grown.rating[:size] = self.rating
        grown.rd[:size] = self.rd
        grown.volatility[:size] = self.volatility
        grown.last_period[:size] = self.last_period
        return grown

    def rd_at(self, period: int, params: Glicko2Params) -> FloatArray:
        """Every player's RD at the end of ``period`` (idle growth applied; unrated: initial)."""
        rated = self.last_period != NEVER
        if np.any(self.last_period[rated] > period):
            raise InvalidParameterError(f"some players have played after period {period}")
        idle = np.where(rated, period - self.last_period, 0)
        return np.where(rated, grown_rd(self.rd, self.volatility, idle, params.max_rd), self.rd)
