"""``manage.py pair_round LEAGUE EVENT [--dry-run] [--recorded-by USERNAME]``.

Pairs the event's next round with the league's Swiss system (``league.competition_pairing``:
the FIDE Dutch system for a chess league, the club generator otherwise; a round robin's
Berger table) and publishes it (``league.competitions.publish_round``: its games as fixtures,
the pairing's bye, the requested byes honoured). Prints the boards, White (first-named)
first. ``--dry-run`` prints the pairing without publishing it.
"""

from __future__ import annotations

from typing import Any

from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser

from league.competition_pairing import propose_round
from league.competitions import publish_round
from league.management.cli import validation_message
from league.management.data_command import (
    DataCommand,
    league_by_slug,
    recorder,
    refuse_control_characters,
)
from league.models import Competition, Player


class Command(DataCommand):
    help = "Pair an event's next round with the league's Swiss system and publish it."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("league", help="the league's slug")
        parser.add_argument("event", help="the event's slug")
        parser.add_argument(
            "--dry-run", action="store_true", help="print the pairing, publish nothing"
        )
        parser.add_argument(
            "--recorded-by", metavar="USERNAME", help="the organiser the round is recorded by"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        league = league_by_slug(options["league"])
        refuse_control_characters("event slug", options["event"])
        competition = Competition.objects.filter(league=league, slug=options["event"]).first()
        if competition is None:
            raise CommandError(f"{league.slug} has no event {options['event']!r}.")
        user = recorder(options["recorded_by"])
        try:
            proposed = propose_round(competition)
            if not options["dry_run"]:
                publish_round(
                    competition,
                    proposed.round_number,
                    [list(pair) for pair in proposed.pairings],
                    [] if proposed.bye is None else [proposed.bye],
                    recorded_by=user,
                )
        except ValidationError as error:
            raise CommandError(validation_message(error)) from None
        names = dict(Player.objects.filter(league=league).values_list("pk", "display_name"))
        verb = "would be" if options["dry_run"] else "published"
        self.stdout.write(f"{competition.name}, round {proposed.round_number} ({verb}):")
        for board, (first, second) in enumerate(proposed.pairings, start=1):
            self.stdout.write(f"{board:>3}. {names[first]} - {names[second]}")
        if proposed.bye is not None:
            self.stdout.write(f"  Bye: {names[proposed.bye]}")
        for player, _kind, points in proposed.requested:
            self.stdout.write(f"  Requested bye ({points}): {names[player]}")
