"""Public pages: leagues, the leaderboard, players, matches, events and version comparison.

Views parse the request, call selectors and hand plain data to templates; nothing here
queries models beyond fetching the league or player named in the URL.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, render
from django.urls import NoReverseMatch, reverse
from django.utils.safestring import mark_safe

from league.event_log import Page, SidePlayer, event_log, match_list
from league.models import League, Player
from ratings.engine.errors import MatchBeforeAnchorError
from ratings.fixture_display import fixture_cells
from ratings.formatting import DASH, signed
from ratings.forms import LeaderboardFilterForm
from ratings.models import RatingConfig
from ratings.page_state import LeagueState, league_state, site_state
from ratings.query_params import page_number, version_number
from ratings.seasons.derive import season_bounds
from ratings.seasons.read import player_line, season_table
from ratings.selectors.common import ReadClock
from ratings.selectors.configurations import (
    config_versions,
    describe_config,
    live_config,
    period_choices,
    period_for_date,
    projection_ready,
)
from ratings.selectors.fixtures import OVERDUE, UPCOMING, fixture_rows
from ratings.selectors.players import (
    HeadToHeadRow,
    HistoryPoint,
    absorbed_players,
    counted_ids,
    head_to_head,
    player_history,
    player_results,
    player_summary,
)
from ratings.selectors.sides import SideRecordRow, TeamResultRow, side_records, team_results
from ratings.selectors.standings import (
    Leaderboard,
    compare_versions,
    featured_leaderboards,
    leaderboard,
    league_summaries,
    rank_history,
)
from ratings.services import league_progress
from ratings.views.page_cache import cached_page, known_league
from ratings.views.seasons import line_cells, season_choices, season_from_query

#: The outcomes of a two-side result (a multi-side game shows a place instead).
OUTCOME_WORDS = ("Win", "Draw", "Loss")

#: Leaderboard columns: (sort key or None, CSS name, header, the sort a first click applies).
COLUMNS = (
    ("rank", "rank", "Rank", "rank"),
    ("name", "name", "Player", "name"),
    ("rating", "rating", "Rating", "-rating"),
    ("rd", "rd", "RD", "rd"),
    ("low", "low", "95% interval", "-low"),
    ("volatility", "volatility", "Volatility", "-volatility"),
    ("games", "games", "Games", "-games"),
    (None, "wdl", "W\u2013D\u2013L", None),
    ("last_played", "last_played", "Last played", "-last_played"),
    (None, "change", "Change", None),
)


def _query(params: QueryDict, **changes: Any) -> str:
    """The current query string with ``changes`` applied (None removes a key)."""
    query = params.copy()
    for key, value in changes.items():
        if value is None:
            query.pop(key, None)
        else:
            query[key] = str(value)
    encoded = query.urlencode()
    return f"?{encoded}" if encoded else "?"


def _pager(params: QueryDict, page: int, num_pages: int, key: str = "page") -> dict[str, Any]:
    return {
        "page": page,
        "num_pages": num_pages,
        "previous": _query(params, **{key: page - 1}) if page > 1 else None,
        "next": _query(params, **{key: page + 1}) if page < num_pages else None,
        "first": _query(params, **{key: 1}) if page > 2 else None,
        "last": _query(params, **{key: num_pages}) if page < num_pages - 1 else None,
    }


def _url_or_none(name: str, **kwargs: Any) -> str | None:
    """A URL for a route that another part of the project may not have added yet."""
    try:
        return reverse(name, kwargs=kwargs)
    except NoReverseMatch:
        return None


def _league(slug: str, request: HttpRequest | None = None) -> League:
    """The league named in the URL (as the page cache read it already, when it did)."""
    known = None if request is None else known_league(request, slug)
    return known if known is not None else get_object_or_404(League, slug=slug)


def _league_state(league_slug: str, **_: str) -> LeagueState | None:
    """What a league's cached pages are keyed by (``ratings.page_state``)."""
    return league_state(league_slug)


@cached_page("home", site_state)
def home(request: HttpRequest) -> HttpResponse:
    """Every league with its size, and the top of the busiest leagues' standings."""
    leagues = league_summaries()
    return render(
        request,
        "pages/home.html",
        {"leagues": leagues, "featured": featured_leaderboards(leagues)},
    )


