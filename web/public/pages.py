"""Public pages: leagues, the leaderboard, players, matches, events and version comparison.

Views parse the request, call selectors and hand plain data to templates; nothing here
queries models beyond fetching the league or player named in the URL.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Callable
from typing import Any

from django.conf import settings
from django.contrib import messages
from django.core.exceptions import ValidationError
from django.http import Http404, HttpRequest, HttpResponse, QueryDict
from django.shortcuts import get_object_or_404, redirect, render
from django.urls import reverse
from django.utils.html import escape
from django.utils.http import urlencode
from django.utils.safestring import mark_safe
from django.utils.translation import gettext as _
from django.utils.translation import gettext_lazy, ngettext, pgettext_lazy

from engine.errors import MatchBeforeAnchorError
from engine.intervals import ConfidenceLevel, better_than
from engine.state import grown_rd
from league.chess.vocabulary import COLOUR_LABELS, colour_of
from league.event_log import (
    DEFAULT_PER_PAGE,
    Page,
    SidePlayer,
    event_log,
    match_list,
    match_position,
)
from league.models import League, Player
from ratings.models import RatingConfig
from ratings.page_state import LeagueState, league_state, site_state
from ratings.seasons.derive import season_bounds
from ratings.seasons.read import player_line, season_table
from ratings.selectors.common import PeriodInfo, ReadClock, period_info
from ratings.selectors.configurations import (
    config_versions,
    describe_config,
    live_config,
    period_choices,
    period_for_date,
    projection_ready,
)
from ratings.selectors.coverage import interval_coverage
from ratings.selectors.explanation import GameTerm, explain_period
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
    shared_matches,
)
from ratings.selectors.predictions import (
    LeagueModel,
    first_named_advantage,
    league_model,
    predict,
)
from ratings.selectors.progress import league_progress
from ratings.selectors.sides import SideRecordRow, TeamResultRow, side_records, team_results
from ratings.selectors.standings import (
    DEFAULT_LEVEL,
    Leaderboard,
    LeaderboardQuery,
    compare_versions,
    every_standing,
    featured_leaderboards,
    leaderboard,
    league_summaries,
    rank_history,
    results_between,
)
from web import locale_format
from web.fixture_display import fixture_cells
from web.formatting import (
    DASH,
    coverage_texts,
    format_percentile,
    format_probability,
    prediction_texts,
    side_calibration_tables,
    signed,
)
from web.forms import LeaderboardFilterForm, level_choices, parse_level
from web.public.chart_summaries import rank_chart_summary, rating_chart_summary
from web.public.own_rating import hidden_player
from web.public.page_cache import cached_page, known_league
from web.public.seasons import line_cells, season_choices, season_from_query
from web.query_params import page_number, shown_param, slug_param, version_number

#: The outcomes of a two-side result (a multi-side game shows a place instead).
OUTCOME_WORDS = ("Win", "Draw", "Loss")
#: Each outcome as the pages say it (the selectors give the English key; a chess draw is a
#: "Remis", "nulle", "tablas" in the catalogues).
OUTCOME_LABELS = {
    "Win": pgettext_lazy("result", "Win"),
    "Draw": pgettext_lazy("result", "Draw"),
    "Loss": pgettext_lazy("result", "Loss"),
}


def outcome_label(outcome: str) -> str:
    """A selector's outcome ("Win", "Draw", "Loss", or a place) in the active language."""
    label = OUTCOME_LABELS.get(outcome)
    return outcome if label is None else str(label)


