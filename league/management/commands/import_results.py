"""``manage.py import_results SLUG FILE.csv [--create-players] [--dry-run]``.

Records a CSV file's results (format: ``league.csv_format``) as events, all or nothing.
Every bad row is printed with its line number and reason, and then nothing is recorded.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser

from league.csv_import import import_results
from league.management.cli import validation_message
from league.management.data_command import (
    DataCommand,
    league_by_slug,
    recorder,
)
from league.models import League


class Command(DataCommand):
    help = "Record the results of a CSV file as events: all of them, or none."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the league's slug")
        parser.add_argument("file", help="CSV file (UTF-8), or - for standard input")
        parser.add_argument(
            "--create-players",
            action="store_true",
            help="register players the league does not know yet",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="check and report, record nothing"
        )
        parser.add_argument(
            "--recorded-by", metavar="USERNAME", help="the organiser the events are recorded by"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        league = league_by_slug(options["slug"])
        user = recorder(options["recorded_by"])
        path = options["file"]
        started = time.perf_counter()
        try:
            if path == "-":
                report = self._import(league, sys.stdin.buffer, options, user)
            else:
                with open(path, "rb") as handle:
                    report = self._import(league, handle, options, user)
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror or error}.") from None
        except ValidationError as error:
            raise CommandError(validation_message(error)) from None
        elapsed = time.perf_counter() - started

        if not report.ok:
            for error in report.errors:
                self.stderr.write(f"{path}: {error}")
            hidden = report.error_count - len(report.errors)
            if hidden:
                self.stderr.write(f"… and {hidden} more bad row(s).")
            raise CommandError(report.summary())
        self.stdout.write(f"{report.summary()} ({elapsed:.1f} s)")
        if report.players_created:
            shown = ", ".join(report.players_created[:20])
            more = len(report.players_created) - 20
            self.stdout.write(f"New players: {shown}" + (f" and {more} more." if more > 0 else "."))
        for typed, existing in list(report.names_matched.items())[:20]:
            self.stdout.write(f"{typed!r} was read as the existing player {existing!r}.")

    @staticmethod
    def _import(league: League, stream: Any, options: dict[str, Any], user: Any) -> Any:
        return import_results(
            league,
            stream,
            create_players=options["create_players"],
            dry_run=options["dry_run"],
            recorded_by=user,
        )
