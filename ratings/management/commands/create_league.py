"""``manage.py create_league SLUG --name NAME [options]``: a league, first configuration.

The rating options (``--period-days N | --period-months N``, ``--period-anchor``, ``--tau``,
``--initial-rating``, ``--initial-rd``, ``--initial-volatility``, ``--max-rd``,
``--volatility-ceiling``, ``--rating-floor``) come from ``ratings.management.options``,
shared with ``set_config``. ``--results-only`` makes the workspace's entry pages ask for a
result alone (1-0, ½-½, 0-1) instead of the score.
"""

from __future__ import annotations

from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser

from league.management.cli import iso_date, validation_message
from league.management.data_command import DataCommand
from league.models import MAX_SIDE_PLAYERS, MatchFormat
from league.sides import format_label
from ratings.management.options import add_config_arguments, config_params
from ratings.new_league import create_league


class Command(DataCommand):
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
            "--results-only",
            action="store_true",
            help="organisers type results alone (1-0, ½-½, 0-1), for sports without scores; "
            "by default they type the score (3-1) and the result follows from it",
        )
        parser.add_argument(
            "--organiser",
            action="append",
            default=[],
            metavar="USERNAME",
            help="an existing user who may manage the league (repeatable)",
        )
        parser.add_argument(
            "--format",
            default="singles",
            metavar="singles|doubles|teams-of-N|any",
            help="which matches the league accepts: singles only (default), sides of a fixed "
            "size (doubles = teams-of-2; teams-of-1 is one player per side in games of two or "
            "more sides), or any sides",
        )
        add_config_arguments(parser)

    def handle(self, *args: Any, **options: Any) -> None:
        if not " ".join(options["name"].split()):
            raise CommandError("--name must not be empty.")
        users = get_user_model().objects.filter(username__in=options["organiser"])
        missing = sorted(set(options["organiser"]) - {user.get_username() for user in users})
        if missing:
            raise CommandError(f"No such user(s): {', '.join(missing)}.")
        match_format, side_size = _match_format(options["format"])
        try:
            # The one path of every new league (the workspace's and the admin's too).
            league, config = create_league(
                name=options["name"],
                slug=options["slug"],
                sport=options["sport"],
                description=options["description"],
                time_zone=options["time_zone"],
                start_date=options["start_date"],
                records_points=not options["results_only"],
                match_format=match_format,
                side_size=side_size,
                organisers=users,
                **config_params(options),
            )
        except ValidationError as error:
            raise CommandError(f"League not created:\n{validation_message(error)}") from None
        unit = "month" if config.period_unit == "months" else "day"
        self.stdout.write(f"Matches: {format_label(league)}.")
        self.stdout.write(
            f"Created league {league.name!r} ({league.slug}), results from "
            f"{league.start_date.isoformat()} in {league.time_zone}, with configuration "
            f"version {config.version}: periods of {config.period_length} {unit}(s) from "
            f"{config.period_anchor.isoformat()}, tau={config.tau!r}, "
            f"initial rating {config.initial_rating!r}, RD {config.initial_rd!r}, "
            f"volatility {config.initial_volatility!r}, max RD {config.max_rd!r}, "
            f"{config.update_mode} updates."
        )


def _match_format(text: str) -> tuple[str, int]:
    """(``League.match_format``, ``side_size``) from ``--format``."""
    value = text.strip().lower()
    if value in ("singles", "any"):
        return value, 2
    if value == "doubles":
        return MatchFormat.FIXED, 2
    prefix = "teams-of-"
    if value.startswith(prefix) and value[len(prefix) :].isdigit():
        size = int(value[len(prefix) :])
        if 1 <= size <= MAX_SIDE_PLAYERS:
            return MatchFormat.FIXED, size
    raise CommandError(
        f"Unknown --format {text!r}: use singles, doubles, teams-of-N (N from 1 to "
        f"{MAX_SIDE_PLAYERS}) or any."
    )