#: Leaderboard columns: (sort key or None, CSS name, header, the sort a first click applies).
COLUMNS = (
    ("rank", "rank", gettext_lazy("Rank"), "rank"),
    ("name", "name", gettext_lazy("Player"), "name"),
    ("rating", "rating", gettext_lazy("Rating"), "-rating"),
    ("rd", "rd", gettext_lazy("RD"), "rd"),
    # Named by the level shown (``locale_format.interval_heading``).
    ("low", "low", gettext_lazy("Interval"), "-low"),
    ("volatility", "volatility", gettext_lazy("Volatility"), "-volatility"),
    ("games", "games", gettext_lazy("Games"), "-games"),
    (None, "wdl", gettext_lazy("W–D–L"), None),
    ("last_played", "last_played", gettext_lazy("Last played"), "-last_played"),
    (None, "change", gettext_lazy("Change"), None),
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


def _league(slug: str, request: HttpRequest | None = None) -> League:
    """The league named in the URL (as the page cache read it already, when it did)."""
    known = None if request is None else known_league(request, slug)
    return known if known is not None else get_object_or_404(League, slug=slug)


def _league_state(league_slug: str, **_: str) -> LeagueState | None:
    """What a league's cached pages are keyed by (``ratings.page_state``)."""
    return league_state(league_slug)


# Keyed by whether sign-up is open too (read at start-up, as the setting is): a shared cache
# never serves a page offering sign-up after the operator has closed it, or the reverse.
@cached_page("home" if settings.OPEN_SIGNUP else "home-closed", site_state)
def home(request: HttpRequest) -> HttpResponse:
    """Every league with its size, and the top of the busiest leagues' standings."""
    leagues = league_summaries()
    return render(
        request,
        "pages/home.html",
        {
            "leagues": leagues,
            "featured": featured_leaderboards(leagues),
            "open_signup": settings.OPEN_SIGNUP,
        },
    )


def _hidden_player_url(request: HttpRequest, league: League) -> str:
    """The address of the viewer's own player in ``league`` when they chose not to see
    their own rating (``league.privacy``), else "". Signed-in pages are never cached."""
    mine = hidden_player(request, league)
    return mine.get_absolute_url() if mine is not None else ""


@cached_page("league", _league_state, LeaderboardFilterForm.base_fields)
def league(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The leaderboard: who is ranked, filters, sorting, search, pages and past standings."""
    league = _league(league_slug, request)
    form = LeaderboardFilterForm(request.GET or None)
    config = live_config(league)
    if form.is_bound and not form.is_valid():
        for errors in form.errors.values():
            for error in errors:
                messages.warning(request, _("%(error)s (ignored)") % {"error": error})
    as_of = form.value("period", None)
    day = form.value("date", None)
    if config is not None and day is not None:
        # The rule when both are given: the date comes first (the form says so beside the
        # inputs, and the page says when it overrode a different period).
        asked = as_of
        try:
            as_of = period_for_date(config, day)
            if asked is not None and asked != as_of:
                messages.info(
                    request,
                    _(
                        "As of period %(asked)s was not used: the date %(day)s (period "
                        "%(period)s) comes first. Leave the date empty to choose a period."
                    )
                    % {"asked": asked, "day": _day(day), "period": as_of},
                )
        except MatchBeforeAnchorError:
            messages.warning(
                request,
                _(
                    "%(day)s is before the first rating period (%(anchor)s); showing the "
                    "current standings."
                )
                % {"day": _day(day), "anchor": _day(config.period_anchor)},
            )
            day = None
    sort = form.value("sort", "rank")
    level = form.value("level", DEFAULT_LEVEL)
    query = LeaderboardQuery(
        active_only=form.value("active", False),
        min_games=form.value("min_games", 0),
        search=form.value("q", ""),
        sort=sort,
        as_of_period=as_of,
        page=form.value("page", 1),
        everyone=form.value("everyone", False),
        listed=form.value("listed", "ranked"),
        level=level,
    )
    clock = ReadClock.of(config) if config else None
    board = leaderboard(league, query, config=config, is_live=True, clock=clock)
    params = request.GET
    columns = []
    for key, css, label, first in COLUMNS:
        if css == "low":
            label = locale_format.interval_heading(level)
        column = {"key": key, "css": css, "label": str(label), "url": None, "aria_sort": None}
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
    choices = period_choices(config) if config else []
    shown = board.as_of.index if board.as_of is not None else None
    if shown is not None and all(choice.index != shown for choice in choices):
        choices = sorted([*choices, period_info(config, shown)], key=lambda c: -c.index)
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
                "label": period_label(choice),
                "selected": choice.index == shown,
            }
            for choice in choices
        ],
        "as_of_day": _as_of_statement(league, board, day),
        "as_of_label": period_label(board.as_of) if board.as_of else "",
        "current_label": period_label(board.current_period) if board.current_period else "",
        "levels": level_choices(level),
        "coverage": coverage_texts(level, interval_coverage(config, level)) if config else None,
        "separate_url": _query(params, listed="separate", page=None, sort=None),
        "ranked_url": _query(params, listed=None, page=None, sort=None),
        "progress": league_progress(league),
        "export_url": reverse("pages:export_standings", args=[league.slug])
        + ("" if level == DEFAULT_LEVEL else "?" + urlencode({"level": params["level"]})),
        "history_export_url": reverse("pages:export_history", args=[league.slug]),
        "is_organiser": league.is_organiser(request.user),
        "rules_url": reverse("workspace:ranking", args=[league.slug]),
        "hidden_url": _hidden_player_url(request, league),
    }
    return render(request, "pages/league.html", context)


def _as_of_statement(league: League, board: Leaderboard, day: dt.date | None) -> str:
    """Which period a requested day falls in and which results the standings include."""
    if board.as_of is None and board.current_period is None:
        return ""
    period = board.as_of or board.current_period
    if day is None or period is None:
        return ""
    if day > period.end:
        return _(
            "%(day)s is after the current period (%(period)s): these are the current standings."
        ) % {"day": _day(day), "period": period_label(period)}
    later = results_between(league, day, period.end)
    names = {
        "day": _day(day),
        "index": period.index,
        "start": _day(period.start),
        "end": _day(period.end),
        "later": later,
    }
    if board.as_of is None:
        return (
            ngettext(
                "%(day)s falls in period %(index)s (%(start)s to %(end)s). Ratings change once per "
                "period, so these standings include every result recorded so far: the period is "
                "still open (%(later)d result after %(day)s so far).",
                "%(day)s falls in period %(index)s (%(start)s to %(end)s). Ratings change once per "
                "period, so these standings include every result recorded so far: the period is "
                "still open (%(later)d results after %(day)s so far).",
                later,
            )
            % names
        )
    if later:
        return (
            ngettext(
                "%(day)s falls in period %(index)s (%(start)s to %(end)s). Ratings change once per "
                "period, so these standings include every result up to %(end)s, including "
                "%(later)d result played after %(day)s.",
                "%(day)s falls in period %(index)s (%(start)s to %(end)s). Ratings change once per "
                "period, so these standings include every result up to %(end)s, including "
                "%(later)d results played after %(day)s.",
                later,
            )
            % names
        )
    return (
        _(
            "%(day)s falls in period %(index)s (%(start)s to %(end)s). Ratings change once per "
            "period, so these standings include every result up to %(end)s; no result was played "
            "after %(day)s in that period."
        )
        % names
    )


def _day(day: dt.date | None) -> str:
    """A day in the active language ("" for none)."""
    return locale_format.day(day)


def period_label(period: PeriodInfo) -> str:
    """A rating period as the pages name it: "Period 12 (1 Mar 2024 to 31 Mar 2024)"."""
    return locale_format.period_label(period)


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
                "rank": DASH if row.rank is None else str(row.rank),
                "reasons": "; ".join(row.reasons),
                "name": row.name,
                "url": url.format(slug=row.slug),
                "active": row.active,
                "provisional": row.provisional,
                "rating": locale_format.rating(row.rating),
                "rd": locale_format.rating(row.rd),
                "interval": locale_format.interval(row.low, row.high),
                "volatility": locale_format.number(row.volatility, 4),
                "games": str(row.games),
                "wdl": locale_format.wdl(row.wins, row.draws, row.losses),
                "last_played": _day(row.last_played),
                "last_played_iso": row.last_played.isoformat() if row.last_played else "",
                "change": change,
                "change_class": change_class,
            }
        )
    return rows


def _history_tables(history: list[HistoryPoint], explain: str) -> tuple[str, str]:
    """The rows of the tables behind the two charts (rating, volatility), newest first.

    A 500-period history makes thousands of cells: they are formatted here in one pass
    rather than through the template engine, whose per-variable cost (localisation,
    escaping) would dominate the page.
    """
    # Every cell is a number or a date formatted just above, escaped once here (a month's
    # name comes from a catalogue, "why?" too), so the rows need no escaping per cell.
    number = locale_format.number
    why = escape(_("why?"))
    rating_rows = []
    volatility_rows = []
    for point in reversed(history):
        # The URL is built by ``reverse`` from slugs (letters, digits, hyphens) and a number.
        link = f'<a href="{explain.format(period=point.period)}">{why}</a>'
        head = f"<tr><td>{point.period}</td><td>{escape(_day(point.end))}</td>"
        rating_rows.append(
            f'{head}<td class="num">{number(point.rating, 1)}</td>'
            f'<td class="num">{number(point.rd, 1)}</td>'
            f'<td class="num">{locale_format.interval(point.low, point.high)}</td>'
            f'<td class="num">{point.games}</td>'
            f'<td class="num">{locale_format.wdl(point.wins, point.draws, point.losses)}</td>'
            f'<td class="num">{locale_format.signed_number(point.change, 1)} {link}</td></tr>'
        )
        volatility_rows.append(f'{head}<td class="num">{number(point.volatility, 5)}</td></tr>')
    rating_html = mark_safe("\n".join(rating_rows))
    volatility_html = mark_safe("\n".join(volatility_rows))
    return rating_html, volatility_html


def _explain_url(league: League, player: Player) -> str:
    """The explanation URL of ``player`` with ``{period}`` in place of the period."""
    url = reverse(
        "pages:player_period",
        kwargs={"league_slug": league.slug, "player_slug": player.slug, "period": 999999999},
    )
    return url.replace("999999999", "{period}")


def _result_groups(league: League, player: Player, results: Page) -> list[dict[str, object]]:
    """The page's results grouped by rating period, newest first, with each change once."""
    url = _player_urls(league)
    explain = _explain_url(league, player)
    groups: list[dict[str, Any]] = []
    for result in results.items:
        if not groups or groups[-1]["period"] != result.period:
            change, change_class = signed(result.rating_change, 1)
            groups.append(
                {
                    "period": result.period,
                    "label": ""
                    if result.period is None
                    else _("Period %(index)s") % {"index": result.period},
                    "change": change,
                    "change_class": change_class,
                    "explain": None
                    if result.period is None or result.rating_change is None
                    else explain.format(period=result.period),
                    "rows": [],
                }
            )
        groups[-1]["rows"].append(
            {
                "date": _day(result.played_on),
                "date_iso": result.played_on.isoformat(),
                "opponent": result.opponent,
                "url": url.format(slug=result.opponent_slug),
                "outcome": outcome_label(result.outcome),
                "outcome_class": result.outcome.lower(),
                "points": result.points,
                "seq": result.seq,
                "colour_key": colour_of(0 if result.first_named else 1),
                "colour": str(COLOUR_LABELS[colour_of(0 if result.first_named else 1)])
                if league.is_chess
                else "",
            }
        )
    return groups


def _team_rows(
    league: League, player: Player, rows: list[TeamResultRow]
) -> list[dict[str, object]]:
    url = _player_urls(league)
    explain = _explain_url(league, player)

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
                "outcome": outcome_label(row.outcome),
                "outcome_class": row.outcome.lower() if row.outcome in OUTCOME_WORDS else "place",
                "points": row.points,
                "period": "" if row.period is None else str(row.period),
                "change": change,
                "change_class": change_class,
                "explain": None
                if row.period is None or row.rating_change is None
                else explain.format(period=row.period),
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
            "wdl": locale_format.wdl(row.wins, row.draws, row.losses),
        }
        for row in rows
    ]


