"""FIDE Tournament Report Files (TRF-2026 and TRF(x)): dataclasses, a writer and a strict reader.

Pure Python, no Django: the management commands, the workspace upload and the benchmark all
go through :func:`read` and :func:`write`. The layout is FIDE's "Format of Tournament Report
File, Version 2026" (handbook C.04 annex, applied from 2025-09-01); TRF(x) is the flavour the
pairing engines JaVaFo and bbpPairings read: ``XXR`` for the number of rounds and ``XXC
white1``/``black1`` for the colour of the first player in round 1, where TRF-2026 has the
records ``142`` and ``152``.

Columns in this module are 1-based, as in the specification; Python slices are 0-based, so a
field at columns 5-8 is ``line[4:8]``.

The reader is strict: a file is accepted whole or not at all, and every problem it finds is
reported with its line (and column where one field is at fault), up to :data:`MAX_PROBLEMS`.
Messages are English templates marked with ``gettext_noop`` so that the Django layer can
translate them (``gettext(problem.template) % problem.params``) while this module stays pure.

One convention goes beyond the specification, for in-tournament data exchange: a game that
is paired but not yet played is written on both players' lines with the opponent and colour
and a blank result (a blank result without an opponent stays a zero-point bye). Any round may
hold such games, since results come in one at a time; they count for no points.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from decimal import Decimal
from typing import Literal

#: Files larger than this are refused before a byte of them is parsed (9,999 players and 40
#: rounds fit in under 5 MB).
MAX_FILE_BYTES = 5 * 1024 * 1024
#: The reader stops collecting problems after this many (the file is refused either way).
MAX_PROBLEMS = 200

Flavour = Literal["trf-2026", "trf-x", "trf-bx"]
TRF_2026: Flavour = "trf-2026"
#: JaVaFo's TRF(x): XXR and XXC instead of 142 and 152, XXA for accelerations.
TRF_X: Flavour = "trf-x"
#: bbpPairings' TRF(bx): TRF(x) with the point system spelt out (BBW, BBD, BBL, BBZ, BBF,
#: BBU: a win, a draw, a played loss, a zero-point bye, a forfeit loss, the pairing's bye).
TRF_BX: Flavour = "trf-bx"
#: Every flavour the writer writes, the default first.
FLAVOURS: tuple[Flavour, ...] = (TRF_2026, TRF_X, TRF_BX)

#: Result codes of a round (the specification lets letters be either case; stored upper).
#: A blank result is a zero-point bye, or, with an opponent, a game not yet played.
RESULT_CODES = frozenset("+-WDL1=0HFUZ ")
#: Results of a game played over the board, with the code the opponent must have.
PLAYED_OPPOSITE = {"1": "0", "0": "1", "=": "=", "W": "L", "L": "W", "D": "D"}
#: Forfeits (``-`` against ``-`` is a double forfeit).
FORFEIT_OPPOSITE = {"+": "-", "-": "+"}
#: Results that need no opponent: byes and absences.
BYE_RESULTS = frozenset("HFUZ ")
PENDING = " "

#: Scoring categories of record 162 for each result code, and their default points.
SCORE_CATEGORY = {
    "1": "W",
    "+": "W",
    "W": "W",
    "F": "W",
    "U": "P",
    "=": "D",
    "D": "D",
    "H": "D",
    "0": "L",
    "L": "L",
    "-": "A",
    "Z": "A",
    " ": "A",
}
DEFAULT_SCORING: dict[str, Decimal] = {
    "W": Decimal("1"),
    "D": Decimal("0.5"),
    "L": Decimal("0"),
    "A": Decimal("0"),
}

TITLES = ("GM", "IM", "FM", "CM", "WGM", "WIM", "WFM", "WCM")
#: The one- and two-letter titles of TRF16 files, read as their TRF-2026 spelling.
LEGACY_TITLES = {"G": "GM", "M": "IM", "F": "FM", "C": "CM", "WG": "WGM", "WM": "WIM"}
LEGACY_TITLES |= {"WF": "WFM", "WC": "WCM"}

#: Separator columns of a 001 record that must be blank (1-based).
_PLAYER_GAPS = (4, 9, 14, 48, 53, 57, 69, 80, 85, 90, 91)
_ROUND_START = 92  # column of round 1's opponent; each round takes 10 columns
_ROUND_WIDTH = 10

_DATE = re.compile(r"\d{4}/\d{2}/\d{2}")
_BIRTH = re.compile(r"\d{4}(/\d{2}/\d{2})?")
_POINTS = re.compile(r"\d{1,3}(\.\d)?")
_FEDERATION = re.compile(r"[A-Za-z]{3}")
_TIEBREAK = re.compile(r"[A-Za-z][A-Za-z0-9/#:.\-]*")


def gettext_noop(message: str) -> str:
    """Mark ``message`` for translation without translating it (the Django layer does)."""
    return message


@dataclass(frozen=True)
class RoundEntry:
    """One player's round: opponent's start number (``None`` for none), colour, result.

    ``colour`` is ``"w"``, ``"b"`` or ``"-"``; ``result`` one of :data:`RESULT_CODES`.
    """

    opponent: int | None = None
    colour: str = "-"
    result: str = "Z"

    @property
    def pending(self) -> bool:
        """A game paired but not yet played (an opponent and a blank result)."""
        return self.opponent is not None and self.result == PENDING

    @property
    def absent(self) -> bool:
        """Not paired, written blank (no opponent, no result): worth what ``Z`` is; a run of
        them to the player's last round is a withdrawal."""
        return self.opponent is None and self.result == PENDING

    @property
    def played(self) -> bool:
        """A game played over the board (whatever its length)."""
        return self.opponent is not None and self.result in PLAYED_OPPOSITE


