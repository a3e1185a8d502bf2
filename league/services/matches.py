"""Recording matches: one path for every match, whatever its sides.

A one-vs-one result is a match of two sides of one player. Every match is read from loose
input by ``parse_match`` (the rules of its shape, players, result, points, day, note and
key, written once), checked against stored state under the league lock by
``check_match_state`` (players active and not merged away, the day in the league's window)
and appended: ``record_match`` one match, ``record_round`` many at once. A match names its
players either as ``player_a`` and ``player_b`` (errors keyed by those fields) or as
``sides``, lists of players (errors keyed ``sides``, naming the side).

Storage keeps a fast path: two sides of one player each are stored as a ``match_recorded``
event (player columns), every other shape as a ``side_match_recorded`` event with its
participants. Both are read back by the same code (``sides_of_match``).
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone
from django.utils.translation import gettext_lazy as _
from django.utils.translation import pgettext

from league import event_store
from league.calendar import league_zone
from league.event_store import Submission
from league.event_store.vocabulary import MatchRecorded, SideMatchRecorded
from league.fixtures import check_open, fixture_sides, resolve_fixture
from league.models import Event, Fixture, League, MatchParticipant, Player
from league.prepared_queries import PreparedQuery, model_fields
from league.sides import (
    NEUTRAL_WITH_SIDES,
    PAIR_FIELDS,
    SIDES_FIELD,
    check_format,
    first_side_words,
    is_one_vs_one,
    places_of,
    places_of_score,
    resolve_sides,
    score_of_places,
)
from league.validation import (
    Errors,
    check_can_play,
    check_neutral_allowed,
    check_played_at,
    check_points_agree,
    check_recorder,
    check_text,
    clean_key,
    parse_neutral,
    parse_played_at,
    parse_points,
)

#: The keys of a match given as loose input (``record_match``'s keyword arguments).
MATCH_FIELDS = (
    "player_a",
    "player_b",
    "sides",
    "score_a",
    "places",
    "played_at",
    "points",
    "note",
    "neutral",
    "idempotency_key",
)


@dataclass(frozen=True, slots=True)
class ParsedMatch:
    """A match read from loose input: its submission, each side's players, the field each
    side's errors go to, and whether only a date was given."""

    submission: Submission
    sides: tuple[tuple[Player, ...], ...]
    fields: tuple[str, ...]
    date_only: bool

    @property
    def fact(self) -> MatchRecorded | SideMatchRecorded:
        return self.submission.fact  # type: ignore[return-value]

    @property
    def players(self) -> list[tuple[str, Player]]:
        """(field, player) of every player, side by side."""
        return [
            (field, player)
            for field, side in zip(self.fields, self.sides, strict=True)
            for player in side
        ]

    def replaced(self, **changes: Any) -> ParsedMatch:
        """The same match with ``changes`` made to its fact (a correction, a fixture)."""
        fact = dataclasses.replace(self.fact, **changes)
        return dataclasses.replace(
            self, submission=Submission(fact, self.submission.idempotency_key)
        )


def side_fields(row: dict[str, Any]) -> tuple[Any, tuple[str, ...] | None]:
    """The sides a row names and the field of each side's errors: ``player_a`` and
    ``player_b`` are the two sides of one player of a one-vs-one result."""
    if "sides" in row and row["sides"] is not None:
        return row["sides"], None
    return [[row.get("player_a")], [row.get("player_b")]], PAIR_FIELDS


def parse_match(league: League, row: dict[str, Any], errors: Errors) -> ParsedMatch | None:
    """A match's submission from loose input (``MATCH_FIELDS`` keys), or None with the
    reasons in ``errors``: the rules every match follows on every entry path."""
    found = Errors()
    named, fields = side_fields(row)
    if fields is None and any(row.get(name) is not None for name in PAIR_FIELDS):
        found.add(
            SIDES_FIELD,
            _("Give the players as sides or as player_a and player_b, not both."),
            "sides_and_players",
        )
    sides = resolve_sides(league, named, found, fields)
    sizes = [len(side) for side in sides] if sides is not None else _sizes(named)
    first = first_side_words(sizes)
    places = None
    if len(sizes) >= 2:
        places = places_of(len(sizes), row.get("score_a"), row.get("places"), found, first)
    when = parse_played_at(league, row.get("played_at"), found)
    points = parse_points(row.get("points"), found)
    if places is not None and len(places) == 2:
        check_points_agree(score_of_places(places), points, found, first)
    note = str(row.get("note") or "").strip()
    check_text(note, found, "note")
    neutral = parse_neutral(row.get("neutral"), found)
    if neutral and sides is not None and not is_one_vs_one(sizes):
        found.add("neutral", NEUTRAL_WITH_SIDES, "neutral_with_sides")
    else:
        check_neutral_allowed(league, neutral, found)
    key = clean_key(row.get("idempotency_key"), found)
    if sides is not None:
        check_format(league, sizes, found, SIDES_FIELD if fields is None else "__all__")
    errors.merge(found)
    if found or when is None or sides is None or places is None:
        return None
    played_at, date_only = when
    fact: MatchRecorded | SideMatchRecorded
    if is_one_vs_one(sizes):
        fact = MatchRecorded(
            player_a_id=sides[0][0].pk,
            player_b_id=sides[1][0].pk,
            score_a=score_of_places(places),
            played_at=played_at,
            points=points,
            note=note,
            neutral=neutral,
        )
    else:
        fact = SideMatchRecorded(
            sides=tuple(tuple(player.pk for player in side) for side in sides),
            places=places,
            played_at=played_at,
            points=points,
            note=note,
        )
    return ParsedMatch(
        Submission(fact, key),
        tuple(tuple(side) for side in sides),
        fields or (SIDES_FIELD,) * len(sides),
        date_only,
    )


