"""Importing a TRF file into an event of a league: all of it, or nothing.

``import_trf`` reads the file (``league.chess.trf.read``: size cap, text, columns, rounds
seen alike from both sides, points), then, inside one transaction, creates the event (or
fills an existing one), matches or registers its players, enters them, and publishes each
round with its byes and records its results and forfeits, through the league's own services
(``league.competitions``, ``league.services``), so every change is an event in the log and
every rule of the workspace applies. Any problem rolls the whole import back; a dry run
rolls back too, after the same checks, which is what the workspace's preview shows.

Players are matched by FIDE id first (``Player.fide_id``, from ``player_identified``),
then by name (as written, or "Lastname, Firstname" read as "Firstname Lastname"; case,
spacing and accents as ``league.player_names`` compares them); anyone else is registered
under the file's name. A FIDE id, federation or title in the file that the player lacks is
recorded (``identify_player``).

Filling an existing event: its entrants must all be in the file and its published rounds
must be the file's (same opponents, colours, byes); results the event lacks are recorded,
and the file's further rounds are added.

Mapping of the file's rounds: 1 = 0 (and W D L, games shorter than a move) are game results,
+ and - forfeits (- against - a double forfeit), U the pairing-allocated bye, H and Z
requested byes, F a full-point bye the pairing did not allocate (``requested_full``), a blank
result a game still to be played, and rounds before a player's first game a late entry.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from decimal import Decimal
from fractions import Fraction
from functools import partial
from typing import Any, TypeVar

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.text import slugify
from django.utils.translation import gettext as _
from django.utils.translation import gettext_noop

from league.calendar import league_day, league_zone, local_noon
from league.chess import trf
from league.chess.trf_export import entry_code
from league.competitions import (
    MAX_ROUNDS,
    NAME_MAX,
    SLUG_MAX,
    competition_state,
    create_competition,
    enter_player,
    forbid_pairing,
    forbidden_pairs,
    forbids_nothing_new,
    publish_round,
    record_forfeit,
    request_bye,
    withdraw_player,
)
from league.models import ByeKind, Competition, CompetitionFormat, League, Player
from league.player_names import PlayerDirectory
from league.services import identify_player, record_fixture_result, register_player
from league.sports import is_chess
from league.tiebreaks import TIEBREAKS, canonical_code
from pairings.dutch import baku_records

T = TypeVar("T")

MATCH_FIDE = "fide_id"
MATCH_NAME = "name"
MATCH_NEW = "new"
#: Game results as the first-named player's score.
SCORE_OF = {"1": Decimal(1), "W": Decimal(1), "=": Decimal("0.5"), "D": Decimal("0.5")}
SCORE_OF |= {"0": Decimal(0), "L": Decimal(0)}
#: Byes the pairing did not allocate: requested before the round (half and zero points) or
#: given by the arbiter (F, a full point).
REQUESTED = {
    "H": ByeKind.REQUESTED_HALF,
    "Z": ByeKind.REQUESTED_ZERO,
    "F": ByeKind.REQUESTED_FULL,
}
#: The default scoring every event here keeps (record 162 may change only the bye's).
FIXED_SCORING = {"W": Decimal(1), "D": Decimal("0.5"), "L": Decimal(0), "A": Decimal(0)}
#: Header records the league has no place for, and what the preview calls them.
NOT_KEPT = {
    "022": gettext_noop("city (022)"),
    "032": gettext_noop("federation (032)"),
    "102": gettext_noop("chief arbiter (102)"),
    "112": gettext_noop("deputy arbiters (112)"),
    "122": gettext_noop("time control (122)"),
    "182": gettext_noop("pairing controller (182)"),
    "212": gettext_noop("standings tie-breaks (212)"),
    "222": gettext_noop("encoded time control (222)"),
}


@dataclass(frozen=True)
class ImportProblem:
    """Why the file was not imported: its line (0: the file as a whole), maybe a column."""

    line: int
    column: int | None
    message: str

    def __str__(self) -> str:
        if not self.line:
            return self.message
        if self.column is None:
            return _("line %(line)s: %(message)s") % {"line": self.line, "message": self.message}
        return _("line %(line)s, column %(column)s: %(message)s") % {
            "line": self.line,
            "column": self.column,
            "message": self.message,
        }


@dataclass
class PlayerRow:
    """One player record as the preview shows it, with the league player it is read as."""

    line: int
    start_number: int
    name: str
    rating: int | None
    fide_id: str
    points: Decimal
    match: str = MATCH_NEW
    player: str = ""


@dataclass
class TrfImportReport:
    """The outcome of one import (or dry run). Nothing was stored unless ``committed``."""

    dry_run: bool = False
    slug: str = ""
    name: str = ""
    created: bool = False
    rounds: int = 0
    rounds_added: int = 0
    games: int = 0
    results: int = 0
    forfeits: int = 0
    byes: int = 0
    forbidden: int = 0
    withdrawals: int = 0
    players: list[PlayerRow] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    problems: list[ImportProblem] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    @property
    def committed(self) -> bool:
        return self.ok and not self.dry_run

    @property
    def registered(self) -> int:
        return sum(1 for row in self.players if row.match == MATCH_NEW)

    def summary(self) -> str:
        """One sentence: what was (or would be) stored, or why nothing was."""
        if not self.ok:
            return _("Nothing was imported: %(count)s problem(s) in the file.") % {
                "count": len(self.problems)
            }
        values = {
            "name": self.name,
            "slug": self.slug,
            "players": len(self.players),
            "new": self.registered,
            "rounds": self.rounds_added,
            "results": self.results,
            "forfeits": self.forfeits,
        }
        if self.dry_run:
            text = _(
                "Would import %(name)s (%(slug)s): %(players)s players (%(new)s new), "
                "%(rounds)s rounds, %(results)s results, %(forfeits)s forfeits."
            )
        else:
            text = _(
                "Imported %(name)s (%(slug)s): %(players)s players (%(new)s new), "
                "%(rounds)s rounds, %(results)s results, %(forfeits)s forfeits."
            )
        return text % values


class _Stop(Exception):
    """A service refused a step: the problem is in the report, the transaction rolls back."""


def problem_message(problem: trf.TrfProblem) -> str:
    """A reader's problem in the user's language."""
    params = dict(problem.params)
    if isinstance(params.get("field"), str):
        params["field"] = _(params["field"])
    return _(problem.template) % params


def _messages(error: ValidationError) -> str:
    return " ".join(str(message) for message in error.messages)


class _Import:
    """One import: the file, the league, and where each step's problems are reported."""

    def __init__(
        self, league: League, tournament: trf.Tournament, report: TrfImportReport, user: Any
    ) -> None:
        self.league = league
        self.t = tournament
        self.report = report
        self.user = user
        self.players: dict[int, Player] = {}  # start number -> league player
        self.records = {record.start_number: record for record in tournament.players}

    def baku(self) -> bool:
        """Whether the file's 250 records are Baku acceleration (C.04.5.1) for its players
        and planned rounds, however the records split the rounds: then a new event is
        created ``accelerated`` (a Swiss event of a chess league) and the export writes
        them back."""
        t = self.t
        if not t.accelerations:
            return False
        rounds = t.rounds_planned or max(t.round_count, 1)
        return _virtual_points(
            (Fraction(acc.points), acc.first_round, acc.last_round, acc.first_player,
             acc.last_player)
            for acc in t.accelerations
        ) == _virtual_points(
            (points, first, last, 1, group)
            for points, first, last, group in baku_records(len(t.players), rounds)
        )  # fmt: skip

    # -- reporting --------------------------------------------------------------------------

    def problem(self, line: int, column: int | None, message: str) -> None:
        self.report.problems.append(ImportProblem(line, column, message))

    def attempt(self, line: int, column: int | None, step: Callable[[], T]) -> T:
        """``step()``, or its refusal reported at ``line``/``column`` and the import stopped."""
        try:
            return step()
        except ValidationError as error:
            self.problem(line, column, _messages(error))
            raise _Stop from None

    def line_of(self, tag: str) -> int:
        return self.t.record_lines.get(tag, 0)

    @staticmethod
    def column(round_number: int, offset: int = 0) -> int:
        return 92 + 10 * (round_number - 1) + offset

    # -- checks before anything is stored ---------------------------------------------------

    def check_file(self) -> None:
        t = self.t
        for code, points in t.scoring.items():
            if code != "P" and points != FIXED_SCORING[code]:
                self.problem(
                    self.line_of("162"),
                    None,
                    _(
                        "Results here score 1, ½ and 0 (and 0 for an absence): the file "
                        "gives %(code)s %(points)s points."
                    )
                    % {"code": code, "points": points},
                )
        bye = t.scoring.get("P", Decimal(1))
        if bye not in (Decimal(1), Decimal("0.5"), Decimal(0)):
            self.problem(
                self.line_of("162"),
                None,
                _("A pairing-allocated bye scores 1, ½ or 0 points here, not %(points)s.")
                % {"points": bye},
            )
        if t.round_count > MAX_ROUNDS:
            self.problem(
                self.line_of("001"),
                None,
                _("The file has %(rounds)s rounds; an event has at most %(max)s.")
                % {"rounds": t.round_count, "max": MAX_ROUNDS},
            )
        if t.rounds_planned is not None and t.rounds_planned < t.round_count:
            self.problem(
                self.line_of("142") or self.line_of("XXR"),
                5,
                _("The file plans %(planned)s rounds but its players have %(rounds)s.")
                % {"planned": t.rounds_planned, "rounds": t.round_count},
            )

    def note_what_is_not_kept(self) -> None:
        t = self.t
        kept_out = [_(text) for tag, text in NOT_KEPT.items() if tag in t.record_lines]
        if kept_out:
            self.report.notes.append(
                _("Not kept (the league has no place for them): %(fields)s.")
                % {"fields": ", ".join(kept_out)}
            )
        if t.accelerations and not self.baku():
            self.report.notes.append(
                _("The accelerated rounds (250) are not Baku acceleration as this site pairs "
                  "it (FIDE C.04.5.1: group A the top %(group)s start numbers, one point then "
                  "half a point in the first half of the rounds), so they are not kept: the "
                  "event's next rounds are paired without acceleration.")
                % {"group": _baku_group(len(t.players))}
            )  # fmt: skip
        if any(record.sex or record.birth_date for record in t.players):
            self.report.notes.append(
                _("Sex and birth dates are not kept: personal data no page needs.")
            )
        if any(entry.result in "WDL" for record in t.players for entry in record.rounds):
            self.report.notes.append(
                _("Games shorter than one move (W, D, L) are recorded as played games.")
            )
        others = [r for r in t.extension_records if not r.startswith("XXP")]
        if others:
            self.report.notes.append(
                _("%(count)s extension record(s) of other programs are not kept.")
                % {"count": len(others)}
            )

    # -- players ----------------------------------------------------------------------------

    def match_players(self) -> None:
        by_fide = {
            player.fide_id: player
            for player in Player.objects.filter(league=self.league).exclude(fide_id="")
        }
        directory = PlayerDirectory(self.league)
        taken: dict[int, int] = {}  # player id -> line
        for record in sorted(self.t.players, key=lambda r: r.start_number):
            row = PlayerRow(
                line=record.line,
                start_number=record.start_number,
                name=record.name,
                rating=record.rating,
                fide_id=record.fide_id,
                points=record.points,
            )
            self.report.players.append(row)
            found = by_fide.get(record.fide_id) if record.fide_id else None
            if found is not None:
                row.match = MATCH_FIDE
            else:
                for name in _name_forms(record.name):
                    if directory.ambiguous(name):
                        self.problem(
                            record.line,
                            15,
                            _(
                                "Several players of the league are called “%(name)s”; "
                                "give this one's FIDE id or rename one of them first."
                            )
                            % {"name": name},
                        )
                        break
                    found = directory.find(name)
                    if found is not None:
                        break
                if found is not None and found.fide_id and record.fide_id:
                    self.problem(
                        record.line,
                        58,
                        _(
                            "“%(name)s” is the name of %(player)s, whose FIDE id is "
                            "%(theirs)s, not %(ours)s."
                        )
                        % {
                            "name": record.name,
                            "player": found.display_name,
                            "theirs": found.fide_id,
                            "ours": record.fide_id,
                        },
                    )
                    continue
                row.match = MATCH_NEW if found is None else MATCH_NAME
            if found is not None:
                if found.pk in taken:
                    self.problem(
                        record.line,
                        15,
                        _("This is %(player)s again, already on line %(other)s.")
                        % {"player": found.display_name, "other": taken[found.pk]},
                    )
                    continue
                taken[found.pk] = record.line
                row.player = found.display_name
                self.players[record.start_number] = found
            else:
                row.player = record.name

    def register_and_identify(self) -> None:
        for record in sorted(self.t.players, key=lambda r: r.start_number):
            player = self.players.get(record.start_number)
            if player is None:
                player = self.attempt(
                    record.line,
                    15,
                    partial(register_player, self.league, record.name, recorded_by=self.user),
                )
                self.players[record.start_number] = player
            details = (
                record.fide_id or player.fide_id,
                record.federation or player.federation,
                record.title or player.title,
            )
            if details != (player.fide_id, player.federation, player.title):
                self.attempt(
                    record.line,
                    58,
                    partial(
                        identify_player,
                        self.league,
                        player,
                        fide_id=details[0],
                        federation=details[1],
                        title=details[2],
                        recorded_by=self.user,
                    ),
                )

    # -- the event --------------------------------------------------------------------------

    def competition(self, slug: str | None) -> Competition:
        t = self.t
        existing = (
            Competition.objects.filter(league=self.league, slug=slug).first() if slug else None
        )
        if existing is not None:
            self.report.slug, self.report.name = existing.slug, existing.name
            if self.baku() and not existing.accelerated:
                self.report.notes.append(
                    _("%(event)s is not paired with Baku acceleration; its setting stays, "
                      "and the file's 250 records are not kept.") % {"event": existing.name}
                )  # fmt: skip
            return existing
        name = (t.name or slug or _("Imported event"))[:NAME_MAX]
        address = slug or _free_slug(self.league, name)
        fields: dict[str, tuple[str, int | None]] = {
            "name": ("012", None),
            "slug": ("012", None),
            "planned_rounds": ("142", 5),
            "bye_points": ("162", None),
            "tiebreaks": ("202", 5),
            "start_date": ("042", 5),
            "end_date": ("052", 5),
        }
        # Another program's tie-breaks that this site does not compute (Koya, TPR…) are left
        # out with a note rather than refusing the whole file: the event's table cannot show
        # them anyway.
        known = [code for code in t.tiebreaks if canonical_code(code) in TIEBREAKS]
        unknown = [code for code in t.tiebreaks if canonical_code(code) not in TIEBREAKS]
        if unknown:
            self.report.notes.append(
                _("Tie-breaks this site does not compute are left out: %(codes)s.")
                % {"codes": ", ".join(unknown)}
            )
        accelerated = (
            self.baku() and _format(t) == CompetitionFormat.SWISS and is_chess(self.league.sport)
        )
        if self.baku() and not accelerated:
            self.report.notes.append(
                _("Baku acceleration (250) is kept only for a Swiss event of a chess league; "
                  "this event is paired without it.")
            )  # fmt: skip
        try:
            competition = create_competition(
                self.league,
                name=name,
                slug=address,
                format=_format(t),
                accelerated=accelerated,
                planned_rounds=t.rounds_planned or max(t.round_count, 1),
                bye_points=t.scoring.get("P", Decimal(1)),
                tiebreaks=known,
                start_date=_day(t.start_date),
                end_date=_day(t.end_date),
                recorded_by=self.user,
            )
        except ValidationError as error:
            for name_of_field, messages in error.message_dict.items():
                tag, column = fields.get(name_of_field, ("012", None))
                for message in messages:
                    self.problem(self.line_of(tag) or self.line_of("001"), column, message)
            raise _Stop from None
        self.report.created = True
        self.report.slug, self.report.name = competition.slug, competition.name
        return competition

    def first_round(self, record: trf.PlayerRecord) -> int:
        """The first round the player is in (a game, a forfeit, a U or an H): before it, a
        late entry."""
        for index, entry in enumerate(record.rounds):
            if entry.opponent is not None or entry.result in ("U", "H", "F"):
                return index + 1
        return 1

    def withdrawal_round(self, record: trf.PlayerRecord) -> int | None:
        """The round a player withdrew from: the first of a run of blank rounds (no
        opponent, no result) that lasts to the file's last round, after the player's first
        round (None: no withdrawal; a blank round between two of the player's rounds is a
        zero-point bye)."""
        start = None
        for index in range(len(record.rounds) - 1, -1, -1):
            if not record.rounds[index].absent:
                break
            start = index + 1
        if start is None or start <= self.first_round(record):
            return None
        return start

    def enter(self, competition: Competition, paired: int) -> None:
        entrants = {e.player_id for e in competition.entrants.all()}
        for record in sorted(self.t.players, key=lambda r: r.start_number):
            player = self.players[record.start_number]
            if player.pk in entrants:
                continue
            start = max(self.first_round(record), paired + 1)
            if start > competition.planned_rounds:
                start = competition.planned_rounds
            self.attempt(
                record.line,
                49,
                partial(
                    enter_player,
                    competition,
                    player,
                    from_round=start,
                    seed_rating=record.rating,
                    recorded_by=self.user,
                ),
            )

    def moment(self, round_number: int) -> dt.datetime:
        """Noon of the round's day (record 132), else of the start date, else today."""
        zone = league_zone(self.league)
        dates = self.t.round_dates
        text = dates[round_number - 1] if round_number <= len(dates) else ""
        day = _day("20" + text) if text else None
        day = day or _day(self.t.start_date) or league_day(self.league, timezone.now())
        return local_noon(day, zone)

    def games(self, round_number: int) -> list[tuple[trf.PlayerRecord, trf.PlayerRecord]]:
        """The round's games as (first-named, second) records: White first; a forfeit
        without colours has the lower start number first."""
        index = round_number - 1
        games = []
        for record in sorted(self.t.players, key=lambda r: r.start_number):
            entry = record.rounds[index]
            if entry.opponent is None:
                continue
            other = self.records[entry.opponent]
            if entry.colour == "w" or (
                entry.colour == "-" and record.start_number < other.start_number
            ):
                games.append((record, other))
        return games

    def check_existing(self, competition: Competition) -> int:
        """The event's published rounds against the file's: how many rounds it has."""
        state = competition_state(competition)
        paired = state.rounds_paired
        if paired > self.t.round_count:
            self.problem(
                self.line_of("001"),
                None,
                _("The event has %(paired)s rounds paired; the file has only %(rounds)s.")
                % {"paired": paired, "rounds": self.t.round_count},
            )
        in_file = {player.pk for player in self.players.values()}
        for entrant in state.entrants:
            if entrant.player_id not in in_file:
                self.problem(
                    0,
                    None,
                    _("%(player)s is entered in the event but not in the file.")
                    % {"player": entrant.name},
                )
        number_of = {player.pk: number for number, player in self.players.items()}
        for entrant in state.entrants:
            number = number_of.get(entrant.player_id)
            if number is None:
                continue
            record = self.records[number]
            for entry in entrant.rounds[: self.t.round_count]:
                mine = record.rounds[entry.round_number - 1]
                theirs = (
                    None if entry.opponent_id is None else number_of.get(entry.opponent_id),
                    "-" if entry.side is None else ("w" if entry.side == "first" else "b"),
                    entry_code(entry, entrant.withdrawn_from_round),
                )
                written = (mine.opponent, mine.colour, mine.result)
                to_record = theirs[2] == trf.PENDING and mine.result != trf.PENDING
                if written[:2] == theirs[:2] and (written[2] == theirs[2] or to_record):
                    continue
                if theirs[2] in "1=0" and mine.result in "WDL" and written[:2] == theirs[:2]:
                    continue
                self.problem(
                    record.line,
                    self.column(entry.round_number),
                    _(
                        "Round %(round)s of the event has “%(event)s” for %(player)s; the file "
                        "has “%(file)s”."
                    )
                    % {
                        "round": entry.round_number,
                        "event": _entry_text(*theirs),
                        "file": _entry_text(*written),
                        "player": entrant.name,
                    },
                )
        for number, player in self.players.items():
            if player.pk in {e.player_id for e in state.entrants}:
                continue
            record = self.records[number]
            for index in range(min(paired, len(record.rounds))):
                written_entry = record.rounds[index]
                if written_entry.opponent is not None or written_entry.result not in (
                    "Z",
                    trf.PENDING,
                ):
                    self.problem(
                        record.line,
                        self.column(index + 1),
                        _(
                            "%(player)s is not entered in the event, whose round %(round)s "
                            "is already paired."
                        )
                        % {"player": player.display_name, "round": index + 1},
                    )
                    break
        return paired

    def publish(self, competition: Competition, round_number: int) -> None:
        index = round_number - 1
        line = self.line_of("132") or self.line_of("001")
        for record in sorted(self.t.players, key=lambda r: r.start_number):
            entry = record.rounds[index]
            withdrawn = self.withdrawal_round(record)
            if withdrawn == round_number:
                self.attempt(
                    record.line,
                    self.column(round_number),
                    partial(
                        withdraw_player,
                        competition,
                        self.players[record.start_number],
                        from_round=round_number,
                        recorded_by=self.user,
                    ),
                )
                self.report.withdrawals += 1
            if withdrawn is not None and round_number >= withdrawn:
                continue  # withdrawn: not in the round
            # A blank round without an opponent between the player's rounds: a zero-point bye.
            kind = REQUESTED.get("Z" if entry.absent else entry.result)
            if kind is None or entry.opponent is not None:
                continue
            if round_number < self.first_round(record):
                continue  # before a late entry: not in the event yet
            self.attempt(
                record.line,
                self.column(round_number, 7),
                partial(
                    request_bye,
                    competition,
                    self.players[record.start_number],
                    round_number=round_number,
                    kind=kind,
                    recorded_by=self.user,
                ),
            )
            self.report.byes += 1
        games = self.games(round_number)
        allocated = [r for r in self.t.players if r.rounds[index].result == "U"]
        moment = self.moment(round_number)
        try:
            published = publish_round(
                competition,
                round_number,
                [(self.players[a.start_number], self.players[b.start_number]) for a, b in games],
                [self.players[r.start_number] for r in allocated],
                scheduled_at=moment,
                recorded_by=self.user,
            )
        except ValidationError as error:
            for name, messages in error.message_dict.items():
                where = line
                parts = name.split(".")
                if parts[0] == "pairings" and len(parts) > 1 and parts[1].isdigit():
                    where = games[int(parts[1])][0].line
                elif parts[0] == "byes" and allocated:
                    where = allocated[0].line
                for message in messages:
                    self.problem(where, self.column(round_number), message)
            raise _Stop from None
        self.report.byes += len(allocated)
        self.report.rounds_added += 1
        self.results(competition, round_number, published.fixtures)

    def results(self, competition: Competition, round_number: int, fixtures: list[Any]) -> None:
        """Record the round's results that the event does not have yet."""
        index = round_number - 1
        number_of = {player.pk: number for number, player in self.players.items()}
        state = {(e.player_id): e.rounds[index] for e in competition_state(competition).entrants}
        moment = self.moment(round_number)
        for fixture in fixtures:
            if fixture.cancelled:
                continue
            first = self.records[number_of[fixture.player_a_id]]
            entry = first.rounds[index]
            if entry.result == trf.PENDING or state[fixture.player_a_id].outcome != "pending":
                continue
            self.report.games += 1
            if entry.result in SCORE_OF:
                self.attempt(
                    first.line,
                    self.column(round_number, 7),
                    partial(
                        record_fixture_result,
                        self.league,
                        fixture,
                        score_a=SCORE_OF[entry.result],
                        played_at=min(moment, timezone.now()),
                        recorded_by=self.user,
                    ),
                )
                self.report.results += 1
            else:
                winner = None
                if entry.result == "+":
                    winner = fixture.player_a
                elif self.records[number_of[fixture.player_b_id]].rounds[index].result == "+":
                    winner = fixture.player_b
                self.attempt(
                    first.line,
                    self.column(round_number, 7),
                    partial(
                        record_forfeit, competition, fixture, winner=winner, recorded_by=self.user
                    ),
                )
                self.report.forfeits += 1

    def xxp_rules(self, planned_rounds: int) -> list[trf.ProhibitedPairing]:
        """TRF(x)'s ``XXP`` records (JaVaFo, bbpPairings): players who must not meet in any
        round of the event, as prohibited pairings of every round."""
        rules = []
        line = self.line_of("XXP")
        for record in self.t.extension_records:
            if not record.startswith("XXP"):
                continue
            tokens = record[3:].split()
            starts = [int(token) for token in tokens if token.isdigit()]
            unknown = [t for t in tokens if not t.isdigit() or int(t) not in self.records]
            if unknown or len(starts) < 2:
                self.problem(
                    line,
                    None,
                    _(
                        "An XXP record names two start numbers of the file or more; "
                        "“%(record)s” does not."
                    )
                    % {"record": record[:60]},
                )
                raise _Stop
            rules.append(trf.ProhibitedPairing(1, planned_rounds, tuple(starts), line=line))
        return rules

    def forbidden(self, competition: Competition) -> None:
        """Prohibited pairings (record 260, and XXP for the whole event), each once: one the
        event has already (or that earlier records of the file cover) is kept, not stored
        again."""
        known = list(forbidden_pairs(competition))
        for rule in [*self.t.prohibited, *self.xxp_rules(competition.planned_rounds)]:
            players = tuple(self.players[start].pk for start in rule.start_numbers)
            if (players, rule.first_round, rule.last_round) in known or (
                len(set(players)) == len(players)
                and forbids_nothing_new(known, players, rule.first_round, rule.last_round)
            ):
                continue
            known.append((players, rule.first_round, rule.last_round))
            self.attempt(
                rule.line or self.line_of("260"),
                None,
                partial(
                    forbid_pairing,
                    competition,
                    list(players),
                    first_round=rule.first_round,
                    last_round=rule.last_round,
                    recorded_by=self.user,
                ),
            )
            self.report.forbidden += 1

    def future_byes(self, competition: Competition) -> None:
        """Byes of record 240 for rounds after the file's last: requested now."""
        for bye in self.t.byes:
            if bye.round_number <= self.t.round_count or bye.kind not in REQUESTED:
                continue
            for start in bye.start_numbers:
                self.attempt(
                    self.line_of("240"),
                    None,
                    partial(
                        request_bye,
                        competition,
                        self.players[start],
                        round_number=bye.round_number,
                        kind=REQUESTED[bye.kind],
                        recorded_by=self.user,
                    ),
                )
                self.report.byes += 1

    def run(self, slug: str | None) -> None:
        self.check_file()
        self.note_what_is_not_kept()
        if self.report.problems:
            return
        self.match_players()
        if self.report.problems:
            return
        competition = self.competition(slug)
        self.register_and_identify()
        paired = 0
        if not self.report.created:
            paired = self.check_existing(competition)
            if self.report.problems:
                return
        self.enter(competition, paired)
        self.forbidden(competition)
        for round_number in range(1, paired + 1):
            fixtures = list(
                competition.fixtures.filter(round_number=round_number).select_related(
                    "player_a", "player_b"
                )
            )
            self.results(competition, round_number, fixtures)
        for round_number in range(paired + 1, self.t.round_count + 1):
            self.publish(competition, round_number)
            competition.refresh_from_db()
        self.future_byes(competition)


