"""``manage.py create_league SLUG --name NAME [options]``: a league, first configuration.

The rating options (``--period-days N | --period-months N``, ``--period-anchor``, ``--tau``,
``--initial-rating``, ``--initial-rd``, ``--initial-volatility``, ``--max-rd``) are defined
here once and shared with ``set_config``.
"""

from __future__ import annotations

import argparse
import datetime as dt
import zoneinfo
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.core.validators import validate_slug
from django.db import transaction
from django.utils import timezone
from django.utils.module_loading import import_string

from league.models import League

# league/ never imports ratings/: the read side's service is named by path.
CREATE_CONFIG = "ratings.services.create_config"

FLOAT_OPTIONS = {
    "tau": "--tau",
    "initial_rating": "--initial-rating",
    "initial_rd": "--initial-rd",
    "initial_volatility": "--initial-volatility",
    "max_rd": "--max-rd",
}


def iso_date(text: str) -> dt.date:
    """An argparse type: a YYYY-MM-DD date."""
    try:
        return dt.date.fromisoformat(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a date (YYYY-MM-DD)") from None


def positive_int(text: str) -> int:
    """An argparse type: a whole number of at least 1."""
    try:
        value = int(text)
    except ValueError:
        value = 0
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number of at least 1")
    return value


def add_config_arguments(parser: CommandParser) -> None:
    """The rating parameter options of ``create_league`` and ``set_config``."""
    period = parser.add_mutually_exclusive_group()
    period.add_argument("--period-days", type=positive_int, metavar="N", help="N-day periods")
    period.add_argument(
        "--period-months", type=positive_int, metavar="N", help="N calendar-month periods"
    )
    parser.add_argument(
        "--period-anchor", type=iso_date, metavar="YYYY-MM-DD", help="first day of period 0"
    )
    for name, flag in FLOAT_OPTIONS.items():
        parser.add_argument(flag, type=float, dest=name, metavar=name.split("_")[-1].upper())


def config_params(options: dict[str, Any]) -> dict[str, Any]:
    """The rating parameters given on the command line (absent ones are left out)."""
    params: dict[str, Any] = {}
    if options.get("period_days"):
        params.update(period_unit="days", period_length=options["period_days"])
    if options.get("period_months"):
        params.update(period_unit="months", period_length=options["period_months"])
    if options.get("period_anchor"):
        params["period_anchor"] = options["period_anchor"]
    for name in FLOAT_OPTIONS:
        if options.get(name) is not None:
            params[name] = options[name]
    return params


def validation_message(error: ValidationError) -> str:
    """A ``ValidationError`` as lines "field: message" for a command's output."""
    if hasattr(error, "error_dict"):
        return "\n".join(
            f"{field}: {message}" if field != "__all__" else message
            for field, messages in error.message_dict.items()
            for message in messages
        )
    return "\n".join(error.messages)


class Command(BaseCommand):
    help = "Create a league with its first rating configuration version."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="URL name of the league, e.g. riverside-chess")
        parser.add_argument("--name", required=True, help="display name")
        parser.add_argument(
            "--start-date",
            type=iso_date,
            metavar="YYYY-MM-DD",
            help="no result may be dated before it (default: the period anchor, else today)",
        )
        parser.add_argument("--time-zone", default="UTC", help="IANA time zone (default UTC)")
        parser.add_argument("--sport", default="")
        parser.add_argument("--description", default="")
        parser.add_argument(
            "--organiser",
            action="append",
            default=[],
            metavar="USERNAME",
            help="an existing user who may manage the league (repeatable)",
        )
        add_config_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        slug, name = options["slug"], " ".join(options["name"].split())
        try:
            validate_slug(slug)
        except ValidationError:
            raise CommandError(
                f"{slug!r} is not a valid slug: use letters, digits, hyphens and underscores."
            ) from None
        if League.objects.filter(slug=slug).exists():
            raise CommandError(f"A league with the slug {slug!r} already exists.")
        if not name:
            raise CommandError("--name must not be empty.")
        try:
            zone = zoneinfo.ZoneInfo(options["time_zone"])
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            raise CommandError(f"Unknown time zone {options['time_zone']!r}.") from None
        users = get_user_model().objects.filter(username__in=options["organiser"])
        missing = sorted(set(options["organiser"]) - {user.get_username() for user in users})
        if missing:
            raise CommandError(f"No such user(s): {', '.join(missing)}.")

        params = config_params(options)
        if params.get("period_unit") == "months" and "period_anchor" not in params:
            # Calendar months start on the 1st unless told otherwise.
            start = options["start_date"] or timezone.now().astimezone(zone).date()
            params["period_anchor"] = start.replace(day=1)
        start_date = (
            options["start_date"]
            or params.get("period_anchor")
            or timezone.now().astimezone(zone).date()
        )
        league = League(
            name=name,
            slug=slug,
            sport=options["sport"],
            description=options["description"],
            time_zone=options["time_zone"],
            start_date=start_date,
        )
        try:
            league.full_clean()
            with transaction.atomic():
                league.save()
                league.organisers.set(users)
                # Organisers sign in and work through the admin, which admits staff only;
                # the admin itself limits a non-superuser to the leagues they organise.
                users.filter(is_staff=False).update(is_staff=True)
                config = import_string(CREATE_CONFIG)(league, **params)
        except ValidationError as error:
            raise CommandError(f"League not created:\n{validation_message(error)}") from None
        unit = "month" if config.period_unit == "months" else "day"
        self.stdout.write(
            f"Created league {league.name!r} ({league.slug}), results from "
            f"{league.start_date.isoformat()} in {league.time_zone}, with configuration "
            f"version {config.version}: periods of {config.period_length} {unit}(s) from "
            f"{config.period_anchor.isoformat()}, tau={config.tau!r}, "
            f"initial rating {config.initial_rating!r}, RD {config.initial_rd!r}, "
            f"volatility {config.initial_volatility!r}, max RD {config.max_rd!r}."
        )
