"""``manage.py import_pgn SLUG FILE.pgn [--create-players] [--dry-run]``.

Records the results of a PGN file's games (tags White, Black, Result, Date; Event and Round
kept as the note; ``league.pgn_format``) as events, all or nothing, with the CSV import's
rules (``import_results``: the same checks, the same report). Every bad game is printed with
its line and reason, and then nothing is recorded. Importing a file again records nothing
twice (each game's key comes from its tags).
"""

from __future__ import annotations

from typing import Any

from league.csv_format import RowError
from league.csv_import import import_results
from league.management.commands.import_results import Command as ImportResults
from league.models import League
from league.pgn_format import in_pgn_terms, iter_pgn_results


class Command(ImportResults):
    help = "Record the results of a PGN file's games as events: all of them, or none."

    def add_arguments(self, parser: Any) -> None:
        super().add_arguments(parser)
        for action in parser._actions:
            if action.dest == "file":
                action.help = "PGN file (UTF-8), or - for standard input"

    @staticmethod
    def _import(league: League, stream: Any, options: dict[str, Any], user: Any) -> Any:
        report = import_results(
            league,
            stream,
            create_players=options["create_players"],
            dry_run=options["dry_run"],
            recorded_by=user,
            parse=iter_pgn_results,
        )
        # The services name a result's parts by their fields; the file has tags.
        report.errors = [RowError(e.line, in_pgn_terms(e.message)) for e in report.errors]
        return report
