"""Template filters for the pages: signed changes with their colour, ranges of percents,
rating periods, and numbers, days and times in the active language (the selectors return
numbers; ``web.formatting`` and ``web.locale_format`` write them), and board or match points."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal
from typing import Any

from django import template
from django.utils.html import format_html
from django.utils.translation import gettext

from league.seasons import points_text
from web import locale_format
from web.formatting import describe_periods, format_percent_range, signed

register = template.Library()


@register.filter
def signed_change(value: float | None, places: int = 1) -> str:
    """``{{ change|signed_change:1 }}`` → ``<span class="up">+1.4</span>``."""
    text, css = signed(value, int(places))
    return format_html('<span class="{}">{}</span>', css, text) if css else text


@register.filter
def percent_range(band: Any) -> str:
    """``{{ band|percent_range }}`` → ``70\u201380 %`` (anything with ``low`` and ``high``)."""
    return format_percent_range(band.low, band.high)


@register.filter
def rating_periods(config: Any) -> str:
    """``{{ config|rating_periods }}`` → ``7 days from 01 Jan 2024`` (a configuration, or
    anything with its ``period_unit``, ``period_length`` and ``period_anchor``)."""
    return describe_periods(config.period_unit, config.period_length, config.period_anchor)


@register.filter
def points(value: Decimal | None) -> str:
    """Board or match points as a reader writes them: 2, ½, 2½ (empty for none)."""
    return "" if value is None else points_text(Decimal(value))


@register.filter
def number(value: float | None, places: int = 0) -> str:
    """``{{ x|number:2 }}`` → ``0,25`` in German (the active language's decimal separator)."""
    return "" if value is None else locale_format.number(float(value), int(places))


@register.filter
def rating(value: float | None) -> str:
    """``{{ summary.rating|rating }}`` → ``1523``."""
    return "" if value is None else locale_format.rating(float(value))


@register.filter
def percent(value: float | None, places: int = 0) -> str:
    """``{{ fraction|percent:1 }}`` → ``94,1 %`` in German."""
    return "" if value is None else locale_format.percent(float(value), int(places))


@register.filter
def day(value: dt.date | None) -> str:
    """``{{ match.played_on|day }}`` → ``3. März 2024`` in German."""
    return locale_format.day(value)


@register.filter(expects_localtime=True)
def moment(value: dt.datetime | None) -> str:
    """``{{ event.recorded_at|moment }}`` → ``5. März 2024, 18:07`` in German, in the
    current time zone (as Django's ``date`` filter converts it)."""
    if value is None:
        return ""
    # Translators: a day and a time of day, e.g. "5 March 2024, 18:07".
    return gettext("%(day)s, %(time)s") % {
        "day": locale_format.day(value.date()),
        "time": locale_format.time(value),
    }


@register.filter
def clock(value: dt.time | dt.datetime | None) -> str:
    """``{{ fixture.starts_at|clock }}`` → ``14:30`` in German."""
    return "" if value is None else locale_format.time(value)


@register.filter
def level_label(level: Any) -> str:
    """``{{ level|level_label }}`` → ``95 %`` (an interval's level, ``ConfidenceLevel``)."""
    return locale_format.level_label(level)


@register.filter
def period_label(period: Any) -> str:
    """``{{ e.period|period_label }}`` → ``Periode 12 (1. März 2024 bis 31. März 2024)``."""
    return "" if period is None else locale_format.period_label(period)
