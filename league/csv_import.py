"""Importing a CSV file of results into a league: all or nothing, streaming.

One pass over the file inside one transaction: each row is parsed (``league.csv_format``),
its players are found (or registered with ``create_players``) and it is handed to the
event store's bulk path (``league.event_store.bulk``), which checks it with the write services'
rules and inserts it in batches. Bad rows do not stop the pass, so every one of them is
reported; at the end the transaction commits only if there was none (and this is not a
dry run). Rows already inserted by this pass stay visible to it, which is how an ``id``
repeated later in the file with other content is caught without keeping the file in memory.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import IO, Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils.translation import gettext as _

from league import event_store
from league.csv_format import (
    SIDE_SEPARATOR,
    PlainBlock,
    PlayerStatusRow,
    ResultRow,
    RowError,
    iter_result_blocks,
    iter_results,
)
from league.event_store import Submission
from league.event_store.bulk import BulkAppender
from league.event_store.vocabulary import MatchVoided
from league.idempotency_keys import correction_void_key
from league.models import Event, League, Player
from league.player_names import (
    PlayerDirectory,
    check_name_shape,
    clean_name,
    unknown_players_message,
)
from league.services.corrections import void_match
from league.services.players import deactivate_player, reactivate_player
from league.sides import PAIR_FIELDS
from league.validation import Errors, check_reason, check_recorder

# The admin's preview shows this many rows; the command prints every error it keeps.
MAX_ERRORS_KEPT = 1000


@dataclass
class PreviewRow:
    """One row as the admin preview shows it (``status``: recorded, skipped or error)."""

    line: int
    played: str = ""
    player_a: str = ""
    player_b: str = ""
    score_a: str = ""
    points: str = ""
    note: str = ""
    key: str = ""
    neutral: bool = False
    status: str = "recorded"
    message: str = ""


@dataclass
class ImportReport:
    """The outcome of one import (or dry run). Nothing was stored unless ``committed``."""

    dry_run: bool = False
    rows: int = 0
    recorded: int = 0
    skipped: int = 0
    players_created: list[str] = field(default_factory=list)
    #: Names in the file that are not a player's exact name but found one by ``name_key``
    #: (case, spacing, accents, invisible characters): typed name -> the player's name.
    names_matched: dict[str, str] = field(default_factory=dict)
    errors: list[RowError] = field(default_factory=list)
    error_count: int = 0
    preview: list[PreviewRow] = field(default_factory=list)
    first_seq: int | None = None
    last_seq: int | None = None
    voided: int = 0

    @property
    def ok(self) -> bool:
        return self.error_count == 0

    @property
    def committed(self) -> bool:
        return self.ok and not self.dry_run

    def add_error(self, error: RowError) -> None:
        self.error_count += 1
        if len(self.errors) < MAX_ERRORS_KEPT:
            self.errors.append(error)

    def summary(self) -> str:
        """One sentence for a command's output or an admin message."""
        if not self.ok:
            return f"{self.error_count} bad row(s) in {self.rows} row(s): nothing was recorded."
        verb = "would record" if self.dry_run else "recorded"
        text = (
            f"{self.rows} row(s): {verb} {self.recorded} result(s), "
            f"{self.skipped} already recorded (skipped)"
        )
        if self.players_created:
            created = "would register" if self.dry_run else "registered"
            text += f", {created} {len(self.players_created)} new player(s)"
        if self.voided:
            text += f", {'would void' if self.dry_run else 'voided'} {self.voided} of them"
        return text + ("; dry run, nothing was recorded." if self.dry_run else ".")