def _head_to_head_rows(
    league: League, rows: list[HeadToHeadRow], model: LeagueModel | None
) -> list[dict]:
    url = _player_urls(league)
    table = []
    for row in rows:
        cells = {
            "opponent": row.opponent,
            "url": url.format(slug=row.opponent_slug),
            "games": str(row.games),
            "wdl": f"{row.wins}{DASH}{row.draws}{DASH}{row.losses}",
            "expected": format_probability(row.win_probability),
            "chances": "",
        }
        if model is not None and model.has_draws and model.draw_model is not None:
            win, draw, loss = (
                float(p) for p in model.draw_model.probabilities(row.win_probability)
            )
            cells["chances"] = (
                f"{format_probability(win)} / {format_probability(draw)} / "
                f"{format_probability(loss)}"
            )
        table.append(cells)
    return table


#: Idle periods drawn per gap in the RD band (the growth curve is smooth; more is noise).
MAX_IDLE_POINTS = 60


def _chart(
    config: RatingConfig, history: list[HistoryPoint], now: int, level: ConfidenceLevel
) -> dict[str, Any]:
    """The rating chart's data: dates on a time axis, the band grown through idle periods.

    ``rating`` has one point per period played and one for today (the rating does not
    change while idle); ``band`` adds the periods between, where the RD grows, and ends
    today with the RD the player card shows.
    """
    z = level.z
    band: list[list[Any]] = []
    rating: list[list[Any]] = []
    today = dt.date.today()
    for index, point in enumerate(history):
        # The current period ends after today: its point is drawn today.
        day = min(point.end, today).isoformat()
        band.append([day, round(point.rating - z * point.rd, 2),
                     round(point.rating + z * point.rd, 2), round(point.rd, 2)])  # fmt: skip
        rating.append([day, round(point.rating, 2), point.period])
        following = history[index + 1].period if index + 1 < len(history) else now + 1
        gap = following - point.period - 1
        if gap <= 0:
            continue
        step = max(1, math.ceil(gap / MAX_IDLE_POINTS))
        for k in [*range(step, gap + 1, step)] + ([gap] if gap % step else []):
            period = point.period + k
            rd = float(grown_rd(point.rd, point.volatility, k, config.max_rd))
            day = min(period_info(config, period).end, today).isoformat()
            band.append([day, round(point.rating - z * rd, 2), round(point.rating + z * rd, 2),
                         round(rd, 2)])  # fmt: skip
    if history:
        last = history[-1]
        rd_today = float(grown_rd(last.rd, last.volatility, max(now - last.period, 0),
                                  config.max_rd))  # fmt: skip
        while band and band[-1][0] >= today.isoformat():
            band.pop()
        band.append([today.isoformat(), round(last.rating - z * rd_today, 2),
                     round(last.rating + z * rd_today, 2), round(rd_today, 2)])  # fmt: skip
        if rating[-1][0] < today.isoformat():
            rating.append([today.isoformat(), round(last.rating, 2), None])
    return {
        "band": band,
        "rating": rating,
        "level": locale_format.level_label(level),
        "today": today.isoformat(),
    }


