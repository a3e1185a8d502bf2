"""The display rule: a probability is never "100 %" or "0 %"; percentiles are rounded down;
ranges of percents and rating periods as the pages write them."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.errors import InvalidParameterError
from web.formatting import (
    describe_periods,
    format_percent_range,
    format_percentile,
    format_probability,
    probability_percent,
)


@pytest.mark.parametrize(
    ("p", "text"),
    [
        (0.0, "< 1 %"),
        (1e-12, "< 1 %"),
        (0.004, "< 1 %"),
        (0.0049, "< 1 %"),
        (0.005, "1 %"),
        (0.01, "1 %"),
        (0.123, "12 %"),
        (0.125, "13 %"),
        (0.5, "50 %"),
        (0.834, "83 %"),
        (0.99, "99 %"),
        (0.9949, "99 %"),
        (0.995, "> 99 %"),
        (0.999999, "> 99 %"),
        (1.0, "> 99 %"),
        (1, "> 99 %"),
        (0, "< 1 %"),
    ],
)
def test_format_probability(p: float, text: str) -> None:
    assert format_probability(p) == text


def test_space_is_configurable() -> None:
    assert format_probability(0.42, space="\u202f") == "42\u202f%"
    assert format_probability(1.0, space="") == "> 99%"


@pytest.mark.property
@given(st.floats(0.0, 1.0))
def test_never_certain(p: float) -> None:
    text = format_probability(p)
    assert text not in {"100 %", "0 %"}
    assert 1 <= probability_percent(p) <= 99
    if not text.startswith(("<", ">")):
        assert abs(int(text.removesuffix(" %")) - 100 * p) <= 0.5 + 1e-9


@pytest.mark.parametrize("bad", [-0.01, 1.01, math.nan, math.inf, True, "0.5"])
def test_refuses_what_is_not_a_probability(bad: object) -> None:
    with pytest.raises(InvalidParameterError):
        format_probability(bad)  # type: ignore[arg-type]
    with pytest.raises(InvalidParameterError):
        format_percentile(bad)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("fraction", "text"),
    [
        (0.0, "0 %"),
        (0.29, "29 %"),
        (0.8371, "83 %"),
        (0.999, "99 %"),
        (1.0, "100 %"),
        (83 / 100, "83 %"),
    ],
)
def test_format_percentile_rounds_down(fraction: float, text: str) -> None:
    assert format_percentile(fraction) == text


def test_percentile_of_every_small_league_is_never_overstated() -> None:
    for n in range(1, 400):
        for k in range(n + 1):
            shown = int(format_percentile(k / n).removesuffix(" %"))
            assert shown <= 100 * k / n + 1e-9
            assert shown > 100 * k / n - 1


@pytest.mark.parametrize(
    ("low", "high", "text"),
    [(0.5, 0.55, "50\u201355 %"), (0.7, 0.8, "70\u201380 %"), (0.95, 1.0, "95\u2013100 %")],
)
def test_format_percent_range(low: float, high: float, text: str) -> None:
    assert format_percent_range(low, high) == text


@pytest.mark.parametrize(
    ("unit", "length", "text"),
    [
        ("days", 1, "1 day from 2 Jan 2024"),
        ("days", 7, "7 days from 2 Jan 2024"),
        ("months", 1, "1 calendar month from 2 Jan 2024"),
        ("months", 3, "3 calendar months from 2 Jan 2024"),
    ],
)
def test_describe_periods(unit: str, length: int, text: str) -> None:
    assert describe_periods(unit, length, dt.date(2024, 1, 2)) == text