def import_results(
    league: League,
    stream: IO[bytes],
    *,
    create_players: bool = False,
    dry_run: bool = False,
    recorded_by: Any = None,
    preview_limit: int = 0,
    parse: Callable[[IO[bytes]], Iterator[ResultRow | PlayerStatusRow | RowError]] = iter_results,
    per_row: bool = False,
) -> ImportReport:
    """Record the results of a CSV byte stream in ``league``: all of them, or none.

    Returns an ``ImportReport``; when it lists errors (or on a dry run) nothing was stored.
    ``preview_limit`` keeps that many rows with their outcome for a preview. ``parse`` reads
    the stream into rows: the CSV format by default, ``league.pgn_format.iter_pgn_results``
    for a PGN file (the same rules, preview and undo for both).

    The CSV format's plain rows are read and queued a block at a time
    (``csv_format.iter_result_blocks``, ``BulkAppender.add_plain_rows``); ``per_row`` reads
    them one by one instead, the same events either way (a test compares them).
    """
    report = ImportReport(dry_run=dry_run)
    preview: dict[int, PreviewRow] = {}
    reader: Callable[[IO[bytes]], Iterator[Any]] = parse
    if parse is iter_results and not per_row and not preview_limit:
        reader = iter_result_blocks

    def observe(line: int, outcome: str, message: str) -> None:
        row = preview.get(line)
        if row is not None:
            row.status, row.message = outcome, message

    with (
        transaction.atomic(),
        # Its batches are written while the next ones are read.
        BulkAppender(
            league,
            recorded_by=recorded_by,
            max_errors_kept=MAX_ERRORS_KEPT,
            observer=observe if preview_limit else None,
        ) as appender,
    ):
        players = PlayerDirectory(league)
        to_void: list[tuple[str, str]] = []
        statuses: list[tuple[PlayerStatusRow, Player]] = []

        def add_row(item: ResultRow) -> None:
            """Find the players of one result and hand it to the appender."""
            sides = _sides_of(item, players, appender, create_players, report.names_matched)
            if isinstance(sides, RowError):
                report.add_error(sides)
                observe(item.line, "error", sides.message)
                return
            if item.void_reason:
                to_void.append((item.key, item.void_reason))  # type: ignore[arg-type]
            if (
                item.places is None
                and not item.neutral
                and not item.points
                and len(sides) == 2
                and len(sides[0]) == 1
                and len(sides[1]) == 1
                and appender.add_plain(
                    sides[0][0],
                    sides[1][0],
                    item.score_a,
                    item.played,
                    item.note,
                    item.key,
                    item.line,
                )
            ):
                return
            appender.add_match(
                sides,
                item.score_a,
                item.places,
                item.played,
                item.points,
                item.note,
                item.key,
                item.line,
                item.neutral,
                PAIR_FIELDS if item.pair else None,
            )

        for item in reader(stream):
            if type(item) is PlainBlock:
                report.rows += len(item)
                _add_block(item, players, appender, add_row)
                continue
            report.rows += 1
            if isinstance(item, RowError):
                report.add_error(item)
                if len(preview) < preview_limit:
                    preview[item.line] = PreviewRow(
                        line=item.line, status="error", message=item.message
                    )
                continue
            if len(preview) < preview_limit:
                preview[item.line] = _preview_row(item)
            if isinstance(item, PlayerStatusRow):
                found = _player_of(item, players, appender, create_players, report.names_matched)
                if isinstance(found, RowError):
                    report.add_error(found)
                    observe(item.line, "error", found.message)
                else:
                    statuses.append((item, found))
                continue
            add_row(item)
        appender.flush()
        for line, message in appender.result.errors:
            report.add_error(RowError(line, message))
        report.error_count += appender.result.error_count - len(appender.result.errors)
        result = appender.close(announce=report.ok and not dry_run)
        report.recorded, report.skipped = result.appended, result.skipped
        report.players_created = result.players_registered
        report.first_seq, report.last_seq = result.first_seq, result.last_seq
        if report.ok:
            report.voided = _void_rows(league, to_void, recorded_by)
            for error in _set_statuses(league, statuses, recorded_by):
                report.add_error(error)
                observe(error.line, "error", error.message)
        if not report.committed:
            transaction.set_rollback(True)
    report.errors.sort(key=lambda error: error.line)
    report.preview = sorted(preview.values(), key=lambda row: row.line)
    return report


