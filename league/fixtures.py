"""Write services for fixtures: schedule, reschedule and cancel scheduled pairings.

A fixture is an event like any other change of history (``fixture_scheduled``,
``fixture_rescheduled``, ``fixture_cancelled``; none of them changes a rating); the event
store keeps the ``Fixture`` rows in line. A result is entered against a fixture with
``league.services.record_fixture_result`` (the players come from the fixture), so the match
records which fixture it played.

A fixture with sides (doubles, teams of N, multi-player games; ``FixtureRequest.sides``)
lists its sides in its ``fixture_scheduled`` event and in ``FixtureSide`` rows; the league's
format (``League.match_format``) decides which shapes it takes, as for a recorded match.
Its result is a ``side_match_recorded`` fact naming the fixture.

Errors raise ``ValidationError`` with field -> messages and write nothing, as every service.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from league import event_store
from league.calendar import league_day
from league.event_store import Submission
from league.event_store.vocabulary import FixtureCancelled, FixtureRescheduled, FixtureScheduled
from league.models import Competition, Event, Fixture, FixtureSide, League, Player
from league.sides import SIDES_FIELD, check_format, is_one_vs_one, resolve_sides
from league.validation import (
    Errors,
    _as_id,
    check_opponents,
    check_recorder,
    check_text,
    clean_key,
    parse_played_at,
    resolve_player,
)

VENUE_MAX = Fixture._meta.get_field("venue").max_length
LABEL_MAX = Fixture._meta.get_field("label").max_length
REASON_MAX = 1000
#: A fixture (and its deadline) is at most this many years after today: a club's fixture list
#: looks a season or two ahead, and 31 Dec 9999 is a slip of the keyboard.
HORIZON_YEARS = 5


def horizon(today: dt.date) -> dt.date:
    """The last day a fixture or its deadline may fall on, seen from ``today``."""
    try:
        return today.replace(year=today.year + HORIZON_YEARS)
    except ValueError:  # 29 February, in a year that has none
        return today.replace(year=today.year + HORIZON_YEARS, day=28)


@dataclass(frozen=True, slots=True)
class FixtureRequest:
    """One pairing to schedule, as loose input (ids or players, a date or a moment)."""

    player_a: Any
    player_b: Any
    scheduled_at: Any
    deadline: Any = None
    venue: str = ""
    label: str = ""
    idempotency_key: str | None = None
    #: The sides of a fixture with sides (lists of players or ids); ``player_a`` and
    #: ``player_b`` are then left out (None).
    sides: Any = None


def fixture_sides(fixture: Fixture) -> list[list[int]]:
    """The player ids of each side of ``fixture``: its sides, or its two players."""
    rows = FixtureSide.objects.filter(fixture=fixture).order_by("side", "id")
    sides: dict[int, list[int]] = {}
    for side, player_id in rows.values_list("side", "player_id"):
        sides.setdefault(side, []).append(player_id)
    if not sides:
        return [[fixture.player_a_id], [fixture.player_b_id]]
    return [sides[x] for x in sorted(sides)]


def fixture_title(fixture: Fixture) -> str:
    """Who plays whom, as messages name a fixture: "Ann v Bob", "Ann & Bob v Cem & Dan"."""
    sides = fixture_sides(fixture)
    names = Player.objects.in_bulk([pid for side in sides for pid in side])
    versus = f" {pgettext('versus', 'v')} "
    return versus.join(" & ".join(names[pid].display_name for pid in side) for side in sides)


def has_sides(fixture: Fixture) -> bool:
    """Whether ``fixture`` is a fixture with sides (not one player against one)."""
    return FixtureSide.objects.filter(fixture=fixture).exists()


# --- reading input -------------------------------------------------------------------------


def resolve_fixture(
    league: League, value: Any, errors: Errors, field: str = "fixture"
) -> Fixture | None:
    """The fixture of ``league`` given as a ``Fixture`` or an id."""
    if isinstance(value, Fixture):
        if value.league_id != league.pk:
            errors.add(field, _("That fixture belongs to another league."), "other_league")
            return None
        return value
    fixture_id = _as_id(value)
    if fixture_id is None:
        errors.add(field, _("%(value)r is not a fixture id."), "invalid_fixture", value=value)
        return None
    fixture = Fixture.objects.filter(league=league, pk=fixture_id).first()
    if fixture is None:
        errors.add(
            field,
            _("Unknown fixture: %(league)s has no fixture with id %(id)s."),
            "unknown_fixture",
            league=league.name,
            id=fixture_id,
        )
    return fixture


#: What each short text of a fixture is called when it is too long.
VENUE_TOO_LONG = _("The venue is too long (at most %(max)s characters).")
LABEL_TOO_LONG = _("The round label is too long (at most %(max)s characters).")
REASON_TOO_LONG = _("The reason is too long (at most %(max)s characters).")


def _short_text(value: Any, errors: Errors, field: str, limit: int, too_long: Any) -> str:
    text = "" if value is None else str(value).strip()
    check_text(text, errors, field)
    if len(text) > limit:
        errors.add(field, too_long, "too_long", max=limit)
    return text


def _parse_deadline(
    league: League, value: Any, scheduled_at: dt.datetime | None, errors: Errors
) -> dt.date | None:
    """The local day a fixture should be played by: the scheduled day when not given."""
    if value is None or value == "":
        return None if scheduled_at is None else league_day(league, scheduled_at)
    day: dt.date | None = None
    if isinstance(value, dt.datetime):
        day = league_day(league, value) if timezone.is_aware(value) else value.date()
    elif isinstance(value, dt.date):
        day = value
    elif isinstance(value, str):
        try:
            day = parse_date(value.strip())
        except ValueError:
            day = None
    if day is None:
        errors.add(
            "deadline",
            _("Give the deadline as a day (YYYY-MM-DD); got %(value)r."),
            "invalid",
            value=value,
        )
        return None
    if scheduled_at is not None and day < league_day(league, scheduled_at):
        errors.add(
            "deadline",
            _("The deadline %(day)s is before the fixture's day (%(scheduled)s)."),
            "before_scheduled",
            day=day.isoformat(),
            scheduled=league_day(league, scheduled_at).isoformat(),
        )
    return day


def _check_when(
    league: League, scheduled_at: dt.datetime, deadline: dt.date, errors: Errors
) -> None:
    """A fixture is on or after the league's start and within :data:`HORIZON_YEARS` of today,
    with a deadline not yet passed and within the same horizon."""
    day = league_day(league, scheduled_at)
    if day < league.start_date:
        errors.add(
            "scheduled_at",
            _("%(day)s is before the league started (%(start)s)."),
            "before_start",
            day=day.isoformat(),
            start=league.start_date.isoformat(),
        )
    today = league_day(league, timezone.now())
    last = horizon(today)
    for field, value in (("scheduled_at", day), ("deadline", deadline)):
        if value > last:
            errors.add(
                field,
                _("%(day)s is more than %(years)s years ahead: schedule fixtures up to %(last)s."),
                "beyond_horizon",
                day=value.isoformat(),
                years=HORIZON_YEARS,
                last=last.isoformat(),
            )
    if deadline < today:
        errors.add(
            "deadline",
            _("The deadline %(day)s has passed: schedule fixtures that can still be played."),
            "deadline_passed",
            day=deadline.isoformat(),
        )


def _parse_players(
    league: League, request: FixtureRequest, found: Errors
) -> list[list[Player]] | None:
    """The fixture's sides: two sides of one player (``player_a``, ``player_b``) or
    ``sides``, checked against the league's format (errors keyed ``sides``)."""
    has_pair = request.player_a is not None or request.player_b is not None
    if request.sides is None:
        player_a = resolve_player(league, request.player_a, "player_a", found)
        player_b = resolve_player(league, request.player_b, "player_b", found)
        check_opponents(player_a, player_b, found)
        if player_a is None or player_b is None or found:
            return None
        return [[player_a], [player_b]]
    if has_pair:
        found.add(
            SIDES_FIELD,
            _("Give the players as sides or as player_a and player_b, not both."),
            "sides_and_players",
        )
        return None
    sides = resolve_sides(league, request.sides, found)
    if sides is None:
        return None
    check_format(league, [len(side) for side in sides], found, SIDES_FIELD)
    return None if found else sides


