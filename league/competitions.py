"""Competitions inside a league (user-facing: events): round robins and Swiss events with
their entrants, rounds, byes, forfeits and withdrawals.

Every change is a fact in the league's log (``competition_created``, ``entrant_entered``,
``entrant_withdrawn``, ``bye_requested``, ``round_paired`` with the round's games as
``fixture_scheduled`` facts, ``forfeit_recorded``); the event store keeps the
``Competition``, ``Entrant``, ``RoundBye`` and ``Fixture`` rows in line. A game's result is
recorded on its fixture through the one result path (``league.services.record_fixture_result``);
a forfeit is its own kind of result: the winner gets a win's points, nothing is rated, and
the log says so.

Errors raise ``ValidationError`` with field -> messages and write nothing, as every service.
``competition_state`` is the one read of a competition that tie-breaks, crosstables, TRF
export and pairing engines share.
"""

from __future__ import annotations

import datetime as dt
import math
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from enum import StrEnum
from typing import Any

from django.db import transaction
from django.utils import timezone
from django.utils.dateparse import parse_date
from django.utils.text import slugify
from django.utils.translation import gettext
from django.utils.translation import gettext_lazy as _

from league import event_store
from league.calendar import league_day
from league.event_store import Submission
from league.event_store.vocabulary import (
    ByeRequested,
    CompetitionCreated,
    EntrantEntered,
    EntrantWithdrawn,
    ForfeitRecorded,
    PairingForbidden,
    RoundPaired,
)
from league.event_store.vocabulary import (
    FixtureScheduled as FixtureScheduledFact,
)
from league.fixtures import check_open, resolve_fixture
from league.models import (
    ByeKind,
    Competition,
    CompetitionFormat,
    CupDrawRule,
    Entrant,
    Event,
    Fixture,
    League,
    Player,
    RoundBye,
    Season,
)
from league.sports import is_chess
from league.tiebreaks import TIEBREAKS, canonical_code
from league.validation import (
    Errors,
    _as_id,
    check_can_play,
    check_recorder,
    check_text,
    clean_key,
    parse_played_at,
    resolve_player,
)
from pairings import double_elimination as double_elimination_rules

NAME_MAX = Competition._meta.get_field("name").max_length
SLUG_MAX = Competition._meta.get_field("slug").max_length
NOTE_MAX = 1000
#: The most rounds a competition may plan (a season-long Swiss has a few dozen at most).
MAX_ROUNDS = 99
#: Points a pairing-allocated bye may score.
BYE_POINTS = (Decimal("1"), Decimal("0.5"), Decimal("0"))
#: The points of a requested bye, by kind.
REQUESTED_BYE_POINTS = {
    ByeKind.REQUESTED_HALF: Decimal("0.5"),
    ByeKind.REQUESTED_ZERO: Decimal("0"),
    ByeKind.REQUESTED_FULL: Decimal("1"),
}
#: A tie-break code: letters, digits and the punctuation of the FIDE codes ("BH-1", "SB").
TIEBREAK_CODE = re.compile(r"^[A-Za-z][A-Za-z0-9/%-]{0,15}$")
MAX_TIEBREAKS = 12
#: Seed ratings a club could give (any rating list's scale fits).
SEED_RATING_RANGE = (0.0, 4000.0)


# --- reading input -------------------------------------------------------------------------


def resolve_competition(
    league: League, value: Any, errors: Errors, field_name: str = "competition"
) -> Competition | None:
    """The competition of ``league`` given as a ``Competition``, an id or its slug."""
    if isinstance(value, Competition):
        if value.league_id != league.pk:
            errors.add(field_name, _("That event belongs to another league."), "other_league")
            return None
        return value
    found = None
    number = _as_id(value)
    if number is not None:
        found = Competition.objects.filter(league=league, pk=number).first()
    elif isinstance(value, str) and value.strip():
        found = Competition.objects.filter(league=league, slug=value.strip()).first()
    if found is None:
        errors.add(
            field_name,
            _("%(league)s has no event %(value)r."),
            "unknown_competition",
            league=league.name,
            value=value,
        )
    return found


def _round(value: Any, errors: Errors, field_name: str, label: str) -> int | None:
    number = _as_id(value)
    if number is None or not 1 <= number <= MAX_ROUNDS:
        errors.add(
            field_name,
            _("Give the %(label)s as a whole number from 1 to %(max)s; got %(value)r."),
            "invalid_round",
            label=label,
            max=MAX_ROUNDS,
            value=value,
        )
        return None
    return number


def _text(value: Any, errors: Errors, field_name: str, limit: int) -> str:
    text = "" if value is None else str(value).strip()
    check_text(text, errors, field_name)
    if len(text) > limit:
        errors.add(field_name, _("At most %(max)s characters, please."), "too_long", max=limit)
    return text


def _day(value: Any, errors: Errors, field_name: str) -> dt.date | None:
    if value is None or value == "":
        return None
    if isinstance(value, dt.date) and not isinstance(value, dt.datetime):
        return value
    day = None
    if isinstance(value, str):
        try:
            day = parse_date(value.strip())
        except ValueError:
            day = None
    if day is None:
        errors.add(
            field_name,
            _("Give a day as YYYY-MM-DD; got %(value)r."),
            "invalid_date",
            value=value,
        )
    return day


def _schedule_fields(
    league: League, scheduled_at: Any, deadline: Any, venue: Any, errors: Errors
) -> tuple[dt.datetime | None, dt.date | None, str]:
    """The time, deadline and venue an organiser gives games they publish (a round, a cup's
    replay): each None when left out (the caller picks its default), the venue "" then."""
    when = None
    if scheduled_at not in (None, ""):
        parsed = parse_played_at(league, scheduled_at, errors, "scheduled_at")
        when = None if parsed is None else parsed[0]
    due = _day(deadline, errors, "deadline")
    place = _text(venue, errors, "venue", Fixture._meta.get_field("venue").max_length)
    return when, due, place


