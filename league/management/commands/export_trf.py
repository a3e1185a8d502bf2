"""``manage.py export_trf LEAGUE EVENT [--output FILE] [--flavour trf-2026|trf-x|trf-bx]``.

Writes an event of the league as a TRF-2026 file (``league.chess.trf_export``): players,
seed ratings, FIDE details, every paired round with its results, byes, forfeits and
colours, the paired round without results included. To standard output unless ``--output``.
"""

from __future__ import annotations

from typing import Any

from django.core.management.base import CommandError, CommandParser

from league.chess import trf
from league.chess.trf_export import export_competition
from league.management.data_command import (
    DataCommand,
    league_by_slug,
    refuse_control_characters,
)
from league.models import Competition


class Command(DataCommand):
    help = "Write an event of a league as a TRF-2026 file."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("league", help="the league's slug")
        parser.add_argument("event", help="the event's slug")
        parser.add_argument(
            "--output", metavar="FILE", help="write here (default: standard output)"
        )
        parser.add_argument(
            "--flavour",
            choices=list(trf.FLAVOURS),
            default=trf.TRF_2026,
            help="trf-x writes XXR/XXC (and XXA) for JaVaFo and bbpPairings instead of 142/152 "
            "(and 250); trf-bx adds bbpPairings' point records BBW, BBD, BBL, BBZ, BBF, BBU",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        league = league_by_slug(options["league"])
        refuse_control_characters("event slug", options["event"])
        competition = Competition.objects.filter(league=league, slug=options["event"]).first()
        if competition is None:
            known = ", ".join(
                Competition.objects.filter(league=league)
                .order_by("slug")
                .values_list("slug", flat=True)[:20]
            )
            raise CommandError(
                f"{league.slug} has no event {options['event']!r}"
                + (f" (its events: {known})." if known else " (it has no event).")
            )
        text = export_competition(competition, options["flavour"])
        if options["output"]:
            try:
                with open(options["output"], "w", encoding="utf-8", newline="") as handle:
                    handle.write(text)
            except OSError as error:
                raise CommandError(
                    f"Cannot write {options['output']}: {error.strerror or error}."
                ) from None
        else:
            self.stdout.write(text, ending="")
