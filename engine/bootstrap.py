"""Confidence intervals for backtest scores: a bootstrap over rating periods.

A league's matches are not independent draws: the matches of one period share the ratings
they were predicted from. So the resampling unit is the rating period: each of ``draws``
replicates picks the league's played periods with replacement and takes every match of the
picked periods, and a score's interval is the 2.5 % and 97.5 % quantiles of its mean over
the replicates (a percentile bootstrap). The same replicates are used for every setting, so
the interval of a *difference* between two settings (paired, match by match) is tight
enough to say whether one setting really predicts better than another.

The decision rule (:func:`compare`): a setting is meaningfully better than another only when
the whole 95 % interval of their log-loss difference lies below zero; otherwise the
difference is within noise.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidParameterError
from engine.state import FloatArray, IntArray

__all__ = [
    "DEFAULT_DRAWS",
    "Comparison",
    "Interval",
    "PeriodBootstrap",
    "compare",
    "compare_sums",
]

#: Replicates per bootstrap; 2.5 % quantiles of 400 draws move by about 0.1 of a width.
DEFAULT_DRAWS = 400
LEVEL = 0.95


@dataclass(frozen=True)
class Interval:
    """A mean score and its bootstrap interval at ``LEVEL``."""

    estimate: float
    low: float
    high: float

    @property
    def excludes_zero(self) -> bool:
        return self.low > 0.0 or self.high < 0.0


class PeriodBootstrap:
    """Replicates of a league's periods, reused for every score of every setting.

    ``periods`` holds each scored match's period index (any integers: only which matches
    share a period matters). ``seed`` fixes the replicates, so the same league and seed
    always give the same intervals. Scores are given per match (:meth:`interval`) or already
    summed per period (:meth:`interval_of_sums`, in the order of :attr:`periods`): a mean over
    a replicate is its periods' sums over its periods' match counts, so per-period sums are
    all a stored sweep run needs to keep.
    """

    def __init__(self, periods: npt.ArrayLike, draws: int = DEFAULT_DRAWS, seed: int = 0) -> None:
        period = np.asarray(periods, dtype=np.int64)
        if period.ndim != 1 or period.size == 0:
            raise InvalidParameterError("the bootstrap needs at least one scored match")
        if draws < 2:
            raise InvalidParameterError(f"the bootstrap needs at least 2 draws, got {draws}")
        played, index = np.unique(period, return_inverse=True)
        self.periods: IntArray = played
        self.n_matches = int(period.size)
        self.n_periods = int(played.size)
        self._index: IntArray = index.astype(np.int64)
        self.counts: FloatArray = np.bincount(self._index, minlength=self.n_periods).astype(float)
        rng = np.random.default_rng(seed)
        picks = rng.integers(0, self.n_periods, size=(draws, self.n_periods))
        # weights[r, p]: how often replicate r picked period p.
        weights = np.zeros((draws, self.n_periods))
        np.add.at(weights, (np.arange(draws)[:, None], picks), 1.0)
        self._weights: FloatArray = weights
        self._matches: FloatArray = weights @ self.counts

    def sums(self, per_match: npt.ArrayLike) -> FloatArray:
        """``per_match`` (one value per scored match) summed per period of :attr:`periods`."""
        values = np.asarray(per_match, dtype=np.float64)
        if values.shape != (self.n_matches,):
            raise InvalidParameterError(
                f"expected one value per scored match ({self.n_matches}), got {values.shape}"
            )
        result: FloatArray = np.bincount(self._index, weights=values, minlength=self.n_periods)
        return result

    def interval(self, per_match: npt.ArrayLike) -> Interval:
        """The mean of ``per_match`` (one value per scored match) and its interval."""
        return self.interval_of_sums(self.sums(per_match))

    def interval_of_sums(self, per_period: npt.ArrayLike) -> Interval:
        """The mean score and its interval from the scores summed per period."""
        interval = self.interval_of_ratio(per_period, self.counts)
        assert interval is not None  # every period has at least one match
        return interval

    def interval_of_ratio(
        self, numerators: npt.ArrayLike, denominators: npt.ArrayLike
    ) -> Interval | None:
        """The interval of ``sum(numerators) / sum(denominators)`` over the same replicates.

        Both are given per period of :attr:`periods`, e.g. the observed scores and the
        match counts of one calibration decile. A replicate whose denominator is zero (it
        picked no period with a match in that decile) has no value and is left out; None
        when no replicate (or the whole sample) has one.
        """
        num = np.asarray(numerators, dtype=np.float64)
        den = np.asarray(denominators, dtype=np.float64)
        for name, values in (("sum", num), ("count", den)):
            if values.shape != (self.n_periods,):
                raise InvalidParameterError(
                    f"expected one {name} per period ({self.n_periods}), got {values.shape}"
                )
        total = float(den.sum())
        replicate_den = self._weights @ den
        kept = replicate_den > 0.0
        if total <= 0.0 or not kept.any():
            return None
        means = (self._weights[kept] @ num) / replicate_den[kept]
        tail = (1.0 - LEVEL) / 2.0
        low, high = np.quantile(means, [tail, 1.0 - tail])
        return Interval(float(num.sum() / total), float(low), float(high))


@dataclass(frozen=True)
class Comparison:
    """Setting ``a`` against setting ``b``: the interval of ``loss_a - loss_b`` per match."""

    difference: Interval

    @property
    def a_better(self) -> bool:
        """``a``'s loss is lower with the whole interval below zero."""
        return self.difference.high < 0.0

    @property
    def b_better(self) -> bool:
        return self.difference.low > 0.0

    @property
    def within_noise(self) -> bool:
        return not (self.a_better or self.b_better)


def compare(bootstrap: PeriodBootstrap, loss_a: npt.ArrayLike, loss_b: npt.ArrayLike) -> Comparison:
    """Paired comparison of two settings' per-match losses on the same matches."""
    a = np.asarray(loss_a, dtype=np.float64)
    b = np.asarray(loss_b, dtype=np.float64)
    if a.shape != b.shape:
        raise InvalidParameterError("both settings must be scored on the same matches")
    return Comparison(bootstrap.interval(a - b))


def compare_sums(
    bootstrap: PeriodBootstrap, sums_a: npt.ArrayLike, sums_b: npt.ArrayLike
) -> Comparison:
    """:func:`compare` from two settings' losses summed per period."""
    a = np.asarray(sums_a, dtype=np.float64)
    b = np.asarray(sums_b, dtype=np.float64)
    if a.shape != b.shape:
        raise InvalidParameterError("both settings must be scored on the same periods")
    return Comparison(bootstrap.interval_of_sums(a - b))
