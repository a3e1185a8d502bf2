"""A season's club league and generated club-match fixtures.

``set_club_season`` fixes the number of boards and the match points of the club matches of
a season (``club_season_set``): a match scheduled on one of its days takes them
(``ratings.club_matches.schedule_club_match``). ``plan_club_fixtures`` plans a single or
double round robin between the league's teams (``pairings.round_robin``: Berger's tables,
home and away alternating, the second cycle swapped) from a first day, a round every
``interval_days``; ``generate_club_fixtures`` schedules it, every match a
``club_match_scheduled`` fact, all or none.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.db import transaction
from django.db.models import QuerySet
from django.utils.dateparse import parse_date
from django.utils.text import slugify
from django.utils.translation import gettext_lazy as _
from django.utils.translation import ngettext_lazy

from league import event_store
from league.calendar import league_zone
from league.event_store import Submission
from league.event_store.vocabulary import ClubMatchScheduled, ClubSeasonSet
from league.models import ClubMatch, ClubSeason, League, Season, Team
from league.validation import Errors, _as_id, check_recorder, clean_key
from pairings.round_robin import round_robin
from ratings.club_matches import (
    DEFAULT_MATCH_POINTS,
    MAX_BOARDS,
    _append_one,
    _blank,
    _check_venue,
    _count,
    _match_points,
    _moment,
    club_season_on,
    resolve_team,
)


def resolve_season(
    league: League, value: Any, errors: Errors, field: str = "season"
) -> Season | None:
    """The season of ``league`` given as a ``Season``, an id or its address (slug)."""
    if isinstance(value, Season):
        return value if value.league_id == league.pk else None
    found = None
    text = value.strip() if isinstance(value, str) else ""
    # An address first: a season's slug may be all digits ("2024"); a typed number is an
    # id only when no season has it as its address.
    if text and slugify(text) == text:
        found = Season.objects.filter(league=league, slug=text).first()
    if found is None and (isinstance(value, int) or text):
        number = _as_id(value)
        if number is not None:
            found = Season.objects.filter(league=league, pk=number).first()
    if found is None:
        if value in (None, ""):
            errors.add(field, _("Choose a season."), "required")
        else:
            errors.add(
                field, _("%(league)s has no season %(value)r."), "unknown_season",
                league=league.name, value=value,
            )  # fmt: skip
    return found


def season_club_matches(league: League, season: Season) -> QuerySet[ClubMatch]:
    """The league's club matches scheduled on a day of ``season``."""
    zone = league_zone(league)
    first = dt.datetime.combine(season.start_date, dt.time(0), tzinfo=zone)
    after = dt.datetime.combine(season.end_date + dt.timedelta(days=1), dt.time(0), tzinfo=zone)
    return ClubMatch.objects.filter(league=league, scheduled_at__gte=first, scheduled_at__lt=after)


