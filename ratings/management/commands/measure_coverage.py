"""``manage.py measure_coverage SLUG [--config-version N] [--games N] [--leagues N]``: how often the
configuration's intervals cover true skills in simulated leagues like this one.

See ``ratings.coverage``: the league's match shape, games per player per period, period
length and skill spread, rated with the configuration (the live one unless ``--config-version``);
prints the coverage of the 68, 90, 95, 99 and 99.9 % intervals with their Monte Carlo
errors. Nothing is stored. A few seconds (up to about ten at 30 games a period).
"""

from __future__ import annotations

from argparse import ArgumentTypeError
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from django.core.management.base import CommandError, CommandParser

from engine.intervals import ConfidenceLevel
from league.management.data_command import DataCommand, league_by_slug
from ratings.coverage import LEAGUES, MAX_GAMES, league_shape, measure_coverage
from ratings.models import RatingConfig
from ratings.selectors.configurations import live_config
from ratings.selectors.standings import DEFAULT_LEVEL

#: The levels printed (the leaderboard's level picker offers these).
LEVELS = (68.0, 90.0, 95.0, 99.0, 99.9)


def _bounded(low: int, high: int) -> Callable[[str], int]:
    """An argument type: a whole number from ``low`` to ``high`` (argparse names the option)."""

    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise ArgumentTypeError(f"a whole number is needed, got {text!r}") from None
        if not low <= value <= high:
            raise ArgumentTypeError(f"must be between {low} and {high}, got {value}")
        return value

    return parse


class Command(DataCommand):
    help = "Measure a configuration's interval coverage on simulated leagues like the league."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the league's slug")
        parser.add_argument(
            "--config-version",
            type=_bounded(1, 10**6),
            help="the configuration version (default: the live one)",
        )
        parser.add_argument(
            "--games",
            type=_bounded(1, MAX_GAMES),
            help="games per player per period (default: the league's own, its recent median)",
        )
        parser.add_argument(
            "--leagues",
            type=_bounded(2, 50),
            default=LEAGUES,
            help=f"simulated leagues (default {LEAGUES})",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        league = league_by_slug(options["slug"])
        if options["config_version"] is None:
            config = live_config(league)
            if config is None:
                raise CommandError(f"{league.name} has no published configuration yet.")
        else:
            version = options["config_version"]
            config = RatingConfig.objects.filter(league=league, version=version).first()
            if config is None:
                raise CommandError(f"{league.name} has no configuration version {version}.")
        shape = league_shape(league, config)
        if options["games"] is not None:
            shape = replace(shape, games=options["games"])
        measure = measure_coverage(config, shape, leagues=options["leagues"])
        games = f"{shape.games} game{'s' if shape.games != 1 else ''}"
        spread = "its settled players' ratings" if shape.spread_from_league else "the initial RD"
        self.stdout.write(
            f"{league.name}, configuration v{config.version} ({config.update_mode} updates): "
            f"{measure.leagues} simulated leagues of {measure.players} players over "
            f"{measure.periods} periods of {round(shape.period_days, 1):g} days, "
            f"{shape.sides} sides of {shape.size}, {games} a player a period; true skills "
            f"spread {shape.spread:.0f} (like {spread}), drifting about 10 points a week "
            f"({measure.seconds:.1f} s)."
        )
        for percent in LEVELS:
            # 95 is the site's ± 1.96 RD, as everywhere on the pages.
            level = DEFAULT_LEVEL if percent == 95.0 else ConfidenceLevel.from_percent(percent)
            share, error = measure.at(level)
            self.stdout.write(
                f"{level.percent:.2f}".rstrip("0").rstrip(".")
                + f" % intervals: cover {100 * share:.1f} % ± {100 * error:.1f}"
            )
