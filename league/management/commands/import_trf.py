"""``manage.py import_trf LEAGUE FILE [--event SLUG] [--dry-run] [--recorded-by USERNAME]``.

Creates (or fills) an event of the league from a TRF file (TRF-2026, TRF16 or TRF(x)):
players matched by FIDE id, then by name, or registered; rounds published with their byes;
results and forfeits recorded (``league.chess.trf_import``). All of it or nothing: every
problem is printed with its line (and column), and then nothing is stored. Prints the
event's slug.
"""

from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import CommandError, CommandParser

from league.chess.trf import MAX_FILE_BYTES
from league.chess.trf_import import import_trf
from league.management.data_command import (
    DataCommand,
    league_by_slug,
    recorder,
    refuse_control_characters,
)


class Command(DataCommand):
    help = "Create (or fill) an event of a league from a TRF file: all of it, or nothing."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("league", help="the league's slug")
        parser.add_argument("file", help="TRF file (UTF-8), or - for standard input")
        parser.add_argument(
            "--event",
            metavar="SLUG",
            help="the event to fill, or the address of the new one (default: from its name)",
        )
        parser.add_argument(
            "--dry-run", action="store_true", help="check and report, store nothing"
        )
        parser.add_argument(
            "--recorded-by", metavar="USERNAME", help="the organiser the events are recorded by"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        league = league_by_slug(options["league"])
        if options["event"]:
            refuse_control_characters("event slug", options["event"])
        user = recorder(options["recorded_by"])
        path = options["file"]
        try:
            if path == "-":
                data = sys.stdin.buffer.read(MAX_FILE_BYTES + 1)
            else:
                with open(path, "rb") as handle:
                    # One byte past the cap is enough for the reader to refuse the size.
                    data = handle.read(MAX_FILE_BYTES + 1)
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror or error}.") from None
        report = import_trf(
            league,
            data,
            event_slug=options["event"] or None,
            recorded_by=user,
            dry_run=options["dry_run"],
        )
        if not report.ok:
            for problem in report.problems:
                self.stderr.write(f"{path}: {problem}")
            raise CommandError(report.summary())
        for note in report.notes:
            self.stderr.write(note)
        self.stderr.write(
            report.summary() + (" Dry run: nothing was stored." if report.dry_run else "")
        )
        self.stdout.write(report.slug)
