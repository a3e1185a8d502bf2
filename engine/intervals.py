"""Confidence intervals for a rating at any level, and a rating's percentile among ranked players.

A Glicko-2 rating is a normal belief: mean ``r``, standard deviation ``RD``. The two-sided
interval at level ``L`` (a fraction) is ``r ± z RD`` with ``z = Φ⁻¹((1 + L) / 2)``, and the
level of ``± z`` is ``L = 2 Φ(z) - 1 = erf(z / √2)``. Like the Lua Glicko-2 module of the
design brief, a level can be given as a percent (``percent(0.95)`` there) or as a number of
deviations (``deviation(2)`` there); the quantile here is the standard library's
``statistics.NormalDist`` (Wichura's AS 241, about 1e-16 relative), not the Lua module's
``0.5877 ln((1 + c) / (1 - c))`` approximation (±0.02).

Percentile: the share of the *other* ranked players whose rating is strictly lower. Ties count
as not beaten (a player is not "better than" an equal), so the top player is better than 100 %,
and two players level at the top are each better than the rest only. See OUTCOMES.md.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from numbers import Real
from statistics import NormalDist

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidParameterError

__all__ = [
    "MAX_Z",
    "ConfidenceLevel",
    "better_than",
    "better_than_array",
    "interval",
    "interval_array",
    "percent_for_z",
    "z_for_percent",
]

FloatArray = npt.NDArray[np.float64]

_STANDARD = NormalDist()
#: The widest interval accepted, in deviations (a level of 100 - 1.5e-21 %).
MAX_Z = 10.0


def _finite(name: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, Real) or not math.isfinite(value):
        raise InvalidParameterError(f"{name} must be a finite number, got {value!r}")
    return float(value)


def z_for_percent(percent: float) -> float:
    """Deviations either side for a two-sided level in percent: 95 -> 1.959964 (0 < level < 100)."""
    level = _finite("confidence level", percent)
    if not 0.0 < level < 100.0:
        raise InvalidParameterError(
            f"confidence level must be above 0 % and below 100 %, got {percent!r}"
        )
    # (1 + L) / 2 written as 0.5 + L / 200, and for high levels the upper tail directly:
    # inv_cdf(1 - q) = -inv_cdf(q) keeps precision when q = (100 - L) / 200 is tiny.
    z = -_STANDARD.inv_cdf((100.0 - level) / 200.0)
    return min(z, MAX_Z)


def percent_for_z(z: float) -> float:
    """The two-sided level in percent of ``± z`` deviations: 1 -> 68.2689…, 1.96 -> 95.0004…"""
    value = _finite("z", z)
    if not 0.0 < value <= MAX_Z:
        raise InvalidParameterError(f"z must be above 0 and at most {MAX_Z:g}, got {z!r}")
    return 100.0 * math.erf(value / math.sqrt(2.0))


_PERCENT = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*%?\s*$")
_Z = re.compile(r"^\s*(?:z\s*=?\s*(\d+(?:\.\d+)?)|(\d+(?:\.\d+)?)\s*(?:z|sd))\s*$", re.I)


@dataclass(frozen=True)
class ConfidenceLevel:
    """An interval's level, both ways: ``z`` deviations either side and ``percent`` coverage."""

    z: float
    percent: float

    @classmethod
    def from_percent(cls, percent: float) -> ConfidenceLevel:
        """From a level in percent (68, 95, 99, 99.9 …), strictly between 0 and 100."""
        z = z_for_percent(percent)
        return cls(z=z, percent=float(percent))

    @classmethod
    def from_z(cls, z: float) -> ConfidenceLevel:
        """From a number of deviations either side (``0 < z <= MAX_Z``)."""
        return cls(z=float(z), percent=percent_for_z(z))

    @classmethod
    def parse(cls, text: str) -> ConfidenceLevel:
        """From text: ``"95"``, ``"95%"``, ``"99.9 %"`` (percent) or ``"z2"``, ``"z=1.5"``,
        ``"2z"``, ``"2sd"`` (deviations). Refuses anything else with a message."""
        if len(text) > 40:
            raise InvalidParameterError("confidence level is too long")
        if match := _PERCENT.match(text):
            return cls.from_percent(float(match.group(1)))
        if match := _Z.match(text):
            return cls.from_z(float(match.group(1) or match.group(2)))
        raise InvalidParameterError(
            f"confidence level must be a percent such as 95 or 99.9, or a z such as z2, "
            f"got {text!r}"
        )

    def bounds(self, rating: float, rd: float) -> tuple[float, float]:
        """``(rating - z RD, rating + z RD)``."""
        return interval(rating, rd, z=self.z)