def _parse_request(league: League, request: FixtureRequest, errors: Errors) -> Submission | None:
    found = Errors()
    sides = _parse_players(league, request, found)
    when = parse_played_at(league, request.scheduled_at, found, "scheduled_at")
    scheduled_at = None if when is None else when[0]
    deadline = _parse_deadline(league, request.deadline, scheduled_at, found)
    venue = _short_text(request.venue, found, "venue", VENUE_MAX, VENUE_TOO_LONG)
    label = _short_text(request.label, found, "label", LABEL_MAX, LABEL_TOO_LONG)
    key = clean_key(request.idempotency_key, found)
    if scheduled_at is not None and deadline is not None:
        _check_when(league, scheduled_at, deadline, found)
    errors.merge(found)
    if found:
        return None
    assert sides is not None
    assert scheduled_at is not None
    assert deadline is not None
    ids = tuple(tuple(player.pk for player in side) for side in sides)
    fact = FixtureScheduled(
        fixture_id=None,
        player_a_id=ids[0][0],
        player_b_id=ids[1][0],
        scheduled_at=scheduled_at,
        deadline=deadline,
        venue=venue,
        label=label,
        # Two sides of one player are a one-vs-one fixture, however they were given.
        sides=() if is_one_vs_one([len(side) for side in ids]) else ids,
    )
    return Submission(fact, key)