@dataclass
class PlayerRecord:
    """A 001 record: the player's data and their rounds (round 1 first)."""

    start_number: int
    name: str
    sex: str = ""
    title: str = ""
    rating: int | None = None
    federation: str = ""
    fide_id: str = ""
    birth_date: str = ""
    points: Decimal = Decimal("0")
    rank: int | None = None
    rounds: list[RoundEntry] = field(default_factory=list)
    #: The line the record was read from (0: not read from a file); not part of the data.
    line: int = field(default=0, compare=False)


@dataclass(frozen=True)
class ByeRecord:
    """A 240 record: byes of type ``F``, ``H`` or ``Z`` requested for a round."""

    kind: str
    round_number: int
    start_numbers: tuple[int, ...]


@dataclass(frozen=True)
class AccelerationRecord:
    """A 250 record: fictitious points for players ``first``-``last`` in rounds ``from``-``to``."""

    points: Decimal
    first_round: int
    last_round: int
    first_player: int
    last_player: int


@dataclass(frozen=True)
class ProhibitedPairing:
    """A 260 record: these players must not meet in rounds ``first_round``-``last_round``."""

    first_round: int
    last_round: int
    start_numbers: tuple[int, ...]
    #: The line it was read from (0: not read from a file).
    line: int = field(default=0, compare=False)


@dataclass
class Tournament:
    """A tournament as a TRF file holds it (header records, then players).

    ``rounds_planned`` is record 142 (``XXR`` in TRF(x)); ``initial_colour`` record 152
    (``XXC white1``/``black1``), ``"W"``, ``"B"`` or blank. ``scoring`` holds only the
    points that differ from :data:`DEFAULT_SCORING` (record 162). ``extension_records`` keeps
    the lines of other programs' extensions (``XX?``, ``BB?``, national rating records) as
    read, so that they can be written back.
    """

    name: str = ""
    city: str = ""
    federation: str = ""
    start_date: str = ""
    end_date: str = ""
    player_count: int | None = None
    rated_player_count: int | None = None
    tournament_type: str = ""
    chief_arbiter: str = ""
    deputy_arbiters: list[str] = field(default_factory=list)
    time_control: str = ""
    round_dates: list[str] = field(default_factory=list)
    rounds_planned: int | None = None
    initial_colour: str = ""
    scoring: dict[str, Decimal] = field(default_factory=dict)
    pairing_controller: str = ""
    encoded_type: str = ""
    tiebreaks: list[str] = field(default_factory=list)
    standings_tiebreaks: list[str] = field(default_factory=list)
    encoded_time_control: str = ""
    byes: list[ByeRecord] = field(default_factory=list)
    accelerations: list[AccelerationRecord] = field(default_factory=list)
    prohibited: list[ProhibitedPairing] = field(default_factory=list)
    extension_records: list[str] = field(default_factory=list)
    players: list[PlayerRecord] = field(default_factory=list)
    #: The line each record code was first read from (``{"012": 1, "142": 9}``); not data.
    record_lines: dict[str, int] = field(default_factory=dict, compare=False)

    @property
    def round_count(self) -> int:
        """How many rounds the players' records hold (paired, played or pending)."""
        return max((len(p.rounds) for p in self.players), default=0)

    @property
    def pending_round(self) -> int | None:
        """The last round, if any of its games is not yet played."""
        rounds = self.round_count
        for player in self.players:
            if len(player.rounds) == rounds and player.rounds[-1].pending:
                return rounds
        return None

    def points_for(self, result: str) -> Decimal:
        """The points a result code brings under this tournament's scoring (record 162)."""
        if result == PENDING:
            return Decimal("0")
        category = SCORE_CATEGORY[result]
        if category == "P":
            return self.scoring.get("P", self.scoring.get("W", DEFAULT_SCORING["W"]))
        return self.scoring.get(category, DEFAULT_SCORING[category])

    def player(self, start_number: int) -> PlayerRecord | None:
        """The player with this start number, if any."""
        for player in self.players:
            if player.start_number == start_number:
                return player
        return None


