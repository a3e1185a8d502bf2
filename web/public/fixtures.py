"""Public fixture pages: upcoming fixtures with predictions, and iCalendar feeds.

The page and both feeds go through the page cache (``cached_page``, no query names): a
fixture event moves the league's state like any other event, and the league's local date
is part of the key, so an overdue fixture changes list on the day its deadline passes.
"""

from __future__ import annotations

import datetime as dt

from django.conf import settings
from django.http import HttpRequest, HttpResponse
from django.http.request import split_domain_port
from django.shortcuts import get_object_or_404, render
from django.urls import reverse
from django.utils import timezone
from icalendar import Calendar
from icalendar import Event as CalendarEvent

from league.models import MATCH_KINDS, Event, League, Player
from ratings.page_state import LeagueState, league_state
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import (
    CANCELLED,
    OVERDUE,
    PLAYED,
    UPCOMING,
    FixtureRow,
    fixture_rows,
    league_today,
)
from ratings.selectors.predictions import first_named_advantage
from web.fixture_display import chances_text, fixture_cells
from web.public.page_cache import cached_page, known_league

#: The feeds carry fixtures scheduled up to this many days back (played, cancelled or
#: overdue ones say so) and every later one.
FEED_DAYS_BACK = 60


def _state(league_slug: str, **_: str) -> LeagueState | None:
    return league_state(league_slug)


def _league(request: HttpRequest, slug: str) -> League:
    known = known_league(request, slug)
    return known if known is not None else get_object_or_404(League, slug=slug)


@cached_page("fixtures", _state)
def upcoming(request: HttpRequest, league_slug: str) -> HttpResponse:
    """Upcoming fixtures with each side's chances, and those not played by their deadline."""
    league = _league(request, league_slug)
    config = live_config(league)
    rows = fixture_rows(league, config, statuses=(UPCOMING, OVERDUE))
    cells = [fixture_cells(row) for row in rows]
    context = {
        "league": league,
        "upcoming": [c for c in cells if c["status"] == UPCOMING],
        "overdue": [c for c in cells if c["status"] == OVERDUE],
        "calendar_url": reverse("pages:fixtures_ics", args=[league.slug]),
        "has_ratings": config is not None,
        "advantage": first_named_advantage(config),
    }
    return render(request, "pages/fixtures.html", context)


@cached_page("fixtures_ics", _state)
def league_calendar(request: HttpRequest, league_slug: str) -> HttpResponse:
    """The league's fixtures as an iCalendar feed (RFC 5545)."""
    league = _league(request, league_slug)
    return _calendar_response(request, league, None, f"{league.name}: fixtures")


@cached_page("player_fixtures_ics", _state)
def player_calendar(request: HttpRequest, league_slug: str, player_slug: str) -> HttpResponse:
    """One player's fixtures as an iCalendar feed."""
    league = _league(request, league_slug)
    player = get_object_or_404(Player, league=league, slug=player_slug)
    return _calendar_response(
        request, league, player, f"{player.display_name}: fixtures in {league.name}"
    )


def _calendar_response(
    request: HttpRequest, league: League, player: Player | None, name: str
) -> HttpResponse:
    config = live_config(league)
    since = league_today(league) - dt.timedelta(days=FEED_DAYS_BACK)
    rows = fixture_rows(
        league,
        config,
        player=player,
        statuses=(UPCOMING, OVERDUE, PLAYED, CANCELLED),
        since=since,
    )
    page = request.build_absolute_uri(reverse("pages:fixtures", args=[league.slug]))
    # The UIDs name the site without its port: they must not change if the port does.
    host, _port = split_domain_port(request.get_host())
    body = fixtures_calendar(league, rows, name=name, host=host, page_url=page)
    response = HttpResponse(body, content_type="text/calendar; charset=utf-8")
    filename = f"{league.slug}{'-' + player.slug if player else ''}-fixtures.ics"
    response["Content-Disposition"] = f'inline; filename="{filename}"'
    return response


def fixtures_calendar(
    league: League, rows: list[FixtureRow], *, name: str, host: str, page_url: str
) -> bytes:
    """The iCalendar text of ``rows``: one VEVENT per fixture, its UID stable across changes.

    ``SEQUENCE`` counts the fixture's reschedulings and cancellation, so calendar clients
    replace an older copy; ``DURATION`` is the usual match length (``FIXTURE_MINUTES``);
    ``DTSTAMP`` is when its latest event was recorded.
    """
    changes: dict[int, list[dt.datetime]] = {}
    for fixture_id, recorded_at in (
        Event.objects.filter(league=league, fixture_id__in=[row.id for row in rows])
        .exclude(kind__in=MATCH_KINDS)
        .order_by("seq")
        .values_list("fixture_id", "recorded_at")
    ):
        changes.setdefault(fixture_id, []).append(recorded_at)
    calendar = Calendar()
    calendar.add("prodid", "-//Honest League//Fixtures//EN")
    calendar.add("version", "2.0")
    calendar.add("calscale", "GREGORIAN")
    calendar.add("x-wr-calname", name)
    for row in rows:
        stamps = changes.get(row.id) or [timezone.now()]
        event = CalendarEvent()
        event.add("uid", f"fixture-{row.id}@{host}")
        event.add("dtstamp", stamps[-1].astimezone(dt.UTC))
        event.add("sequence", len(stamps) - 1)
        event.add("dtstart", row.scheduled_at.astimezone(dt.UTC))
        # DURATION rather than DTEND: a rescheduled fixture keeps its length.
        event.add("duration", dt.timedelta(minutes=settings.FIXTURE_MINUTES))
        title = " v ".join(row.names)
        if row.label:
            title += f" ({row.label})"
        event.add("summary", title)
        if row.venue:
            event.add("location", row.venue)
        event.add("status", "CANCELLED" if row.status == CANCELLED else "CONFIRMED")
        event.add("description", _description(row))
        event.add("url", page_url)
        calendar.add_component(event)
    return calendar.to_ical()


def _description(row: FixtureRow) -> str:
    names = row.names
    first, second = names[0], names[1]
    rest = "".join(f" v {name}" for name in names[2:])
    lines = [f"{first} (first-named side) v {second}{rest}, {row.status_label.lower()}."]
    if row.status == PLAYED and row.positions:
        order = ", ".join(
            f"{name} {position}" for name, position in zip(names, row.positions, strict=True)
        )
        lines.append(f"Finishing positions: {order}.")
    elif row.status == PLAYED:
        points = f" ({row.points})" if row.points else ""
        lines.append(f"Result: {first} {row.result} {second}{points}.")
    elif row.status in (UPCOMING, OVERDUE):
        lines.append(f"Play by {row.deadline.isoformat()}.")
        text = chances_text(row.forecast, first, second)
        if text:
            lines.append(f"Predicted: {text}.")
    return "\n".join(lines)
