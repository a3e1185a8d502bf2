"""Embeddable views for a club's own website: the standings (or a season's table) and the
upcoming fixtures, each in a frame.

Framing is refused everywhere else on the site (``X-Frame-Options: DENY`` and
``frame-ancestors 'none'``). An embed response names the origins its league's organisers
allow in ``Content-Security-Policy: frame-ancestors`` and drops ``X-Frame-Options`` (which
cannot name an origin); with no origin listed it is refused like every other page. The page
itself is cached per league state like the other public pages; the header is computed per
request, so a change of the list applies at once.
"""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any

from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render

from config.csp import embed_policy
from league.models import League, Player
from league.website import frame_origins
from ratings.page_state import LeagueState, league_state
from ratings.seasons.read import season_table
from ratings.selectors.common import ReadClock
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import UPCOMING, fixture_rows
from ratings.selectors.standings import LeaderboardQuery, leaderboard
from web.fixture_display import fixture_cells
from web.public.page_cache import cached_page, known_league
from web.public.pages import board_rows
from web.public.seasons import find_season, season_context
from web.query_params import page_number, slug_param

#: Rows an embed shows by default and at most (``?rows=``).
DEFAULT_ROWS = 10
MAX_ROWS = 50


def frameable(view: Callable[..., HttpResponse]) -> Callable[..., HttpResponse]:
    """Let the origins the league lists frame ``view``'s responses, and nobody else."""

    @wraps(view)
    def wrapped(request: HttpRequest, league_slug: str, **kwargs: Any) -> HttpResponse:
        response = view(request, league_slug, **kwargs)
        league = League.objects.filter(slug=league_slug).first()
        origins = frame_origins(league) if league is not None else []
        response._csp_config = embed_policy(origins)  # type: ignore[attr-defined]
        if origins:
            response.xframe_options_exempt = True  # type: ignore[attr-defined]
        return response

    return wrapped


def _league_state(league_slug: str, **_: str) -> LeagueState | None:
    return league_state(league_slug)


@frameable
@cached_page("embed_standings", _league_state, {"rows", "season"})
def standings(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The top of the standings (``?rows=``), or a season's table (``?season=<slug>``)."""
    league = known_league(request, league_slug) or get_object_or_404(League, slug=league_slug)
    rows = min(page_number(request.GET.get("rows"), DEFAULT_ROWS), MAX_ROWS)
    context: dict[str, Any] = {"league": league, "embed": True}
    season = find_season(league, request.GET.get("season"))
    if season is not None:
        context.update(season_context(season_table(season)))
        context["rows"] = context["rows"][:rows]
        return render(request, "embed/season.html", context)
    config = live_config(league)
    clock = ReadClock.of(config) if config else None
    board = leaderboard(
        league, LeaderboardQuery(per_page=rows), config=config, is_live=True, clock=clock
    )
    context.update({"board": board, "rows": board_rows(league, board)})
    return render(request, "embed/standings.html", context)


def find_player(league: League, raw: str | None) -> Player | None:
    """The league's player whose slug is ``raw`` (None for anything else, unread)."""
    slug = slug_param(raw)
    if slug is None:
        return None
    return Player.objects.filter(league=league, slug=slug).first()


@frameable
@cached_page("embed_fixtures", _league_state, {"rows", "player"})
def fixtures(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The next upcoming fixtures (``?rows=``), or one player's (``?player=<slug>``), with
    each side's chances as the fixtures page words them. A ``?player=`` naming nobody in
    the league is ignored, like an unknown ``?season=`` on the standings embed."""
    league = known_league(request, league_slug) or get_object_or_404(League, slug=league_slug)
    rows = min(page_number(request.GET.get("rows"), DEFAULT_ROWS), MAX_ROWS)
    player = find_player(league, request.GET.get("player"))
    config = live_config(league)
    found = fixture_rows(league, config, player=player, statuses=(UPCOMING,), limit=rows)
    context = {
        "league": league,
        "embed": True,
        "player": player,
        "fixtures": [fixture_cells(row) for row in found],
        "has_ratings": config is not None,
    }
    return render(request, "embed/fixtures.html", context)