@dataclass(frozen=True)
class TrfProblem:
    """Why a file was refused: a line (1-based), maybe a column, and a message template."""

    line: int
    column: int | None
    template: str
    params: Mapping[str, object] = field(default_factory=dict)

    @property
    def message(self) -> str:
        """The message in English (the web layer translates ``template`` instead)."""
        return self.template % dict(self.params)

    def __str__(self) -> str:
        where = (
            f"line {self.line}"
            if self.column is None
            else f"line {self.line}, column {self.column}"
        )
        return f"{where}: {self.message}"


class TrfError(ValueError):
    """A file that is not a valid TRF; ``problems`` says every reason found, in line order."""

    def __init__(self, problems: list[TrfProblem]) -> None:
        self.problems = sorted(problems, key=lambda p: (p.line, p.column or 0))
        super().__init__("; ".join(str(p) for p in self.problems[:5]))


# --------------------------------------------------------------------------------------------
# Writing


def _points_text(points: Decimal) -> str:
    """Points as TRF writes them: one decimal, e.g. ``3.5`` (``11.5`` at most four columns)."""
    return f"{points:.1f}"


def _player_line(player: PlayerRecord, round_count: int) -> str:
    """The 001 record of ``player``, with exactly ``round_count`` round blocks."""
    title = player.title
    line = (
        f"001 {player.start_number:>4} {player.sex or ' ':1}{title:>3} {player.name[:33]:<33} "
        f"{'' if player.rating is None else player.rating:>4} {player.federation:<3} "
        f"{player.fide_id:>11} {player.birth_date:<10} {_points_text(player.points):>4} "
        f"{'' if player.rank is None else player.rank:>4}  "
    )
    blocks = []
    rounds = list(player.rounds[:round_count])
    rounds += [RoundEntry()] * (round_count - len(rounds))
    for entry in rounds:
        opponent = "0000" if entry.opponent is None else f"{entry.opponent:>4}"
        blocks.append(f"{opponent} {entry.colour} {entry.result}")
    return (line + "  ".join(blocks)).rstrip()


def _header_lines(tournament: Tournament, flavour: Flavour) -> list[str]:
    """The tournament section, in the order of the specification."""
    lines: list[str] = []

    def text(tag: str, value: str) -> None:
        if value:
            lines.append(f"{tag} {value}")

    text("012", tournament.name)
    text("022", tournament.city)
    text("032", tournament.federation)
    text("042", tournament.start_date)
    text("052", tournament.end_date)
    text("062", "" if tournament.player_count is None else str(tournament.player_count))
    if tournament.rated_player_count is not None:
        text("072", str(tournament.rated_player_count))
    text("092", tournament.tournament_type)
    text("102", tournament.chief_arbiter)
    for deputy in tournament.deputy_arbiters:
        text("112", deputy)
    text("122", tournament.time_control)
    if any(tournament.round_dates):
        dates = "  ".join(f"{d:<8}" for d in tournament.round_dates)
        lines.append((f"{'132':<91}" + dates).rstrip())
    if flavour == TRF_2026:
        if tournament.rounds_planned is not None:
            text("142", str(tournament.rounds_planned))
        text("152", tournament.initial_colour)
    if tournament.scoring:
        parts = [
            f"{code}{_points_text(points):>4}    "
            for code, points in sorted(
                tournament.scoring.items(), key=lambda kv: "WDLAPX".index(kv[0])
            )
        ]
        lines.append(("162  " + "".join(parts)).rstrip())
    text("182", tournament.pairing_controller)
    text("192", tournament.encoded_type)
    text("202", ",".join(tournament.tiebreaks))
    text("212", ",".join(tournament.standings_tiebreaks))
    text("222", tournament.encoded_time_control)
    if flavour in (TRF_X, TRF_BX):
        if tournament.rounds_planned is not None:
            text("XXR", str(tournament.rounds_planned))
        if tournament.initial_colour:
            text("XXC", "white1" if tournament.initial_colour == "W" else "black1")
    if flavour == TRF_BX:
        for tag, result in (("BBW", "1"), ("BBD", "="), ("BBL", "0"), ("BBZ", "Z"),
                            ("BBF", "-"), ("BBU", "U")):  # fmt: skip
            lines.append(f"{tag} {_points_text(tournament.points_for(result)):>4}")
    return lines


def _xxa_lines(tournament: Tournament) -> list[str]:
    """TRF(x)'s accelerations: per player, the virtual points of each round (250 records'
    rounds and players, added up), one ``XXA`` line for each player who has any."""
    rounds = max((acc.last_round for acc in tournament.accelerations), default=0)
    points: dict[int, list[Decimal]] = {}
    for acc in tournament.accelerations:
        for number in range(acc.first_player, acc.last_player + 1):
            row = points.setdefault(number, [Decimal(0)] * rounds)
            for round_number in range(acc.first_round, acc.last_round + 1):
                row[round_number - 1] += acc.points
    return [
        f"XXA {number:>4}" + "".join(f" {_points_text(value):>4}" for value in row)
        for number, row in sorted(points.items())
    ]