def set_club_season(
    league: League,
    season: Season | int | str,
    *,
    boards: Any,
    points_win: Any = None,
    points_draw: Any = None,
    points_loss: Any = None,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> ClubSeason:
    """A season's club league (``club_season_set``): the number of boards and the match
    points of every club match scheduled on one of its days. They can be changed only
    while no club match is scheduled in the season (its matches keep theirs)."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    chosen = resolve_season(league, season, errors)
    count = _count(boards, errors, "boards", 1, MAX_BOARDS, str(_("number of boards")))
    win = _match_points(points_win, errors, "points_win", DEFAULT_MATCH_POINTS[0])
    draw = _match_points(points_draw, errors, "points_draw", DEFAULT_MATCH_POINTS[1])
    loss = _match_points(points_loss, errors, "points_loss", DEFAULT_MATCH_POINTS[2])
    if win is not None and draw is not None and loss is not None and not win >= draw >= loss:
        errors.add(
            "points_draw",
            _("A win earns at least a draw's match points and a draw at least a loss's."),
            "points_order",
        )
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert chosen is not None
    assert count is not None
    assert win is not None
    assert draw is not None
    assert loss is not None
    fact = ClubSeasonSet(season_id=chosen.pk, boards=count, points=(win, draw, loss))
    submission = Submission(fact, key)
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            scheduled = season_club_matches(league, chosen).count()
            if scheduled:
                errors.add(
                    "season",
                    ngettext_lazy(
                        "%(season)s has %(count)s club match scheduled already: its boards "
                        "and match points are fixed.",
                        "%(season)s has %(count)s club matches scheduled already: its boards "
                        "and match points are fixed.",
                        "count",
                    ),
                    "season_fixed",
                    season=chosen.name,
                    count=scheduled,
                )  # fmt: skip
            errors.raise_if_any()
        _append_one(league, submission, recorded_by)
    return ClubSeason.objects.select_related("season").get(season=chosen)


# --- generated fixtures --------------------------------------------------------------------


#: The most days between two rounds of generated club matches.
MAX_INTERVAL = 365
#: The most teams in one generated round robin (780 matches in a single one).
MAX_TEAMS = 40


@dataclass(frozen=True)
class PlannedMatch:
    """A club match a round robin would schedule: its round, teams, day and terms."""

    round: int
    home: Team
    away: Team
    day: dt.date
    boards: int | None
    points: tuple[Decimal, Decimal, Decimal] | None


def _day(value: Any, errors: Errors, field: str) -> dt.date | None:
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    parsed = None
    if isinstance(value, str):
        try:
            parsed = parse_date(value.strip())
        except ValueError:
            parsed = None
    if parsed is None:
        errors.add(
            field, _("Give the first day (YYYY-MM-DD); got %(value)r."), "invalid_date", value=value
        )
    return parsed


def plan_club_fixtures(
    league: League,
    *,
    teams: Any = None,
    double: bool = False,
    start: Any,
    interval_days: Any = 7,
    boards: Any = None,
) -> list[PlannedMatch]:
    """The club matches of a single (or ``double``) round robin between ``teams`` (ids or
    addresses; default: every team of the league), round 1 on ``start`` and each next
    round ``interval_days`` later, home and away alternating as Berger's tables do (the
    second cycle swaps every match's home and away). Each match takes the boards and
    match points of its day's season, else ``boards`` and 2 / 1 / 0. Writes nothing;
    raises ``ValidationError`` naming the field."""
    errors = Errors()
    chosen: list[Team] = []
    if teams is None:
        # Only None means every team: an empty choice (every box unticked) is too few.
        chosen = list(Team.objects.filter(league=league).order_by("name"))
    elif not isinstance(teams, list | tuple):
        errors.add("teams", _("Give the teams as a list."), "invalid")
    else:
        for value in teams:
            team = resolve_team(league, value, errors, "teams")
            if team is not None and team not in chosen:
                chosen.append(team)
    if not errors and len(chosen) < 2:
        errors.add(
            "teams", _("A round robin needs at least two teams; %(count)s given."),
            "too_few_teams", count=len(chosen),
        )  # fmt: skip
    if len(chosen) > MAX_TEAMS:
        errors.add(
            "teams", _("A round robin takes at most %(max)s teams; %(count)s given."),
            "too_many_teams", max=MAX_TEAMS, count=len(chosen),
        )  # fmt: skip
    first = _day(start, errors, "start")
    gap = _count(
        interval_days, errors, "interval_days", 1, MAX_INTERVAL, str(_("days between rounds"))
    )
    typed = None if _blank(boards) else _count(
        boards, errors, "boards", 1, MAX_BOARDS, str(_("number of boards"))
    )  # fmt: skip
    errors.raise_if_any()
    assert first is not None
    assert gap is not None
    planned: list[PlannedMatch] = []
    missing: list[str] = []
    rounds = round_robin([t.pk for t in chosen], double=bool(double))
    if dt.date.max - first < dt.timedelta(days=gap * (len(rounds) - 1)):
        errors.add(
            "start",
            _("The last round would fall after the calendar's end: choose an earlier first day."),
            "invalid_date",
        )
        errors.raise_if_any()
    for played in rounds:
        day = first + dt.timedelta(days=gap * (played.number - 1))
        setting = club_season_on(league, day)
        count = setting.boards if setting is not None else typed
        points = (
            (setting.points_win, setting.points_draw, setting.points_loss)
            if setting is not None
            else DEFAULT_MATCH_POINTS
        )
        if count is None:
            missing.append(day.isoformat())
        by_id = {t.pk: t for t in chosen}
        for pairing in played.pairings:
            planned.append(
                PlannedMatch(
                    played.number,
                    by_id[pairing.first],
                    by_id[pairing.second],
                    day,
                    count,
                    points,  # type: ignore[index]
                )
            )
    if missing:
        errors.add(
            "boards",
            _("No season with club-match settings holds %(days)s: give the number of boards."),
            "required",
            days=", ".join(missing),
        )
    errors.raise_if_any()
    return planned


def generate_club_fixtures(
    league: League,
    *,
    teams: Any = None,
    double: bool = False,
    start: Any,
    interval_days: Any = 7,
    boards: Any = None,
    venue: Any = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> list[ClubMatch]:
    """Schedule the round robin ``plan_club_fixtures`` plans, every match a
    ``club_match_scheduled`` fact, all in one transaction (all or none). With an
    ``idempotency_key`` a retry stores nothing new (match ``i`` is keyed ``<key>/<i>``)."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    place = _check_venue(venue, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    planned = plan_club_fixtures(
        league, teams=teams, double=double, start=start, interval_days=interval_days,
        boards=boards,
    )  # fmt: skip
    if key is not None and planned:
        # The longest key a match takes, checked before anything is written.
        clean_key(f"{key}/{len(planned) - 1}", errors)
    submissions = []
    for index, item in enumerate(planned):
        when = _moment(league, item.day, errors, "start")
        if when is None:
            break
        assert item.boards is not None
        assert item.points is not None
        fact = ClubMatchScheduled(
            club_match_id=None, home_id=item.home.pk, away_id=item.away.pk, boards=item.boards,
            scheduled_at=when, venue=place, points=item.points,
        )  # fmt: skip
        submissions.append(Submission(fact, f"{key}/{index}" if key else None))
    errors.raise_if_any()
    with transaction.atomic():
        events = event_store.append(league, submissions, recorded_by=recorded_by)
    ids = [event.details["club_match"] for event in events]
    found = ClubMatch.objects.select_related("home", "away").in_bulk(ids)
    return [found[pk] for pk in ids]
