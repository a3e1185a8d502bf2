"""A season's division tables as an export table: one row per player per division, top
division first, each division's players in table order.

The same tables as the divisions page (``division_tables``, without the forecast): the
division, the player's place in it, games, wins, draws, losses, season points, the season's
tie-breaks (one column per code, in its order, full precision) and the zone the player
stands in. Columns and zone words are fixed English identifiers, whatever the reader's
language; ``ratings.exports`` writes the cells (dot decimals, formula-safe text).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from league.models import Season
from league.seasons import RATING_AT_END, tiebreak_order
from ratings.exports import Table
from ratings.seasons.divisions import DivisionTable, division_tables

DIVISION_COLUMNS = (
    "division_position",
    "division",
    "rank",
    "player",
    "games",
    "wins",
    "draws",
    "losses",
    "points",
)
#: The zone column's values: a machine-readable word, not the page's translated label.
PROMOTED, RELEGATED, STAY = "promoted", "relegated", "stay"


def zone_of(table: DivisionTable, player_id: int) -> str:
    """Where ``player_id`` stands in ``table``: promoted, relegated or stay."""
    if player_id in table.promoted:
        return PROMOTED
    if player_id in table.relegated:
        return RELEGATED
    return STAY


def tiebreak_codes(season: Season) -> list[str]:
    """The season's tie-break columns (the rating at the end is no column on the page)."""
    return [code for code in tiebreak_order(season) if code != RATING_AT_END]


def divisions_export(season: Season) -> Table:
    """The season's divisions as rows (no rows when the season has no divisions)."""
    codes = tiebreak_codes(season)
    tables = division_tables(season, forecast=False)

    def rows() -> Iterator[tuple[Any, ...]]:
        for table in tables:
            for line in table.lines:
                yield (
                    table.division.position,
                    table.division.name,
                    line.position,
                    line.name,
                    line.games,
                    line.wins,
                    line.draws,
                    line.losses,
                    float(line.points),
                    *(line.tiebreaks.get(code) for code in codes),
                    zone_of(table, line.player_id),
                )

    return Table((*DIVISION_COLUMNS, *codes, "zone"), rows())
