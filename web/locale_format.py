"""Numbers, dates and times as the active language writes them: the one place the pages'
ratings, intervals, percentages, days and times become text.

The separators and date and time formats are Django's for the active locale
(``django.utils.formats``): a decimal comma in German, French and Spanish, day-first dates
everywhere, the 24-hour clock where the locale uses it. The numbers are rounded with Python's
own formatting and the separator swapped in afterwards: ``number_format`` costs more than the
rest of a 50-row table, and the leaderboard formats thousands of cells.

Machine-readable outputs (CSV exports, the API, ``datetime`` attributes, chart data) do not
use this module: they keep dot decimals and ISO dates whatever the language.
"""

from __future__ import annotations

import datetime as dt
from typing import TYPE_CHECKING, Any

from django.utils import formats
from django.utils.translation import gettext

if TYPE_CHECKING:
    from engine.intervals import ConfidenceLevel

DASH = "\u2013"
MINUS = "-"
#: Between a number and its "%", as the site has always written it ("95 %").
PERCENT_SPACE = " "


def decimal_separator() -> str:
    """The active language's decimal separator ("." in English, "," in German …)."""
    return str(formats.get_format("DECIMAL_SEPARATOR"))


def number(value: float, places: int = 0) -> str:
    """``value`` to ``places`` decimals with the active language's separator: 1523.46 at 1
    place is "1523.5" in English and "1523,5" in German; never "-0"."""
    text = f"{value:.{places}f}"
    if text.startswith("-") and float(text) == 0:
        text = text[1:]
    return text.replace(".", decimal_separator()) if places > 0 else text


def signed_number(value: float, places: int = 0) -> str:
    """A change with its sign: "+12", "-3,5"; a change that rounds to zero is a plain "0"."""
    text = f"{value:+.{places}f}"
    if float(text) == 0:
        return number(0.0, places)
    return text.replace(".", decimal_separator()) if places > 0 else text


def rating(value: float) -> str:
    """A rating as the tables show it: a whole number ("1523")."""
    return number(value, 0)


def interval(low: float, high: float) -> str:
    """An interval of ratings: "1480\\u20131566"."""
    return f"{rating(low)}{DASH}{rating(high)}"


def percent(fraction: float, places: int = 0) -> str:
    """A fraction as a percent: 0.941 at 1 place is "94.1 %" in English, "94,1 %" in German."""
    return f"{number(100 * fraction, places)}{PERCENT_SPACE}%"


def level_label(level: ConfidenceLevel) -> str:
    """An interval's level in percent, to at most two decimals and never 100: "95 %",
    "68,27 %", "> 99,99 %" (the engine gives the number, ``level.percent``)."""
    text = f"{level.percent:.2f}".rstrip("0").rstrip(".")
    prefix = ""
    if text == "100":
        text, prefix = "99.99", "> "
    return f"{prefix}{text.replace('.', decimal_separator())}{PERCENT_SPACE}%"


def interval_heading(level: ConfidenceLevel) -> str:
    """A column's or a card's name for the interval at ``level``: "95 % interval"."""
    return gettext("%(level)s interval") % {"level": level_label(level)}


def day(value: dt.date | None) -> str:
    """A day as the active language writes it: "3 Mar 2024", "3. März 2024", "3 mars
    2024", "3 de marzo de 2024" ("" for none)."""
    return "" if value is None else formats.date_format(value, "DATE_FORMAT")


def time(value: dt.time | dt.datetime) -> str:
    """A time of day by the active language's clock: "14:30" in German, French and Spanish."""
    return formats.time_format(value, "TIME_FORMAT")


def period_label(period: Any) -> str:
    """A rating period as the pages name it: "Period 12 (1 Mar 2024 to 31 Mar 2024)", in the
    active language (anything with ``index``, ``start`` and ``end``, e.g. a selector's
    ``PeriodInfo``, whose own ``label`` stays English for logs and commands)."""
    if period.start == period.end:
        return gettext("Period %(index)s (%(day)s)") % {
            "index": period.index,
            "day": day(period.start),
        }
    return gettext("Period %(index)s (%(start)s to %(end)s)") % {
        "index": period.index,
        "start": day(period.start),
        "end": day(period.end),
    }


def moment(value: dt.datetime) -> str:
    """A day and a time: "3. März 2024, 14:30" (the caller converts to the league's zone)."""
    return gettext("%(day)s, %(time)s") % {"day": day(value.date()), "time": time(value)}


def wdl(wins: int, draws: int, losses: int) -> str:
    """A win, draw and loss record: "12\\u20133\\u20135"."""
    return f"{wins}{DASH}{draws}{DASH}{losses}"
