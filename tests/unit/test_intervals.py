"""Confidence intervals at any level, the level of a z, and percentiles among ranked players."""

from __future__ import annotations

import math
from statistics import NormalDist

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidParameterError
from engine.intervals import (
    MAX_Z,
    ConfidenceLevel,
    better_than,
    better_than_array,
    interval,
    interval_array,
    percent_for_z,
    z_for_percent,
)
from web.locale_format import level_label

#: 2 Phi(1) - 1 in percent: the level of one deviation either side.
ONE_SIGMA = 68.26894921370859


@pytest.mark.parametrize(
    ("percent", "z"),
    [
        (95, 1.959963984540054),
        (99, 2.5758293035489004),
        (ONE_SIGMA, 1.0),
        (68.27, 1.0000217133),  # the rounded level is 2e-5 away from one deviation
        (50, 0.6744897501960817),
        (90, 1.6448536269514722),
        (99.9, 3.2905267314919255),
        (95.44997361036416, 2.0),
    ],
)
def test_known_quantiles(percent: float, z: float) -> None:
    assert z_for_percent(percent) == pytest.approx(z, abs=1e-6)


def test_known_quantiles_are_precise() -> None:
    assert z_for_percent(95) == pytest.approx(1.959963984540054, abs=1e-12)
    assert z_for_percent(ONE_SIGMA) == pytest.approx(1.0, abs=1e-12)
    assert percent_for_z(1.0) == pytest.approx(ONE_SIGMA, abs=1e-12)
    assert percent_for_z(1.959963984540054) == pytest.approx(95.0, abs=1e-12)
    assert percent_for_z(2.5758293035489004) == pytest.approx(99.0, abs=1e-12)


@pytest.mark.property
@given(st.floats(0.001, 99.9999))
def test_percent_and_z_are_inverse(percent: float) -> None:
    z = z_for_percent(percent)
    assert percent_for_z(z) == pytest.approx(percent, rel=1e-12, abs=1e-12)
    assert z == pytest.approx(NormalDist().inv_cdf(0.5 + percent / 200), rel=1e-9)


def test_lua_module_approximation_is_not_used() -> None:
    """The brief's Lua ``percent`` uses z = 0.5877 ln((1 + c) / (1 - c)), "accurate to 0.02".

    It is, near 68 %, but its intervals are too wide at high levels: z = 2.153 at 95 % (a 96.9 %
    interval) and 3.111 at 99 % (99.81 %). The exact quantile is used here instead.
    """

    def lua(c: float) -> float:
        return 0.5877 * math.log((1 + c) / (1 - c))

    assert abs(lua(0.68) - z_for_percent(68)) < 0.02
    assert lua(0.95) - z_for_percent(95) == pytest.approx(0.1931, abs=1e-4)
    assert lua(0.99) - z_for_percent(99) == pytest.approx(0.5350, abs=1e-4)
    assert percent_for_z(lua(0.95)) == pytest.approx(96.869, abs=1e-3)


def test_interval_at_a_level_or_a_z() -> None:
    low, high = interval(1500, 100, percent=95)
    assert low == pytest.approx(1500 - 195.9963984540054, abs=1e-9)
    assert high == pytest.approx(1500 + 195.9963984540054, abs=1e-9)
    assert interval(1500, 50, z=2) == (1400.0, 1600.0)
    lows, highs = interval_array([1500, 1700], [100, 30], z=1)
    assert lows.tolist() == [1400.0, 1670.0]
    assert highs.tolist() == [1600.0, 1730.0]
    assert ConfidenceLevel.from_percent(99).bounds(2000, 10) == interval(2000, 10, percent=99)


@pytest.mark.parametrize(
    "kwargs",
    [
        {},
        {"percent": 95, "z": 2},
        {"percent": 0},
        {"percent": 100},
        {"percent": -5},
        {"percent": math.nan},
        {"z": 0},
        {"z": -1},
        {"z": MAX_Z + 1},
        {"z": math.inf},
    ],
)
def test_bad_levels_are_refused(kwargs: dict[str, float]) -> None:
    with pytest.raises(InvalidParameterError):
        interval(1500, 100, **kwargs)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "z", "label"),
    [
        ("95", 1.959963984540054, "95 %"),
        ("95%", 1.959963984540054, "95 %"),
        (" 99.9 % ", 3.2905267314919255, "99.9 %"),
        ("68", 0.994457883209753, "68 %"),
        ("z2", 2.0, "95.45 %"),
        ("z=1", 1.0, "68.27 %"),
        ("Z = 1.5", 1.5, "86.64 %"),
        ("3z", 3.0, "99.73 %"),
        ("2sd", 2.0, "95.45 %"),
        ("z10", 10.0, "> 99.99 %"),
    ],
)
def test_parse_levels(text: str, z: float, label: str) -> None:
    level = ConfidenceLevel.parse(text)
    assert level.z == pytest.approx(z, abs=1e-12)
    assert level_label(level) == label


@pytest.mark.parametrize(
    "text", ["", "abc", "100", "0", "-5", "z0", "z11", "95 %%", "1e2", "9" * 50]
)
def test_parse_refuses(text: str) -> None:
    with pytest.raises(InvalidParameterError):
        ConfidenceLevel.parse(text)


def test_better_than_counts_strictly_lower_others() -> None:
    ranked = [1400, 1500, 1500, 1600, 1700]
    shares = better_than_array(ranked, ranked)
    assert shares.tolist() == [0.0, 0.25, 0.25, 0.75, 1.0]
    assert better_than(1700, ranked) == 1.0
    # someone not ranked is compared with every ranked player
    assert better_than(1550, ranked, ranked_includes_them=False) == 0.6
    assert better_than(2000, ranked, ranked_includes_them=False) == 1.0
    assert better_than(1000, ranked, ranked_includes_them=False) == 0.0


def test_better_than_with_nobody_else() -> None:
    assert better_than(1500, [1500]) is None
    assert better_than(1500, [], ranked_includes_them=False) is None
    assert np.isnan(better_than_array([1500], [1500])).all()


def test_better_than_refuses_a_rating_missing_from_its_ranking() -> None:
    with pytest.raises(InvalidParameterError):
        better_than(1550, [1400, 1500])
    with pytest.raises(InvalidParameterError):
        better_than(1500, [])
    with pytest.raises(InvalidParameterError):
        better_than(math.nan, [1500, 1600], ranked_includes_them=False)


@pytest.mark.property
@given(st.lists(st.integers(1000, 1010), min_size=2, max_size=30))
def test_better_than_matches_a_count(ratings: list[int]) -> None:
    shares = better_than_array(ratings, ratings)
    for rating, share in zip(ratings, shares, strict=True):
        lower = sum(other < rating for other in ratings)
        assert share == lower / (len(ratings) - 1)
        assert 0.0 <= share <= 1.0


def test_numpy_numbers_are_accepted() -> None:
    assert z_for_percent(np.int64(95)) == z_for_percent(95)  # type: ignore[arg-type]
    assert interval(np.float64(1500), 100, z=np.float64(2)) == (1300.0, 1700.0)
