"""The bootstrap over rating periods behind the backtest's intervals and its noise verdict."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.bootstrap import PeriodBootstrap, compare, compare_sums
from engine.errors import InvalidParameterError


def _by_hand(periods: np.ndarray, values: np.ndarray, seed: int, draws: int) -> np.ndarray:
    """Replicate means by literally resampling periods (same generator, same draws)."""
    played = np.unique(periods)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, played.size, size=(draws, played.size))
    means = []
    for row in picks:
        chosen = np.concatenate([values[periods == played[p]] for p in row])
        means.append(chosen.mean())
    return np.array(means)


def test_the_interval_is_the_percentile_of_resampled_periods():
    rng = np.random.default_rng(3)
    periods = np.repeat(np.arange(12), rng.integers(1, 6, size=12))
    values = rng.random(periods.size)
    boot = PeriodBootstrap(periods, draws=200, seed=11)
    means = _by_hand(periods, values, seed=11, draws=200)
    interval = boot.interval(values)
    assert interval.estimate == pytest.approx(values.mean(), rel=1e-12)
    assert interval.low == pytest.approx(np.quantile(means, 0.025), rel=1e-12)
    assert interval.high == pytest.approx(np.quantile(means, 0.975), rel=1e-12)


def test_sums_per_period_give_the_same_interval_as_the_matches():
    periods = np.array([4, 4, 9, 9, 9, 20, 31, 31])
    values = np.array([0.1, 0.7, 0.3, 0.2, 0.9, 0.4, 0.6, 0.5])
    boot = PeriodBootstrap(periods, draws=100, seed=1)
    assert boot.periods.tolist() == [4, 9, 20, 31]
    assert boot.sums(values).tolist() == pytest.approx([0.8, 1.4, 0.4, 1.1])
    assert boot.interval_of_sums(boot.sums(values)) == boot.interval(values)


def test_equal_losses_are_within_noise_and_a_uniform_gap_is_not():
    periods = np.repeat(np.arange(30), 3)
    loss = np.linspace(0.3, 0.9, periods.size)
    boot = PeriodBootstrap(periods, draws=100)
    same = compare(boot, loss, loss.copy())
    assert same.within_noise
    assert (same.difference.low, same.difference.high) == (0.0, 0.0)
    worse = compare(boot, loss + 0.01, loss)
    assert worse.b_better
    assert not worse.within_noise
    assert worse.difference.low == pytest.approx(0.01, abs=1e-12)
    summed = compare_sums(boot, boot.sums(loss + 0.01), boot.sums(loss)).difference
    # Summing before or after subtracting: the same to rounding (1e-12).
    assert (summed.estimate, summed.low, summed.high) == pytest.approx(
        (worse.difference.estimate, worse.difference.low, worse.difference.high), abs=1e-12
    )


@pytest.mark.property
@given(st.integers(0, 2**32 - 1))
def test_a_noisy_difference_centred_on_zero_is_within_noise(seed):
    """Two settings whose per-period differences are symmetric around zero: never a winner."""
    rng = np.random.default_rng(seed)
    half = rng.normal(0, 0.05, size=20)
    per_period = np.concatenate([half, -half])  # mean exactly zero
    periods = np.arange(per_period.size)
    boot = PeriodBootstrap(periods, draws=400, seed=seed)
    comparison = compare(boot, per_period, np.zeros_like(per_period))
    assert comparison.difference.estimate == pytest.approx(0.0, abs=1e-12)
    assert comparison.within_noise


def test_refuses_empty_or_mismatched_input():
    with pytest.raises(InvalidParameterError):
        PeriodBootstrap(np.array([], dtype=np.int64))
    with pytest.raises(InvalidParameterError):
        PeriodBootstrap(np.array([1, 2]), draws=1)
    boot = PeriodBootstrap(np.array([1, 1, 2]))
    with pytest.raises(InvalidParameterError):
        boot.interval(np.array([0.1, 0.2]))
    with pytest.raises(InvalidParameterError):
        compare(boot, np.zeros(3), np.zeros(2))


def _ratio_by_hand(
    periods: np.ndarray, num: np.ndarray, den: np.ndarray, seed: int, draws: int
) -> list[float]:
    """Replicate ratios sum(num)/sum(den) by literally resampling periods (replicates whose
    picked periods have no denominator are skipped)."""
    played = np.unique(periods)
    rng = np.random.default_rng(seed)
    picks = rng.integers(0, played.size, size=(draws, played.size))
    ratios = []
    for row in picks:
        chosen = np.concatenate([np.flatnonzero(periods == played[p]) for p in row])
        if den[chosen].sum() > 0:
            ratios.append(num[chosen].sum() / den[chosen].sum())
    return ratios


def test_brier_accuracy_and_a_decile_on_a_hand_built_sample():
    """Four periods of matches with hand-picked predictions and results: the Brier score,
    the accuracy and the observed score of one calibration decile, each with the interval
    of literally resampled periods (tolerance 1e-12: the same draws, summed differently)."""
    periods = np.array([1, 1, 1, 2, 2, 3, 3, 3, 3, 5])
    p = np.array([0.72, 0.31, 0.55, 0.78, 0.90, 0.20, 0.74, 0.51, 0.66, 0.71])
    s = np.array([1.0, 0.0, 0.5, 0.0, 1.0, 0.0, 1.0, 1.0, 0.0, 1.0])
    brier = (p - s) ** 2
    # Favourite won: 1, lost: 0, draw: 0.5 (worked out by hand for these ten matches).
    correct = np.array([1.0, 1.0, 0.5, 0.0, 1.0, 1.0, 1.0, 1.0, 0.0, 1.0])
    in_decile = (p >= 0.7) & (p < 0.8)  # four matches, in periods 1, 2, 3 and 5
    draws, seed = 300, 5
    boot = PeriodBootstrap(periods, draws=draws, seed=seed)
    ones = np.ones_like(p)

    for values, mean in ((brier, brier.mean()), (correct, 0.75)):
        interval = boot.interval_of_sums(boot.sums(values))
        by_hand = _ratio_by_hand(periods, values, ones, seed, draws)
        assert len(by_hand) == draws
        assert interval.estimate == pytest.approx(mean, abs=1e-12)
        assert (interval.low, interval.high) == pytest.approx(
            tuple(np.quantile(by_hand, [0.025, 0.975])), abs=1e-12
        )

    observed = boot.interval_of_ratio(boot.sums(s * in_decile), boot.sums(in_decile))
    by_hand = _ratio_by_hand(periods, s * in_decile, in_decile.astype(float), seed, draws)
    assert observed is not None
    assert observed.estimate == pytest.approx(3 / 4, abs=1e-12)  # 1, 0, 1, 1
    assert (observed.low, observed.high) == pytest.approx(
        tuple(np.quantile(by_hand, [0.025, 0.975])), abs=1e-12
    )
    assert 0.0 <= observed.low <= 0.75 <= observed.high <= 1.0


def test_a_ratio_with_no_denominator_has_no_interval():
    boot = PeriodBootstrap([1, 2, 3], draws=50)
    assert boot.interval_of_ratio([0.0, 0.0, 0.0], [0.0, 0.0, 0.0]) is None
    with pytest.raises(InvalidParameterError):
        boot.interval_of_ratio([1.0, 2.0], [1.0, 1.0])
