"""Public season pages: the list of a league's seasons, one season's table and its CSV.

A season is named in URLs by its slug and in query strings as ``?season=<slug>`` (the match
list and player pages' filter): :func:`season_from_query` reads that parameter safely.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, render
from django.utils.translation import gettext as _
from django.utils.translation import ngettext

from league.models import DivisionSetup, League, Season
from league.seasons import RATING_AT_END, points_text, scheme_text
from league.tiebreaks import TIEBREAKS
from ratings import exports
from ratings.forecasts import Forecast, season_forecast
from ratings.page_state import LeagueState, league_state
from ratings.seasons.derive import SeasonLine
from ratings.seasons.read import (
    GAIN,
    TOP,
    Performer,
    SeasonView,
    league_seasons,
    season_table,
)
from web import locale_format
from web.formatting import (
    DASH,
    TIEBREAK_NAMES,
    format_chance,
    format_tiebreak,
    signed,
)
from web.public.own_rating import hidden_player
from web.public.page_cache import cached_page, known_league
from web.query_params import shown_param, slug_param

SEASON_COLUMNS = (
    "position",
    "player",
    "games",
    "wins",
    "draws",
    "losses",
    "points",
    "rating_start",
    "rank_start",
    "rating_end",
    "rd_end",
    "rank_end",
    "change",
)


def find_season(league: League, raw: str | None) -> Season | None:
    """The league's season whose slug is ``raw`` (None for anything else, unread)."""
    slug = slug_param(raw)
    if slug is None:
        return None
    return Season.objects.filter(league=league, slug=slug).first()


def season_from_query(request: HttpRequest, league: League) -> Season | None:
    """The season named by ``?season=``; a name that is no season is ignored with a message."""
    raw = request.GET.get("season")
    if raw is None or not raw.strip():
        return None
    season = find_season(league, raw)
    if season is None:
        messages.warning(
            request,
            _("season: no season '%(value)s' in this league (ignored).")
            % {"value": shown_param(raw)},
        )
    return season


def season_choices(league: League, chosen: Season | None) -> list[dict[str, Any]]:
    """The league's seasons for a filter's select, the chosen one marked."""
    return [
        {"slug": season.slug, "name": season.name, "selected": chosen == season}
        for season in league_seasons(league)
    ]


def _league_state(league_slug: str, **_: str) -> LeagueState | None:
    return league_state(league_slug)


def _league(request: HttpRequest, slug: str) -> League:
    known = known_league(request, slug)
    return known if known is not None else get_object_or_404(League, slug=slug)


def _rating(value: float | None) -> str:
    return DASH if value is None else f"{value:.0f}"


def _rank(value: int | None) -> str:
    return DASH if value is None else str(value)


def tiebreak_columns(order: tuple[str, ...]) -> list[dict[str, str]]:
    """The tie-break columns of a season table (the rating at the end has its own)."""
    return [
        {"code": code, "name": str(TIEBREAK_NAMES[code]), "article": TIEBREAKS[code][1]}
        for code in order
        if code != RATING_AT_END
    ]


def order_note(order: tuple[str, ...]) -> str:
    """How players level on points are ordered, in a sentence."""
    names = [
        f"{code} ({TIEBREAK_NAMES[code]})" if code != RATING_AT_END else _("rating at the end")
        for code in order
    ]
    return _("Level on points, the table is ordered by %(names)s, in that order.") % {
        "names": "; ".join(names)
    }


def forecast_context(forecast: Forecast | None, lines: list[SeasonLine]) -> dict[str, Any] | None:
    """The season forecast as the page shows it: every player with a chance, likeliest first."""
    if forecast is None:
        return None
    names = {line.player_id: (line.name, line.slug) for line in lines}
    rows = [
        {
            "name": names.get(key, ("", ""))[0],
            "slug": names.get(key, ("", ""))[1],
            "chance": format_chance(chance.probability),
            "error": locale_format.number(chance.standard_error * 100, 1),
            "percent": round(chance.probability * 100, 1),
        }
        for key, chance in sorted(forecast.chances.items(), key=lambda item: -item[1].probability)
        if chance.probability > 0 and key in names
    ]
    return {
        "rows": rows,
        "simulations": forecast.simulations,
        "remaining": forecast.remaining,
        "largest_error": locale_format.number(forecast.largest_error * 100, 1),
        "seed": forecast.seed,
    }


def line_cells(line: SeasonLine, order: tuple[str, ...] = ()) -> dict[str, Any]:
    """A season line as display text."""
    change, change_class = signed(line.change, 0)
    return {
        "position": str(line.position),
        "name": line.name,
        "slug": line.slug,
        # A number, not text: the player page counts it ({% blocktranslate count %}).
        "games": line.games,
        "wdl": f"{line.wins}{DASH}{line.draws}{DASH}{line.losses}",
        "points": points_text(line.points),
        "rating_start": _rating(line.rating_start),
        "rank_start": _rank(line.rank_start),
        "rating_end": _rating(line.rating_end),
        "rank_end": _rank(line.rank_end),
        "change": change,
        "change_class": change_class,
        "new": line.rating_start is None,
        "tiebreaks": [
            format_tiebreak(line.tiebreaks.get(code)) for code in order if code != RATING_AT_END
        ],
    }