@cached_page("league", _league_state, LeaderboardFilterForm.base_fields)
def league(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The leaderboard: filters, sorting, search, pagination and standings as of a period."""
    league = _league(league_slug, request)
    form = LeaderboardFilterForm(request.GET or None)
    config = live_config(league)
    if form.is_bound and not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.warning(request, f"{error} (ignored)")
    as_of = form.value("period", None)
    day = form.value("date", None)
    if config is not None and day is not None:
        try:
            as_of = period_for_date(config, day)
        except MatchBeforeAnchorError:
            messages.warning(
                request,
                f"{day:%d %b %Y} is before the first rating period "
                f"({config.period_anchor:%d %b %Y}); showing the current standings.",
            )
    sort = form.value("sort", "rank")
    board = leaderboard(
        league,
        config=config,
        is_live=True,
        clock=ReadClock.of(config) if config else None,
        active_only=form.value("active", False),
        min_games=form.value("min_games", 0),
        search=form.value("q", ""),
        sort=sort,
        as_of_period=as_of,
        page=form.value("page", 1),
    )
    params = request.GET
    columns = []
    for key, css, label, first in COLUMNS:
        column = {"key": key, "css": css, "label": label, "url": None, "aria_sort": None}
        if key is not None:
            active = sort.lstrip("-") == key
            descending = sort.startswith("-")
            # Rank ascending is the best first; for every key "-" reverses the order.
            if active:
                next_sort = key if descending else f"-{key}"
                column["aria_sort"] = "descending" if descending else "ascending"
            else:
                next_sort = first
            column["url"] = _query(params, sort=next_sort, page=None)
        columns.append(column)
    context = {
        "league": league,
        "board": board,
        "form": form,
        "columns": columns,
        "pager": _pager(params, board.page, board.num_pages),
        "rows": board_rows(league, board),
        "periods": [
            {
                "value": str(choice.index),
                "label": choice.label,
                "selected": board.as_of is not None and board.as_of.index == choice.index,
            }
            for choice in (period_choices(config) if config else [])
        ],
        "progress": league_progress(league),
        "export_url": _url_or_none("pages:export_standings", league_slug=league.slug),
        "history_export_url": _url_or_none("pages:export_history", league_slug=league.slug),
        "is_organiser": league.is_organiser(request.user),
    }
    return render(request, "pages/league.html", context)


def _day(day: dt.date | None) -> str:
    return "" if day is None else f"{day.day} {day:%b %Y}"


def _player_urls(league: League) -> str:
    """A player URL with ``{slug}`` in place of the slug: one ``reverse`` for a whole table."""
    marker = "player-slug-marker"
    url = reverse("pages:player", kwargs={"league_slug": league.slug, "player_slug": marker})
    return url.replace(marker, "{slug}")


def board_rows(league: League, board: Leaderboard) -> list[dict[str, object]]:
    """Leaderboard rows as display text, formatted once in Python.

    Django's number localisation and ``floatformat`` cost more than everything else on a
    50-row page, so the cells arrive as strings.
    """
    url = _player_urls(league)
    rows = []
    for row in board.rows:
        change, change_class = signed(row.change, 0)
        rows.append(
            {
                "rank": str(row.rank),
                "name": row.name,
                "url": url.format(slug=row.slug),
                "active": row.active,
                "provisional": row.provisional,
                "rating": f"{row.rating:.0f}",
                "rd": f"{row.rd:.0f}",
                "interval": f"{row.low:.0f}{DASH}{row.high:.0f}",
                "volatility": f"{row.volatility:.4f}",
                "games": str(row.games),
                "wdl": f"{row.wins}{DASH}{row.draws}{DASH}{row.losses}",
                "last_played": _day(row.last_played),
                "last_played_iso": row.last_played.isoformat() if row.last_played else "",
                "change": change,
                "change_class": change_class,
            }
        )
    return rows


def _history_tables(history: list[HistoryPoint]) -> tuple[str, str]:
    """The rows of the tables behind the two charts (rating, volatility), newest first.

    A 500-period history makes thousands of cells: they are formatted here in one pass
    rather than through the template engine, whose per-variable cost (localisation,
    escaping) would dominate the page.
    """
    # Every cell is a number or a date formatted just above (digits, signs, dots, dashes
    # and English month abbreviations), so nothing in these rows needs escaping.
    rating_rows = []
    volatility_rows = []
    for point in reversed(history):
        head = f"<tr><td>{point.period}</td><td>{_day(point.end)}</td>"
        rating_rows.append(
            f'{head}<td class="num">{point.rating:.1f}</td><td class="num">{point.rd:.1f}</td>'
            f'<td class="num">{point.low:.0f}{DASH}{point.high:.0f}</td>'
            f'<td class="num">{point.games}</td>'
            f'<td class="num">{point.wins}{DASH}{point.draws}{DASH}{point.losses}</td>'
            f'<td class="num">{point.change:+.1f}</td></tr>'
        )
        volatility_rows.append(f'{head}<td class="num">{point.volatility:.5f}</td></tr>')
    rating_html = mark_safe("\n".join(rating_rows))
    volatility_html = mark_safe("\n".join(volatility_rows))
    return rating_html, volatility_html


def _result_rows(league: League, results: Page) -> list[dict[str, object]]:
    url = _player_urls(league)
    rows = []
    for result in results.items:
        change, change_class = signed(result.rating_change, 1)
        rows.append(
            {
                "date": _day(result.played_on),
                "date_iso": result.played_on.isoformat(),
                "opponent": result.opponent,
                "url": url.format(slug=result.opponent_slug),
                "outcome": result.outcome,
                "outcome_class": result.outcome.lower(),
                "points": result.points,
                "period": "" if result.period is None else str(result.period),
                "change": change,
                "change_class": change_class,
            }
        )
    return rows


def _team_rows(league: League, rows: list[TeamResultRow]) -> list[dict[str, object]]:
    url = _player_urls(league)

    def linked(players: list[SidePlayer]) -> list[dict[str, str]]:
        return [{"name": p.name, "url": url.format(slug=p.slug)} for p in players]

    made = []
    for row in rows:
        change, change_class = signed(row.rating_change, 1)
        made.append(
            {
                "date": _day(row.played_on),
                "date_iso": row.played_on.isoformat(),
                "partners": linked(row.partners),
                "opponents": [
                    {"players": linked(side.players), "position": side.position_text}
                    for side in row.opponents
                ],
                "multi": len(row.opponents) > 1,
                "outcome": row.outcome,
                "outcome_class": row.outcome.lower() if row.outcome in OUTCOME_WORDS else "place",
                "points": row.points,
                "period": "" if row.period is None else str(row.period),
                "change": change,
                "change_class": change_class,
            }
        )
    return made


def _side_record_rows(league: League, rows: list[SideRecordRow]) -> list[dict[str, str]]:
    url = _player_urls(league)
    return [
        {
            "name": row.player.name,
            "url": url.format(slug=row.player.slug),
            "games": str(row.games),
            "wdl": f"{row.wins}{DASH}{row.draws}{DASH}{row.losses}",
        }
        for row in rows
    ]


def _head_to_head_rows(league: League, rows: list[HeadToHeadRow]) -> list[dict]:
    url = _player_urls(league)
    return [
        {
            "opponent": row.opponent,
            "url": url.format(slug=row.opponent_slug),
            "games": str(row.games),
            "wdl": f"{row.wins}{DASH}{row.draws}{DASH}{row.losses}",
            "probability": f"{row.win_probability:.0%}",
        }
        for row in rows
    ]


@cached_page("player", _league_state, {"page", "season"})
def player(request: HttpRequest, league_slug: str, player_slug: str) -> HttpResponse:
    """A player's rating chart, results, head-to-head records and rank history.

    ``?season=`` narrows the results to one season's and shows the player's line of it.
    """
    league = _league(league_slug, request)
    player = get_object_or_404(Player, league=league, slug=player_slug)
    config = live_config(league)
    clock = ReadClock.of(config) if config else None
    history = player_history(config, player) if config else []
    absorbed = [] if player.merged_into_id else absorbed_players(player)
    counted = counted_ids(player, absorbed)
    chosen = season_from_query(request, league)
    results = player_results(
        league,
        player,
        config=config,
        page=page_number(request.GET.get("page")),
        counted=counted,
        between=season_bounds(chosen) if chosen else None,
    )
    season_line = None
    if chosen is not None:
        line = player_line(season_table(chosen), player.pk)
        season_line = line_cells(line) if line else None
    rating_rows, volatility_rows = _history_tables(history)
    records = head_to_head(league, config, player, clock=clock, counted=counted)
    team_rows, team_total = team_results(league, player, config=config)
    summary = player_summary(league, config, player, clock=clock)
    partners, opponents = side_records(league, player)
    chart = {
        "labels": [point.end.isoformat() for point in history],
        "periods": [point.period for point in history],
        "rating": [round(point.rating, 2) for point in history],
        "low": [round(point.low, 2) for point in history],
        "high": [round(point.high, 2) for point in history],
        "volatility": [round(point.volatility, 6) for point in history],
    }
    context = {
        "league": league,
        "player": player,
        "absorbed": absorbed,
        "config": describe_config(config, is_live=True) if config else None,
        "summary": summary,
        # A game of three or more sides counts one result against each other side.
        "results_exceed_games": summary.wins + summary.draws + summary.losses > summary.games,
        "history": history,
        "rating_rows": rating_rows,
        "volatility_rows": volatility_rows,
        "chart": chart,
        "results": results,
        "pager": _pager(request.GET, results.page, results.num_pages),
        "result_rows": _result_rows(league, results),
        "head_to_head": records,
        "head_to_head_rows": _head_to_head_rows(league, records),
        "team_rows": _team_rows(league, team_rows),
        "team_total": team_total,
        "partner_rows": _side_record_rows(league, partners),
        "team_opponent_rows": _side_record_rows(league, opponents),
        "progress": league_progress(league),
        "export_url": _url_or_none("pages:export_history", league_slug=league.slug),
        "season": chosen,
        "season_line": season_line,
        "season_choices": season_choices(league, chosen),
        "fixture_cells": [
            fixture_cells(row)
            for row in fixture_rows(
                league, config, player=player, statuses=(UPCOMING, OVERDUE), clock=clock
            )
        ],
    }
    return render(request, "pages/player.html", context)


def _paged_list(
    request: HttpRequest,
    league_slug: str,
    select: Callable[..., Page],
    name: str,
    template: str,
) -> HttpResponse:
    """The ``?page=`` page of one of the league's lists, as ``name`` with a pager."""
    league = _league(league_slug)
    page = select(league, page=page_number(request.GET.get("page")))
    context = {
        "league": league,
        name: page,
        "pager": _pager(request.GET, page.page, page.num_pages),
        # Who recorded an event is the organisers' business, as in the API.
        "show_recorder": league.is_organiser(request.user),
    }
    return render(request, template, context)


def matches(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Every recorded match, voided ones marked; ``?season=`` keeps one season's."""
    league = _league(league_slug)
    chosen = season_from_query(request, league)
    page = match_list(
        league,
        page=page_number(request.GET.get("page")),
        between=season_bounds(chosen) if chosen else None,
    )
    context = {
        "league": league,
        "matches": page,
        "pager": _pager(request.GET, page.page, page.num_pages),
        "season": chosen,
        "season_choices": season_choices(league, chosen),
    }
    return render(request, "pages/matches.html", context)


def events(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The append-only event log, newest first."""
    return _paged_list(request, league_slug, event_log, "events", "pages/events.html")


def _version(league: League, raw: str | None) -> RatingConfig | None:
    number = version_number(raw)
    if number is None:
        return None
    return get_object_or_404(RatingConfig, league=league, version=number)


def compare(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Standings under two configuration versions side by side (``?a=1&b=2``)."""
    league = _league(league_slug)
    versions = config_versions(league)
    config_a = _version(league, request.GET.get("a"))
    config_b = _version(league, request.GET.get("b"))
    if config_b is None:
        config_b = live_config(league)
    if config_a is None and config_b is not None:
        older = [info for info in versions if info.version < config_b.version]
        if older:
            config_a = RatingConfig.objects.get(pk=older[0].id)
    comparison = None
    pending = [
        config.version
        for config in (config_a, config_b)
        if config is not None and not projection_ready(config)
    ]
    if config_a is not None and config_b is not None and not pending:
        comparison = compare_versions(
            league, config_a, config_b, page=page_number(request.GET.get("page"))
        )
    context = {
        "league": league,
        "versions": versions,
        "a": config_a.version if config_a else None,
        "b": config_b.version if config_b else None,
        "comparison": comparison,
        "pending": sorted(set(pending)),
        "pager": _pager(request.GET, comparison.page, comparison.num_pages) if comparison else None,
    }
    return render(request, "pages/compare.html", context)


@cached_page("player_ranks", _league_state, {"page"})
def player_ranks(request: HttpRequest, league_slug: str, player_slug: str) -> HttpResponse:
    """The player's rank history: an htmx fragment for the player page, or a page of its own.

    Kept out of the player page's own response because it compares the player with the
    whole field of each period they played, the one part of the page whose cost grows
    with the size of the league rather than with the player's history.
    """
    league = _league(league_slug, request)
    player = get_object_or_404(Player, league=league, slug=player_slug)
    config = live_config(league)
    ranks = rank_history(config, player) if config else []
    context = {
        "league": league,
        "player": player,
        "ranks": ranks,
        "rank_rows": [
            {
                "period": str(point.period),
                "ended": _day(point.end),
                "rank": str(point.rank),
                "players": str(point.players),
            }
            for point in reversed(ranks)
        ],
    }
    template = "pages/_rank_history.html" if request.htmx else "pages/player_ranks.html"
    return render(request, template, context)