def _sizes(sides: Any) -> list[int]:
    """Side sizes of input that did not resolve (for the result's checks that need them)."""
    if not isinstance(sides, list | tuple) or not len(sides) >= 2:
        return []
    return [len(side) if isinstance(side, list | tuple) else 0 for side in sides]


# The players of a one-vs-one match, the common case, read by a prepared query.
_TWO_PLAYERS = PreparedQuery(
    lambda first_id, second_id: (
        Player.objects.filter(pk__in=[first_id, second_id])
        .order_by()
        .values_list(*model_fields(Player))
    )
)


def _current_players(ids: list[int]) -> dict[int, Player]:
    """Player id -> the player as stored now."""
    if len(ids) == 2:
        return {
            player.pk: player
            for player in _TWO_PLAYERS.instances(Player, first_id=ids[0], second_id=ids[1])
        }
    return Player.objects.in_bulk(ids)


def check_match_state(league: League, parsed: ParsedMatch, errors: Errors) -> None:
    """Checks that depend on stored rows or the clock (run under the league lock).

    The players are read again: the caller's objects may predate a deactivation or merge.
    """
    current = _current_players([player.pk for _field, player in parsed.players])
    check_can_play(((field, current[player.pk]) for field, player in parsed.players), errors)
    check_played_at(league, parsed.fact.played_at, parsed.date_only, errors, "played_at")


def record_match(
    league: League,
    *,
    played_at: dt.datetime | dt.date,
    player_a: Player | int | None = None,
    player_b: Player | int | None = None,
    sides: Any = None,
    score_a: Decimal | str | float | None = None,
    places: Any = None,
    recorded_by: Any = None,
    points: str = "",
    note: str = "",
    idempotency_key: str | None = None,
    neutral: bool | str = False,
    fixture: Fixture | int | None = None,
) -> Event:
    """Append one match: ``player_a`` against ``player_b``, or ``sides`` (each side's
    players, ``Player`` or id).

    Two sides take side A's ``score_a`` (1, 0.5, 0) or ``places``; three or more take
    ``places``, a finishing position from 1 per side (ties allowed). ``neutral``: played on
    neutral ground, no advantage for the first side (one-vs-one matches). The league's
    format (``League.match_format``) decides which shapes are accepted.

    With ``fixture``, the match is that fixture's result: its sides must be the
    fixture's, in the fixture's order of sides, and the fixture must be open (neither cancelled nor
    played already).
    """
    row = {
        "player_a": player_a,
        "player_b": player_b,
        "sides": sides,
        "score_a": score_a,
        "places": places,
        "played_at": played_at,
        "points": points,
        "note": note,
        "idempotency_key": idempotency_key,
        "neutral": neutral,
    }
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    parsed = parse_match(league, row, errors)
    target = None if fixture is None else resolve_fixture(league, fixture, errors)
    if parsed is not None and target is not None:
        parsed = _for_fixture(parsed, target, errors)
    errors.raise_if_any()
    assert parsed is not None

    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, parsed.submission) is None:
            check_match_state(league, parsed, errors)
            if target is not None:
                check_open(Fixture.objects.get(pk=target.pk), errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [parsed.submission], recorded_by=recorded_by)
    return event


