"""Crosstables on plain values: who beat whom in a round robin, and a Swiss event round by round.

Both read a :class:`league.tiebreaks.Tournament` and a display order (usually the ranking of
:func:`league.tiebreaks.rank`); each player gets the number of their line (1, 2, 3… in that
order) and every cell names the opponent by that number. Cells hold numbers and flags; the
pages write them (``1``, ``½``, ``0``, ``+`` or a minus sign for a forfeit, a bye's kind).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction

from league.tiebreaks import PlayerKey, Tournament, Unplayed


@dataclass(frozen=True)
class Cell:
    """One result in a crosstable: the row player's game score against the column player."""

    score: Fraction
    forfeit: bool
    black: bool | None
    round: int | None


@dataclass(frozen=True)
class GridRow:
    """A round robin's row: the player, their number, score, and their results per column.

    ``cells[j]`` holds every result against the player of line ``j + 1`` (two in a double
    round robin, in round order); None on the diagonal.
    """

    number: int
    player: PlayerKey
    score: Fraction
    cells: tuple[tuple[Cell, ...] | None, ...]


def round_robin_grid(t: Tournament, order: Sequence[PlayerKey]) -> list[GridRow]:
    """The grid of who beat whom, rows and columns in ``order``."""
    number = {key: index for index, key in enumerate(order)}
    rows = []
    for index, key in enumerate(order):
        cells: list[list[Cell] | None] = [[] for _ in order]
        cells[index] = None
        for record in t.records[key]:
            if record.opponent is None or record.opponent not in number:
                continue
            target = cells[number[record.opponent]]
            assert target is not None
            target.append(Cell(record.score, not record.played, record.black, record.round))
        rows.append(
            GridRow(
                index + 1,
                key,
                t.scores[key],
                tuple(None if found is None else tuple(found) for found in cells),
            )
        )
    return rows


@dataclass(frozen=True)
class RoundCell:
    """A player's round in a Swiss table: the opponent's line number (None without one),
    colour (None: none), game score, whether it was a forfeit, and the bye's kind."""

    round: int
    opponent: int | None
    black: bool | None
    score: Fraction
    points: Fraction
    forfeit: bool
    unplayed: Unplayed | None


@dataclass(frozen=True)
class SwissRow:
    """A Swiss table's row: number, player, score and one cell per round."""

    number: int
    player: PlayerKey
    score: Fraction
    rounds: tuple[RoundCell, ...]


def swiss_table(
    t: Tournament,
    order: Sequence[PlayerKey],
    unplayed: dict[tuple[PlayerKey, int], Unplayed] | None = None,
) -> list[SwissRow]:
    """The round-by-round table in ``order``: each round's opponent number, colour, result.

    ``unplayed`` names each bye's kind by (player, round) (taken from the tournament's byes
    when not given); a round with nothing recorded is ``Unplayed.ABSENT``.
    """
    if t.rounds is None:
        raise ValueError("A round-by-round table needs an event with rounds.")
    kinds = dict(unplayed or {(bye.player, bye.round): bye.kind for bye in t.byes})
    number = {key: index + 1 for index, key in enumerate(order)}
    rows = []
    for key in order:
        cells = []
        for record in t.records[key]:
            assert record.round is not None
            opponent = number.get(record.opponent) if record.opponent is not None else None
            kind = None
            if record.opponent is None:
                kind = kinds.get((key, record.round), Unplayed.ABSENT)
            cells.append(
                RoundCell(
                    record.round,
                    opponent,
                    record.black,
                    record.score,
                    record.points,
                    record.opponent is not None and not record.played,
                    kind,
                )
            )
        rows.append(SwissRow(number[key], key, t.scores[key], tuple(cells)))
    return rows
