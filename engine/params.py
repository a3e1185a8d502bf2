"""The parameters of the Glicko-2 system, validated on construction."""

from __future__ import annotations

import math
from dataclasses import dataclass
from numbers import Integral, Real

from engine.errors import InvalidParameterError

#: Glickman's conversion factor between the rating scale and the internal Glicko-2 scale.
SCALE = 173.7178
#: The rating that maps to mu = 0 on the internal scale (fixed by the paper).
CENTRE = 1500.0


def _number(name: str, value: object) -> float:
    """Return ``value`` as a finite float, or refuse it naming the parameter."""
    if isinstance(value, bool) or not isinstance(value, Real):
        raise InvalidParameterError(f"{name} must be a number, got {value!r}")
    number = float(value)
    if not math.isfinite(number):
        raise InvalidParameterError(f"{name} must be finite, got {value!r}")
    return number


def _positive(name: str, value: object) -> float:
    number = _number(name, value)
    if number <= 0:
        raise InvalidParameterError(f"{name} must be greater than 0, got {value!r}")
    return number


@dataclass(frozen=True)
class Glicko2Params:
    """System constant, defaults for unrated players, guards and the iteration's tolerance.

    ``max_rd`` caps every RD after every period (the doc's RD ceiling); ``volatility_ceiling``
    and ``rating_floor`` are optional guards, off by default.

    ``advantage`` (rating points, default 0: off) is the first-named side's advantage in every
    game not marked neutral; ``margin_scale`` (points, default None: off) maps a game's points
    margin to a score in [0, 1] (see ``engine/ADVANTAGE.md``). Both deviate from the
    paper and leave every number bit-identical when off.
    """

    tau: float = 0.5
    initial_rating: float = 1500.0
    initial_rd: float = 350.0
    initial_volatility: float = 0.06
    max_rd: float = 350.0
    volatility_ceiling: float | None = None
    rating_floor: float | None = None
    epsilon: float = 1e-6
    max_iterations: int = 1000
    advantage: float = 0.0
    margin_scale: float | None = None

    def __post_init__(self) -> None:
        _positive("tau", self.tau)
        _number("initial_rating", self.initial_rating)
        initial_rd = _positive("initial_rd", self.initial_rd)
        initial_volatility = _positive("initial_volatility", self.initial_volatility)
        max_rd = _positive("max_rd", self.max_rd)
        _positive("epsilon", self.epsilon)
        if initial_rd > max_rd:
            raise InvalidParameterError(
                f"initial_rd ({self.initial_rd!r}) must not exceed max_rd ({self.max_rd!r})"
            )
        if self.volatility_ceiling is not None:
            ceiling = _positive("volatility_ceiling", self.volatility_ceiling)
            if ceiling < initial_volatility:
                raise InvalidParameterError(
                    f"volatility_ceiling ({self.volatility_ceiling!r}) must not be below "
                    f"initial_volatility ({self.initial_volatility!r})"
                )
        if self.rating_floor is not None:
            floor = _number("rating_floor", self.rating_floor)
            if floor > self.initial_rating:
                raise InvalidParameterError(
                    f"rating_floor ({self.rating_floor!r}) must not be above "
                    f"initial_rating ({self.initial_rating!r})"
                )
        _number("advantage", self.advantage)
        if self.margin_scale is not None:
            _positive("margin_scale", self.margin_scale)
        iterations = self.max_iterations
        if isinstance(iterations, bool) or not isinstance(iterations, Integral):
            raise InvalidParameterError(f"max_iterations must be an integer, got {iterations!r}")
        if iterations < 1:
            raise InvalidParameterError(f"max_iterations must be at least 1, got {iterations!r}")
