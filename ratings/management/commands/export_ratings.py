"""``manage.py export_ratings SLUG [--history | --results | --event-log] [--format F] [--output P]``

Current standings by default; ``--history``: one row per player and period played (player,
period_start, period_end, rating, rd, volatility, games, …); ``--results``: the live matches
in the import format (``import_results`` reads them back); ``--event-log``: every recorded match
in that format, voided ones with their void's reason (the import voids them again). Dates are
YYYY-MM-DD, numbers in full precision.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

from django.core.management.base import CommandError, CommandParser

from league.management.data_command import DataCommand, league_by_slug
from ratings import exports
from ratings.models import RatingConfig


class Command(DataCommand):
    help = "Export a league's standings, rating history or results as CSV or JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the league's slug")
        what = parser.add_mutually_exclusive_group()
        what.add_argument(
            "--history", action="store_true", help="one row per player and period played"
        )
        what.add_argument(
            "--results", action="store_true", help="the live matches, in the import format"
        )
        what.add_argument(
            "--event-log",
            action="store_true",
            help="every recorded match in the import format, voided ones with their void's "
            "reason (import_results records and voids them again)",
        )
        parser.add_argument("--format", choices=["csv", "json"], default="csv")
        parser.add_argument("--output", metavar="FILE", help="write here instead of stdout")
        parser.add_argument(
            "--config-version",
            type=int,
            metavar="N",
            help="a configuration version (default: the live one)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        league = league_by_slug(options["slug"])
        config = None
        if options["config_version"] is not None:
            config = RatingConfig.objects.filter(
                league=league, version=options["config_version"]
            ).first()
            if config is None:
                raise CommandError(
                    f"{league.name} has no configuration version {options['config_version']}."
                )
        try:
            if options["results"] or options["event_log"]:
                table = exports.results(league, with_voided=options["event_log"])
            elif options["history"]:
                table = exports.history(league, config)
            else:
                table = exports.standings(league, config)
        except exports.NoStandingsError as error:
            raise CommandError(
                f"{error} Run: python manage.py replay {league.slug} --sync"
            ) from None
        write = exports.write_json if options["format"] == "json" else exports.write_csv
        output = options["output"]
        if not output:
            # The writers end their own lines.
            self.stdout.ending = ""
            count = write(table, self.stdout)
            self.stdout.ending = "\n"
            self.stderr.write(f"{count} row(s).")
            return
        target = Path(output)
        if not target.parent.is_dir():
            raise CommandError(f"Cannot write {output}: no such directory {target.parent}.")
        # Written beside the target and renamed, so a failure leaves no half-written file.
        descriptor, part = tempfile.mkstemp(dir=target.parent, suffix=".part")
        try:
            with open(descriptor, "w", encoding="utf-8", newline="") as handle:
                count = write(table, handle)
            os.replace(part, target)
        except BaseException:
            Path(part).unlink(missing_ok=True)
            raise
        self.stdout.write(f"Wrote {count} row(s) to {output}.")
