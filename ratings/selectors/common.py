"""What the read models share: the 95% interval, periods as plain data and the read clock.

``ReadClock`` is the current rating period of one configuration, computed once: a view
builds it once per request and hands it to every selector that grows RDs to "now", so that
one request reads the league's latest match once and every number on the page agrees.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Hashable
from dataclasses import dataclass
from zoneinfo import ZoneInfo

from engine.state import grown_rd
from league.calendar import day_text, local_day
from ratings.models import PlayerPeriod, RatingConfig
from ratings.time import current_period, period_spec

#: Half-width of the 95% interval, in RDs.
Z95 = 1.96


class Interval:
    """The interval of a row's rating: ``rating ± z RD``, from the row's own RD.

    Derived rather than stored, so it always uses the RD the row shows (grown to the
    period shown, where the selector grows it). ``z`` is 1.96 (95 %) unless the row
    carries another level's.
    """

    rating: float
    rd: float
    z: float = Z95

    @property
    def low(self) -> float:
        return self.rating - self.z * self.rd

    @property
    def high(self) -> float:
        return self.rating + self.z * self.rd


@dataclass(frozen=True)
class PeriodInfo:
    """One rating period of a configuration."""

    index: int
    start: dt.date
    end: dt.date

    @property
    def label(self) -> str:
        if self.start == self.end:
            return f"Period {self.index} ({day_text(self.start)})"
        return f"Period {self.index} ({day_text(self.start)} to {day_text(self.end)})"


def period_info(config: RatingConfig, index: int) -> PeriodInfo:
    """Period ``index`` of ``config`` with its first and last day."""
    start, end = period_spec(config).bounds(index)
    return PeriodInfo(index, start, end)


@dataclass(frozen=True)
class ReadClock:
    """The current (in progress) period of one configuration, computed once per request.

    The current period depends on today's date and on the league's latest match (a query);
    a view builds one clock for the configuration it reads and passes it to the selectors,
    which never look the time up themselves when given one.
    """

    config_id: int
    period: int

    @classmethod
    def of(cls, config: RatingConfig) -> ReadClock:
        """The clock of ``config`` now (never before period 0)."""
        return cls(config.pk, max(current_period(config), 0))

    @staticmethod
    def period_for(config: RatingConfig, clock: ReadClock | None) -> int:
        """``clock``'s period for ``config``, or the current one read now without a clock.

        A clock built for another configuration is a programming error, refused rather
        than silently used: its period may belong to other period lengths.
        """
        if clock is None:
            return ReadClock.of(config).period
        if clock.config_id != config.pk:
            raise ValueError(
                f"A read clock of configuration {clock.config_id} was given for {config.pk}."
            )
        return clock.period


def rd_now(config: RatingConfig, rd: float, volatility: float, last: int, period: int) -> float:
    """The RD of a player last rated in period ``last``, grown to ``period`` (capped)."""
    return grown_rd(rd, volatility, max(period - last, 0), config.max_rd)


def local_date(moment: dt.datetime | None, tz: ZoneInfo) -> dt.date | None:
    """The local date of ``moment`` in ``tz`` (None stays None: a player who never played)."""
    return None if moment is None else local_day(moment, tz)


def period_changes[K: Hashable](
    config: RatingConfig | None, player_id: int, days: dict[K, dt.date]
) -> tuple[dict[K, int | None], dict[int, float]]:
    """The rating period of each of a player's match ``days`` (by key; None before the
    configuration's anchor or without one) and the player's rating change in each of those
    periods: every list of a player's matches, whatever their sides, shows them so."""
    spec = period_spec(config) if config else None
    periods = {
        key: spec.index_of(day) if spec and day >= spec.anchor else None
        for key, day in days.items()
    }
    changes: dict[int, float] = {}
    if config is not None:
        changes = {
            index: after - before
            for index, after, before in PlayerPeriod.objects.filter(
                config=config, player_id=player_id, period_index__in=set(periods.values()) - {None}
            ).values_list("period_index", "rating", "rating_before")
        }
    return periods, changes
