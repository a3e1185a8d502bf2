"""Reading results from a PGN file: one result row per game, for the CSV import's path.

PGN (Portable Game Notation) is how chess programs exchange games. Only the tags matter to a
league: White, Black, Result and Date (required), Event and Round (kept as the match's note).
The python-chess library reads the file (``chess.pgn.read_headers``: the tags of each game,
its moves skipped); this module turns each game into a ``league.csv_format.ResultRow`` (the
first-named player is White) or a ``RowError`` naming the game and its line, so
``league.csv_import.import_results`` records them with the CSV import's rules: all or
nothing, a preview, the same undo.

The file is read as a stream of lines, each at most ``MAX_LINE_BYTES`` long: a line past
that (a 50 MB file without line breaks) is reported, never loaded. A line that is not UTF-8
or holds a control character (a NUL byte) is reported with its number.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import io
import re
from collections import Counter
from collections.abc import Iterator
from decimal import Decimal
from typing import IO

import chess.pgn
from django.utils.translation import gettext as _

from league.csv_format import FIRST_DAY, LAST_DAY, MAX_NAME_CHARS, ResultRow, RowError
from league.scores import DRAW, LOSS, WIN

#: The longest physical line read, in bytes (a longer one is reported, not loaded).
MAX_LINE_BYTES = 64 * 1024
REQUIRED_TAGS = ("White", "Black", "Result", "Date")
#: PGN's results, as the Result tag writes them (and "½-½", which some programs write).
RESULTS: dict[str, Decimal] = {"1-0": WIN, "0-1": LOSS, "1/2-1/2": DRAW, "½-½": DRAW}
#: Bytes no line of text holds (tab, line feed and carriage return are text).
_CONTROL = frozenset(chr(code) for code in range(32)) - {"\t", "\n", "\r"} | {"\x7f"}
#: Where a game's idempotency key comes from: a file imported again records nothing twice.
KEY_PREFIX = "pgn:"


class _Lines:
    """The ``readline`` python-chess reads a PGN from: decoded lines, numbered.

    Bad lines (too long, not UTF-8, a control character) are replaced by an empty line and
    kept in ``bad`` (line -> reason) for the reader to report; ``starts`` collects the lines
    where a block of tags begins, so a game whose tags were swallowed by the game before
    (no empty line between them) is found.
    """

    def __init__(self, stream: IO[bytes]) -> None:
        self._stream = stream
        self.number = 0
        self.bad: dict[int, str] = {}
        self.starts: list[int] = []
        self.first_text: int | None = None
        self._in_tags = False

    def readline(self) -> str:
        raw = self._stream.readline(MAX_LINE_BYTES + 1)
        if not raw:
            return ""
        self.number += 1
        text = self._decode(raw)
        stripped = text.strip()
        if stripped.startswith("[") and not self._in_tags:
            self.starts.append(self.number)
        self._in_tags = stripped.startswith("[")
        if stripped and self.first_text is None:
            self.first_text = self.number
        return text

    def _decode(self, raw: bytes) -> str:
        if len(raw) > MAX_LINE_BYTES and not raw.endswith(b"\n"):
            while True:
                chunk = self._stream.readline(MAX_LINE_BYTES)
                if not chunk or chunk.endswith(b"\n"):
                    break
            self.bad[self.number] = _(
                "the line is longer than %(max)s bytes; is this a PGN file?"
            ) % {"max": f"{MAX_LINE_BYTES:,}"}
            return "\n"
        if self.number == 1:
            raw = raw.removeprefix(b"\xef\xbb\xbf")
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError as exc:
            self.bad[self.number] = _(
                "not UTF-8 (byte %(byte)s at column %(column)d): save the file as UTF-8"
            ) % {"byte": f"{raw[exc.start]:#04x}", "column": exc.start + 1}
            return "\n"
        found = next((char for char in text if char in _CONTROL), None)
        if found is not None:
            self.bad[self.number] = _(
                "the line holds the control character %(code)s, which no PGN file holds"
            ) % {"code": f"U+{ord(found):04X}"}
            return "\n"
        return text

    def begin_game(self) -> None:
        self.starts, self.first_text, self._in_tags = [], None, False


def iter_pgn_results(stream: IO[bytes]) -> Iterator[ResultRow | RowError]:
    """Each game of a PGN byte stream as a ``ResultRow`` (White named first), or the
    ``RowError``s that say why it cannot be recorded, in the file's order. A file with no
    game is one error on line 1."""
    if isinstance(stream, io.TextIOBase):
        raise TypeError("iter_pgn_results() reads bytes: open the file in binary mode ('rb').")
    lines = _Lines(stream)
    seen: Counter[tuple[str, ...]] = Counter()
    games = 0
    reported: set[int] = set()
    while True:
        lines.begin_game()
        tags = chess.pgn.read_headers(lines)  # type: ignore[arg-type]
        for line in sorted(set(lines.bad) - reported):
            reported.add(line)
            yield RowError(line, lines.bad[line])
        if tags is None:
            break
        games += 1
        start = lines.starts[0] if lines.starts else (lines.first_text or lines.number)
        for swallowed in lines.starts[1:]:
            yield RowError(
                swallowed,
                _(
                    "a game's tags start here right after the moves of the game before, with "
                    "no empty line between them, so this game cannot be told apart: add an "
                    "empty line before its tags"
                ),
            )
        yield _row(games, start, dict(tags), seen)
    if games == 0 and not lines.bad:
        yield RowError(1, _('the file holds no game: a PGN file has tags such as [White "…"]'))


def _row(
    game: int, line: int, tags: dict[str, str], seen: Counter[tuple[str, ...]]
) -> ResultRow | RowError:
    """The result row of game number ``game`` (its tags begin on ``line``), or why not."""
    problems: list[str] = []
    missing = [tag for tag in REQUIRED_TAGS if not tags.get(tag, "").strip()]
    if missing:
        problems.append(
            _("missing tag(s) %(tags)s (a game needs White, Black, Result and Date)")
            % {"tags": ", ".join(missing)}
        )
    white, black = tags.get("White", "").strip(), tags.get("Black", "").strip()
    for tag, name in (("White", white), ("Black", black)):
        if name in ("?", "-"):
            problems.append(
                _("the %(tag)s tag names nobody (“%(name)s”)") % {"tag": tag, "name": name}
            )
        elif len(name) > MAX_NAME_CHARS:
            problems.append(
                _("the %(tag)s tag is longer than %(max)d characters")
                % {"tag": tag, "max": MAX_NAME_CHARS}
            )
    result = tags.get("Result", "").strip()
    score = RESULTS.get(result)
    if result and score is None:
        if result == "*":
            problems.append(
                _(
                    "the Result tag is “*”: the game is unfinished or its result unknown; only "
                    "finished games (1-0, 0-1, 1/2-1/2) can be recorded"
                )
            )
        else:
            problems.append(
                _("unknown result “%(result)s”: use 1-0, 0-1 or 1/2-1/2") % {"result": result[:40]}
            )
    date_text = tags.get("Date", "").strip()
    played = _date(date_text) if date_text else None
    if date_text and played is None:
        problems.append(
            _(
                "the Date tag “%(date)s” is not a day: PGN writes YYYY.MM.DD, every part known "
                "(not ??)"
            )
            % {"date": date_text[:40]}
        )
    if problems:
        return RowError(
            line, _("game %(game)d: %(problems)s") % {"game": game, "problems": "; ".join(problems)}
        )
    assert score is not None
    assert played is not None
    event = _known(tags.get("Event", ""))
    round_ = _known(tags.get("Round", ""))
    note = ", ".join(
        part for part in (event, _("round %(round)s") % {"round": round_} if round_ else "") if part
    )
    identity = (event, _known(tags.get("Site", "")), date_text, round_, white, black)
    seen[identity] += 1
    digest = hashlib.sha256("\x1f".join((*identity, str(seen[identity]))).encode()).hexdigest()
    return ResultRow(
        line=line,
        played=played,
        sides=((white,), (black,)),
        score_a=score,
        places=None,
        points="",
        note=note[:1000],
        key=f"{KEY_PREFIX}{digest[:32]}",
    )


#: The services' names of a result's parts (as the import's messages start with them) and
#: the PGN tags they come from.
_TAG_OF = {"played_at": "Date", "player_a": "White", "player_b": "Black", "score_a": "Result"}
_SERVICE_FIELD = re.compile(r"(^|; )(played_at|player_a|player_b|score_a): ")


def in_pgn_terms(message: str) -> str:
    """``message`` with the services' names of a result's parts (``played_at: …``) replaced
    by the PGN tags they were read from (``Date: …``)."""
    return _SERVICE_FIELD.sub(lambda found: f"{found[1]}{_TAG_OF[found[2]]}: ", message)


def _known(value: str) -> str:
    """A tag's value, or "" when PGN's "unknown" ("?", "-", "??")."""
    text = value.strip()
    return "" if set(text) <= {"?", "-"} else text


def _date(text: str) -> dt.date | None:
    """A PGN date ("2024.03.15") as a day; None when it is not one (or has "??" parts)."""
    parts = text.split(".")
    if len(parts) != 3 or not all(part.isdigit() for part in parts):
        return None
    try:
        day = dt.date(int(parts[0]), int(parts[1]), int(parts[2]))
    except ValueError:
        return None
    return day if FIRST_DAY <= day <= LAST_DAY else None