def _add_block(
    block: PlainBlock,
    players: PlayerDirectory,
    appender: BulkAppender,
    add_row: Callable[[ResultRow], None],
) -> None:
    """Queue a block of plain rows: each run of rows between players known by their exact
    names goes to ``appender.add_plain_rows`` at once; any other row (a name to register or
    match loosely, a row the appender's quick checks do not pass) goes through ``add_row``,
    in file order, as it would one row at a time."""
    exact = players.exact
    found_a = list(map(exact.get, block.a))
    found_b = list(map(exact.get, block.b))
    count = len(found_a)
    start = 0
    while start < count:
        stop = _first_none(found_a, start, count)
        stop = _first_none(found_b, start, stop)
        if stop > start:
            queued = appender.add_plain_rows(
                found_a[start:stop],
                found_b[start:stop],
                block.scores[start:stop],
                block.played[start:stop],
                block.notes[start:stop],
                block.keys[start:stop],
                block.lines[start:stop],
            )
            if start + queued == count:
                return
            if start + queued < stop:
                # The appender did not take this row: its checks say why.
                add_row(block.row(start + queued))
                start += queued + 1
                continue
        # A name not known a moment ago may be now (registered by an earlier row).
        a = found_a[stop] or exact.get(block.a[stop])
        b = found_b[stop] or exact.get(block.b[stop])
        if a is not None and b is not None:
            found_a[stop], found_b[stop] = a, b
            start = stop
            continue
        add_row(block.row(stop))
        start = stop + 1


def _first_none(found: list[Player | None], start: int, stop: int) -> int:
    """The index of the first None of ``found[start:stop]``, else ``stop``."""
    try:
        return found.index(None, start, stop)
    except ValueError:
        return stop


def _void_rows(league: League, rows: list[tuple[str, str]], recorded_by: Any) -> int:
    """Void the matches recorded under the keys of ``rows`` (key, reason) that still count.

    Each void carries the key ``<id>/void``, so importing the file again voids nothing twice.
    """
    if not rows:
        return 0
    reasons = dict(rows)
    matches = Event.objects.all_matches().filter(league=league, idempotency_key__in=list(reasons))
    count = 0
    for match in matches.filter(voided_by__isnull=True).order_by("seq"):
        void_match(
            league,
            match,
            reason=reasons[match.idempotency_key],
            recorded_by=recorded_by,
            idempotency_key=correction_void_key(match.idempotency_key),
        )
        count += 1
    return count


def undo_import(
    league: League, first_seq: int, last_seq: int, *, reason: str, recorded_by: Any = None
) -> int:
    """Void every match that the import stored as events ``first_seq`` to ``last_seq`` and that
    still counts: all of them in one transaction, each void with ``reason``. Returns how many
    were voided (none when a previous undo voided them already).

    An import holds the league's lock from its first event to its last, so every match in
    that span is one of its rows. The players it registered stay registered.
    """
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    reason = check_reason(reason, errors)
    errors.raise_if_any()
    with transaction.atomic():
        event_store.lock_league(league)
        matches = (
            Event.objects.live_all_matches()
            .filter(league=league, seq__gte=first_seq, seq__lte=last_seq)
            .order_by("seq")
            .values_list("pk", "seq")
        )
        # The void of a match is keyed by its number: a second undo of the same import (a
        # double click, another tab) finds nothing still counting and stores nothing.
        submissions = [
            Submission(MatchVoided(match_id=pk, reason=reason), f"import-undo:{seq}")
            for pk, seq in matches
        ]
        if submissions:
            event_store.append(league, submissions, recorded_by=recorded_by)
    return len(submissions)


