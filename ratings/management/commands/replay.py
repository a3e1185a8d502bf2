"""``manage.py replay SLUG [--sync]``: start a full replay of a league's newest configuration.

With ``--sync`` the replay runs in this process (``ratings.services.run_replay``) and the
command returns when the new standings are live, printing progress on the way. Without it
the replay is queued for the Celery worker; ``--watch`` follows the league's latest replay.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from django.core.management.base import CommandError, CommandParser
from django.db import connection

from league.management.data_command import DataCommand, league_by_slug
from league.models import League
from ratings.models import Replay
from ratings.selectors.progress import league_progress
from ratings.services import request_full_replay, run_replay

POLL_SECONDS = 0.5


class Command(DataCommand):
    help = "Start a full replay of a league (with --sync: run it here and wait)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("slug", help="the league's slug")
        mode = parser.add_mutually_exclusive_group()
        mode.add_argument(
            "--sync", action="store_true", help="run the replay in this process and wait"
        )
        mode.add_argument(
            "--watch",
            action="store_true",
            help="start nothing: follow the league's latest replay until it finishes",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        league = league_by_slug(options["slug"])
        if options["watch"]:
            self.watch(league)
            return
        # Run here: no message to the workers (a worker would only find it done).
        replay = request_full_replay(league, send=not options["sync"])
        if not options["sync"]:
            self.stdout.write(
                f"Queued full replay #{replay.pk} of {league.name} (configuration version "
                f"{replay.config.version}); a Celery worker runs it. Follow it with: "
                f"python manage.py replay {league.slug} --watch, or on the league's page."
            )
            return
        self.stdout.write(
            f"Running full replay #{replay.pk} of {league.name} "
            f"(configuration version {replay.config.version}) in this process…"
        )
        started = time.perf_counter()
        # At verbosity 0 (scripts, benchmarks) the progress lines are left out, and with them
        # the thread that polls the replay's row on a second connection twice a second.
        reporter = None
        stop = threading.Event()
        if options["verbosity"] > 0:
            reporter = threading.Thread(
                target=self._report_progress, args=(replay.pk, stop), daemon=True
            )
            reporter.start()
        try:
            run_replay(replay.pk)
        finally:
            stop.set()
            if reporter is not None:
                reporter.join()
        replay.refresh_from_db()
        elapsed = time.perf_counter() - started
        if replay.status != Replay.Status.COMPLETE:
            raise CommandError(
                f"Replay #{replay.pk} ended {replay.status}"
                + (f": {replay.error}" if replay.error else ".")
                + " The previous standings stay live."
            )
        self.stdout.write(
            f"Replay #{replay.pk} complete in {elapsed:.1f} s "
            f"({replay.periods_done} periods): the standings of configuration version "
            f"{replay.config.version} are live."
        )

    def _report_progress(self, replay_id: int, stop: threading.Event) -> None:
        """Print the replay's stored progress while it runs (from its own connection)."""
        shown = None
        try:
            while not stop.wait(POLL_SECONDS):
                row = (
                    Replay.objects.filter(pk=replay_id)
                    .values_list("periods_done", "periods_total")
                    .first()
                )
                if row and row[1] and row != shown:
                    shown = row
                    self.stdout.write(f"  {row[0]}/{row[1]} periods")
        finally:
            connection.close()

    def watch(self, league: League) -> None:
        shown = None
        while True:
            progress = league_progress(league)
            if progress is None:
                raise CommandError(f"{league.name} has no replay yet.")
            line = (
                f"Replay #{progress['replay_id']} ({progress['kind']}, configuration version "
                f"{progress['config_version']}): {progress['status']}, "
                f"{progress['periods_done']}/{progress['periods_total']} periods"
            )
            if line != shown:
                self.stdout.write(line)
                shown = line
            if not progress["in_progress"]:
                if progress["status"] == Replay.Status.FAILED:
                    raise CommandError(f"Replay failed: {progress['error']}")
                return
            time.sleep(POLL_SECONDS)
