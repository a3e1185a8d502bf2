"""Standings responses: which period was asked for, cache validators, the page body.

The ETag is a digest of everything the standings body depends on, all of it cheap to read
without computing the standings: the configuration and its projection state (when and
how far it was computed), the publication, the current period (RDs grow with it), the
players' names and flags, and the query string. A poll whose ``If-None-Match`` carries it
gets 304 without the leaderboard query running.
"""

from __future__ import annotations

import datetime as dt
import hashlib
from dataclasses import dataclass
from typing import Any

from django.utils.http import http_date
from rest_framework.exceptions import NotFound
from rest_framework.request import Request
from rest_framework.utils.urls import replace_query_param

from engine.errors import MatchBeforeAnchorError
from league.models import League, Player
from ratings.eligibility import Eligibility
from ratings.models import IntervalCoverage, ProjectionState, Publication, RatingConfig
from ratings.selectors.common import ReadClock
from ratings.selectors.configurations import period_for_date
from ratings.selectors.coverage import CoverageAtLevel
from ratings.selectors.standings import Leaderboard, LeaderboardQuery

#: The standings' query parameters -> the fields of the leaderboard's query they set.
QUERY_FIELDS = {
    "active": "active_only",
    "min_games": "min_games",
    "search": "search",
    "ordering": "sort",
    "page": "page",
    "per_page": "per_page",
    "everyone": "everyone",
    "listed": "listed",
    "level": "level",
}


def leaderboard_query(params: dict[str, Any], period: int | None) -> LeaderboardQuery:
    """The leaderboard query of the validated ``params`` (absent ones keep their defaults),
    for the standings at the end of ``period`` (None: now)."""
    asked = {field: params[name] for name, field in QUERY_FIELDS.items() if name in params}
    return LeaderboardQuery(as_of_period=period, **asked)


def requested_period(config: RatingConfig | None, params: dict[str, Any]) -> int | None:
    """The period index asked for by ``?period=`` or ``?date=``; None for the current one."""
    if config is None:
        return None
    if "period" in params:
        return params["period"]
    if "date" in params:
        try:
            return period_for_date(config, params["date"])
        except MatchBeforeAnchorError:
            # A well-formed day with no standings: not found, like an unknown version.
            raise NotFound(
                {"date": [f"Before the first rating period (from {config.period_anchor})."]}
            ) from None
    return None


@dataclass(frozen=True)
class Validators:
    """The standings' ETag and Last-Modified for one request, and the configuration's coverage
    measurement read with them (part of the ETag; the body shows it)."""

    etag: str
    computed_at: dt.datetime | None
    last_modified: dt.datetime | None
    coverage: IntervalCoverage | None = None

    def headers(self) -> dict[str, str]:
        headers = {"ETag": self.etag}
        if self.last_modified is not None:
            headers["Last-Modified"] = http_date(self.last_modified.timestamp())
        return headers

    def matches(self, if_none_match: str | None) -> bool:
        """True when an ``If-None-Match`` header names this ETag (weak comparison)."""
        if not if_none_match:
            return False
        candidates = [tag.strip() for tag in if_none_match.split(",")]
        return "*" in candidates or any(tag.removeprefix("W/") == self.etag for tag in candidates)


def validators(
    league: League,
    config: RatingConfig | None,
    publication: Publication | None,
    clock: ReadClock | None,
    request: Request,
    rules: Eligibility,
) -> Validators:
    """Validators of the standings ``request`` asks for under ``config``.

    ``publication`` is the league's (None before the first), ``clock`` the current
    period of ``config`` and ``rules`` its eligibility rules, all as the request read them
    once for the standings too.
    """
    players = list(
        Player.objects.filter(league=league)
        .order_by("pk")
        .values_list("pk", "display_name", "slug", "active")
    )
    parts: list[Any] = [league.pk, players, sorted(request.query_params.lists()), rules]
    computed_at = last_modified = None
    coverage = None
    if config is not None:
        # The coverage measurement comes with it (one statement): its time is a validator,
        # and the body shows it (``interval_coverage``).
        projection = (
            ProjectionState.objects.filter(config=config)
            .select_related("config__interval_coverage")
            .first()
        )
        if projection is not None:
            computed_at = projection.computed_at
            parts += [
                projection.computed_at.isoformat(),
                projection.through_seq,
                projection.through_period,
                projection.complete,
            ]
        if publication is not None:
            parts += [publication.config_id, publication.published_at.isoformat()]
        parts += [config.pk, ReadClock.period_for(config, clock)]
        coverage = _stored_coverage(projection)
        parts.append(coverage.measured_at.isoformat() if coverage else None)
        moments = [m for m in (computed_at, publication and publication.published_at) if m]
        last_modified = max(moments) if moments else None
    digest = hashlib.sha256(repr(parts).encode()).hexdigest()[:32]
    return Validators(f'"{digest}"', computed_at, last_modified, coverage)


def _stored_coverage(projection: ProjectionState | None) -> IntervalCoverage | None:
    """The coverage measurement read with ``projection`` (None when there is none)."""
    if projection is None:
        return None
    try:
        return projection.config.interval_coverage
    except IntervalCoverage.DoesNotExist:
        return None


def page_body(
    request: Request,
    board: Leaderboard,
    computed_at: Any,
    coverage: CoverageAtLevel | None = None,
) -> dict:
    """The ``StandingsPageSerializer`` data of one leaderboard page (``coverage``: the measured
    coverage of its level's intervals, None when not measured)."""
    url = request.build_absolute_uri()
    page, pages = board.page, board.num_pages
    return {
        "version": board.config.version if board.config else None,
        "is_live": bool(board.config and board.config.is_live),
        "computed_at": computed_at,
        "current_period": board.current_period,
        "as_of": board.as_of,
        "count": board.total,
        "listed": board.listed,
        "everyone": board.everyone,
        "ranked_count": board.ranked_total,
        "separate_count": board.separate_total,
        "rules": board.rules,
        "level": board.level,
        "interval_coverage": coverage,
        "page": page,
        "per_page": board.per_page,
        "num_pages": pages,
        "next": replace_query_param(url, "page", page + 1) if page < pages else None,
        "previous": replace_query_param(url, "page", page - 1) if page > 1 else None,
        "results": board.rows,
    }
