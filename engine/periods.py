"""Rating periods: fixed calendar windows of N days, or of N calendar months, from an anchor.

Period 0 starts on the anchor date. A period of months starts on the anchor's day of the month,
clamped to the month's last day (anchor Jan 31, one month: Jan 31, Feb 28 or 29, Mar 31, ...);
each start is computed from the anchor, never chained, so a clamp never drifts later periods.
Periods with no games are still periods: indices are consecutive integers.
"""

from __future__ import annotations

import calendar
import datetime as dt
from dataclasses import dataclass
from typing import Literal

import numpy as np
import numpy.typing as npt

from engine.errors import InvalidParameterError, MatchBeforeAnchorError

_UNITS = ("days", "months")


@dataclass(frozen=True)
class PeriodSpec:
    """``length`` days or calendar months per period, the first starting on ``anchor``."""

    unit: Literal["days", "months"]
    length: int
    anchor: dt.date

    def __post_init__(self) -> None:
        if self.unit not in _UNITS:
            raise InvalidParameterError(f"unit must be 'days' or 'months', got {self.unit!r}")
        if isinstance(self.length, bool) or not isinstance(self.length, int) or self.length < 1:
            raise InvalidParameterError(f"length must be a whole number >= 1, got {self.length!r}")
        if isinstance(self.anchor, dt.datetime) or not isinstance(self.anchor, dt.date):
            raise InvalidParameterError(f"anchor must be a date, got {self.anchor!r}")

    def start_of(self, index: int) -> dt.date:
        """The first day of period ``index`` (index >= 0)."""
        if index < 0:
            raise InvalidParameterError(f"period index must be >= 0, got {index!r}")
        if self.unit == "days":
            return self.anchor + dt.timedelta(days=self.length * index)
        months = self.anchor.year * 12 + (self.anchor.month - 1) + self.length * index
        year, month0 = divmod(months, 12)
        last_day = calendar.monthrange(year, month0 + 1)[1]
        return dt.date(year, month0 + 1, min(self.anchor.day, last_day))

    def bounds(self, index: int) -> tuple[dt.date, dt.date]:
        """First and last day (inclusive) of period ``index``."""
        return self.start_of(index), self.start_of(index + 1) - dt.timedelta(days=1)

    def index_of(self, day: dt.date) -> int:
        """The index of the period containing ``day``; raises before the anchor."""
        if isinstance(day, dt.datetime):
            raise InvalidParameterError(
                f"index_of takes a date (convert to the league's time zone first), got {day!r}"
            )
        if day < self.anchor:
            raise MatchBeforeAnchorError(
                f"{day.isoformat()} is before the first period, which starts on "
                f"{self.anchor.isoformat()}"
            )
        if self.unit == "days":
            return (day - self.anchor).days // self.length
        months = (day.year - self.anchor.year) * 12 + (day.month - self.anchor.month)
        index = months // self.length
        if day < self.start_of(index):
            index -= 1
        return index

    def indices_of(self, days: npt.NDArray[np.datetime64]) -> npt.NDArray[np.int64]:
        """Vectorised :meth:`index_of` over an array of ``datetime64[D]`` days."""
        values = np.asarray(days).astype("datetime64[D]")
        anchor = np.datetime64(self.anchor, "D")
        if values.size and values.min() < anchor:
            first = values[values < anchor].min()
            raise MatchBeforeAnchorError(
                f"{np.datetime_as_string(first)} is before the first period, which starts on "
                f"{self.anchor.isoformat()} ({int((values < anchor).sum())} day(s) affected)"
            )
        if self.unit == "days":
            offsets = (values - anchor).astype(np.int64)
            days_index: npt.NDArray[np.int64] = np.floor_divide(offsets, self.length)
            return days_index
        anchor_month = anchor.astype("datetime64[M]")
        months = (values.astype("datetime64[M]") - anchor_month).astype(np.int64)
        index = np.floor_divide(months, self.length).astype(np.int64)
        index -= values < self._starts(index)
        result: npt.NDArray[np.int64] = index
        return result

    def end_of_day_fractions(self, days: npt.NDArray[np.datetime64]) -> npt.NDArray[np.float64]:
        """For each day, the fraction of its period gone by at the end of that day, in (0, 1].

        The moment the instant updates date a match by (``engine.instant``): the last day of a
        period gives 1, so with one-day periods every match is at its period's end.
        """
        values = np.asarray(days).astype("datetime64[D]")
        index = self.indices_of(values)
        if self.unit == "days":
            start = np.datetime64(self.anchor, "D") + (index * self.length).astype("timedelta64[D]")
            length = np.full(index.shape, float(self.length))
        else:
            start = self._starts(index)
            length = (self._starts(index + 1) - start).astype(np.float64)
        gone = (values - start).astype(np.int64) + 1
        fractions: npt.NDArray[np.float64] = gone / length
        return fractions

    def _starts(self, index: npt.NDArray[np.int64]) -> npt.NDArray[np.datetime64]:
        """Vectorised :meth:`start_of` for periods of months (clamped anchor day)."""
        month = np.datetime64(self.anchor, "M") + (index * self.length).astype("timedelta64[M]")
        first_day = month.astype("datetime64[D]")
        next_month = (month + np.timedelta64(1, "M")).astype("datetime64[D]")
        month_days = (next_month - first_day).astype(np.int64)
        day_offset = (np.minimum(self.anchor.day, month_days) - 1).astype("timedelta64[D]")
        starts: npt.NDArray[np.datetime64] = first_day + day_offset
        return starts