def _bye_points(value: Any, errors: Errors) -> Decimal | None:
    try:
        points = Decimal(str(value).strip().replace("½", "0.5"))
    except (InvalidOperation, ValueError):
        points = None
    if points is None or points not in BYE_POINTS:
        errors.add(
            "bye_points",
            _("A bye scores 1, ½ or 0 points; got %(value)r."),
            "invalid_bye_points",
            value=value,
        )
        return None
    return points


def _tiebreaks(value: Any, errors: Errors) -> tuple[str, ...]:
    if value is None or value == "":
        return ()
    items = value.replace(",", " ").split() if isinstance(value, str) else value
    if not isinstance(items, list | tuple):
        errors.add("tiebreaks", _("Give the tie-breaks as a list of codes."), "invalid")
        return ()
    codes: list[str] = []
    # The codes as the organiser spelled them are kept (a TRF file exported again says what
    # was imported); a repeat is a repeat of the tie-break, however it is spelled.
    chosen: set[str] = set()
    for item in items:
        code = str(item).strip()
        canonical = canonical_code(code)
        if not TIEBREAK_CODE.match(code) or canonical not in TIEBREAKS:
            errors.add(
                "tiebreaks",
                _("%(tiebreak)r is not a tie-break this site computes; choose from %(codes)s."),
                "invalid_tiebreak",
                tiebreak=code,
                codes=", ".join(TIEBREAKS),
            )
        elif canonical in chosen:
            errors.add(
                "tiebreaks", _("%(tiebreak)s is listed twice."), "duplicate_tiebreak", tiebreak=code
            )
        else:
            chosen.add(canonical)
            codes.append(code)
    if len(codes) > MAX_TIEBREAKS:
        errors.add("tiebreaks", _("At most %(max)s tie-breaks."), "too_many", max=MAX_TIEBREAKS)
    return tuple(codes)


def _entrant(
    competition: Competition, player: Player, errors: Errors, field_name: str = "player"
) -> Entrant | None:
    entrant = Entrant.objects.filter(competition=competition, player=player).first()
    if entrant is None:
        errors.add(
            field_name,
            _("%(player)s is not entered in %(event)s."),
            "not_entered",
            player=player.display_name,
            event=competition.name,
        )
    return entrant


def _refreshed(competition: Competition) -> Competition:
    """The competition as stored now (read under the league lock)."""
    return Competition.objects.get(pk=competition.pk)


