"""``manage.py backtest SLUG --tau 0.3 0.5 0.7``: score a grid on a league and print the table."""

from __future__ import annotations

import time
from typing import Any

from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.core.management.base import CommandError, CommandParser

from league.management.cli import iso_date
from league.management.data_command import DataCommand
from league.models import League
from ratings.backtest import services, tasks, walk_forward
from ratings.backtest.models import Sweep
from ratings.backtest.presentation import text_table, walk_forward_text
from ratings.parameters import BY_NAME


class Command(DataCommand):
    help = (
        "Backtest rating configurations on a league's history: every match is predicted from "
        "the ratings at the start of its period (with instant updates: just before it); "
        "prints log-loss, Brier and accuracy per τ against the always-50% and tuned-Elo "
        "baselines. Runs in this process unless "
        "--workers is given."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("league", help="slug of the league")
        for name in ("tau", "initial_rd", "initial_volatility", "advantage"):
            parameter = BY_NAME[name]
            parser.add_argument(
                parameter.flag,
                type=float,
                nargs="+",
                required=name == "tau",
                dest=name,
                help=f"{parameter.label} values to compare. {parameter.help_text}",
            )
        scale = BY_NAME["margin_scale"]
        parser.add_argument(
            scale.flag,
            nargs="+",
            dest="margin_scale",
            metavar="SCALE",
            help=f"margin scales to compare, 'none' for plain results. {scale.help_text}",
        )
        length = BY_NAME["period_length"]
        period = parser.add_mutually_exclusive_group()
        period.add_argument(
            "--period-months",
            type=int,
            nargs="+",
            help=f"period lengths in calendar months. {length.help_text}",
        )
        period.add_argument(
            "--period-days", type=int, nargs="+", help=f"period lengths in days. {length.help_text}"
        )
        mode = BY_NAME["update_mode"]
        parser.add_argument(
            "--update-mode",
            nargs="+",
            choices=mode.choices,
            dest="update_mode",
            help=f"update modes to compare. {mode.help}",
        )
        split = parser.add_mutually_exclusive_group()
        split.add_argument(
            "--holdout-from",
            "--split",
            type=iso_date,
            metavar="YYYY-MM-DD",
            help="walk-forward: score out of sample from the rating period holding this day "
            "(default: the last 30 %% of the periods with matches)",
        )
        split.add_argument(
            "--holdout-share",
            type=float,
            metavar="SHARE",
            help="walk-forward: the share of the periods with matches scored out of sample "
            f"(default {walk_forward.HOLDOUT_SHARE:g})",
        )
        split.add_argument(
            "--no-holdout",
            action="store_true",
            help="score every match in sample only (no walk-forward split)",
        )
        parser.add_argument(
            "--workers",
            action="store_true",
            help="send the runs to the Celery workers (a group) and wait for them",
        )
        parser.add_argument(
            "--timeout", type=float, default=3600.0, help="seconds to wait with --workers"
        )
        parser.add_argument(
            "--adopt",
            action="store_true",
            help="create a configuration version from the best run (a full replay follows)",
        )
        parser.add_argument(
            "--user", help="username recorded as requester and creator of an adopted version"
        )

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            league = League.objects.get(slug=options["league"])
        except League.DoesNotExist:
            raise CommandError(f"No league with slug {options['league']!r}.") from None
        user = None
        if options["user"]:
            try:
                user = get_user_model().objects.get(username=options["user"])
            except get_user_model().DoesNotExist:
                raise CommandError(f"No user named {options['user']!r}.") from None
        grid = self._grid(options)
        holdout = self._holdout(options)
        try:
            if options["workers"]:
                sweep = tasks.start_sweep(league, grid, requested_by=user, **holdout)
                self.stdout.write(f"Sweep #{sweep.pk}: {sweep.runs_total} run(s) sent to workers.")
                sweep = self._wait(sweep, options["timeout"])
            else:
                sweep = services.run_sweep_sync(league, grid, requested_by=user, **holdout)
        except ValidationError as error:
            raise CommandError(_messages(error)) from error

        self.stdout.write(f"Sweep #{sweep.pk} of {league.slug}: {sweep.status}")
        runs = list(sweep.runs.all())
        self.stdout.write("Whole history (in sample: the figures the best run was chosen by):")
        self.stdout.write(text_table(sweep, runs))
        if sweep.verdict:
            self.stdout.write(sweep.verdict)
        walk = walk_forward_text(sweep, runs)
        if walk:
            self.stdout.write("")
            self.stdout.write(walk)
        if sweep.error:
            self.stderr.write(sweep.error)
        if options["adopt"]:
            try:
                config = services.adopt_best(sweep, user=user)
            except ValidationError as error:
                raise CommandError(_messages(error)) from error
            self.stdout.write(
                self.style.SUCCESS(
                    f"Adopted: version {config.version} (τ = {config.tau:g}); a full replay "
                    "was requested."
                )
            )
        if sweep.status != Sweep.Status.COMPLETE:
            raise CommandError("The sweep did not complete.")

    @staticmethod
    def _holdout(options: dict[str, Any]) -> dict[str, Any]:
        if options["no_holdout"]:
            return {"holdout": False}
        if options["holdout_from"]:
            return {"holdout_from": options["holdout_from"]}
        share = options["holdout_share"]
        if share is not None:
            if not 0.0 < share < 1.0:
                raise CommandError(
                    f"--holdout-share must be between 0 and 1 (exclusive), got {share:g}."
                )
            return {"holdout_share": share}
        return {}

    @staticmethod
    def _grid(options: dict[str, Any]) -> dict[str, Any]:
        grid: dict[str, Any] = {"tau": options["tau"]}
        if options["initial_rd"]:
            grid["initial_rd"] = options["initial_rd"]
        if options["initial_volatility"]:
            grid["initial_volatility"] = options["initial_volatility"]
        if options["advantage"]:
            grid["advantage"] = options["advantage"]
        if options["margin_scale"]:
            grid["margin_scale"] = options["margin_scale"]
        if options["update_mode"]:
            grid["update_mode"] = options["update_mode"]
        if options["period_months"]:
            grid.update(period_unit="months", period_length=options["period_months"])
        elif options["period_days"]:
            grid.update(period_unit="days", period_length=options["period_days"])
        return grid

    def _wait(self, sweep: Sweep, timeout: float) -> Sweep:
        deadline = time.monotonic() + timeout
        reported = -1
        while True:
            sweep.refresh_from_db()
            if sweep.runs_done != reported:
                reported = sweep.runs_done
                self.stdout.write(f"  {sweep.runs_done}/{sweep.runs_total} runs done")
            if sweep.finished:
                return sweep
            if time.monotonic() > deadline:
                raise CommandError(
                    f"Sweep #{sweep.pk} still running after {timeout:g} s "
                    f"({sweep.runs_done}/{sweep.runs_total}); are workers running?"
                )
            time.sleep(0.5)


def _messages(error: ValidationError) -> str:
    if hasattr(error, "error_dict"):
        return "; ".join(f"{key}: {' '.join(msgs)}" for key, msgs in error.message_dict.items())
    return " ".join(error.messages)
