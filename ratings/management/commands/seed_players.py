"""``manage.py seed_players SLUG FILE.csv [--dry-run] [--recorded-by USERNAME] [--compare]``.

Gives players their starting ratings from a rating list, as ``player_seeded`` events (all or
none; ``league.seeding``). The file's header names the columns ``player``, ``rating``,
``list`` (fide, national or club) and optionally ``games`` (rated games behind the rating:
the RD follows from it, ``league.seeding.SEED_RD``), ``rd`` (to give the RD instead) and
``reason``. Every bad line is printed with its number and nothing is stored. ``--compare``
then backtests the league's matches with and without the seeds
(``ratings.backtest.seeds``).
"""

from __future__ import annotations

import sys
from typing import Any

from django.contrib.auth import get_user_model
from django.core.management.base import CommandError, CommandParser

from league.management.data_command import (
    DataCommand,
    league_by_slug,
    refuse_control_characters,
)
from league.seeding import seed_players_from_csv
from ratings import services as rating_services
from ratings.backtest.seeds import BETTER, WORSE, compare_seeds


class Command(DataCommand):
    help = "Seed players' starting ratings from a rating list (a CSV file), all or none."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the league's slug")
        parser.add_argument(
            "file", nargs="?", help="CSV file: player, rating, list[, games, rd, reason]"
        )
        parser.add_argument("--dry-run", action="store_true", help="check, store nothing")
        parser.add_argument("--recorded-by", metavar="USERNAME", help="the organiser")
        parser.add_argument(
            "--compare",
            action="store_true",
            help="backtest the league's matches with and without its seeds",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        league = league_by_slug(options["slug"])
        if options["file"]:
            self._seed(league, options)
        elif not options["compare"]:
            raise CommandError("Give a CSV file of seeds, or --compare.")
        if options["compare"]:
            self._compare(league)

    def _seed(self, league: Any, options: dict[str, Any]) -> None:
        user = None
        if options["recorded_by"]:
            refuse_control_characters("user name", options["recorded_by"])
            user = get_user_model().objects.filter(username=options["recorded_by"]).first()
            if user is None:
                raise CommandError(f"No such user: {options['recorded_by']!r}.")
        config = rating_services.latest_config(league)
        max_rd = float(config.max_rd) if config is not None else 350.0
        path = options["file"]
        try:
            if path == "-":
                count, errors = seed_players_from_csv(
                    league, sys.stdin.buffer, recorded_by=user, dry_run=options["dry_run"],
                    max_rd=max_rd,
                )  # fmt: skip
            else:
                with open(path, "rb") as handle:
                    count, errors = seed_players_from_csv(
                        league, handle, recorded_by=user, dry_run=options["dry_run"],
                        max_rd=max_rd,
                    )  # fmt: skip
        except OSError as error:
            raise CommandError(f"Cannot read {path}: {error.strerror or error}.") from None
        if errors:
            for line, message in errors:
                self.stderr.write(f"{path}: line {line}: {message}")
            raise CommandError(f"{len(errors)} bad line(s): no player was seeded.")
        verb = "would seed" if options["dry_run"] else "seeded"
        self.stdout.write(f"{verb} {count} player(s).")

    def _compare(self, league: Any) -> None:
        result = compare_seeds(league)
        if result is None:
            self.stdout.write("Nothing to compare: the league has no seed or no match.")
            return
        verdict = {
            BETTER: "the seeds predict better",
            WORSE: "the seeds predict worse",
        }.get(result.verdict, "no meaningful difference")
        self.stdout.write(
            f"Configuration version {result.config_version}, {result.matches} match(es), "
            f"{result.seeded_players} seeded player(s): log-loss per match "
            f"{result.log_loss_with:.4f} with the seeds, {result.log_loss_without:.4f} "
            f"without; difference {result.difference:+.4f} (95 % interval "
            f"{result.low:+.4f} to {result.high:+.4f}): {verdict}."
        )