def write(
    tournament: Tournament, flavour: Flavour = TRF_2026, *, include_pending: bool = True
) -> str:
    """``tournament`` as the text of a TRF file (lines end with CR LF).

    ``include_pending=False`` leaves out the last round when any of its games is not yet
    played (engines that read TRF(x), such as bbpPairings, have no notation for it).
    """
    round_count = tournament.round_count
    if not include_pending and tournament.pending_round is not None:
        round_count -= 1
    lines = _header_lines(tournament, flavour)
    for player in sorted(tournament.players, key=lambda p: p.start_number):
        if round_count < len(player.rounds):
            # The left-out pending round's byes (U, H, F) are not in the points either.
            dropped = player.rounds[round_count:]
            points = player.points - sum(
                (tournament.points_for(e.result) for e in dropped), Decimal(0)
            )
            player = replace(player, points=points)
        lines.append(_player_line(player, round_count))
    for bye in tournament.byes:
        if bye.round_number <= round_count or include_pending:
            numbers = "".join(f" {n:>4}" for n in bye.start_numbers)
            lines.append(f"240 {bye.kind} {bye.round_number:>3}{numbers}")
    if flavour == TRF_2026:
        for acc in tournament.accelerations:
            lines.append(
                f"250      {_points_text(acc.points):>4} {acc.first_round:03} "
                f"{acc.last_round:03} {acc.first_player:04} {acc.last_player:04}"
            )
    else:
        lines.extend(_xxa_lines(tournament))
    for rule in tournament.prohibited:
        numbers = "".join(f" {n:>4}" for n in rule.start_numbers)
        lines.append(f"260 {rule.first_round:03} {rule.last_round:03}{numbers}")
    lines.extend(tournament.extension_records)
    return "".join(line + "\r\n" for line in lines)


# --------------------------------------------------------------------------------------------
# Reading


