"""Rating periods: days and calendar months from an anchor, month ends, leap years, errors."""

from __future__ import annotations

import datetime as dt

import numpy as np
import pytest

from engine import InvalidParameterError, MatchBeforeAnchorError, PeriodSpec

D = dt.date


@pytest.mark.parametrize(
    ("day", "index"),
    [
        (D(2024, 1, 1), 0),
        (D(2024, 1, 7), 0),
        (D(2024, 1, 8), 1),
        (D(2024, 1, 14), 1),
        (D(2024, 1, 15), 2),
        (D(2024, 12, 31), 52),  # 365 days after Jan 1 in a leap year: day 365 // 7
    ],
)
def test_weekly_periods_from_anchor(day: dt.date, index: int) -> None:
    spec = PeriodSpec("days", 7, D(2024, 1, 1))
    assert spec.index_of(day) == index


@pytest.mark.parametrize(
    ("day", "index"),
    [
        (D(2023, 3, 15), 0),
        (D(2023, 4, 14), 0),
        (D(2023, 4, 15), 1),
        (D(2024, 2, 29), 11),
        (D(2024, 3, 14), 11),
        (D(2024, 3, 15), 12),
    ],
)
def test_monthly_periods_on_anchor_day(day: dt.date, index: int) -> None:
    spec = PeriodSpec("months", 1, D(2023, 3, 15))
    assert spec.index_of(day) == index


def test_month_end_anchor_clamps_to_shorter_months() -> None:
    spec = PeriodSpec("months", 1, D(2023, 1, 31))
    # Jan 31 + 1 month = Feb 28 (2023 is not a leap year); + 2 months = Mar 31, not Mar 28.
    assert spec.bounds(0) == (D(2023, 1, 31), D(2023, 2, 27))
    assert spec.bounds(1) == (D(2023, 2, 28), D(2023, 3, 30))
    assert spec.bounds(2) == (D(2023, 3, 31), D(2023, 4, 29))
    assert spec.bounds(3) == (D(2023, 4, 30), D(2023, 5, 30))
    assert spec.index_of(D(2023, 2, 27)) == 0
    assert spec.index_of(D(2023, 2, 28)) == 1
    assert spec.index_of(D(2023, 3, 30)) == 1
    assert spec.index_of(D(2023, 3, 31)) == 2


def test_month_end_anchor_in_leap_year() -> None:
    spec = PeriodSpec("months", 1, D(2024, 1, 31))
    assert spec.bounds(1) == (D(2024, 2, 29), D(2024, 3, 30))
    assert spec.index_of(D(2024, 2, 28)) == 0
    assert spec.index_of(D(2024, 2, 29)) == 1


def test_calendar_quarters_from_first_of_month() -> None:
    spec = PeriodSpec("months", 3, D(2020, 1, 1))
    assert spec.bounds(0) == (D(2020, 1, 1), D(2020, 3, 31))
    assert spec.bounds(4) == (D(2021, 1, 1), D(2021, 3, 31))
    assert spec.index_of(D(2020, 12, 31)) == 3
    assert spec.index_of(D(2021, 1, 1)) == 4


def test_leap_day_in_daily_periods() -> None:
    spec = PeriodSpec("days", 1, D(2024, 2, 28))
    assert spec.index_of(D(2024, 2, 29)) == 1
    assert spec.index_of(D(2024, 3, 1)) == 2
    assert spec.bounds(1) == (D(2024, 2, 29), D(2024, 2, 29))


@pytest.mark.parametrize(
    "spec",
    [
        PeriodSpec("days", 7, D(2024, 1, 1)),
        PeriodSpec("months", 1, D(2023, 3, 15)),
        PeriodSpec("months", 1, D(2023, 1, 31)),
    ],
)
def test_before_anchor_is_refused(spec: PeriodSpec) -> None:
    day_before = spec.anchor - dt.timedelta(days=1)
    with pytest.raises(MatchBeforeAnchorError, match="before the first period"):
        spec.index_of(day_before)
    days = np.array([spec.anchor, day_before], dtype="datetime64[D]")
    with pytest.raises(MatchBeforeAnchorError, match="before the first period"):
        spec.indices_of(days)


SPECS = [
    PeriodSpec("days", 1, D(2023, 12, 30)),
    PeriodSpec("days", 7, D(2024, 1, 1)),
    PeriodSpec("days", 10, D(2023, 2, 27)),
    PeriodSpec("months", 1, D(1872, 11, 1)),
    PeriodSpec("months", 1, D(2023, 1, 31)),
    PeriodSpec("months", 1, D(2023, 1, 29)),
    PeriodSpec("months", 2, D(2023, 12, 30)),
    PeriodSpec("months", 12, D(2020, 2, 29)),
]