def _z_of(percent: float | None, z: float | None) -> float:
    if (percent is None) == (z is None):
        raise InvalidParameterError("give exactly one of percent and z")
    if percent is not None:
        return z_for_percent(percent)
    assert z is not None
    value = _finite("z", z)
    if not 0.0 < value <= MAX_Z:
        raise InvalidParameterError(f"z must be above 0 and at most {MAX_Z:g}, got {z!r}")
    return value


def interval(
    rating: float, rd: float, *, percent: float | None = None, z: float | None = None
) -> tuple[float, float]:
    """The two-sided interval ``rating ± z RD`` at a level in ``percent`` or ``z`` deviations."""
    low, high = interval_array(rating, rd, percent=percent, z=z)
    return float(low), float(high)


def interval_array(
    rating: npt.ArrayLike,
    rd: npt.ArrayLike,
    *,
    percent: float | None = None,
    z: float | None = None,
) -> tuple[FloatArray, FloatArray]:
    """Vectorised :func:`interval`: arrays of lower and upper bounds."""
    radius = _z_of(percent, z) * np.asarray(rd, dtype=np.float64)
    centre = np.asarray(rating, dtype=np.float64)
    low: FloatArray = centre - radius
    high: FloatArray = centre + radius
    return low, high


def better_than_array(
    ratings: npt.ArrayLike, ranked: npt.ArrayLike, *, ranked_includes_them: bool = True
) -> FloatArray:
    """For each rating, the share (0 to 1) of the other ranked players rated strictly lower.

    ``ranked`` holds every ranked player's rating. With ``ranked_includes_them`` (a ranked
    player's own percentile), each player is among ``ranked`` and the share is over the
    ``n - 1`` others; without it (a provisional or inactive player, not ranked), over all ``n``.
    Equal ratings are not beaten. NaN where there is nobody else to compare with.
    """
    pool = np.sort(np.asarray(ranked, dtype=np.float64))
    if pool.ndim != 1 or not np.all(np.isfinite(pool)):
        raise InvalidParameterError("ranked ratings must be a 1-D array of finite numbers")
    values = np.asarray(ratings, dtype=np.float64)
    if not np.all(np.isfinite(values)):
        raise InvalidParameterError("ratings must be finite numbers")
    others = pool.size - 1 if ranked_includes_them else pool.size
    below_index = np.searchsorted(pool, values, side="left")
    if ranked_includes_them and values.size:
        at = np.minimum(below_index, max(pool.size - 1, 0))
        if pool.size == 0 or np.any(pool[at] != values):
            raise InvalidParameterError("a rating is not among the ranked ratings it is ranked in")
    below = below_index.astype(np.float64)
    if others <= 0:
        return np.full(values.shape, np.nan)
    result: FloatArray = below / others
    return result


def better_than(
    rating: float, ranked: npt.ArrayLike, *, ranked_includes_them: bool = True
) -> float | None:
    """:func:`better_than_array` for one rating; ``None`` when nobody else is ranked."""
    share = float(better_than_array(rating, ranked, ranked_includes_them=ranked_includes_them))
    return None if math.isnan(share) else share
