"""A result's date in words, and the warnings an organiser confirms before saving it.

The success message of every entry page echoes the date a result was recorded under ("played
Sun 1 Feb 2026, 10 months ago: history from February 2026 is being recomputed"), so a slip of
the date is seen at once. A date far in the past asks for a confirmation first: each check in
:data:`DATE_CHECKS` may object to a day, and the entry pages show every objection and save
only once the organiser confirms: a day far in the past, and a day in a closed season.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable

from django.core.exceptions import ValidationError
from django.utils import formats, timezone
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from engine.periods import PeriodSpec
from league.calendar import league_zone
from league.models import League
from league.seasons import season_containing
from league.validation import Errors, check_played_at, parse_played_at
from ratings.selectors.configurations import live_config
from ratings.services import latest_config
from ratings.time import period_spec
from web import locale_format

#: A result dated more than this many days before today is confirmed before it is saved.
FAR_PAST_DAYS = 28
YEAR_DAYS = 365.2425
MONTH_DAYS = YEAR_DAYS / 12


def league_today(league: League) -> dt.date:
    """Today in the league's time zone."""
    return timezone.localdate(timezone=league_zone(league))


def day_words(day: dt.date) -> str:
    """``Sun 1 Feb 2026``: the weekday spelled out so that a wrong date stands out (in the
    active language: ``So. 1. Februar 2026``)."""
    return _("%(weekday)s %(day)s") % {
        "weekday": formats.date_format(day, "D"),
        "day": locale_format.day(day),
    }


def how_long_ago(day: dt.date, today: dt.date) -> str:
    """``today``, ``yesterday``, ``5 days ago``, ``3 weeks ago``, ``10 months ago``…"""
    days = (today - day).days
    if days <= 0:
        return _("today") if days == 0 else _("in the future")
    if days == 1:
        return _("yesterday")
    if days < 14:
        return ngettext("%(count)d day ago", "%(count)d days ago", days) % {"count": days}
    if days < 61:
        weeks = round(days / 7)
        return ngettext("%(count)d week ago", "%(count)d weeks ago", weeks) % {"count": weeks}
    # Rounded to the nearest month or year: 1 Feb seen on 23 Nov is "10 months ago".
    months = round(days / MONTH_DAYS)
    if months < 24:
        return ngettext("%(count)d month ago", "%(count)d months ago", months) % {"count": months}
    years = round(days / YEAR_DAYS)
    return ngettext("%(count)d year ago", "%(count)d years ago", years) % {"count": years}


def played_words(day: dt.date, today: dt.date) -> str:
    """``played Sun 1 Feb 2026, 10 months ago`` (``played today, Mon 23 Nov 2026``)."""
    ago = how_long_ago(day, today)
    if (today - day).days in (0, 1):
        return _("played %(ago)s, %(day)s") % {"ago": ago, "day": day_words(day)}
    return _("played %(day)s, %(ago)s") % {"day": day_words(day), "ago": ago}


def period_words(spec: PeriodSpec, day: dt.date) -> str:
    """The rating period holding ``day``, named as an organiser would: ``February 2026``,
    ``the week of Mon 2 Feb 2026``, or ``the period from …``."""
    start = spec.start_of(spec.index_of(day)) if day >= spec.anchor else spec.anchor
    if spec.unit == "months" and spec.length == 1 and start.day == 1:
        return formats.date_format(start, "YEAR_MONTH_FORMAT")
    if spec.unit == "days" and spec.length == 7:
        return _("the week of %(day)s") % {"day": day_words(start)}
    if spec.unit == "days" and spec.length == 1:
        return day_words(start)
    return _("the period from %(day)s") % {"day": day_words(start)}


def recompute_words(league: League, day: dt.date) -> str:
    """What a result played on ``day`` sets off: which history is recomputed."""
    period = _recomputed_period(league, day)
    if period is None:
        return _("standings are computed once a rating configuration is saved")
    return _("history from %(period)s is being recomputed") % {"period": period}


def _recomputed_period(league: League, day: dt.date) -> str | None:
    """The rating period from which a result played on ``day`` recomputes the history (None
    while the league has no rating configuration)."""
    config = live_config(league) or latest_config(league)
    return None if config is None else period_words(period_spec(config), day)


def echo(league: League, day: dt.date) -> str:
    """``played Sun 1 Feb 2026, 10 months ago: history from February 2026 is being
    recomputed``."""
    return _("%(played)s: %(recomputed)s") % {
        "played": played_words(day, league_today(league)),
        "recomputed": recompute_words(league, day),
    }


def far_past(league: League, day: dt.date) -> str | None:
    """An objection to a day more than :data:`FAR_PAST_DAYS` days before today."""
    today = league_today(league)
    if (today - day).days <= FAR_PAST_DAYS:
        return None
    words = {"day": day_words(day), "ago": how_long_ago(day, today)}
    period = _recomputed_period(league, day)
    if period is None:
        return _("%(day)s is %(ago)s.") % words
    return _("%(day)s is %(ago)s: saving it recomputes history from %(period)s.") % {
        **words,
        "period": period,
    }


def closed_season(league: League, day: dt.date) -> str | None:
    """An objection to a day in a closed season: its archived table will not show the result."""
    season = season_containing(league, day)
    if season is None or not season.closed:
        return None
    return _(
        "%(day)s is in %(season)s, which is closed: its archived table will not include this "
        "result unless an organiser re-derives it."
    ) % {"day": day_words(day), "season": season.name}


#: Each check returns a sentence when ``day`` needs the organiser's confirmation, else None.
DATE_CHECKS: tuple[Callable[[League, dt.date], str | None], ...] = (far_past, closed_season)


def day_refusals(league: League, day: dt.date) -> list[str]:
    """Why the write services would refuse a result played on ``day`` (before the league's
    start, in the future, off the calendar), in their own words; empty when they would
    accept it. Checked before :func:`date_warnings`, so that no one is asked to confirm a day
    that is then refused anyway."""
    found = Errors()
    when = parse_played_at(league, day, found)
    if when is not None:
        check_played_at(league, when[0], when[1], found, "played_at")
    if not found:
        return []
    return ValidationError(found.by_field).message_dict["played_at"]


def date_warnings(league: League, days: set[dt.date]) -> list[str]:
    """Every objection of :data:`DATE_CHECKS` to any of ``days`` (earliest day first)."""
    warnings: list[str] = []
    for day in sorted(days):
        for check in DATE_CHECKS:
            warning = check(league, day)
            if warning and warning not in warnings:
                warnings.append(warning)
    return warnings