def _sides_of(
    row: ResultRow,
    players: PlayerDirectory,
    appender: BulkAppender,
    create_players: bool,
    matched: dict[str, str],
) -> list[list[Player]] | RowError:
    """The players of each side of ``row``, registering unknown ones when allowed; a name
    that found a player other than by its exact name goes to ``matched``."""
    if len(row.sides) == 2 and len(row.sides[0]) == 1 and len(row.sides[1]) == 1:
        # A one-vs-one row between two players known by their exact names: most rows.
        player_a = players.exact.get(row.sides[0][0])
        player_b = players.exact.get(row.sides[1][0])
        if player_a is not None and player_b is not None:
            return [[player_a], [player_b]]
    sides: list[list[Player]] = []
    unknown: list[str] = []
    for names in row.sides:
        side: list[Player] = []
        for name in names:
            player = players.find(name)
            if player is not None and player.display_name != name:
                matched.setdefault(clean_name(name), player.display_name)
            if player is None and create_players:
                problem = _new_name_problem(name, players)
                if problem:
                    return RowError(row.line, problem)
                player = appender.register_player(name)
                players.remember(player)
            if player is None:
                unknown.append(name)
            else:
                side.append(player)
        sides.append(side)
    if unknown:
        message = unknown_players_message(appender.league, unknown)
        hint = (
            _("Register the unknown player first, or allow creating players.")
            if len(unknown) == 1
            else _("Register the unknown players first, or allow creating players.")
        )
        return RowError(row.line, f"{message} {hint}")
    return sides


def _player_of(
    row: PlayerStatusRow,
    players: PlayerDirectory,
    appender: BulkAppender,
    create_players: bool,
    matched: dict[str, str],
) -> Player | RowError:
    """The one player a ``player_status`` row names (registered when unknown and allowed)."""
    as_match = ResultRow(row.line, dt.date.min, ((row.name,),), None, None, "", "", None)
    sides = _sides_of(as_match, players, appender, create_players, matched)
    return sides if isinstance(sides, RowError) else sides[0][0]


def _set_statuses(
    league: League, rows: list[tuple[PlayerStatusRow, Player]], recorded_by: Any
) -> list[RowError]:
    """Deactivate (or reactivate) the players of ``player_status`` rows, once the file's
    matches are in; a player already so is left alone, so importing a file again changes
    nothing. Returns the services' objections, each on its row's line."""
    errors: list[RowError] = []
    for row, player in rows:
        player.refresh_from_db(fields=["active", "merged_into"])
        if player.active == row.active:
            continue
        change = reactivate_player if row.active else deactivate_player
        try:
            change(league, player, reason=row.reason, recorded_by=recorded_by)
        except ValidationError as error:
            errors.append(RowError(row.line, " ".join(error.messages)))
    return errors


def _new_name_problem(name: str, players: PlayerDirectory) -> str:
    """Why ``name`` cannot be registered by the import ("" when it can)."""
    if players.ambiguous(name):
        return _(
            "%(name)r matches several players once case, spacing, accents and invisible "
            "characters are ignored: write the exact name of one of them"
        ) % {"name": name}
    errors = Errors()
    check_name_shape(clean_name(name), errors)
    messages = [m for error in errors.by_field.get("display_name", []) for m in error]
    return "; ".join(
        _("%(name)r: %(problem)s") % {"name": name, "problem": message} for message in messages
    )


def _preview_row(row: ResultRow | PlayerStatusRow) -> PreviewRow:
    if isinstance(row, PlayerStatusRow):
        status = _("active") if row.active else _("inactive")
        return PreviewRow(line=row.line, player_a=row.name, note=row.reason, score_a=status)
    played = (
        row.played.isoformat(sep=" ", timespec="minutes")
        if isinstance(row.played, dt.datetime)
        else row.played.isoformat()
    )
    texts = [f"{SIDE_SEPARATOR} ".join(side) for side in row.sides]
    return PreviewRow(
        line=row.line,
        played=played,
        player_a=texts[0],
        player_b=" / ".join(texts[1:]),
        score_a=str(row.score_a)
        if row.places is None
        else "places " + ", ".join(map(str, row.places)),
        points=row.points,
        note=row.note,
        key=row.key or "",
        neutral=row.neutral,
    )
