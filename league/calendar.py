"""A league's calendar: its time zone and the local dates and midnights of moments.

A match belongs to the local date it was played on in the league's time zone; that date
decides its rating period, whether it is in the future, and whether it falls before the
league's start. Every module that turns a moment into a league's date goes through here.
"""

from __future__ import annotations

import datetime as dt
from functools import lru_cache
from typing import Any
from zoneinfo import ZoneInfo

import numpy as np
import numpy.typing as npt
from django.utils import formats, translation
from django.utils.translation import gettext


@lru_cache(maxsize=64)
def zone_named(name: str) -> ZoneInfo:
    """The time zone called ``name`` (``ZoneInfoNotFoundError`` when unknown)."""
    return ZoneInfo(name)


def league_zone(league: Any) -> ZoneInfo:
    """The league's time zone (validated when the league is saved)."""
    return zone_named(league.time_zone)


def _zone(tz: ZoneInfo | str) -> ZoneInfo:
    return zone_named(tz) if isinstance(tz, str) else tz


def local_day(played_at: dt.datetime, tz: ZoneInfo | str) -> dt.date:
    """The date ``played_at`` falls on in time zone ``tz``."""
    return played_at.astimezone(_zone(tz)).date()


def league_day(league: Any, moment: dt.datetime) -> dt.date:
    """The date ``moment`` falls on in the league's time zone."""
    return local_day(moment, league_zone(league))


def local_days_from_utc(
    moments_us: npt.NDArray[np.int64], tz: ZoneInfo | str
) -> npt.NDArray[np.datetime64]:
    """Local ``datetime64[D]`` dates of UTC moments given as microseconds since 1970.

    Each distinct moment is converted once (many matches share one: a date entered alone is
    noon local time), with the time zone's real rules, so summer time is honoured.
    """
    zone = _zone(tz)
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
    return dt.datetime.combine(day, dt.time.min, tzinfo=_zone(tz))


def local_noon(day: dt.date, tz: ZoneInfo | str) -> dt.datetime:
    """Noon of ``day`` in ``tz``: the moment a result entered with a date alone stands for."""
    return dt.datetime.combine(day, dt.time(12), tzinfo=_zone(tz))


def day_text(day: dt.date) -> str:
    """A day as every page, feed and message writes it: "2 Jan 2024"."""
    return f"{day.day} {day:%b %Y}"


def moment_text(moment: dt.datetime) -> str:
    """A moment as every page writes it, in its own time zone: "2 Jan 2024, 18:30"."""
    return f"{day_text(moment.date())}, {moment:%H:%M}"


def _english() -> bool:
    """Whether the active language is English (or none is active: a command, a worker)."""
    language = translation.get_language()
    return not language or language.split("-")[0] == "en"


def page_day_text(day: dt.date) -> str:
    """A day inside a page's translated sentence: :func:`day_text` in English, the active
    language's own date ("2. Januar 2024", "2 janvier 2024") in the others."""
    if _english():
        return day_text(day)
    return formats.date_format(day, "DATE_FORMAT")


def page_moment_text(moment: dt.datetime) -> str:
    """A moment inside a page's translated sentence: :func:`moment_text` in English, the
    active language's date and clock ("5. März 2024, 18:07") in the others."""
    if _english():
        return moment_text(moment)
    return gettext("%(day)s, %(time)s") % {
        "day": formats.date_format(moment.date(), "DATE_FORMAT"),
        "time": formats.time_format(moment, "TIME_FORMAT"),
    }