def _volatility_trend(history: list[HistoryPoint], span: int = 12) -> str:
    """The volatility's trend over the last ``span`` periods played, in words."""
    if len(history) < 2:
        return _("no trend yet (one period played)")
    first = history[max(0, len(history) - 1 - span)]
    change = history[-1].volatility - first.volatility
    periods = len(history) - 1 - max(0, len(history) - 1 - span)
    if abs(change) < 0.00005:
        return ngettext(
            "steady over the last period played",
            "steady over the last %(n)d periods played",
            periods,
        ) % {"n": periods}
    names = {"n": periods, "change": locale_format.number(abs(change), 4)}
    if change > 0:
        return (
            ngettext(
                "up %(change)s over the last period played",
                "up %(change)s over the last %(n)d periods played",
                periods,
            )
            % names
        )
    return (
        ngettext(
            "down %(change)s over the last period played",
            "down %(change)s over the last %(n)d periods played",
            periods,
        )
        % names
    )


#: Head-to-head rows shown before "Show all": the opponents played most often.
HEAD_TO_HEAD_ROWS = 15


def _head_to_head_view(request: HttpRequest, rows: list[dict]) -> dict[str, Any]:
    """The head-to-head rows shown (the first ``HEAD_TO_HEAD_ROWS`` unless ``?opponents=all``)
    and the links between the short and the full table."""
    everyone = request.GET.get("opponents") == "all"
    long_table = len(rows) > HEAD_TO_HEAD_ROWS
    return {
        "head_to_head_rows": rows if everyone else rows[:HEAD_TO_HEAD_ROWS],
        "head_to_head_total": len(rows),
        "head_to_head_cap": HEAD_TO_HEAD_ROWS,
        "head_to_head_all_url": (
            _query(request.GET, opponents="all") if long_table and not everyone else None
        ),
        "head_to_head_fewer_url": (
            _query(request.GET, opponents=None) if long_table and everyone else None
        ),
    }


