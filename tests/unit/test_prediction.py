"""Win probability for a pairing, log-loss and Brier, against direct hand computations."""

from __future__ import annotations

import math

import numpy as np
import pytest

from engine import brier, log_loss, win_probability
from engine.prediction import brier_array, log_loss_array, win_probability_array


def by_hand(rating_a: float, rd_a: float, rating_b: float, rd_b: float) -> float:
    phi = math.sqrt((rd_a / 173.7178) ** 2 + (rd_b / 173.7178) ** 2)
    g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
    return 1 / (1 + math.exp(-g * (rating_a - rating_b) / 173.7178))


@pytest.mark.parametrize(
    "pairing",
    [
        (1500, 350, 1500, 350),
        (1700, 50, 1500, 50),
        (1500, 200, 1400, 30),
        (1200, 80, 2000, 300),
        (2400, 30, 1000, 30),
    ],
)
def test_win_probability_matches_formula(pairing: tuple[float, float, float, float]) -> None:
    assert win_probability(*pairing) == pytest.approx(by_hand(*pairing), rel=1e-12)


def test_win_probability_is_symmetric_and_even_for_equals() -> None:
    assert win_probability(1500, 100, 1500, 300) == 0.5
    p = win_probability(1650, 80, 1500, 120)
    assert p + win_probability(1500, 120, 1650, 80) == pytest.approx(1.0, abs=1e-15)
    assert p > 0.5


def test_uncertainty_pulls_towards_half() -> None:
    certain = win_probability(1700, 30, 1500, 30)
    uncertain = win_probability(1700, 350, 1500, 350)
    assert 0.5 < uncertain < certain


def test_huge_gaps_do_not_overflow() -> None:
    assert win_probability(1e6, 30, -1e6, 30) == 1.0
    assert win_probability(-1e6, 30, 1e6, 30) == 0.0


def test_vectorised_matches_scalar() -> None:
    ra = np.array([1500, 1700, 1200.0])
    rb = np.array([1500, 1500, 2000.0])
    rd = np.array([350, 50, 80.0])
    expected = [by_hand(a, d, b, d) for a, b, d in zip(ra, rb, rd, strict=True)]
    assert win_probability_array(ra, rd, rb, rd) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize(
    ("p", "s", "expected_log_loss", "expected_brier"),
    [
        (0.7, 1.0, -math.log(0.7), 0.09),
        (0.7, 0.0, -math.log(0.3), 0.49),
        (0.7, 0.5, -(0.5 * math.log(0.7) + 0.5 * math.log(0.3)), 0.04),
        (0.5, 1.0, math.log(2), 0.25),
    ],
)
def test_log_loss_and_brier(
    p: float, s: float, expected_log_loss: float, expected_brier: float
) -> None:
    assert log_loss(p, s) == pytest.approx(expected_log_loss, rel=1e-12)
    assert brier(p, s) == pytest.approx(expected_brier, rel=1e-12)


def test_confident_miss_is_finite() -> None:
    assert log_loss(1.0, 0.0) == pytest.approx(-math.log(1e-15), rel=1e-3)
    assert math.isfinite(log_loss(0.0, 1.0))


def test_array_variants() -> None:
    p = np.array([0.7, 0.2])
    s = np.array([1.0, 0.5])
    assert log_loss_array(p, s) == pytest.approx(
        [-math.log(0.7), -(0.5 * math.log(0.2) + 0.5 * math.log(0.8))], rel=1e-12
    )
    assert brier_array(p, s) == pytest.approx([0.09, 0.09], rel=1e-12)
