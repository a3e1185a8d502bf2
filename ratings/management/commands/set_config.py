"""``manage.py set_config SLUG [rating options]``: a new configuration version and its replay.

The options are those of ``create_league`` (``--period-days N | --period-months N``,
``--period-anchor``, ``--tau``, ``--initial-rating``, ``--initial-rd``,
``--initial-volatility``, ``--max-rd``, ``--volatility-ceiling``, ``--rating-floor``);
parameters not given are kept from the latest version.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser

from league.management.cli import validation_message
from league.management.data_command import DataCommand, league_by_slug
from ratings.management.options import add_config_arguments, config_params
from ratings.models import Replay
from ratings.services import create_config


class Command(DataCommand):
    help = "Create a new rating configuration version of a league and start its full replay."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the league's slug")
        add_config_arguments(parser)
        parser.add_argument("--note", default="", help="why the configuration changed")

    def handle(self, *args: Any, **options: Any) -> None:
        league = league_by_slug(options["slug"])
        params = config_params(options)
        if not params:
            raise CommandError(
                "Give at least one parameter to change (see --help); nothing was created."
            )
        try:
            config = create_config(league, note=options["note"], start_rules=True, **params)
        except ValidationError as error:
            raise CommandError(f"Configuration not created:\n{validation_message(error)}") from None
        replay = Replay.objects.filter(config=config).order_by("-pk").first()
        self.stdout.write(
            f"Created configuration version {config.version} of {league.name}; its full "
            f"replay #{replay.pk if replay else '?'} is queued. The current standings stay "
            f"live until it completes. Follow it with: python manage.py replay {league.slug} "
            "--watch (or run it here with --sync)."
        )