@cached_page("player", _league_state, {"page", "level", "season", "opponents"})
def player(request: HttpRequest, league_slug: str, player_slug: str) -> HttpResponse:
    """A player's rating chart, results by period, head-to-head records and rank history.

    ``?season=`` narrows the results to one season's and shows the player's line of it;
    ``?level=`` sets the interval's level; ``?opponents=all`` shows every head-to-head
    record (the opponents played most often otherwise).
    """
    league = _league(league_slug, request)
    player = get_object_or_404(Player, league=league, slug=player_slug)
    level = _level(request)
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
        per_page=PLAYER_RESULTS_PER_PAGE,
        counted=counted,
        between=season_bounds(chosen) if chosen else None,
    )
    season_line = None
    if chosen is not None:
        line = player_line(season_table(chosen), player.pk)
        season_line = line_cells(line) if line else None
    rating_rows, volatility_rows = _history_tables(history, _explain_url(league, player))
    records = head_to_head(league, config, player, clock=clock, counted=counted)
    # A singles league records no match with sides: its player page reads nothing more.
    if league.takes_sides:
        team_rows, team_total = team_results(league, player, config=config)
        partners, opponents = side_records(league, player)
    else:
        team_rows, team_total, partners, opponents = [], 0, [], []
    summary = player_summary(league, config, player, clock=clock, level=level)
    standing = None
    ranked: list[float] = []
    if config is not None:
        for row in every_standing(league, config, clock=clock, level=level):
            if row.eligible:
                ranked.append(row.rating)
            if row.player_id == player.pk:
                standing = row
    percentile = None
    # Only a ranked player gets a percentile: "better than 96 % of ranked players" would
    # overstate a provisional or idle player whose rating is far from sure.
    if standing is not None and standing.eligible and ranked:
        share = better_than(standing.rating, ranked, ranked_includes_them=True)
        # The top player reads "better than every other ranked player", not "100 %", which
        # looks like a probability and includes themselves.
        if share is not None:
            percentile = (
                _("better than every other ranked player")
                if share >= 1
                else _("better than %(share)s of ranked players")
                % {"share": format_percentile(share)}
            )
    model = league_model(league, config) if config and records else None
    low, high = level.bounds(summary.rating, summary.rd)
    context = {
        "league": league,
        "player": player,
        "absorbed": absorbed,
        "config": describe_config(config, is_live=True) if config else None,
        "summary": summary,
        "standing": standing,
        "percentile": percentile,
        "level": level,
        "levels": level_choices(level),
        "coverage": coverage_texts(level, interval_coverage(config, level)) if config else None,
        "interval": locale_format.interval(low, high),
        "level_label": locale_format.level_label(level),
        "volatility_trend": _volatility_trend(history),
        # A game of three or more sides counts one result against each other side.
        "results_exceed_games": summary.wins + summary.draws + summary.losses > summary.games,
        "history": history,
        "rating_rows": rating_rows,
        "volatility_rows": volatility_rows,
        "chart": _chart(config, history, clock.period, level) if config and clock else {},
        "chart_summary": rating_chart_summary(player.display_name, history),
        "results": results,
        "pager": _pager(request.GET, results.page, results.num_pages),
        "result_groups": _result_groups(league, player, results),
        "head_to_head": records,
        **_head_to_head_view(request, _head_to_head_rows(league, records, model)),
        "has_draws": bool(model and model.has_draws),
        "draw_model": model.draw_model if model else None,
        # The head-to-head rows' expected scores are on neutral ground (no venue to go by).
        "advantage": first_named_advantage(config),
        "versus_url": reverse("pages:versus", kwargs={"league_slug": league.slug}),
        "ranks_url": reverse("pages:player_ranks", args=[league.slug, player.slug])
        + ("" if level == DEFAULT_LEVEL else "?" + urlencode({"level": request.GET["level"]})),
        "team_rows": _team_rows(league, player, team_rows),
        "team_total": team_total,
        "partner_rows": _side_record_rows(league, partners),
        "team_opponent_rows": _side_record_rows(league, opponents),
        "progress": league_progress(league),
        "export_url": reverse("pages:export_history", args=[league.slug]),
        "season": chosen,
        "season_line": season_line,
        "season_choices": season_choices(league, chosen),
        # Void and correct beside each result, for the league's organisers.
        "is_organiser": league.is_organiser(request.user),
        "fixture_cells": [
            fixture_cells(row)
            for row in fixture_rows(
                league, config, player=player, statuses=(UPCOMING, OVERDUE), clock=clock
            )
        ],
    }
    if _hidden_player_url(request, league) == player.get_absolute_url():
        # The viewer chose not to see their own rating: their page without its numbers.
        return render(request, "pages/player_hidden.html", context)
    return render(request, "pages/player.html", context)