def _for_fixture(parsed: ParsedMatch, target: Fixture, errors: Errors) -> ParsedMatch:
    """``parsed`` as the result of ``target``: the same sides (in the fixture's order of
    sides; any order within a side), or an error on ``fixture``."""
    expected = fixture_sides(target)
    given = [[player.pk for player in side] for side in parsed.sides]
    if [sorted(side) for side in given] == [sorted(side) for side in expected]:
        return parsed.replaced(fixture_id=target.pk)
    if is_one_vs_one([len(side) for side in expected]):
        errors.add(
            "fixture",
            _("This fixture is %(a)s v %(b)s: record its result with those players."),
            "other_players",
            a=target.player_a.display_name,
            b=target.player_b.display_name,
        )
    else:
        names = Player.objects.in_bulk([pid for side in expected for pid in side])
        errors.add(
            "fixture",
            _("This fixture is %(sides)s: record its result with those sides."),
            "other_players",
            sides=f" {pgettext('versus', 'v')} ".join(
                " & ".join(names[pid].display_name for pid in side) for side in expected
            ),
        )
    return parsed


def record_fixture_result(
    league: League,
    fixture: Fixture | int,
    *,
    score_a: Decimal | str | float | None = None,
    places: Any = None,
    played_at: dt.datetime | dt.date | str | None = None,
    points: str = "",
    note: str = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Record the result of ``fixture``: its players (or sides), the score (or finishing
    positions) given, the fixture named.

    ``played_at`` defaults to the fixture's scheduled moment, or now when the fixture was
    played before it.
    """
    errors = Errors()
    target = resolve_fixture(league, fixture, errors)
    errors.raise_if_any()
    assert target is not None
    if played_at is None or played_at == "":
        played_at = min(target.scheduled_at, timezone.now()).astimezone(league_zone(league))
    sides = fixture_sides(target)
    if not is_one_vs_one([len(side) for side in sides]):
        return record_match(
            league,
            sides=sides,
            score_a=score_a,
            places=places,
            played_at=played_at,  # type: ignore[arg-type]
            points=points,
            note=note,
            recorded_by=recorded_by,
            idempotency_key=idempotency_key,
            fixture=target,
        )
    return record_match(
        league,
        player_a=target.player_a_id,
        player_b=target.player_b_id,
        score_a=score_a,
        played_at=played_at,  # type: ignore[arg-type]
        points=points,
        note=note,
        recorded_by=recorded_by,
        idempotency_key=idempotency_key,
        fixture=target,
    )


def record_round(
    league: League, results: list[dict[str, Any]], *, recorded_by: Any = None
) -> list[Event]:
    """Append many matches at once: all of them, or none, with every row's problems in one
    answer.

    Each result is a dict of ``record_match`` keyword arguments (without ``recorded_by``
    and ``fixture``), one-vs-one or with sides. Errors are keyed
    ``results.<row>.<field>`` (rows from 0); see ``league.validation.row_errors``. A player
    may play several matches of one round (a round may hold several games at one table
    over an evening).
    """
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    if not results:
        errors.add("results", _("A round needs at least one result."), "required")
    errors.raise_if_any()

    parsed: list[ParsedMatch | None] = []
    keys: dict[str, int] = {}
    for index, row in enumerate(results):
        unknown = set(row) - set(MATCH_FIELDS)
        if unknown:
            raise TypeError(f"record_round() result {index} has unknown keys: {sorted(unknown)}")
        row_errors = Errors()
        item = parse_match(league, row, row_errors)
        key = item.submission.idempotency_key if item is not None else None
        if key:
            if key in keys:
                row_errors.add(
                    "idempotency_key",
                    _("This idempotency key is also used by result %(row)s of this round."),
                    "idempotency_conflict",
                    row=keys[key] + 1,
                )
            keys.setdefault(key, index)
        errors.merge(row_errors, prefix=f"results.{index}")
        parsed.append(item)

    with transaction.atomic():
        event_store.lock_league(league)
        # Rows that parsed are checked against stored state too, so that one answer
        # lists every problem of the round.
        for index, item in enumerate(parsed):
            if item is None:
                continue
            row_errors = Errors()
            try:
                repeated = event_store.existing_for(league, item.submission)
            except ValidationError as error:
                errors.merge(error, prefix=f"results.{index}")
                continue
            if repeated is None:
                check_match_state(league, item, row_errors)
            errors.merge(row_errors, prefix=f"results.{index}")
        errors.raise_if_any()
        return event_store.append(
            league,
            [item.submission for item in parsed if item is not None],
            recorded_by=recorded_by,
        )


def sides_of_match(event: Event) -> tuple[list[list[Player]], tuple[int, ...]]:
    """The players of each side and the stored places of a recorded match (either kind)."""
    if event.kind == Event.Kind.MATCH_RECORDED:
        return [[event.player_a], [event.player_b]], places_of_score(event.score_a)
    rows = (
        MatchParticipant.objects.filter(event=event).select_related("player").order_by("side", "id")
    )
    sides: dict[int, list[Player]] = {}
    place: dict[int, int] = {}
    for row in rows:
        sides.setdefault(row.side, []).append(row.player)
        place[row.side] = row.place
    order = sorted(sides)
    return [sides[x] for x in order], tuple(place[x] for x in order)
