"""From a stored configuration and the clock to the engine's periods and parameters.

The engine knows nothing about time zones or models: this module turns a ``RatingConfig`` into
a ``PeriodSpec`` and ``Glicko2Params``, and moments into the local dates (in the league's time
zone) that decide which rating period a match belongs to.
"""

from __future__ import annotations

import datetime as dt
from zoneinfo import ZoneInfo

from django.utils import timezone

from engine.params import Glicko2Params
from engine.periods import PeriodSpec
from league.calendar import league_zone, local_day
from league.models import Event


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
        advantage=config.advantage,
        margin_scale=config.margin_scale,
    )


def _match_day(league, order_by: str) -> dt.date | None:
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
    league = config.league
    if latest_day is None:
        latest_day = latest_match_day(league)
    return period_containing_today(period_spec(config), league_zone(league), latest_day, now)


def period_containing_today(
    spec: PeriodSpec, zone: ZoneInfo, latest_day: dt.date | None, now: dt.datetime | None = None
) -> int:
    """:func:`current_period` from the periods, the time zone and the latest match's date."""
    today = local_day(now or timezone.now(), zone)
    period = spec.index_of(today) if today >= spec.anchor else 0
    if latest_day is not None and latest_day >= spec.anchor:
        period = max(period, spec.index_of(latest_day))
    return period