def _score_text(score: float) -> str:
    """A score as the page shows it: 1, 0.5 or 0 as they are, a margin-shaped one to 3 places
    (so that 0.998 does not read as a plain win, 1); with the language's decimal mark."""
    if score in (0.0, 0.5, 1.0):
        return f"{score:g}".replace(".", locale_format.decimal_separator())
    return locale_format.number(score, 3)


def _advantage_note(game: GameTerm) -> str:
    """ "Home advantage: +100 points for Spain in this game", or "" when there was none."""
    if game.advantage == 0.0:
        return ""
    return _("Home advantage: %(points)s points for %(home)s in this game") % {
        "points": _points(game.advantage, signed=True),
        "home": game.home,
    }


def _points(value: float, *, signed: bool = False) -> str:
    """Rating points as a configuration holds them (115, 12.5), in the active language."""
    text = f"{value:+g}" if signed else f"{value:g}"
    return text.replace(".", locale_format.decimal_separator())


def _margin_note(game: GameTerm) -> str:
    """The margin's note, e.g. "won 3-0: counts as 0.998 with margins on" ("" if none)."""
    if not game.margin_shaped:
        return ""
    values = {"points": game.points, "score": locale_format.number(game.score, 3)}
    if game.outcome == "Win":
        return _("won %(points)s: counts as %(score)s with margins on") % values
    if game.outcome == "Loss":
        return _("lost %(points)s: counts as %(score)s with margins on") % values
    if game.outcome == "Draw":
        return _("draw %(points)s: counts as %(score)s with margins on") % values
    values["outcome"] = outcome_label(game.outcome)
    return _("%(outcome)s %(points)s: counts as %(score)s with margins on") % values