def season_context(view: SeasonView) -> dict[str, Any]:
    """What the season page and the embed share."""
    return {
        "view": view,
        "season": view.season,
        "scheme": scheme_text(view.season),
        "rows": [line_cells(line, view.tiebreak_order) for line in view.lines],
        "tiebreak_columns": tiebreak_columns(view.tiebreak_order),
        "order_note": order_note(view.tiebreak_order),
    }


@cached_page("seasons", _league_state)
def season_list(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The league's seasons, newest first, with their dates and whether they are closed."""
    league = _league(request, league_slug)
    return render(
        request,
        "pages/seasons.html",
        {"league": league, "seasons": league_seasons(league)},
    )


def performer_text(performer: Performer) -> dict[str, str]:
    """A best performer's ``title`` and ``figure`` in the active language: "Top of the
    table" / "6 points, level with 1 other, ahead on rating", "Biggest rating gain (at least
    2 games)" / "+160 rating points", "Best score rate (at least 2 games)" / "100% of the
    points in 2 games"."""
    line = performer.line
    if performer.kind == TOP:
        points = points_text(line.points)
        figure = ngettext("%(points)s point", "%(points)s points", 1 if line.points == 1 else 2)
        figure %= {"points": points}
        if performer.level and performer.by_tiebreaks:
            figure = ngettext(
                "%(points)s, level with %(count)s other, ahead on the tie-breaks",
                "%(points)s, level with %(count)s others, ahead on the tie-breaks",
                performer.level,
            ) % {"points": figure, "count": performer.level}
        elif performer.level:
            figure = ngettext(
                "%(points)s, level with %(count)s other, ahead on rating",
                "%(points)s, level with %(count)s others, ahead on rating",
                performer.level,
            ) % {"points": figure, "count": performer.level}
        return {"title": _("Top of the table"), "figure": figure}
    least = {"count": performer.least_games}
    if performer.kind == GAIN:
        return {
            "title": ngettext(
                "Biggest rating gain (at least %(count)s game)",
                "Biggest rating gain (at least %(count)s games)",
                performer.least_games,
            )
            % least,
            "figure": _("%(change)s rating points")
            % {"change": locale_format.signed_number(line.change or 0.0)},
        }
    return {
        "title": ngettext(
            "Best score rate (at least %(count)s game)",
            "Best score rate (at least %(count)s games)",
            performer.least_games,
        )
        % least,
        "figure": ngettext(
            "%(rate)s%% of the points in %(count)s game",
            "%(rate)s%% of the points in %(count)s games",
            line.games,
        )
        % {"rate": locale_format.number(100 * line.score_rate), "count": line.games},
    }


@cached_page("season", _league_state)
def season(request: HttpRequest, league_slug: str, season_slug: str) -> HttpResponse:
    """One season's table, its best performers and the record of its derivations."""
    league = _league(request, league_slug)
    chosen = get_object_or_404(Season, league=league, slug=season_slug)
    view = season_table(chosen)
    context = {
        "league": league,
        **season_context(view),
        "performers": [
            {"name": p.line.name, "slug": p.line.slug, **performer_text(p)} for p in view.performers
        ],
        "forecast": forecast_context(season_forecast(chosen, view.lines), view.lines),
        "has_divisions": DivisionSetup.objects.filter(season=chosen).exists(),
        # Who archived or re-derived the table is the organisers' business, as who
        # recorded a match (signed-in pages are never cached, so no one else is shown it).
        "show_deriver": league.is_organiser(request.user),
        # The viewer's own line without its ratings when they chose not to see them.
        "hidden_slug": getattr(hidden_player(request, league), "slug", ""),
    }
    return render(request, "pages/season.html", context)


def _tiebreak_codes(view: SeasonView) -> list[str]:
    return [code for code in view.tiebreak_order if code != RATING_AT_END]


def _season_rows(view: SeasonView) -> Iterator[tuple[Any, ...]]:
    codes = _tiebreak_codes(view)
    for line in view.lines:
        yield (
            line.position,
            line.name,
            line.games,
            line.wins,
            line.draws,
            line.losses,
            float(line.points),
            line.rating_start,
            line.rank_start,
            line.rating_end,
            line.rd_end,
            line.rank_end,
            line.change,
            *(line.tiebreaks.get(code) for code in codes),
        )


def season_csv(request: HttpRequest, league_slug: str, season_slug: str) -> StreamingHttpResponse:
    """The season's table as CSV (the same rows and tie-breaks as the page, full precision)."""
    league = get_object_or_404(League, slug=league_slug)
    chosen = get_object_or_404(Season, league=league, slug=season_slug)
    view = season_table(chosen)
    # The season's tie-breaks follow the fixed columns, one column per code, in its order.
    columns = (*SEASON_COLUMNS, *_tiebreak_codes(view))
    table = exports.Table(columns, _season_rows(view))
    response = StreamingHttpResponse(
        exports.csv_lines(table), content_type="text/csv; charset=utf-8"
    )
    filename = f"{league.slug}-{chosen.slug}.csv"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    return response