def _name_forms(name: str) -> list[str]:
    """The name as written, then "Lastname, Firstname" as "Firstname Lastname"."""
    forms = [name]
    if name.count(",") == 1:
        last, first = (part.strip() for part in name.split(","))
        if last and first:
            forms.append(f"{first} {last}")
    return forms


def _entry_text(opponent: int | None, colour: str, result: str) -> str:
    return f"{opponent or '0000'} {colour} {result}".rstrip()


def _virtual_points(
    records: Iterable[tuple[Fraction, int, int, int, int]],
) -> dict[tuple[int, int], Fraction]:
    """The virtual points 250 records give: (start number, round) -> points."""
    points: dict[tuple[int, int], Fraction] = {}
    for value, first_round, last_round, first_player, last_player in records:
        for round_number in range(first_round, last_round + 1):
            for number in range(first_player, last_player + 1):
                key = (number, round_number)
                points[key] = points.get(key, Fraction(0)) + value
    return {key: value for key, value in points.items() if value}


def _baku_group(field_size: int) -> int:
    """The size of Baku acceleration's group A (C.04.5.1) in a field of ``field_size``."""
    return min(field_size, 2 * -(-field_size // 4))


def _format(t: trf.Tournament) -> str:
    words = set(slugify(t.tournament_type).split("-"))
    if {"round", "robin"} <= words or "roundrobin" in words:
        return CompetitionFormat.ROUND_ROBIN
    return CompetitionFormat.SWISS


def _day(text: str) -> dt.date | None:
    try:
        return dt.datetime.strptime(text, "%Y/%m/%d").date()
    except ValueError:
        return None


def _free_slug(league: League, name: str) -> str:
    base = (slugify(name) or "event")[: SLUG_MAX - 4]
    taken = set(
        Competition.objects.filter(league=league, slug__startswith=base).values_list(
            "slug", flat=True
        )
    )
    slug, counter = base, 2
    while slug in taken:
        slug, counter = f"{base}-{counter}", counter + 1
    return slug


@contextmanager
def _rolled_back_unless(keep: Callable[[], bool]) -> Iterator[None]:
    with transaction.atomic():
        yield
        if not keep():
            transaction.set_rollback(True)


def import_trf(
    league: League,
    data: bytes,
    *,
    event_slug: str | None = None,
    recorded_by: Any = None,
    dry_run: bool = False,
) -> TrfImportReport:
    """Import the TRF file ``data`` into ``league``: into the event ``event_slug`` (created
    if the league has none at that address, else filled), or a new event named after the
    file. Returns the report; nothing was stored unless ``report.committed``."""
    report = TrfImportReport(dry_run=dry_run)
    try:
        tournament = trf.read(data)
    except trf.TrfError as error:
        report.problems = [
            ImportProblem(p.line, p.column, problem_message(p)) for p in error.problems
        ]
        return report
    report.rounds = tournament.round_count
    with _rolled_back_unless(lambda: report.committed), suppress(_Stop):
        _Import(league, tournament, report, recorded_by).run(event_slug)
    report.problems.sort(key=lambda p: (p.line, p.column or 0))
    return report