class _Reader:
    """One pass over a file's lines, collecting problems rather than stopping at the first."""

    def __init__(self) -> None:
        self.problems: list[TrfProblem] = []
        self.tournament = Tournament()
        self.player_lines: dict[int, int] = {}
        self.count_line = 0
        #: Lines of 240, 250 and 260 records and the start numbers they name.
        self.references: list[tuple[int, tuple[int, ...]]] = []

    def problem(self, line: int, column: int | None, template: str, /, **params: object) -> None:
        if len(self.problems) < MAX_PROBLEMS:
            self.problems.append(TrfProblem(line, column, template, params))

    # -- fields -----------------------------------------------------------------------------

    def integer(
        self, text: str, number: int, column: int, what: str, low: int = 0, high: int = 9999
    ) -> int | None:
        """An integer field (right-justified, blank allowed as ``None``)."""
        value = text.strip()
        if not value:
            return None
        if not value.isdigit() or not low <= int(value) <= high:
            self.problem(
                number,
                column,
                gettext_noop(
                    "%(field)s must be a whole number from %(low)s to %(high)s, not “%(value)s”."
                ),
                field=what,
                low=low,
                high=high,
                value=value,
            )
            return None
        return int(value)

    def required(self, text: str, number: int, column: int, what: str, high: int) -> int | None:
        """A field that must hold a whole number from 1 to ``high``."""
        if not text.strip():
            self.problem(number, column, gettext_noop("%(field)s is missing."), field=what)
            return None
        return self.integer(text, number, column, what, 1, high)

    def points(self, text: str, number: int, column: int, what: str) -> Decimal | None:
        value = text.strip()
        if not _POINTS.fullmatch(value):
            self.problem(
                number,
                column,
                gettext_noop("%(field)s must be points such as 3.5, not “%(value)s”."),
                field=what,
                value=value,
            )
            return None
        return Decimal(value)

    # -- records ----------------------------------------------------------------------------

    def player(self, line: str, number: int) -> None:
        if len(line) < 84:
            self.problem(
                number,
                len(line) + 1,
                gettext_noop(
                    "A player record (001) needs at least 84 columns (up to the points); "
                    "this one has %(length)s."
                ),
                length=len(line),
            )
            return
        padded = line.ljust(91)
        for column in _PLAYER_GAPS:
            if padded[column - 1] != " ":
                self.problem(
                    number,
                    column,
                    gettext_noop(
                        "Column %(column)s must be blank: "
                        "the fields of a player record are misaligned."
                    ),
                    column=column,
                )
                return
        start = self.integer(padded[4:8], number, 5, gettext_noop("The start number"), 1, 9999)
        sex = padded[9].lower()
        if sex not in ("m", "w", " "):
            self.problem(
                number,
                10,
                gettext_noop("The sex must be m, w or blank, not “%(value)s”."),
                value=padded[9],
            )
        title = padded[10:13].strip().upper()
        title = LEGACY_TITLES.get(title, title)
        if title and title not in TITLES:
            self.problem(
                number,
                11,
                gettext_noop(
                    "Unknown title “%(value)s” (GM, IM, FM, CM, WGM, WIM, WFM, WCM or blank)."
                ),
                value=padded[10:13].strip(),
            )
        name = padded[14:47].strip()
        if not name:
            self.problem(number, 15, gettext_noop("The player's name (columns 15-47) is blank."))
        rating = self.integer(padded[48:52], number, 49, gettext_noop("The rating"))
        federation = padded[53:56].strip()
        if federation and not _FEDERATION.fullmatch(federation):
            self.problem(
                number,
                54,
                gettext_noop("The federation must be three letters, not “%(value)s”."),
                value=federation,
            )
        fide_id = padded[57:68].strip()
        if fide_id and not fide_id.isdigit():
            self.problem(
                number,
                58,
                gettext_noop("The FIDE number must be digits, not “%(value)s”."),
                value=fide_id,
            )
        birth = padded[69:79].strip()
        if birth and not _BIRTH.fullmatch(birth):
            self.problem(
                number,
                70,
                gettext_noop("The birth date must be YYYY/MM/DD or YYYY, not “%(value)s”."),
                value=birth,
            )
        points = self.points(padded[80:84], number, 81, gettext_noop("The points"))
        rank = self.integer(padded[85:89], number, 86, gettext_noop("The rank"), 1, 9999)
        rounds = self.rounds(line, number)
        if start is None or points is None or rounds is None:
            return
        if start in self.player_lines:
            self.problem(
                number,
                5,
                gettext_noop("Start number %(start)s is already used on line %(other)s."),
                start=start,
                other=self.player_lines[start],
            )
            return
        self.player_lines[start] = number
        self.tournament.players.append(
            PlayerRecord(
                start_number=start,
                name=name,
                sex=sex.strip(),
                title=title,
                rating=rating,
                federation=federation.upper(),
                fide_id=fide_id,
                birth_date=birth,
                points=points,
                rank=rank,
                rounds=rounds,
                line=number,
            )
        )

    def rounds(self, line: str, number: int) -> list[RoundEntry] | None:
        entries: list[RoundEntry] = []
        ok = True
        column = _ROUND_START
        while column <= len(line):
            block = line[column - 1 : column - 1 + _ROUND_WIDTH].ljust(_ROUND_WIDTH)
            entry = self.round_block(block, number, column)
            if entry is None:
                ok = False
            else:
                entries.append(entry)
            column += _ROUND_WIDTH
        # Rounds left out at the end of a line are rounds the player was not paired in.
        while entries and entries[-1] == RoundEntry() and ok:
            entries.pop()
        return entries if ok else None

    def round_block(self, block: str, number: int, column: int) -> RoundEntry | None:
        for offset in (4, 6, 8, 9):
            if block[offset] != " ":
                self.problem(
                    number,
                    column + offset,
                    gettext_noop(
                        "Column %(column)s must be blank: the round results are misaligned."
                    ),
                    column=column + offset,
                )
                return None
        opponent: int | None = None
        if block[0:4].strip().strip("0"):  # blank and 0000 both mean "no opponent"
            opponent = self.integer(
                block[0:4], number, column, gettext_noop("The opponent"), 1, 9999
            )
            if opponent is None:
                return None
        colour = block[5].lower()
        if colour not in ("w", "b", "-", " "):
            self.problem(
                number,
                column + 5,
                gettext_noop("Unknown colour “%(value)s”: w, b, - or blank."),
                value=block[5],
            )
            return None
        colour = "-" if colour == " " else colour
        result = block[7].upper()
        if result not in RESULT_CODES:
            self.problem(
                number,
                column + 7,
                gettext_noop(
                    "Unknown result code “%(value)s”: one of 1 0 = + - W D L H F U Z or blank."
                ),
                value=block[7],
            )
            return None
        round_number = (column - _ROUND_START) // _ROUND_WIDTH + 1
        if opponent is None:
            if colour != "-":
                self.problem(
                    number,
                    column + 5,
                    gettext_noop("Round %(round)s has a colour but no opponent."),
                    round=round_number,
                )
                return None
            if result in PLAYED_OPPOSITE or result == "+":
                self.problem(
                    number,
                    column + 7,
                    gettext_noop("Round %(round)s has the result “%(value)s” but no opponent."),
                    round=round_number,
                    value=result,
                )
                return None
            # A blank result without an opponent stays blank: TRF-2026 reads it as Z (a known
            # absence, no points); the import reads a run of them to the end of a player's
            # rounds as a withdrawal (``RoundEntry.absent``).
        else:
            if result in BYE_RESULTS and result != PENDING:
                self.problem(
                    number,
                    column + 7,
                    gettext_noop(
                        "Round %(round)s is a bye (“%(value)s”) but names opponent %(opponent)s."
                    ),
                    round=round_number,
                    value=result,
                    opponent=opponent,
                )
                return None
            if colour == "-" and result not in FORFEIT_OPPOSITE:
                self.problem(
                    number,
                    column + 5,
                    gettext_noop("Round %(round)s against %(opponent)s needs a colour, w or b."),
                    round=round_number,
                    opponent=opponent,
                )
                return None
        return RoundEntry(opponent, colour, result)

    def text(self, line: str) -> str:
        return line[4:].strip()

    def header(self, tag: str, line: str, number: int) -> None:
        t = self.tournament
        value = self.text(line)
        if tag == "012":
            t.name = value
        elif tag == "022":
            t.city = value
        elif tag == "032":
            t.federation = value
        elif tag in ("042", "052"):
            if value and not _DATE.fullmatch(value):
                self.problem(
                    number,
                    5,
                    gettext_noop("A date must be YYYY/MM/DD, not “%(value)s”."),
                    value=value,
                )
            elif tag == "042":
                t.start_date = value
            else:
                t.end_date = value
        elif tag == "062":
            self.count_line = number
            t.player_count = self.integer(
                line[4:], number, 5, gettext_noop("The number of players")
            )
        elif tag == "072":
            t.rated_player_count = self.integer(
                line[4:], number, 5, gettext_noop("The number of rated players")
            )
        elif tag == "092":
            t.tournament_type = value
        elif tag == "102":
            t.chief_arbiter = value
        elif tag == "112":
            t.deputy_arbiters.append(value)
        elif tag == "122":
            t.time_control = value
        elif tag == "132":
            self.round_dates(line, number)
        elif tag in ("142", "XXR"):
            rounds = self.integer(line[4:], number, 5, gettext_noop("The number of rounds"), 1, 999)
            if rounds is not None:
                t.rounds_planned = rounds
        elif tag == "152":
            if value not in ("W", "B"):
                self.problem(
                    number,
                    5,
                    gettext_noop("The initial colour must be W or B, not “%(value)s”."),
                    value=value,
                )
            else:
                t.initial_colour = value
        elif tag == "XXC":
            self.xxc(value, number)
        elif tag == "162":
            self.scoring(line, number)
        elif tag == "182":
            t.pairing_controller = value
        elif tag == "192":
            t.encoded_type = value
        elif tag in ("202", "212"):
            codes = [code.strip() for code in value.split(",") if code.strip()]
            for code in codes:
                if not _TIEBREAK.fullmatch(code):
                    self.problem(
                        number, 5, gettext_noop("“%(value)s” is not a tie-break code."), value=code
                    )
            if tag == "202":
                t.tiebreaks = codes
            else:
                t.standings_tiebreaks = codes
        elif tag == "222":
            t.encoded_time_control = value
        else:
            # Records this module does not interpret (082, 172, ...): kept to be written back.
            t.extension_records.append(line.rstrip())

    def round_dates(self, line: str, number: int) -> None:
        dates: list[str] = []
        column = _ROUND_START
        while column <= len(line):
            date = line[column - 1 : column + 7].strip()
            if date and not re.fullmatch(r"\d{2}/\d{2}/\d{2}", date):
                self.problem(
                    number,
                    column,
                    gettext_noop("A round date must be YY/MM/DD, not “%(value)s”."),
                    value=date,
                )
            dates.append(date)
            column += _ROUND_WIDTH
        self.tournament.round_dates = dates

    def xxc(self, value: str, number: int) -> None:
        for token in value.split():
            if token == "white1":
                self.tournament.initial_colour = "W"
            elif token == "black1":
                self.tournament.initial_colour = "B"
            elif token != "rank":
                self.problem(
                    number,
                    5,
                    gettext_noop("Unknown XXC option “%(value)s” (white1, black1 or rank)."),
                    value=token,
                )

    def scoring(self, line: str, number: int) -> None:
        column = 6
        while column <= len(line):
            code = line[column - 1]
            if code == " " and not line[column - 1 : column + 4].strip():
                column += 9
                continue
            if code not in "WDLAPX":
                self.problem(
                    number,
                    column,
                    gettext_noop("Unknown scoring code “%(value)s” (W, D, L, A, P or X)."),
                    value=code,
                )
                return
            points = self.points(
                line[column : column + 4], number, column + 1, gettext_noop("The points")
            )
            if points is None:
                return
            if code != "X":
                self.tournament.scoring[code] = points
            column += 9

    def byes(self, line: str, number: int) -> None:
        kind = line[4:5].upper()
        if kind not in ("F", "H", "Z"):
            self.problem(
                number,
                5,
                gettext_noop("A bye (240) must be of type F, H or Z, not “%(value)s”."),
                value=kind,
            )
            return
        round_number = self.required(line[6:9], number, 7, gettext_noop("The round"), 999)
        starts = []
        column = 11
        while column <= len(line):
            start = self.integer(
                line[column - 1 : column + 3],
                number,
                column,
                gettext_noop("The start number"),
                1,
                9999,
            )
            if start is not None:
                starts.append(start)
            column += 5
        if round_number is not None and starts:
            self.tournament.byes.append(ByeRecord(kind, round_number, tuple(starts)))
            self.references.append((number, tuple(starts)))

    def acceleration(self, line: str, number: int) -> None:
        points = self.points(line[9:13], number, 10, gettext_noop("The fictitious points"))
        first_round = self.required(line[14:17], number, 15, gettext_noop("The first round"), 999)
        last_round = self.required(line[18:21], number, 19, gettext_noop("The last round"), 999)
        first = self.required(line[22:26], number, 23, gettext_noop("The first player"), 9999)
        last = self.required(line[27:31], number, 28, gettext_noop("The last player"), 9999)
        if (
            points is None
            or first_round is None
            or last_round is None
            or first is None
            or last is None
        ):
            return
        self.tournament.accelerations.append(
            AccelerationRecord(points, first_round, last_round, first, last)
        )
        self.references.append((number, (first, last)))

    def prohibition(self, line: str, number: int) -> None:
        first_round = self.required(line[4:7], number, 5, gettext_noop("The first round"), 999)
        last_round = self.required(line[8:11], number, 9, gettext_noop("The last round"), 999)
        starts = []
        column = 13
        while column <= len(line):
            start = self.integer(
                line[column - 1 : column + 3],
                number,
                column,
                gettext_noop("The start number"),
                1,
                9999,
            )
            if start is not None:
                starts.append(start)
            column += 5
        if len(starts) < 2:
            self.problem(
                number, 13, gettext_noop("A prohibited pairing (260) needs at least two players.")
            )
        elif first_round and last_round:
            self.tournament.prohibited.append(
                ProhibitedPairing(first_round, last_round, tuple(starts), line=number)
            )
            self.references.append((number, tuple(starts)))

    # -- the whole file ---------------------------------------------------------------------

    def line(self, line: str, number: int) -> None:
        if not line.strip() or line.startswith("###"):
            return
        tag = line[:3]
        self.tournament.record_lines.setdefault(tag, number)
        if len(line) > 3 and line[3] != " ":
            self.problem(
                number,
                4,
                gettext_noop("Column 4 must be blank after the record's code “%(tag)s”."),
                tag=tag,
            )
            return
        if tag == "001":
            self.player(line, number)
        elif tag in ("013", "310", "300", "320", "330", "352", "362", "801", "802"):
            self.problem(
                number,
                1,
                gettext_noop("Team tournaments (record %(tag)s) are not supported."),
                tag=tag,
            )
        elif tag == "299":
            self.problem(number, 1, gettext_noop("Abnormal points (record 299) are not supported."))
        elif tag == "240":
            self.byes(line, number)
        elif tag == "250":
            self.acceleration(line, number)
        elif tag == "260":
            self.prohibition(line, number)
        elif re.fullmatch(r"\d\d2", tag) or tag in ("XXR", "XXC"):
            self.header(tag, line, number)
        elif re.fullmatch(r"(XX|BB)[A-Z]|[A-Z]{3}", tag):
            # Other programs' extensions and national rating records (a federation's code):
            # kept as they are, not interpreted.
            self.tournament.extension_records.append(line.rstrip())
        else:
            self.problem(number, 1, gettext_noop("Unknown record “%(tag)s”."), tag=tag)

    def check_rounds(self) -> None:
        """Every game is seen from both sides alike; points add up; one bye per round."""
        t = self.tournament
        by_start = {p.start_number: p for p in t.players}
        count = t.round_count
        for player in t.players:
            player.rounds += [RoundEntry()] * (count - len(player.rounds))
        for player in t.players:
            line = self.player_lines[player.start_number]
            for index, entry in enumerate(player.rounds):
                round_number = index + 1
                column = _ROUND_START + _ROUND_WIDTH * index
                if entry.opponent is None:
                    continue
                if entry.opponent == player.start_number:
                    self.problem(
                        line,
                        column,
                        gettext_noop("Round %(round)s pairs the player with themselves."),
                        round=round_number,
                    )
                    continue
                other = by_start.get(entry.opponent)
                if other is None:
                    self.problem(
                        line,
                        column,
                        gettext_noop(
                            "Round %(round)s names opponent %(opponent)s, who has no player record."
                        ),
                        round=round_number,
                        opponent=entry.opponent,
                    )
                    continue
                back = other.rounds[index]
                if back.opponent != player.start_number:
                    self.problem(
                        line,
                        column,
                        gettext_noop(
                            "Round %(round)s pairs %(player)s with %(opponent)s, "
                            "but %(opponent)s's record "
                            "(line %(other)s) does not name %(player)s."
                        ),
                        round=round_number,
                        player=player.start_number,
                        opponent=entry.opponent,
                        other=self.player_lines[other.start_number],
                    )
                    continue
                if player.start_number > other.start_number:
                    continue  # each game is checked once, from its lower start number
                colours = {entry.colour, back.colour}
                forfeit = entry.result in FORFEIT_OPPOSITE
                if not (colours == {"w", "b"} or (forfeit and entry.colour == back.colour == "-")):
                    self.problem(
                        line,
                        column + 5,
                        gettext_noop(
                            "Round %(round)s: %(player)s has “%(mine)s” and opponent %(opponent)s "
                            "has “%(theirs)s”; one must be w and the other b."
                        ),
                        round=round_number,
                        player=player.start_number,
                        opponent=entry.opponent,
                        mine=entry.colour,
                        theirs=back.colour,
                    )
                    continue
                expected = {**PLAYED_OPPOSITE, **FORFEIT_OPPOSITE, PENDING: PENDING}.get(
                    entry.result
                )
                double_forfeit = entry.result == back.result == "-"
                if back.result != expected and not double_forfeit:
                    self.problem(
                        line,
                        column + 7,
                        gettext_noop(
                            "Round %(round)s: %(player)s has “%(mine)s” "
                            "but opponent %(opponent)s has “%(theirs)s”."
                        ),
                        round=round_number,
                        player=player.start_number,
                        opponent=entry.opponent,
                        mine=entry.result,
                        theirs=back.result,
                    )
        for index in range(count):
            allocated = [p for p in t.players if p.rounds[index].result == "U"]
            if len(allocated) > 1:
                self.problem(
                    self.player_lines[allocated[1].start_number],
                    _ROUND_START + _ROUND_WIDTH * index + 7,
                    gettext_noop("Round %(round)s has more than one pairing-allocated bye (U)."),
                    round=index + 1,
                )
        for player in t.players:
            total = sum((t.points_for(e.result) for e in player.rounds), Decimal("0"))
            if total != player.points:
                self.problem(
                    self.player_lines[player.start_number],
                    81,
                    gettext_noop("The points are %(points)s but the results add up to %(total)s."),
                    points=_points_text(player.points),
                    total=_points_text(total),
                )

    def check_references(self) -> None:
        t = self.tournament
        starts = set(self.player_lines)
        if t.player_count is not None and t.player_count != len(t.players):
            self.problem(
                self.count_line,
                5,
                gettext_noop(
                    "Record 062 says %(count)s players but the file has %(found)s player records."
                ),
                count=t.player_count,
                found=len(t.players),
            )
        for line, numbers in self.references:
            for start in numbers:
                if start not in starts:
                    self.problem(
                        line,
                        None,
                        gettext_noop("Start number %(start)s has no player record."),
                        start=start,
                    )