def fact_players(fact: FixtureScheduled) -> list[tuple[str, int]]:
    """(field, player id) of every player of a scheduled fixture, side by side."""
    if not fact.sides:
        return [("player_a", fact.player_a_id), ("player_b", fact.player_b_id)]
    return [(SIDES_FIELD, player) for side in fact.sides for player in side]


def _check_players_active(league: League, fact: FixtureScheduled, errors: Errors) -> None:
    """Fixtures are scheduled for active players only (read under the league lock)."""
    named = fact_players(fact)
    players = league.players.in_bulk([player_id for _field, player_id in named])
    for field, player_id in named:
        player = players[player_id]
        if not player.active:
            errors.add(
                field,
                _("%(player)s is inactive; reactivate them before scheduling a fixture."),
                "inactive_player",
                player=player.display_name,
            )


def playing_match(fixture: Fixture) -> Event | None:
    """The live result recorded against ``fixture``, if any (one-vs-one or with sides)."""
    return Event.objects.live_all_matches().filter(fixture=fixture).first()


def check_open(fixture: Fixture, errors: Errors, field: str = "fixture") -> None:
    """A fixture can be played, moved or cancelled only while it is neither cancelled nor
    played (a forfeit decides it for good)."""
    if fixture.cancelled:
        errors.add(field, _("This fixture was cancelled."), "cancelled")
        return
    if fixture.competition_id is not None:
        # A game of an event takes a result once its round is published (``round_paired``).
        paired = Competition.objects.values_list("rounds_paired", flat=True).get(
            pk=fixture.competition_id
        )
        if fixture.round_number is not None and fixture.round_number > paired:
            errors.add(
                field,
                _("Round %(round)s of this event is not published yet: publish it first."),
                "round_not_published",
                round=fixture.round_number,
            )
            return
    forfeit = (
        Event.objects.filter(kind=Event.Kind.FORFEIT_RECORDED, fixture=fixture)
        .filter(voided_by__isnull=True)
        .first()
    )
    if forfeit is not None:
        errors.add(
            field,
            _("This game was decided by forfeit (event #%(seq)s); void it to enter another."),
            "forfeited",
            seq=forfeit.seq,
        )
        return
    played = playing_match(fixture)
    if played is not None:
        errors.add(
            field,
            _(
                "This fixture was already played (match #%(seq)s); void that result to enter "
                "another."
            ),
            "already_played",
            seq=played.seq,
        )


# --- services ------------------------------------------------------------------------------


