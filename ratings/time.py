"""From a stored configuration and the clock to the engine's periods and parameters.

The engine knows nothing about time zones or models: this module turns a ``RatingConfig`` into
a ``PeriodSpec`` and ``Glicko2Params``, and moments into the local dates (in the league's time
zone) that decide which rating period a match belongs to.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt
from django.utils import timezone

from ratings.engine.params import Glicko2Params
from ratings.engine.periods import PeriodSpec


def period_spec(config) -> PeriodSpec:
    """The rating periods of ``config``: ``period_length`` days or months from its anchor."""
    return PeriodSpec(
        unit=config.period_unit, length=int(config.period_length), anchor=config.period_anchor
    )


def engine_params(config) -> Glicko2Params:
    """The engine parameters of ``config`` (validated by ``Glicko2Params`` itself)."""
    return Glicko2Params(
        tau=config.tau,
        initial_rating=config.initial_rating,
        initial_rd=config.initial_rd,
        initial_volatility=config.initial_volatility,
        max_rd=config.max_rd,
        volatility_ceiling=config.volatility_ceiling,
        rating_floor=config.rating_floor,
    )


def league_zone(league) -> ZoneInfo:
    """The league's time zone."""
    return ZoneInfo(league.time_zone)


def local_day(played_at: dt.datetime, tz: ZoneInfo | str) -> dt.date:
    """The date ``played_at`` falls on in time zone ``tz``."""
    zone = ZoneInfo(tz) if isinstance(tz, str) else tz
    return played_at.astimezone(zone).date()


def local_days_from_utc(
    moments_us: npt.NDArray[np.int64], tz: ZoneInfo | str
) -> npt.NDArray[np.datetime64]:
    """Local ``datetime64[D]`` dates of UTC moments given as microseconds since 1970.

    Each distinct moment is converted once (many matches share one: a date entered alone is
    noon local time), with the time zone's real rules, so summer time is honoured.
    """
    zone = ZoneInfo(tz) if isinstance(tz, str) else tz
    if moments_us.size == 0:
        return np.empty(0, dtype="datetime64[D]")
    distinct, inverse = np.unique(moments_us, return_inverse=True)
    epoch = dt.datetime(1970, 1, 1, tzinfo=dt.UTC)
    days = np.array(
        [
            (epoch + dt.timedelta(microseconds=int(us))).astimezone(zone).date()
            for us in distinct.tolist()
        ],
        dtype="datetime64[D]",
    )
    return days[inverse.reshape(-1)]


def local_midnight(day: dt.date, tz: ZoneInfo | str) -> dt.datetime:
    """The first moment of ``day`` in ``tz`` (an aware datetime)."""
    zone = ZoneInfo(tz) if isinstance(tz, str) else tz
    return dt.datetime.combine(day, dt.time.min, tzinfo=zone)


def _match_day(league, order_by: str) -> dt.date | None:
    from league.models import Event

    moment = (
        Event.objects.live_matches()
        .filter(league=league)
        .order_by(order_by)
        .values_list("played_at", flat=True)
        .first()
    )
    return None if moment is None else local_day(moment, league_zone(league))


def first_match_day(league) -> dt.date | None:
    """The local date of the league's earliest live match, or None without matches."""
    return _match_day(league, "played_at")


def latest_match_day(league) -> dt.date | None:
    """The local date of the league's latest live match, or None without matches."""
    return _match_day(league, "-played_at")


def current_period(
    config, now: dt.datetime | None = None, *, latest_day: dt.date | None = None
) -> int:
    """The period containing the local date of ``now`` in the league's time zone.

    Never below the period of the league's latest match (a clock behind the data must not
    hide results) and never below 0 (before the anchor, the first period is current).
    ``latest_day`` saves the query when the caller already knows the latest match's date.
    """
    spec = period_spec(config)
    league = config.league
    today = local_day(now or timezone.now(), league_zone(league))
    period = spec.index_of(today) if today >= spec.anchor else 0
    if latest_day is None:
        latest_day = latest_match_day(league)
    if latest_day is not None and latest_day >= spec.anchor:
        period = max(period, spec.index_of(latest_day))
    return period
