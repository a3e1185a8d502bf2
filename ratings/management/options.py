"""The rating parameter options of ``create_league`` and ``set_config``, from the table.

Every number of ``ratings.parameters`` gets an option named after it (``--tau``,
``--initial-rd``, ...) with the table's help; the period is ``--period-days N`` or
``--period-months N`` and ``--period-anchor``; the update mode ``--update-mode``. The
options only parse: the bounds are checked by ``ratings.services.create_config``, with the
same messages as everywhere else.
"""

from __future__ import annotations

import argparse
from typing import Any

from django.core.management.base import CommandParser

from league.management.cli import iso_date
from ratings.parameters import BY_NAME, NUMBERS, UPDATE_MODES

#: The numbers given by their own option (the period length comes with its unit).
NUMBER_OPTIONS = tuple(parameter for parameter in NUMBERS if parameter.name != "period_length")


#: What an optional parameter's option takes to be switched off (``--margin-scale none``).
OFF_WORDS = ("none", "off")


class _Off:
    """An optional parameter switched off on the command line."""


OFF = _Off()


def optional_number(text: str) -> float | _Off:
    """An argparse type: a number, or ``none``/``off`` for an optional parameter."""
    if text.strip().lower() in OFF_WORDS:
        return OFF
    try:
        return float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number (or 'none')") from None


def whole_number(text: str) -> int:
    """An argparse type: a whole number (its bounds are the table's, checked later)."""
    try:
        return int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None


def add_config_arguments(parser: CommandParser) -> None:
    """Add the rating parameter options to ``parser``."""
    length = BY_NAME["period_length"]
    period = parser.add_mutually_exclusive_group()
    period.add_argument(
        "--period-days", type=whole_number, metavar="N", help=f"N-day periods. {length.help_text}"
    )
    period.add_argument(
        "--period-months", type=whole_number, metavar="N", help="N calendar-month periods"
    )
    parser.add_argument(
        "--period-anchor",
        type=iso_date,
        metavar="YYYY-MM-DD",
        help=BY_NAME["period_anchor"].help,
    )
    mode = BY_NAME["update_mode"]
    parser.add_argument(
        "--update-mode",
        choices=UPDATE_MODES,
        dest="update_mode",
        help=f"{mode.label}. {mode.help} A first version has {mode.default}.",
    )
    for parameter in NUMBER_OPTIONS:
        default = "" if parameter.default is None else f" A first version has {parameter.default}."
        if parameter.optional:
            default += " 'none' switches it off."
        parser.add_argument(
            parameter.flag,
            type=optional_number if parameter.optional else float,
            dest=parameter.name,
            metavar=parameter.name.split("_")[-1].upper(),
            help=f"{parameter.label}. {parameter.help_text}{default}",
        )


def config_params(options: dict[str, Any]) -> dict[str, Any]:
    """The rating parameters given on the command line (absent ones are left out)."""
    params: dict[str, Any] = {}
    if options.get("period_days") is not None:
        params.update(period_unit="days", period_length=options["period_days"])
    if options.get("period_months") is not None:
        params.update(period_unit="months", period_length=options["period_months"])
    if options.get("period_anchor"):
        params["period_anchor"] = options["period_anchor"]
    if options.get("update_mode"):
        params["update_mode"] = options["update_mode"]
    for parameter in NUMBER_OPTIONS:
        value = options.get(parameter.name)
        if value is not None:
            params[parameter.name] = None if value is OFF else value
    return params