def schedule_fixtures(
    league: League, requests: Sequence[FixtureRequest], *, recorded_by: Any = None
) -> list[Fixture]:
    """Schedule a round of fixtures: all of them, or none.

    Errors are keyed ``fixtures.<row>.<field>`` (rows from 0). A player may appear in one
    fixture per scheduled moment only (a whole round robin's rounds can go at once).
    """
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    if not requests:
        errors.add("fixtures", _("A round needs at least one fixture."), "required")
    errors.raise_if_any()
    submissions: list[Submission | None] = []
    seen: dict[tuple[int, dt.datetime], int] = {}
    for index, request in enumerate(requests):
        row = Errors()
        submission = _parse_request(league, request, row)
        if submission is not None:
            fact = submission.fact
            assert isinstance(fact, FixtureScheduled)
            for field, player_id in fact_players(fact):
                slot = (player_id, fact.scheduled_at)
                if slot in seen and seen[slot] != index:
                    row.add(
                        field,
                        _("This player is also in fixture %(row)s at the same time."),
                        "twice_in_round",
                        row=seen[slot] + 1,
                    )
                seen.setdefault(slot, index)
        errors.merge(row, prefix=f"fixtures.{index}")
        submissions.append(submission)
    errors.raise_if_any()
    with transaction.atomic():
        event_store.lock_league(league)
        for index, submission in enumerate(submissions):
            assert submission is not None
            if event_store.existing_for(league, submission) is None:
                row = Errors()
                _check_players_active(league, submission.fact, row)  # type: ignore[arg-type]
                errors.merge(row, prefix=f"fixtures.{index}")
        errors.raise_if_any()
        events = event_store.append(
            league, [s for s in submissions if s is not None], recorded_by=recorded_by
        )
    return [event.fixture for event in events]


def schedule_fixture(
    league: League,
    *,
    player_a: Any = None,
    player_b: Any = None,
    scheduled_at: Any,
    deadline: Any = None,
    venue: str = "",
    label: str = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
    sides: Any = None,
) -> Fixture:
    """Schedule one fixture (a ``fixture_scheduled`` event creates it): ``player_a``
    against ``player_b``, or ``sides`` (each side's players, ``Player`` or id)."""
    request = FixtureRequest(
        player_a, player_b, scheduled_at, deadline, venue, label, idempotency_key, sides
    )
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    submission = _parse_request(league, request, errors)
    errors.raise_if_any()
    assert submission is not None
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            _check_players_active(league, submission.fact, errors)  # type: ignore[arg-type]
            errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    return event.fixture


def reschedule_fixture(
    league: League,
    fixture: Fixture | int,
    *,
    scheduled_at: Any,
    deadline: Any = None,
    venue: str | None = None,
    reason: str = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Move an open fixture to ``scheduled_at`` (venue kept when ``venue`` is None)."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    target = resolve_fixture(league, fixture, errors)
    when = parse_played_at(league, scheduled_at, errors, "scheduled_at")
    moment = None if when is None else when[0]
    day = _parse_deadline(league, deadline, moment, errors)
    text = _short_text(reason, errors, "reason", REASON_MAX, REASON_TOO_LONG)
    key = clean_key(idempotency_key, errors)
    new_venue = "" if target is None else (target.venue if venue is None else venue)
    new_venue = _short_text(new_venue, errors, "venue", VENUE_MAX, VENUE_TOO_LONG)
    if moment is not None and day is not None:
        _check_when(league, moment, day, errors)
    errors.raise_if_any()
    assert target is not None
    assert moment is not None
    assert day is not None
    submission = Submission(
        FixtureRescheduled(
            fixture_id=target.pk, scheduled_at=moment, deadline=day, venue=new_venue, reason=text
        ),
        key,
    )
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            current = Fixture.objects.get(pk=target.pk)
            check_open(current, errors)
            if (current.scheduled_at, current.deadline, current.venue) == (moment, day, new_venue):
                errors.add(
                    "scheduled_at",
                    _("The fixture is already at that time, deadline and venue."),
                    "unchanged",
                )
            errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    if isinstance(fixture, Fixture):
        fixture.refresh_from_db()
    return event


def cancel_fixture(
    league: League,
    fixture: Fixture | int,
    *,
    reason: str = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Cancel an open fixture: it will not be played (the event says why)."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    target = resolve_fixture(league, fixture, errors)
    text = _short_text(reason, errors, "reason", REASON_MAX, REASON_TOO_LONG)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert target is not None
    submission = Submission(FixtureCancelled(fixture_id=target.pk, reason=text), key)
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            check_open(Fixture.objects.get(pk=target.pk), errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    if isinstance(fixture, Fixture):
        fixture.refresh_from_db()
    return event
