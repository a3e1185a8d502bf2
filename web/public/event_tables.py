"""An event's public table: standings with tie-break columns, the crosstable and the forecast.

The numbers come from ``ratings.selectors.event_tables``; this module writes them: points
and tie-breaks with ½ (``web.formatting.format_tiebreak``), a round robin's grid cells as
``1``, ``½``, ``0`` (``+`` / ``-`` for a forfeit), a Swiss event's cells as the opponent's
number, the colour and the result ("4b1": against number 4, with Black, won).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from league.crosstables import Cell, RoundCell
from league.models import Competition, League
from league.tiebreaks import TIEBREAKS, Unplayed
from ratings.page_state import LeagueState, league_state
from ratings.selectors.event_tables import EventTable, event_table
from web import locale_format
from web.formatting import DASH, TIEBREAK_NAMES, format_chance, format_tiebreak
from web.public.page_cache import cached_page, known_league


def _score(value: Fraction) -> str:
    return format_tiebreak(float(value)) if value else "0"


def _value(value: Fraction | int | float | None) -> str:
    return DASH if value is None else format_tiebreak(float(value))


def grid_cell(cells: tuple[Cell, ...] | None) -> str:
    """A round robin's cell: each result against that opponent ("" before they meet)."""
    if cells is None:
        return ""
    texts = []
    for cell in cells:
        if cell.forfeit:
            texts.append("+" if cell.score else "-")
        else:
            texts.append(_score(cell.score))
    return " ".join(texts)


def round_cell(cell: RoundCell) -> str:
    """A Swiss event's round: "4b1" (opponent 4, Black, won), "+" / "-" marks a forfeit,
    a bye by its points."""
    if cell.unplayed is not None:
        if cell.unplayed == Unplayed.ABSENT:
            return DASH
        return _("bye %(points)s") % {"points": _score(cell.points)}
    colour = "" if cell.black is None else ("b" if cell.black else "w")
    result = ("+" if cell.score else "-") if cell.forfeit else _score(cell.score)
    return f"{cell.opponent}{colour}{result}"


def table_context(table: EventTable) -> dict[str, Any]:
    """What the event table's templates show, as text."""
    numbers = {line.player_id: line.number for line in table.lines}
    forecast = None
    if table.forecast is not None:
        names = {line.player_id: line.name for line in table.lines}
        forecast = {
            "simulations": table.forecast.simulations,
            "remaining": table.forecast.remaining,
            "largest_error": locale_format.number(table.forecast.largest_error * 100, 1),
            "rows": [
                {
                    "name": names[key],
                    "chance": format_chance(chance.probability),
                    "error": locale_format.number(chance.standard_error * 100, 1),
                }
                for key, chance in sorted(
                    table.forecast.chances.items(), key=lambda item: -item[1].probability
                )
                if chance.probability > 0
            ],
        }
    return {
        "table": table,
        "competition": table.competition,
        "columns": [
            {"code": code, "name": str(TIEBREAK_NAMES[code]), "article": TIEBREAKS[code][1]}
            for code in table.order
        ],
        "lines": [
            {
                "number": line.number,
                "position": line.position,
                "name": line.name,
                "slug": line.slug,
                "points": _score(line.points),
                "withdrawn": line.withdrawn_from_round,
                "values": [_value(line.values.get(code)) for code in table.order],
            }
            for line in table.lines
        ],
        "grid": [
            {
                "number": row.number,
                "name": table.lines[row.number - 1].name,
                "points": _score(row.score),
                "cells": [grid_cell(cells) for cells in row.cells],
            }
            for row in table.grid or []
        ],
        "swiss": [
            {
                "number": row.number,
                "name": table.lines[row.number - 1].name,
                "points": _score(row.score),
                "cells": [round_cell(cell) for cell in row.rounds],
            }
            for row in table.rounds or []
        ],
        "round_numbers": list(range(1, table.after_round + 1)),
        "numbers": numbers,
        "forecast": forecast,
    }


def _league_state(league_slug: str, **_: str) -> LeagueState | None:
    return league_state(league_slug)


@cached_page("competition-table", _league_state)
def competition_table(
    request: HttpRequest, league_slug: str, competition_slug: str
) -> HttpResponse:
    """One event's standings with its tie-breaks, its crosstable and its forecast."""
    known = known_league(request, league_slug)
    league = known if known is not None else get_object_or_404(League, slug=league_slug)
    competition = get_object_or_404(Competition, league=league, slug=competition_slug)
    context = {"league": league, **table_context(event_table(competition))}
    return render(request, "pages/competition_table.html", context)