def player_period(
    request: HttpRequest, league_slug: str, player_slug: str, period: int
) -> HttpResponse:
    """Why a player's rating moved in one period: every game's share, in plain words."""
    league = _league(league_slug, request)
    player = get_object_or_404(Player, league=league, slug=player_slug)
    config = live_config(league)
    explanation = explain_period(league, config, player, period) if config else None
    if explanation is None:
        raise Http404(f"{player.display_name} played no rated game in period {period}.")
    url = _player_urls(league)
    games = [
        {
            "date": _day(game.played_on),
            "opponent": game.opponent,
            "url": url.format(slug=game.opponent_slug) if game.opponent_slug else "",
            "partners": game.partners,
            "outcome": outcome_label(game.outcome),
            "outcome_class": game.outcome.lower(),
            "points": game.points,
            "opponent_rating": f"{game.opponent_rating:.0f}",
            "opponent_rd": f"{game.opponent_rd:.0f}",
            "weight": locale_format.number(game.weight, 3),
            "weight_percent": locale_format.percent(game.weight),
            "expected": locale_format.number(game.expected, 2),
            "score": _score_text(game.score),
            "advantage_note": _advantage_note(game),
            "margin_note": _margin_note(game),
            "surprise": locale_format.signed_number(game.surprise, 2),
            "effect": locale_format.signed_number(game.effect, 2),
            "effect_class": "up" if game.effect > 0 else "down" if game.effect < 0 else "",
        }
        for game in explanation.games
    ]
    explain = _explain_url(league, player)
    context = {
        "league": league,
        "player": player,
        "e": explanation,
        "games": games,
        "team_games": any(game.partners or not game.opponent_slug for game in explanation.games),
        "change": locale_format.signed_number(explanation.change, 2),
        "effects_total": locale_format.signed_number(explanation.effects_total, 2),
        "advantage_text": (
            _(
                "Home advantage: in every game not marked neutral the first-named (home) "
                "player counts as %(points)s points stronger in the expected score."
            )
            % {"points": _points(config.advantage)}
            if config.advantage
            else ""
        ),
        "margin_text": (
            _(
                "Margins on: the actual score comes from the points margin, a win counting "
                "0.5 + 0.5 × tanh(margin / %(scale)s) (between ½ and 1) and the loser the "
                "rest; a draw counts ½, and a game without points counts as a plain result."
            )
            % {"scale": _points(config.margin_scale)}
            if config.margin_scale is not None
            else ""
        ),
        "previous_url": explain.format(period=explanation.previous_period.index)
        if explanation.previous_period
        else None,
        "next_url": explain.format(period=explanation.next_period)
        if explanation.next_period is not None
        else None,
    }
    return render(request, "pages/player_period.html", context)


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
        # Who recorded an event is the organisers' business, as in the API; so are the
        # void and correct links beside each match.
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
        per_page=MATCHES_PER_PAGE,
        between=season_bounds(chosen) if chosen else None,
    )
    context = {
        "league": league,
        "matches": page,
        "pager": _pager(request.GET, page.page, page.num_pages),
        "season": chosen,
        "season_choices": season_choices(league, chosen),
        # Void and correct beside each match, for the league's organisers.
        "show_recorder": league.is_organiser(request.user),
    }
    return render(request, "pages/matches.html", context)


#: Results on a page of a player's results (about: a page holds whole rating periods).
PLAYER_RESULTS_PER_PAGE = DEFAULT_PER_PAGE

#: Matches on a page of the matches list.
MATCHES_PER_PAGE = DEFAULT_PER_PAGE


def match_permalink(request: HttpRequest, league_slug: str, seq: int) -> HttpResponse:
    """A lasting link to one match (the feeds' entries): a redirect to the page of the
    matches list that holds it now, at its row (later results move it to later pages)."""
    league = _league(league_slug)
    position = match_position(league, seq)
    if position is None:
        raise Http404(_("No such match in this league."))
    url = reverse("pages:matches", args=[league.slug])
    page = position // MATCHES_PER_PAGE + 1
    query = f"?{urlencode({'page': page})}" if page > 1 else ""
    return redirect(f"{url}{query}#match-{seq}")


