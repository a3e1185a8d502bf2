"""The public page of a season's divisions: each division's table with its promotion and
relegation zones marked (in words and arrows, not by colour alone) and its forecast; and
the same tables as CSV."""

from __future__ import annotations

from collections.abc import Hashable
from typing import Any

from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _

from league.divisions import setup_of
from league.models import League, Season
from league.seasons import scheme_text, tiebreak_order
from ratings import exports
from ratings.forecasts import Chance
from ratings.seasons.division_export import divisions_export
from ratings.seasons.divisions import ROUND_ROBIN, DivisionTable, division_tables, season_ended
from web.formatting import format_chance
from web.public.page_cache import cached_page
from web.public.seasons import _league, _league_state, line_cells, order_note, tiebreak_columns


def _chance(chances: dict[Hashable, Chance] | None, key: int) -> dict[str, str] | None:
    if chances is None:
        return None
    chance = chances.get(key)
    if chance is None:
        return None
    return {
        "chance": format_chance(chance.probability),
        "error": f"{chance.standard_error * 100:.1f}",
    }


def zone_label(table: DivisionTable, player_id: int) -> tuple[str, str]:
    """The zone a player of ``table`` stands in, as (key, words): up, down or none."""
    if player_id in table.promoted:
        return "up", _("↑ Promotion")
    if player_id in table.relegated:
        return "down", _("↓ Relegation")
    return "", ""


def division_context(season: Season, tables: list[DivisionTable]) -> list[dict[str, Any]]:
    """Each division as the page shows it: rows with zone and chances, and its forecast's
    method and error."""
    order = tiebreak_order(season)
    shown = []
    for table in tables:
        forecast = table.forecast
        rows = []
        for line in table.lines:
            zone, zone_text = zone_label(table, line.player_id)
            rows.append(
                {
                    **line_cells(line, order),
                    "zone": zone,
                    "zone_text": zone_text,
                    "first": _chance(forecast.first, line.player_id) if forecast else None,
                    "up": _chance(forecast.promotion, line.player_id) if forecast else None,
                    "down": _chance(forecast.relegation, line.player_id) if forecast else None,
                }
            )
        shown.append(
            {
                "division": table.division,
                "rows": rows,
                "up_count": len(table.promoted),
                "down_count": len(table.relegated),
                "forecast": None
                if forecast is None
                else {
                    "simulations": forecast.simulations,
                    "remaining": forecast.remaining,
                    "round_robin": forecast.simulated == ROUND_ROBIN,
                    "largest_error": f"{forecast.largest_error * 100:.1f}",
                    "has_up": forecast.promotion is not None,
                    "has_down": forecast.relegation is not None,
                },
            }
        )
    return shown


@cached_page("season_divisions", _league_state)
def season_divisions(request: HttpRequest, league_slug: str, season_slug: str) -> HttpResponse:
    """A season's divisions: tables, zones and forecasts."""
    league = _league(request, league_slug)
    season = get_object_or_404(Season, league=league, slug=season_slug)
    setup = setup_of(season)
    tables = division_tables(season)
    order = tiebreak_order(season)
    return render(
        request,
        "pages/season_divisions.html",
        {
            "league": league,
            "season": season,
            "setup": setup,
            "divisions": division_context(season, tables),
            "tiebreak_columns": tiebreak_columns(order),
            "order_note": order_note(order),
            "scheme": scheme_text(season),
            "ended": season_ended(season),
        },
    )


def season_divisions_csv(
    request: HttpRequest, league_slug: str, season_slug: str
) -> StreamingHttpResponse:
    """The season's division tables as CSV: one row per player per division, with the
    tie-breaks in full precision and the zone (``ratings.seasons.division_export``)."""
    league = get_object_or_404(League, slug=league_slug)
    season = get_object_or_404(Season, league=league, slug=season_slug)
    response = StreamingHttpResponse(
        exports.csv_lines(divisions_export(season)), content_type="text/csv; charset=utf-8"
    )
    filename = f"{league.slug}-{season.slug}-divisions.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