@pytest.mark.parametrize("spec", SPECS)
def test_bounds_and_index_round_trip_and_tile_the_calendar(spec: PeriodSpec) -> None:
    previous_last = spec.anchor - dt.timedelta(days=1)
    for index in range(40):
        first, last = spec.bounds(index)
        # Consecutive, non-empty periods with no gaps and no overlaps.
        assert first == previous_last + dt.timedelta(days=1)
        assert first <= last
        assert spec.index_of(first) == index
        assert spec.index_of(last) == index
        previous_last = last


@pytest.mark.parametrize("spec", SPECS)
def test_vectorised_indices_match_index_of(spec: PeriodSpec) -> None:
    days = [spec.anchor + dt.timedelta(days=offset) for offset in range(0, 1200, 3)]
    expected = [spec.index_of(day) for day in days]
    actual = spec.indices_of(np.array(days, dtype="datetime64[D]"))
    assert actual.dtype == np.int64
    assert actual.tolist() == expected


def test_empty_periods_are_still_numbered() -> None:
    spec = PeriodSpec("days", 7, D(2024, 1, 1))
    days = np.array(["2024-01-02", "2024-03-01"], dtype="datetime64[D]")
    # Eight empty weeks between the two matches keep their indices 1..8.
    assert spec.indices_of(days).tolist() == [0, 8]
    assert spec.bounds(4) == (D(2024, 1, 29), D(2024, 2, 4))


def test_empty_array_of_days() -> None:
    spec = PeriodSpec("months", 1, D(2024, 1, 1))
    assert spec.indices_of(np.array([], dtype="datetime64[D]")).tolist() == []


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"unit": "weeks", "length": 1, "anchor": D(2024, 1, 1)}, "unit must be"),
        ({"unit": "days", "length": 0, "anchor": D(2024, 1, 1)}, "length must be"),
        ({"unit": "days", "length": 1.5, "anchor": D(2024, 1, 1)}, "length must be"),
        ({"unit": "days", "length": 1, "anchor": "2024-01-01"}, "anchor must be a date"),
        ({"unit": "days", "length": 1, "anchor": dt.datetime(2024, 1, 1)}, "anchor must be a date"),
    ],
)
def test_invalid_specs_are_refused(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(InvalidParameterError, match=message):
        PeriodSpec(**kwargs)  # type: ignore[arg-type]


def test_negative_index_and_datetimes_are_refused() -> None:
    spec = PeriodSpec("days", 7, D(2024, 1, 1))
    with pytest.raises(InvalidParameterError, match="period index"):
        spec.bounds(-1)
    with pytest.raises(InvalidParameterError, match="takes a date"):
        spec.index_of(dt.datetime(2024, 1, 2, 12))


@pytest.mark.parametrize(
    ("spec", "day", "fraction"),
    [
        (PeriodSpec("days", 7, D(2024, 1, 1)), D(2024, 1, 1), 1 / 7),
        (PeriodSpec("days", 7, D(2024, 1, 1)), D(2024, 1, 7), 1.0),
        (PeriodSpec("days", 7, D(2024, 1, 1)), D(2024, 1, 10), 3 / 7),
        (PeriodSpec("days", 1, D(2024, 1, 1)), D(2030, 6, 15), 1.0),
        # Anchored on the 31st: period 0 is 31 Jan - 28 Feb 2024 (29 days), period 1 starts
        # on 29 Feb (the clamped 31st) and ends on 30 Mar (31 days).
        (PeriodSpec("months", 1, D(2024, 1, 31)), D(2024, 2, 28), 1.0),
        (PeriodSpec("months", 1, D(2024, 1, 31)), D(2024, 1, 31), 1 / 29),
        (PeriodSpec("months", 1, D(2024, 1, 31)), D(2024, 2, 29), 1 / 31),
        (PeriodSpec("months", 3, D(2024, 1, 1)), D(2024, 3, 31), 1.0),
    ],
)
def test_end_of_day_fraction_is_the_share_of_the_period_gone_by_at_the_days_end(
    spec: PeriodSpec, day: dt.date, fraction: float
) -> None:
    days = np.array([day], dtype="datetime64[D]")
    assert spec.end_of_day_fractions(days)[0] == pytest.approx(fraction, abs=1e-15)