def _decode(data: bytes) -> tuple[str | None, list[TrfProblem]]:
    """The file's text, or the problems that keep it from being text (NUL, not UTF-8, control)."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    problems: list[TrfProblem] = []
    nul = data.find(b"\x00")
    if nul >= 0:
        line = data.count(b"\n", 0, nul) + 1
        column = nul - (data.rfind(b"\n", 0, nul) + 1) + 1
        problems.append(
            TrfProblem(
                line, column, gettext_noop("The file holds a NUL byte: it is not a text file.")
            )
        )
        return None, problems
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        line = data.count(b"\n", 0, error.start) + 1
        column = error.start - (data.rfind(b"\n", 0, error.start) + 1) + 1
        problems.append(
            TrfProblem(
                line,
                column,
                gettext_noop("The file is not UTF-8 text (save it as UTF-8 and try again)."),
            )
        )
        return None, problems
    return text, problems


def _lines(text: str) -> Iterable[tuple[int, str]]:
    """Lines numbered from 1; CR LF, LF and CR alone all end a line."""
    yield from enumerate(text.replace("\r\n", "\n").replace("\r", "\n").split("\n"), start=1)


def read(data: bytes | str) -> Tournament:
    """Parse a whole TRF file (TRF-2026, TRF16 or TRF(x)); :class:`TrfError` if anything is wrong.

    The size cap is checked before anything else, then the text (no NUL byte, UTF-8), then
    every record's columns, then the rounds across players: every opponent names the player
    back, colours are one w and one b, results match (1 against 0, = against =, + against -),
    points equal the results' sum under the file's scoring, at most one U per round.
    """
    size = len(data.encode("utf-8") if isinstance(data, str) else data)
    if size > MAX_FILE_BYTES:
        raise TrfError(
            [
                TrfProblem(
                    1,
                    None,
                    gettext_noop(
                        "The file has more than %(limit)s bytes, the most a TRF file may have."
                    ),
                    {"limit": MAX_FILE_BYTES},
                )
            ]
        )
    if isinstance(data, bytes):
        text, problems = _decode(data)
        if text is None:
            raise TrfError(problems)
    else:
        text = data
        if "\x00" in text:
            raise TrfError(_decode(text.encode("utf-8"))[1])
    reader = _Reader()
    for number, line in _lines(text):
        bad = next((i for i, ch in enumerate(line) if ord(ch) < 32 and ch != "\t"), None)
        if bad is not None:
            reader.problem(
                number,
                bad + 1,
                gettext_noop("Control character U+%(code)04X in the line."),
                code=ord(line[bad]),
            )
            continue
        if "\t" in line:
            reader.problem(
                number,
                line.index("\t") + 1,
                gettext_noop(
                    "A tab in the line: TRF fields are in fixed columns, separated by spaces."
                ),
            )
            continue
        reader.line(line.rstrip(" "), number)
    if not reader.tournament.players and not reader.problems:
        reader.problem(1, None, gettext_noop("The file has no player record (001)."))
    if not reader.problems:
        reader.check_rounds()
        reader.check_references()
    if reader.problems:
        raise TrfError(reader.problems)
    return reader.tournament
