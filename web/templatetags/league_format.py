"""Template filters for the pages: signed changes with their colour, ranges of percents and
rating periods, points (the selectors return numbers; ``web.formatting`` writes them)."""

from __future__ import annotations

from decimal import Decimal
from typing import Any

from django import template
from django.utils.html import format_html

from league.seasons import points_text
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