def _append_one(league: League, submission: Submission, recorded_by: Any) -> Event:
    (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    return event


# --- services ------------------------------------------------------------------------------


def create_competition(
    league: League,
    *,
    name: Any,
    format: Any = CompetitionFormat.SWISS,
    planned_rounds: Any,
    slug: Any = "",
    bye_points: Any = "1",
    rated: bool = True,
    tiebreaks: Any = (),
    start_date: Any = None,
    end_date: Any = None,
    season: Any = None,
    draw_rule: Any = None,
    third_place: Any = False,
    double_elimination: Any = False,
    bracket_reset: Any = False,
    accelerated: Any = False,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Competition:
    """Create an event of the league (a ``competition_created`` fact creates it).

    ``slug`` (its address) is made from the name when not given; ``rated`` off keeps its
    results out of the league's ratings, for good. A knockout cup's ``planned_rounds`` is the
    depth of its bracket (4 rounds: 9 to 16 entrants); ``draw_rule`` says how it settles a
    drawn game (``replay``, the default, or ``decider``: a tie-break game) and
    ``third_place`` whether the semi-finals' losers play for third place. Neither applies to
    another format. ``double_elimination`` gives a cup a losers' bracket
    (``pairings.double_elimination``): ``planned_rounds`` is then the depth of its winners'
    bracket, and the cup is stored with its rounds of play (``2k``, or ``2k + 1`` with
    ``bracket_reset``: the grand final played again when the losers' bracket champion wins
    it); it has no third-place match. ``accelerated`` pairs a chess league's Swiss event with Baku
    acceleration (FIDE C.04.5.1, the Dutch engine's virtual points in the first rounds).
    """
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    title = _text(name, errors, "name", NAME_MAX)
    if not title:
        errors.add("name", _("Give the event a name."), "required")
    address = _text(slug, errors, "slug", SLUG_MAX) or slugify(title)[:SLUG_MAX]
    if address and slugify(address) != address:
        errors.add(
            "slug",
            _("Use lower-case letters, digits and hyphens only in the address; got %(value)r."),
            "invalid_slug",
            value=address,
        )
    elif title and not address:
        errors.add("slug", _("Give the event an address (letters or digits)."), "required")
    if format not in CompetitionFormat.values:
        errors.add(
            "format",
            _("Choose the format: %(choices)s."),
            "invalid_format",
            choices=", ".join(CompetitionFormat.values),
        )
    rounds = _round(planned_rounds, errors, "planned_rounds", gettext("number of rounds"))
    points = _bye_points(bye_points, errors)
    if not isinstance(rated, bool):
        errors.add("rated", _("Say whether the event is rated (true or false)."), "invalid")
    codes = _tiebreaks(tiebreaks, errors)
    rule, third = _cup_settings(format, draw_rule, third_place, rounds, errors)
    double, reset = _double_settings(format, double_elimination, bracket_reset, third, errors)
    if double and rounds is not None and rounds <= MAX_CUP_ROUNDS:
        rounds = double_elimination_rules.rounds_of_play(rounds, reset)
    _check_acceleration(league, format, accelerated, errors)
    first = _day(start_date, errors, "start_date")
    last = _day(end_date, errors, "end_date")
    if first is not None and last is not None and last < first:
        errors.add("end_date", _("The event ends before it starts."), "ends_before_start")
    if first is not None and first < league.start_date:
        errors.add(
            "start_date",
            _("The league starts on %(start)s; the event cannot start before it."),
            "before_league",
            start=league.start_date.isoformat(),
        )
    season_row = None
    if season not in (None, ""):
        if isinstance(season, Season):
            season_row = season if season.league_id == league.pk else None
        else:
            number = _as_id(season)
            season_row = (
                None if number is None else Season.objects.filter(league=league, pk=number).first()
            ) or Season.objects.filter(league=league, slug=str(season)).first()
        if season_row is None:
            errors.add(
                "season", _("%(league)s has no season %(value)r."), "unknown_season",
                league=league.name, value=str(season),
            )  # fmt: skip
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert rounds is not None
    assert points is not None
    fact = CompetitionCreated(
        competition_id=None,
        slug=address,
        name=title,
        format=str(format),
        planned_rounds=rounds,
        bye_points=points,
        rated=rated,
        tiebreaks=codes,
        start_date=first,
        end_date=last,
        season_id=None if season_row is None else season_row.pk,
        draw_rule=rule,
        third_place=third,
        double_elimination=double,
        bracket_reset=reset,
        accelerated=accelerated is True,
    )
    submission = Submission(fact, key)
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            if Competition.objects.filter(league=league, slug=address).exists():
                errors.add(
                    "slug",
                    _("%(league)s already has an event at the address %(slug)s; choose another."),
                    "duplicate_slug",
                    league=league.name,
                    slug=address,
                )
            errors.raise_if_any()
        event = _append_one(league, submission, recorded_by)
    return event.competition  # type: ignore[return-value]


def _check_acceleration(league: League, format: Any, accelerated: Any, errors: Errors) -> None:
    """Baku acceleration is a rule of the FIDE Dutch system: a chess league's Swiss events."""
    if accelerated in (None, False, ""):
        return
    if not isinstance(accelerated, bool):
        errors.add(
            "accelerated",
            _("Say whether the event is paired with Baku acceleration (true or false)."),
            "invalid",
        )
    elif format != CompetitionFormat.SWISS:
        errors.add(
            "accelerated",
            _("Only a Swiss event is paired with Baku acceleration."),
            "not_swiss",
        )
    elif not is_chess(league.sport):
        errors.add(
            "accelerated",
            _("Baku acceleration is a rule of the FIDE Dutch system: only a chess league's "
              "Swiss events use it."),
            "not_chess",
        )  # fmt: skip


#: The most rounds a knockout cup may have (a bracket of 128).
MAX_CUP_ROUNDS = 7


def _cup_settings(
    format: Any, draw_rule: Any, third_place: Any, rounds: int | None, errors: Errors
) -> tuple[str, bool]:
    """A cup's draw rule and third-place setting (blank and False for another format)."""
    if format != CompetitionFormat.KNOCKOUT:
        if draw_rule not in (None, ""):
            errors.add(
                "draw_rule",
                _("Only a knockout cup settles drawn games by a rule; leave it blank."),
                "not_a_cup",
            )
        if third_place not in (None, False, ""):
            errors.add("third_place", _("Only a knockout cup plays for third place."), "not_a_cup")
        return "", False
    rule = CupDrawRule.REPLAY.value if draw_rule in (None, "") else draw_rule
    if rule not in CupDrawRule.values:
        errors.add(
            "draw_rule",
            _("Choose how a drawn game is settled: %(choices)s; got %(value)r."),
            "invalid_draw_rule",
            choices=", ".join(CupDrawRule.values),
            value=draw_rule,
        )
    if not isinstance(third_place, bool):
        errors.add(
            "third_place",
            _("Say whether the cup plays for third place (true or false)."),
            "invalid",
        )
    if rounds is not None and rounds > MAX_CUP_ROUNDS:
        errors.add(
            "planned_rounds",
            _("A cup has at most %(max)s rounds (%(entrants)s entrants); got %(value)s."),
            "too_many_cup_rounds",
            max=MAX_CUP_ROUNDS,
            entrants=2**MAX_CUP_ROUNDS,
            value=rounds,
        )
    return str(rule), third_place is True


def _double_settings(
    format: Any, double_elimination: Any, bracket_reset: Any, third: bool, errors: Errors
) -> tuple[bool, bool]:
    """A cup's double-elimination settings (both False for a single-elimination cup and
    for another format)."""
    if not isinstance(double_elimination, bool):
        errors.add(
            "double_elimination",
            _("Say whether the cup is double elimination (true or false)."),
            "invalid",
        )
        return False, False
    if not isinstance(bracket_reset, bool):
        errors.add(
            "bracket_reset",
            _("Say whether the grand final may be played again (true or false)."),
            "invalid",
        )
        return False, False
    if double_elimination and format != CompetitionFormat.KNOCKOUT:
        errors.add(
            "double_elimination",
            _("Only a knockout cup can be double elimination."),
            "not_a_cup",
        )
        return False, False
    if bracket_reset and not double_elimination:
        errors.add(
            "bracket_reset",
            _("Only a double-elimination cup plays its grand final again; leave it off."),
            "not_double_elimination",
        )
        return False, False
    if double_elimination and third:
        errors.add(
            "third_place",
            _("A double-elimination cup has no third-place match: the losers' bracket "
              "final's loser is third."),
            "not_with_double_elimination",
        )  # fmt: skip
    return double_elimination, bracket_reset


def enter_player(
    competition: Competition,
    player: Any,
    *,
    from_round: Any = None,
    seed_rating: Any = None,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Entrant:
    """Enter ``player`` in the event from ``from_round`` (default: the next round to pair;
    after round 1 it is a late entry: the rounds before count as not paired)."""
    league = competition.league
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    target = resolve_player(league, player, "player", errors)
    first = None
    if from_round not in (None, ""):
        first = _round(from_round, errors, "from_round", gettext("first round"))
    rating = None
    if seed_rating not in (None, ""):
        try:
            rating = float(seed_rating)
        except (TypeError, ValueError):
            rating = None
        low, high = SEED_RATING_RANGE
        if rating is None or not math.isfinite(rating) or not low <= rating <= high:
            errors.add(
                "seed_rating",
                _("Give the seed rating as a number from %(low)s to %(high)s; got %(value)r."),
                "invalid_rating",
                low=int(low),
                high=int(high),
                value=seed_rating,
            )
            rating = None
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert target is not None
    with transaction.atomic():
        event_store.lock_league(league)
        current = _refreshed(competition)
        start = current.rounds_paired + 1 if first is None else first
        submission = Submission(
            EntrantEntered(
                competition_id=current.pk,
                player_id=target.pk,
                from_round=start,
                seed_rating=rating,
            ),
            key,
        )
        if event_store.existing_for(league, submission) is None:
            check_can_play([("player", Player.objects.get(pk=target.pk))], errors)
            if Entrant.objects.filter(competition=current, player=target).exists():
                errors.add(
                    "player",
                    _("%(player)s is already entered in %(event)s."),
                    "already_entered",
                    player=target.display_name,
                    event=current.name,
                )
            _check_future_round(current, start, errors, "from_round")
            if current.format == CompetitionFormat.KNOCKOUT and start != 1:
                errors.add(
                    "from_round",
                    _("A cup takes its entries before round 1 is paired; its bracket is "
                      "fixed from then on."),
                    "cup_late_entry",
                )  # fmt: skip
            errors.raise_if_any()
        _append_one(league, submission, recorded_by)
    return Entrant.objects.get(competition=competition, player=target)


def _check_future_round(
    competition: Competition, round_number: int, errors: Errors, field_name: str
) -> None:
    """``round_number`` is a round of the event not yet paired."""
    if round_number <= competition.rounds_paired:
        errors.add(
            field_name,
            _("Round %(round)s is already paired; the next round to pair is %(next)s."),
            "round_already_paired",
            round=round_number,
            next=competition.rounds_paired + 1,
        )
    elif round_number > competition.planned_rounds:
        errors.add(
            field_name,
            _("%(event)s has %(rounds)s rounds; there is no round %(round)s."),
            "round_beyond_event",
            event=competition.name,
            rounds=competition.planned_rounds,
            round=round_number,
        )


def withdraw_player(
    competition: Competition,
    player: Any,
    *,
    from_round: Any = None,
    reason: Any = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Entrant:
    """Withdraw ``player`` from the event from ``from_round`` on (default: the next round
    to pair); their games before it stand."""
    league = competition.league
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    target = resolve_player(league, player, "player", errors)
    first = None
    if from_round not in (None, ""):
        first = _round(from_round, errors, "from_round", gettext("first round"))
    text = _text(reason, errors, "reason", NOTE_MAX)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert target is not None
    with transaction.atomic():
        event_store.lock_league(league)
        current = _refreshed(competition)
        start = current.rounds_paired + 1 if first is None else first
        submission = Submission(
            EntrantWithdrawn(
                competition_id=current.pk, player_id=target.pk, from_round=start, reason=text
            ),
            key,
        )
        if event_store.existing_for(league, submission) is None:
            entrant = _entrant(current, target, errors)
            if entrant is not None:
                if entrant.withdrawn_from_round is not None:
                    errors.add(
                        "player",
                        _("%(player)s was already withdrawn from round %(round)s."),
                        "already_withdrawn",
                        player=target.display_name,
                        round=entrant.withdrawn_from_round,
                    )
                elif start < entrant.from_round:
                    errors.add(
                        "from_round",
                        _("%(player)s enters in round %(round)s; withdraw them from then on."),
                        "before_entry",
                        player=target.display_name,
                        round=entrant.from_round,
                    )
            _check_future_round(current, start, errors, "from_round")
            errors.raise_if_any()
        _append_one(league, submission, recorded_by)
    return Entrant.objects.get(competition=competition, player=target)


def request_bye(
    competition: Competition,
    player: Any,
    *,
    round_number: Any,
    kind: Any = ByeKind.REQUESTED_HALF,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> RoundBye:
    """Record a bye ``player`` asked for in ``round_number`` before it is paired: a half-point
    bye (``requested_half``), a zero-point one (``requested_zero``) or a full-point bye the
    pairing did not allocate (``requested_full``, TRF's ``F``)."""
    league = competition.league
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    target = resolve_player(league, player, "player", errors)
    number = _round(round_number, errors, "round_number", gettext("round"))
    if kind not in REQUESTED_BYE_POINTS:
        errors.add(
            "kind",
            _("A requested bye is a half-point bye (requested_half), a zero-point bye "
              "(requested_zero) or a full-point bye (requested_full); got %(value)r."),
            "invalid_bye_kind",
            value=kind,
        )  # fmt: skip
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert target is not None
    assert number is not None
    bye_kind = ByeKind(kind)
    submission = Submission(
        ByeRequested(
            competition_id=competition.pk,
            player_id=target.pk,
            round_number=number,
            bye_kind=bye_kind.value,
            points=REQUESTED_BYE_POINTS[bye_kind],
        ),
        key,
    )
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            current = _refreshed(competition)
            if current.format == CompetitionFormat.KNOCKOUT:
                errors.add(
                    "player",
                    _("A cup has no requested byes: a player who cannot play is withdrawn, "
                      "and their opponent goes through."),
                    "cup_bye",
                )  # fmt: skip
                errors.raise_if_any()
            if number <= current.rounds_paired:
                errors.add(
                    "round_number",
                    _("Round %(round)s is already paired: a bye must be requested before "
                      "its round is paired."),
                    "round_already_paired",
                    round=number,
                )  # fmt: skip
            else:
                _check_future_round(current, number, errors, "round_number")
            entrant = _entrant(current, target, errors)
            if entrant is not None and not entrant.plays_in(number):
                errors.add(
                    "player",
                    _("%(player)s does not play in round %(round)s (entered from round "
                      "%(first)s%(withdrawn)s)."),
                    "not_playing",
                    player=target.display_name,
                    round=number,
                    first=entrant.from_round,
                    withdrawn=""
                    if entrant.withdrawn_from_round is None
                    else gettext(", withdrawn from round %(round)s")
                    % {"round": entrant.withdrawn_from_round},
                )  # fmt: skip
            if RoundBye.objects.filter(
                competition=current, round_number=number, player=target
            ).exists():
                errors.add(
                    "player",
                    _("%(player)s already has a bye in round %(round)s."),
                    "duplicate_bye",
                    player=target.display_name,
                    round=number,
                )
            errors.raise_if_any()
        _append_one(league, submission, recorded_by)
    return RoundBye.objects.get(competition=competition, round_number=number, player=target)


def forbid_pairing(
    competition: Competition,
    players: Sequence[Any],
    *,
    first_round: Any = 1,
    last_round: Any = None,
    reason: Any = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Record that no two of ``players`` (entrants of the competition, two or more) may be
    paired against each other in rounds ``first_round`` to ``last_round`` (by default to the
    event's last planned round): a prohibited pairing (TRF record 260). The Swiss engines
    (``league.competition_pairing``) honour it from the next round they pair; a round robin's
    Berger table is fixed and does not."""
    league = competition.league
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    current = _refreshed(competition)
    first = _round(first_round, errors, "first_round", gettext("first round"))
    last = (
        current.planned_rounds
        if last_round in (None, "")
        else _round(last_round, errors, "last_round", gettext("last round"))
    )
    text = _text(reason, errors, "reason", 2000)
    key = clean_key(idempotency_key, errors)
    targets: list[Player] = []
    if not isinstance(players, list | tuple):
        errors.add("players", _("Give the players as a list."), "invalid_players")
        players = []
    for item in players:
        target = resolve_player(league, item, "players", errors)
        if target is not None:
            if any(t.pk == target.pk for t in targets):
                errors.add(
                    "players",
                    _("%(player)s is named twice."),
                    "duplicate_player",
                    player=target.display_name,
                )
            else:
                targets.append(target)
    if len(players) < 2:
        errors.add(
            "players", _("A forbidden pairing needs two players or more."), "too_few_players"
        )
    if first is not None and last is not None:
        if first > last:
            errors.add(
                "last_round",
                _("The last round (%(last)s) comes before the first (%(first)s)."),
                "rounds_reversed",
                first=first,
                last=last,
            )
        elif last > current.planned_rounds:
            errors.add(
                "last_round",
                _("%(event)s has %(rounds)s rounds; there is no round %(round)s."),
                "round_beyond_event",
                event=current.name,
                rounds=current.planned_rounds,
                round=last,
            )
    for target in targets:
        _entrant(current, target, errors, "players")
    errors.raise_if_any()
    assert first is not None
    assert last is not None
    submission = Submission(
        PairingForbidden(
            competition_id=competition.pk,
            player_ids=tuple(target.pk for target in targets),
            first_round=first,
            last_round=last,
            reason=text,
        ),
        key,
    )
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            _check_not_forbidden_yet(competition, targets, first, last, errors)
            errors.raise_if_any()
        return _append_one(league, submission, recorded_by)


def _check_not_forbidden_yet(
    competition: Competition, players: Sequence[Player], first: int, last: int, errors: Errors
) -> None:
    """Refuse a forbidden pairing that forbids nothing new."""
    ids = tuple(player.pk for player in players)
    if forbids_nothing_new(forbidden_pairs(competition), ids, first, last):
        errors.add(
            "players",
            _("%(players)s are already kept apart in rounds %(first)s to %(last)s."),
            "already_forbidden",
            players=", ".join(player.display_name for player in players),
            first=first,
            last=last,
        )


def forbids_nothing_new(
    known: Iterable[tuple[tuple[int, ...], int, int]],
    player_ids: Sequence[int],
    first: int,
    last: int,
) -> bool:
    """Whether every pair of ``player_ids`` is already kept apart by ``known`` forbidden
    pairings (players, first round, last round) in every round from ``first`` to ``last``."""
    covered: dict[frozenset[int], set[int]] = {}
    for ids, since, until in known:
        for i, a in enumerate(ids):
            for b in ids[i + 1 :]:
                covered.setdefault(frozenset((a, b)), set()).update(range(since, until + 1))
    rounds = set(range(first, last + 1))
    return all(
        rounds <= covered.get(frozenset((a, b)), set())
        for i, a in enumerate(player_ids)
        for b in player_ids[i + 1 :]
    )


def forbidden_pairs(competition: Competition) -> tuple[tuple[tuple[int, ...], int, int], ...]:
    """The competition's forbidden pairings: (players, first round, last round), oldest first."""
    rows = Event.objects.filter(
        league_id=competition.league_id,
        kind=Event.Kind.PAIRING_FORBIDDEN,
        competition_id=competition.pk,
    ).order_by("seq")
    return tuple(
        (tuple(details["players"]), first, details["last_round"])
        for first, details in rows.values_list("round_number", "details")
    )


@dataclass(frozen=True, slots=True)
class PublishedRound:
    """A published round: its games (fixtures, by board) and byes."""

    round_number: int
    fixtures: list[Fixture]
    byes: list[RoundBye]


def publish_round(
    competition: Competition,
    round_number: Any,
    pairings: Sequence[Sequence[Any]],
    byes: Iterable[Any] = (),
    *,
    scheduled_at: Any = None,
    deadline: Any = None,
    venue: Any = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
    boards: Sequence[int] | None = None,
    bracket: Sequence[int | None] = (),
) -> PublishedRound:
    """Publish the next round of the event: ``pairings`` are (first player, second player)
    pairs (the first is White in a chess league; boards follow their order), ``byes`` the
    players the pairing gave a bye (it scores the event's bye points). The byes requested
    for the round are honoured with it.

    Every player must be an entrant who plays in the round (entered by then, not withdrawn),
    at most once, and none of those who asked for a bye. The games are scheduled at
    ``scheduled_at`` (default now), to be played by ``deadline`` (default that day).
    Errors are keyed ``pairings.<row>.<field>`` (rows from 0) and ``byes``.

    A knockout cup's round is published by ``league.cups.publish_cup_round``, which gives
    each game's ``boards`` (its tie in the bracket) and, in round 1, the ``bracket``.
    """
    league = competition.league
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    number = _round(round_number, errors, "round_number", gettext("round"))
    pairs: list[tuple[Player, Player]] = []
    seen: dict[int, str] = {}

    def place(player: Player, where: str, row: Errors, field_name: str) -> None:
        if player.pk in seen:
            row.add(
                field_name,
                _("%(player)s is paired twice in this round (also %(where)s)."),
                "paired_twice",
                player=player.display_name,
                where=seen[player.pk],
            )
        else:
            seen[player.pk] = where

    for index, pair in enumerate(pairings):
        row = Errors()
        if not isinstance(pair, list | tuple) or len(pair) != 2:
            row.add("players", _("Give each game as two players."), "invalid_pairing")
        else:
            first = resolve_player(league, pair[0], "player_a", row)
            second = resolve_player(league, pair[1], "player_b", row)
            if first is not None and second is not None:
                if first.pk == second.pk:
                    row.add("player_b", _("A player cannot play themselves."), "self_play")
                else:
                    where = gettext("board %(board)s") % {"board": index + 1}
                    place(first, where, row, "player_a")
                    place(second, where, row, "player_b")
                    pairs.append((first, second))
        errors.merge(row, prefix=f"pairings.{index}")
    allocated: list[Player] = []
    for value in byes:
        row = Errors()
        bye_player = resolve_player(league, value, "byes", row)
        if bye_player is not None:
            place(bye_player, gettext("a bye"), row, "byes")
            allocated.append(bye_player)
        errors.merge(row)
    if not pairings and not allocated:
        errors.add("pairings", _("A round needs at least one game or bye."), "required")
    when, due, place_text = _schedule_fields(league, scheduled_at, deadline, venue, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert number is not None
    moment = when or timezone.now()
    day = due or league_day(league, moment)
    if day < league_day(league, moment):
        errors.add("deadline", _("The deadline is before the round's day."), "before_scheduled")
    if league_day(league, moment) < league.start_date:
        errors.add(
            "scheduled_at",
            _("The league starts on %(start)s; a round cannot be played before it."),
            "before_start",
            start=league.start_date.isoformat(),
        )
    errors.raise_if_any()
    label = gettext("%(event)s, round %(round)s") % {"event": competition.name, "round": number}
    with transaction.atomic():
        event_store.lock_league(league)
        current = _refreshed(competition)
        requested = list(
            RoundBye.objects.filter(competition=current, round_number=number)
            .exclude(kind=ByeKind.PAIRING_ALLOCATED)
            .select_related("player")
        )
        entrants = {
            entrant.player_id: entrant for entrant in Entrant.objects.filter(competition=current)
        }
        honoured = [bye for bye in requested if entrants[bye.player_id].plays_in(number)]
        bye_facts = tuple(
            [(bye.player_id, bye.kind, bye.points) for bye in honoured]
            + [(p.pk, ByeKind.PAIRING_ALLOCATED.value, current.bye_points) for p in allocated]
        )
        round_fact = RoundPaired(
            competition_id=current.pk,
            round_number=number,
            byes=bye_facts,
            bracket=tuple(bracket),
        )
        round_submission = Submission(round_fact, key)
        existing = event_store.existing_for(league, round_submission)
        if existing is not None:
            return published_round(current, number)
        if number != current.rounds_paired + 1:
            errors.add(
                "round_number",
                _("Round %(round)s cannot be published: the next round to pair is %(next)s."),
                "not_next_round",
                round=number,
                next=current.rounds_paired + 1,
            )
        _check_future_round(current, number, errors, "round_number")
        if (current.format == CompetitionFormat.KNOCKOUT) != (boards is not None):
            errors.add(
                "pairings",
                _("A cup's rounds follow its bracket: pair the next round from the bracket.")
                if boards is None
                else _("Only a cup's rounds follow a bracket."),
                "cup_bracket",
            )
        asked = {bye.player_id: bye for bye in requested}
        for index, (first, second) in enumerate(pairs):
            row = Errors()
            for field_name, player in (("player_a", first), ("player_b", second)):
                _check_pairable(current, entrants, asked, player, number, row, field_name)
            check_can_play(
                [("player_a", Player.objects.get(pk=first.pk)),
                 ("player_b", Player.objects.get(pk=second.pk))],
                row,
            )  # fmt: skip
            errors.merge(row, prefix=f"pairings.{index}")
        for player in allocated:
            _check_pairable(current, entrants, asked, player, number, errors, "byes")
        errors.raise_if_any()
        submissions = [round_submission] + [
            Submission(
                FixtureScheduledFact(
                    fixture_id=None,
                    player_a_id=first.pk,
                    player_b_id=second.pk,
                    scheduled_at=moment,
                    deadline=day,
                    venue=place_text,
                    label=label,
                    competition_id=current.pk,
                    round_number=number,
                    board=board if boards is None else boards[board - 1],
                )
            )
            for board, (first, second) in enumerate(pairs, start=1)
        ]
        event_store.append(league, submissions, recorded_by=recorded_by)
    competition.refresh_from_db()
    return published_round(current, number)


def _check_pairable(
    competition: Competition,
    entrants: dict[int, Entrant],
    asked: dict[int, RoundBye],
    player: Player,
    round_number: int,
    errors: Errors,
    field_name: str,
) -> None:
    """``player`` may be paired (or given the pairing's bye) in ``round_number``."""
    entrant = entrants.get(player.pk)
    name = player.display_name
    if entrant is None:
        errors.add(
            field_name,
            _("%(player)s is not entered in %(event)s."),
            "not_entered",
            player=name,
            event=competition.name,
        )
    elif entrant.withdrawn_from_round is not None and round_number >= entrant.withdrawn_from_round:
        errors.add(
            field_name,
            _("%(player)s withdrew from round %(from)s on and cannot be paired."),
            "withdrawn",
            player=name,
            **{"from": entrant.withdrawn_from_round},
        )
    elif round_number < entrant.from_round:
        errors.add(
            field_name,
            _("%(player)s enters from round %(from)s and cannot be paired in round %(round)s."),
            "not_yet_entered",
            player=name,
            round=round_number,
            **{"from": entrant.from_round},
        )
    elif player.pk in asked:
        errors.add(
            field_name,
            _("%(player)s asked for a bye in round %(round)s and cannot be paired."),
            "requested_bye",
            player=name,
            round=round_number,
        )


def published_round(competition: Competition, round_number: int) -> PublishedRound:
    """The games and byes of a published round."""
    return PublishedRound(
        round_number=round_number,
        fixtures=list(
            Fixture.objects.filter(competition=competition, round_number=round_number)
            .select_related("player_a", "player_b")
            .order_by("board", "pk")
        ),
        byes=list(
            RoundBye.objects.filter(competition=competition, round_number=round_number)
            .select_related("player")
            .order_by("player__display_name")
        ),
    )


def forfeit_of(fixture: Fixture) -> Event | None:
    """The forfeit recorded on ``fixture``, if any."""
    return Event.objects.filter(
        kind=Event.Kind.FORFEIT_RECORDED, fixture=fixture, voided_by__isnull=True
    ).first()


def record_forfeit(
    competition: Competition,
    fixture: Any,
    *,
    winner: Any,
    note: Any = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Record that a game of the event was not played: ``winner`` (one of its two players)
    wins by forfeit; ``winner`` None is a double forfeit (both lose). Not rated. A forfeit
    entered by mistake is voided like a result (``league.services.void_match``)."""
    league = competition.league
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    target = resolve_fixture(league, fixture, errors)
    text = _text(note, errors, "note", NOTE_MAX)
    key = clean_key(idempotency_key, errors)
    winner_id = None
    if target is not None:
        if target.competition_id != competition.pk:
            errors.add(
                "fixture",
                _("That fixture is not a game of %(event)s."),
                "other_competition",
                event=competition.name,
            )
        if winner not in (None, ""):
            winner_player = resolve_player(league, winner, "winner", errors)
            if winner_player is not None:
                winner_id = winner_player.pk
                if winner_id not in (target.player_a_id, target.player_b_id):
                    errors.add(
                        "winner",
                        _("%(player)s does not play in this game (%(a)s v %(b)s)."),
                        "not_in_game",
                        player=winner_player.display_name,
                        a=target.player_a.display_name,
                        b=target.player_b.display_name,
                    )
    errors.raise_if_any()
    assert target is not None
    submission = Submission(
        ForfeitRecorded(fixture_id=target.pk, winner_id=winner_id, note=text), key
    )
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            check_open(Fixture.objects.get(pk=target.pk), errors)
            errors.raise_if_any()
        return _append_one(league, submission, recorded_by)


# --- the state of a competition ------------------------------------------------------------


class Outcome(StrEnum):
    """What one round was for one entrant (``RoundEntry.outcome``)."""

    WIN = "win"
    DRAW = "draw"
    LOSS = "loss"
    FORFEIT_WIN = "forfeit_win"
    FORFEIT_LOSS = "forfeit_loss"
    PAIRING_BYE = ByeKind.PAIRING_ALLOCATED.value
    HALF_BYE = ByeKind.REQUESTED_HALF.value
    ZERO_BYE = ByeKind.REQUESTED_ZERO.value
    FULL_BYE = ByeKind.REQUESTED_FULL.value
    #: Paired, result not yet recorded.
    PENDING = "pending"
    #: Not in the round: not yet entered, withdrawn, or left out of the pairing.
    NOT_PAIRED = "not_paired"


#: Outcomes of a game played over the board (rated when the event is).
PLAYED = (Outcome.WIN, Outcome.DRAW, Outcome.LOSS)
#: Outcomes of a bye.
BYES = (Outcome.PAIRING_BYE, Outcome.HALF_BYE, Outcome.ZERO_BYE, Outcome.FULL_BYE)
_GAME_POINTS = {Decimal("1"): Outcome.WIN, Decimal("0.5"): Outcome.DRAW, Decimal("0"): Outcome.LOSS}


@dataclass(frozen=True, slots=True)
class RoundEntry:
    """One entrant's round: the opponent (None for a bye or no game), the side they played
    (``"first"`` is White in a chess league, ``"second"``), the outcome and the points it
    scored (None while the game is to be played)."""

    round_number: int
    outcome: Outcome
    points: Decimal | None
    opponent_id: int | None = None
    side: str | None = None
    fixture_id: int | None = None
    board: int | None = None
    match_id: int | None = None


@dataclass(slots=True)
class EntrantState:
    """An entrant with their rounds (one per paired round, from round 1)."""

    entrant_id: int
    player_id: int
    name: str
    slug: str
    number: int
    seed_rating: float | None
    from_round: int
    withdrawn_from_round: int | None
    rounds: list[RoundEntry] = field(default_factory=list)

    @property
    def points(self) -> Decimal:
        """Points scored so far: games, forfeits and byes."""
        return sum((entry.points or Decimal(0) for entry in self.rounds), Decimal(0))

    @property
    def games(self) -> int:
        """Games played over the board (forfeits and byes are not games)."""
        return sum(1 for entry in self.rounds if entry.outcome in PLAYED)

    @property
    def byes(self) -> int:
        return sum(1 for entry in self.rounds if entry.outcome in BYES)

    @property
    def opponents(self) -> list[int]:
        """The opponents met or due to be met (forfeits included), round by round."""
        return [entry.opponent_id for entry in self.rounds if entry.opponent_id is not None]

    def plays_in(self, round_number: int) -> bool:
        return self.from_round <= round_number and (
            self.withdrawn_from_round is None or round_number < self.withdrawn_from_round
        )


@dataclass(slots=True)
class CompetitionState:
    """A competition's entrants and their rounds, as numbers (pages format them)."""

    competition_id: int
    format: str
    planned_rounds: int
    rounds_paired: int
    bye_points: Decimal
    rated: bool
    entrants: list[EntrantState]
    #: Forbidden pairings (``forbid_pairing``): players, first and last round.
    forbidden: tuple[tuple[tuple[int, ...], int, int], ...] = ()
    #: Paired with Baku acceleration (``Competition.accelerated``, FIDE C.04.5.1).
    accelerated: bool = False

    def forbidden_in(self, round_number: int) -> set[frozenset[int]]:
        """The pairs of player ids that must not meet in ``round_number``."""
        pairs: set[frozenset[int]] = set()
        for players, first, last in self.forbidden:
            if first <= round_number <= last:
                ordered = sorted(players)
                pairs.update(
                    frozenset((a, b)) for i, a in enumerate(ordered) for b in ordered[i + 1 :]
                )
        return pairs

    def entrant(self, player_id: int) -> EntrantState | None:
        for entrant in self.entrants:
            if entrant.player_id == player_id:
                return entrant
        return None

    @property
    def complete_rounds(self) -> int:
        """Paired rounds whose every game has a result."""
        done = 0
        for number in range(1, self.rounds_paired + 1):
            if any(
                e.rounds[number - 1].outcome == Outcome.PENDING
                for e in self.entrants
                if len(e.rounds) >= number
            ):
                break
            done = number
        return done


def competition_state(competition: Competition) -> CompetitionState:
    """Every entrant of ``competition`` with, per paired round, their opponent, side,
    outcome and points: results from the live matches recorded on the round's fixtures,
    forfeits, byes; a round without any is "not paired"."""
    entrants = list(
        Entrant.objects.filter(competition=competition).select_related("player").order_by("number")
    )
    # Read again: the caller's object may predate the latest round.
    paired = Competition.objects.values_list("rounds_paired", flat=True).get(pk=competition.pk)
    fixtures = list(
        Fixture.objects.filter(competition=competition, cancelled=False).order_by(
            "round_number", "board", "pk"
        )
    )
    results = {
        fixture_id: (pk, score)
        for fixture_id, pk, score in Event.objects.live_matches()
        .filter(fixture__competition=competition)
        .values_list("fixture_id", "pk", "score_a")
    }
    forfeits = {
        fixture_id: (pk, winner)
        for fixture_id, pk, winner in Event.objects.filter(
            kind=Event.Kind.FORFEIT_RECORDED,
            fixture__competition=competition,
            voided_by__isnull=True,
        ).values_list("fixture_id", "pk", "player_id")
    }
    cells: dict[tuple[int, int], RoundEntry] = {}
    for fixture in fixtures:
        number = fixture.round_number
        assert number is not None
        for side, me, other in (
            ("first", fixture.player_a_id, fixture.player_b_id),
            ("second", fixture.player_b_id, fixture.player_a_id),
        ):
            outcome, points, match_id = Outcome.PENDING, None, None
            if fixture.pk in results:
                match_id, score_a = results[fixture.pk]
                points = score_a if side == "first" else Decimal(1) - score_a
                outcome = _GAME_POINTS[points]
            elif fixture.pk in forfeits:
                match_id, winner = forfeits[fixture.pk]
                won = winner == me
                outcome = Outcome.FORFEIT_WIN if won else Outcome.FORFEIT_LOSS
                points = Decimal(1) if won else Decimal(0)
            cells[(me, number)] = RoundEntry(
                round_number=number,
                outcome=outcome,
                points=points,
                opponent_id=other,
                side=side,
                fixture_id=fixture.pk,
                board=fixture.board,
                match_id=match_id,
            )
    for bye in RoundBye.objects.filter(competition=competition, round_number__lte=paired):
        cells.setdefault(
            (bye.player_id, bye.round_number),
            RoundEntry(round_number=bye.round_number, outcome=Outcome(bye.kind), points=bye.points),
        )
    states = []
    for entrant in entrants:
        state = EntrantState(
            entrant_id=entrant.pk,
            player_id=entrant.player_id,
            name=entrant.player.display_name,
            slug=entrant.player.slug,
            number=entrant.number,
            seed_rating=entrant.seed_rating,
            from_round=entrant.from_round,
            withdrawn_from_round=entrant.withdrawn_from_round,
        )
        for number in range(1, paired + 1):
            entry = cells.get((entrant.player_id, number))
            if entry is None or (entry.outcome in BYES and not state.plays_in(number)):
                entry = RoundEntry(
                    round_number=number, outcome=Outcome.NOT_PAIRED, points=Decimal(0)
                )
            state.rounds.append(entry)
        states.append(state)
    return CompetitionState(
        competition_id=competition.pk,
        format=competition.format,
        planned_rounds=competition.planned_rounds,
        rounds_paired=paired,
        bye_points=competition.bye_points,
        rated=competition.rated,
        entrants=states,
        forbidden=forbidden_pairs(competition),
        accelerated=competition.accelerated,
    )