def events(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The append-only event log, newest first."""
    return _paged_list(request, league_slug, event_log, "events", "pages/events.html")


def _version(league: League, raw: str | None) -> RatingConfig | None:
    number = version_number(raw)
    if number is None:
        return None
    return get_object_or_404(RatingConfig, league=league, version=number)


def _hidden_slug(request: HttpRequest, league: League) -> str:
    """The slug of the viewer's own player when they hide their own rating, else ""."""
    mine = hidden_player(request, league)
    return mine.slug if mine is not None else ""


def compare(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Standings under two configuration versions side by side (``?a=1&b=2``)."""
    league = _league(league_slug)
    versions = config_versions(league)
    config_a = _version(league, request.GET.get("a"))
    config_b = _version(league, request.GET.get("b"))
    if config_b is None:
        config_b = live_config(league)
    if config_a is None and config_b is not None:
        # The version before B, else the oldest one after it (when B is the oldest): never
        # B itself, which would compare a version with itself.
        others = [info for info in versions if info.version != config_b.version]
        older = [info for info in others if info.version < config_b.version]
        if older or others:
            config_a = RatingConfig.objects.get(pk=(older or others[::-1])[0].id)
    same = config_a is not None and config_b is not None and config_a.pk == config_b.pk
    comparison = None
    pending = [
        config.version
        for config in (config_a, config_b)
        if config is not None and not projection_ready(config)
    ]
    if config_a is not None and config_b is not None and not pending and not same:
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
        "same": same,
        "pager": _pager(request.GET, comparison.page, comparison.num_pages) if comparison else None,
        "hidden_slug": _hidden_slug(request, league),
    }
    return render(request, "pages/compare.html", context)


def _level(request: HttpRequest) -> ConfidenceLevel:
    """``?level=`` of the request (the default, with a warning, when it is not a level)."""
    try:
        return parse_level(request.GET.get("level")) or DEFAULT_LEVEL
    except ValidationError as error:
        messages.warning(request, f"{error.messages[0]} (ignored)")
        return DEFAULT_LEVEL


@cached_page("player_ranks", _league_state, {"page", "level"})
def player_ranks(request: HttpRequest, league_slug: str, player_slug: str) -> HttpResponse:
    """The player's rank over time: an htmx fragment for the player page, or a page of its own.

    Kept out of the player page's own response because it carries every player's state
    through the history (the leaderboard's rank at each period), the one part of the page
    whose cost grows with the size of the league rather than with the player's history.
    ``?level=`` is the player page's level (it orders players when the league ranks by
    the interval's lower end).
    """
    league = _league(league_slug, request)
    player = get_object_or_404(Player, league=league, slug=player_slug)
    config = live_config(league)
    clock = ReadClock.of(config) if config else None
    level = _level(request)
    ranks = rank_history(league, config, player, clock=clock, level=level) if config else []
    today = dt.date.today()
    context = {
        "league": league,
        "player": player,
        "ranks": ranks,
        "rank_summary": rank_chart_summary(player.display_name, ranks),
        "rank_chart": {
            "points": [
                [min(point.end, today).isoformat(), point.rank, point.players] for point in ranks
            ]
        },
        "rank_rows": [
            {
                "period": str(point.period),
                "ended": _day(point.end),
                "rank": DASH if point.rank is None else str(point.rank),
                "players": str(point.players),
            }
            for point in reversed(ranks)
        ],
    }
    template = "pages/_rank_history.html" if request.htmx else "pages/player_ranks.html"
    return render(request, template, context)


@cached_page("versus", _league_state, {"a", "b"})
def versus(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Any two players: their record, every shared match, the prediction and its track record."""
    league = _league(league_slug, request)
    everyone = list(
        Player.objects.filter(league=league)
        .order_by("display_name")
        .values_list("slug", "display_name")
    )
    chosen = []
    for key in ("a", "b"):
        raw = request.GET.get(key) or ""
        slug = slug_param(raw)
        found = Player.objects.filter(league=league, slug=slug).first() if slug else None
        if raw.strip() and found is None:
            messages.warning(
                request,
                _("No player '%(value)s' in %(league)s (ignored).")
                % {"value": shown_param(raw), "league": league.name},
            )
        chosen.append(found)
    player_a, player_b = chosen
    context: dict[str, Any] = {
        "league": league,
        "players": everyone,
        "a": player_a,
        "b": player_b,
        "hidden_slug": _hidden_slug(request, league),
    }
    if player_a is not None and player_b is not None and player_a.pk == player_b.pk:
        messages.warning(request, "Choose two different players.")
    elif player_a is not None and player_b is not None:
        config = live_config(league)
        clock = ReadClock.of(config) if config else None
        summary_a = player_summary(league, config, player_a, clock=clock)
        summary_b = player_summary(league, config, player_b, clock=clock)
        model = league_model(league, config) if config else None
        # The first-named player is at home, as in a recorded match (the engine's advantage).
        advantage = first_named_advantage(config)
        prediction = predict(model or LeagueModel(None, [], 0), summary_a.rating, summary_a.rd,
                             summary_b.rating, summary_b.rd, advantage)  # fmt: skip
        neutral = predict(model or LeagueModel(None, [], 0), summary_a.rating, summary_a.rd,
                          summary_b.rating, summary_b.rd) if advantage else None  # fmt: skip
        favourite = max(prediction.expected_score, 1 - prediction.expected_score)
        context.update(
            summary_a=summary_a,
            summary_b=summary_b,
            matches=shared_matches(league, player_a, player_b),
            prediction=prediction_texts(prediction),
            expected_b=format_probability(1 - prediction.expected_score),
            advantage=advantage,
            neutral_expected=format_probability(neutral.expected_score) if neutral else None,
            model=model,
            band=model.band_for(favourite) if model else None,
            side_tables=side_calibration_tables(model.sides, chess=league.is_chess)
            if model
            else [],
            favourite=player_a if prediction.expected_score >= 0.5 else player_b,
        )
    return render(request, "pages/versus.html", context)
