"""Write services: every change to a league's history goes through these functions.

Each service validates its input, then, under the league lock, replays an idempotent retry
or runs the checks that depend on stored rows, and appends facts (``league.event_store``
vocabulary) through ``league.event_store.append``, which also keeps the ``Player`` rows (the
current state of the players) in line. Errors raise ``ValidationError`` with field ->
messages and write nothing. ``events_appended`` is sent once per call that stores something.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import transaction
from django.db.models import Q
from django.utils import timezone

from league import event_store
from league.calendar import league_day, league_zone, local_noon
from league.event_store import Submission
from league.event_store.vocabulary import (
    Fact,
    MatchRecorded,
    MatchVoided,
    PlayerDeactivated,
    PlayerMerged,
    PlayerReactivated,
    PlayerRegistered,
    PlayerRenamed,
    PlayerUnmerged,
    SideMatchRecorded,
)
from league.fixtures import check_open, resolve_fixture
from league.idempotency_keys import correction_void_key
from league.models import Event, Fixture, League, MatchParticipant, Player
from league.player_names import check_name, check_name_shape, clean_name
from league.sides import (
    SIDES_FIELD,
    check_format,
    places_of,
    places_of_score,
    resolve_sides,
    score_of_places,
)
from league.validation import (
    Errors,
    check_active,
    check_not_voided,
    check_opponents,
    check_played_at,
    check_points_agree,
    check_reason,
    check_recorder,
    check_text,
    clean_key,
    parse_neutral,
    parse_played_at,
    parse_points,
    parse_score,
    resolve_match,
    resolve_player,
)

MATCH_FIELDS = ("player_a", "player_b", "score_a", "played_at", "points", "note", "neutral")
SIDE_MATCH_FIELDS = ("sides", "score_a", "places", "played_at", "points", "note")
RESULT_FIELDS = (
    "player_a_id",
    "player_b_id",
    "score_a",
    "played_at",
    "points",
    "note",
    "neutral",
)
REASON_MAX = 1000


@dataclass(frozen=True, slots=True)
class _ParsedMatch:
    """A result read from loose input: its submission, players and whether only a date was given."""

    submission: Submission
    player_a: Player
    player_b: Player
    date_only: bool

    @property
    def fact(self) -> MatchRecorded:
        return self.submission.fact  # type: ignore[return-value]


# --- players -------------------------------------------------------------------------------


def register_player(
    league: League,
    display_name: str,
    *,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Player:
    """Add a player to ``league`` (a ``player_registered`` event creates the player)."""
    errors = Errors()
    name = clean_name(display_name)
    shape = Errors()
    check_name_shape(name, shape)
    if [error.code for error in shape.by_field.get("display_name", [])] != ["invisible_character"]:
        # Else ``check_name`` says it again below, with the existing player it may match.
        errors.merge(shape)
    key = clean_key(idempotency_key, errors)
    check_recorder(league, recorded_by, errors)
    errors.raise_if_any()

    submission = Submission(PlayerRegistered(player_id=None, display_name=name), key)
    with transaction.atomic():
        event_store.lock_league(league)
        existing = event_store.existing_for(league, submission)
        if existing is not None:
            return existing.player
        check_name(league, name, errors)
        errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    return event.player


def rename_player(
    league: League,
    player: Player | int,
    new_name: str,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_renamed`` event: the player is known as ``new_name`` from now on."""
    name = clean_name(new_name)

    def fact(current: Player) -> Fact:
        return PlayerRenamed(player_id=current.pk, display_name=name, reason=_reason(reason))

    def check(current: Player, errors: Errors) -> None:
        if name and name == current.display_name:
            errors.add(
                "display_name",
                "%(player)s is already called %(name)s: give a new name.",
                "unchanged",
                player=current.display_name,
                name=name,
            )
        else:
            check_name(league, name, errors, player=current)

    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def deactivate_player(
    league: League,
    player: Player | int,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_deactivated`` event: no new result may be recorded for the player."""

    def fact(current: Player) -> Fact:
        return PlayerDeactivated(player_id=current.pk, reason=_reason(reason))

    def check(current: Player, errors: Errors) -> None:
        if not current.active:
            errors.add(
                "active",
                "%(player)s is already inactive.",
                "already_inactive",
                player=current.display_name,
            )

    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def reactivate_player(
    league: League,
    player: Player | int,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_reactivated`` event: results may be recorded for the player again."""

    def fact(current: Player) -> Fact:
        return PlayerReactivated(player_id=current.pk, reason=_reason(reason))

    def check(current: Player, errors: Errors) -> None:
        if current.active:
            errors.add(
                "active",
                "%(player)s is already active.",
                "already_active",
                player=current.display_name,
            )

    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def merge_player(
    league: League,
    player: Player | int,
    into: Player | int,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_merged`` event: ``player``'s matches count as ``into``'s from now
    on, in every replay (their earlier matches too), and no new result may name ``player``.

    Refused: merging a player into themselves or into a player of another league; chains
    (``into`` is itself merged away, or others were merged into ``player``: merge them
    directly); merging a player already merged; and merging two players who played each
    other in a match that counts (it would become a match against oneself: void those
    matches first).
    """
    errors = Errors()
    survivor = resolve_player(league, into, "into", errors)

    def fact(current: Player) -> Fact:
        return PlayerMerged(player_id=current.pk, into_id=survivor.pk, reason=_reason(reason))  # type: ignore[union-attr]

    def check(current: Player, errors: Errors) -> None:
        assert survivor is not None
        target = Player.objects.get(pk=survivor.pk)
        _check_merge(league, current, target, errors)

    check_reason(reason, errors)
    if errors:
        check_recorder(league, recorded_by, errors)
        resolve_player(league, player, "player", errors)
        errors.raise_if_any()
    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def _check_merge(league: League, current: Player, target: Player, errors: Errors) -> None:
    """The refusals of ``merge_player`` (run under the league lock)."""
    if current.pk == target.pk:
        errors.add("into", "A player cannot be merged into themselves.", "self_merge")
        return
    if current.merged_into_id is not None:
        errors.add(
            "player",
            "%(player)s is already merged into %(survivor)s; unmerge them first.",
            "already_merged",
            player=current.display_name,
            survivor=Player.objects.get(pk=current.merged_into_id).display_name,
        )
    if target.merged_into_id is not None:
        survivor = Player.objects.get(pk=target.merged_into_id)
        errors.add(
            "into",
            "%(target)s was merged into %(survivor)s; merge into %(survivor)s instead.",
            "merged_target",
            target=target.display_name,
            survivor=survivor.display_name,
        )
    absorbed = list(
        Player.objects.filter(merged_into=current).values_list("display_name", flat=True)
    )
    if absorbed:
        errors.add(
            "player",
            "%(names)s %(verb)s merged into %(player)s; unmerge %(them)s or merge %(them)s "
            "into %(target)s directly before merging %(player)s.",
            "merge_chain",
            names=", ".join(absorbed),
            verb="was" if len(absorbed) == 1 else "were",
            them="them",
            player=current.display_name,
            target=target.display_name,
        )
    if errors:
        return
    group = [target.pk, *Player.objects.filter(merged_into=target).values_list("pk", flat=True)]
    between = (
        Event.objects.live_matches()
        .filter(league=league)
        .filter(
            Q(player_a=current, player_b_id__in=group) | Q(player_b=current, player_a_id__in=group)
        )
    )
    # Matches with sides count too: the two in one match, on either side.
    together = (
        Event.objects.side_matches()
        .filter(league=league, voided_by__isnull=True, participants__player=current)
        .filter(participants__player_id__in=group)
        .values_list("seq", flat=True)
        .distinct()
    )
    seqs = sorted({*between.values_list("seq", flat=True), *together})
    count = len(seqs)
    if count:
        first = seqs[0]
        errors.add(
            "into",
            "%(player)s and %(target)s played each other (%(count)s counted %(matches)s, "
            "first #%(seq)s): merged, those would be matches against oneself. Void them "
            "first if the records are one player.",
            "played_each_other",
            player=current.display_name,
            target=target.display_name,
            count=count,
            matches="match" if count == 1 else "matches",
            seq=first,
        )


def unmerge_player(
    league: League,
    player: Player | int,
    *,
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``player_unmerged`` event: ``player``'s matches count as their own again."""
    errors = Errors()
    check_reason(reason, errors)
    if errors:
        check_recorder(league, recorded_by, errors)
        resolve_player(league, player, "player", errors)
        errors.raise_if_any()

    def fact(current: Player) -> Fact:
        # A retried unmerge finds the player unmerged already: it names the last merge's
        # survivor, as the stored event does.
        from_id = current.merged_into_id or _last_merged_into(league, current)
        return PlayerUnmerged(player_id=current.pk, from_id=from_id, reason=_reason(reason))  # type: ignore[arg-type]

    def check(current: Player, errors: Errors) -> None:
        if current.merged_into_id is None:
            errors.add(
                "player",
                "%(player)s is not merged into anyone.",
                "not_merged",
                player=current.display_name,
            )

    return _change_player(league, player, fact, check, reason, recorded_by, idempotency_key)


def _last_merged_into(league: League, player: Player) -> int | None:
    """The player ``player`` was last merged into (None if never)."""
    return (
        Event.objects.filter(league=league, kind=Event.Kind.PLAYER_MERGED, player=player)
        .order_by("-seq")
        .values_list("other_player_id", flat=True)
        .first()
    )


def _change_player(
    league: League,
    player: Player | int,
    fact_for: Callable[[Player], Fact],
    check_state: Callable[[Player, Errors], None],
    reason: str,
    recorded_by: Any,
    idempotency_key: str | None,
) -> Event:
    """Append the fact ``fact_for(player)`` once ``check_state`` passes under the lock.

    The player's state is read again under the league lock: a result recorded at the same
    moment sees the player either before or after the change, never in between.
    """
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    target = resolve_player(league, player, "player", errors)
    _check_reason_length(reason, errors)
    key = clean_key(idempotency_key, errors)
    errors.raise_if_any()
    assert target is not None

    with transaction.atomic():
        event_store.lock_league(league)
        current = Player.objects.get(pk=target.pk)
        submission = Submission(fact_for(current), key)
        if event_store.existing_for(league, submission) is None:
            check_state(current, errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    if isinstance(player, Player):
        player.refresh_from_db(fields=["display_name", "active", "merged_into"])
    return event


def _reason(value: Any) -> str:
    return "" if value is None else str(value).strip()


def _check_reason_length(value: Any, errors: Errors) -> None:
    check_text(_reason(value), errors, "reason")
    if len(_reason(value)) > REASON_MAX:
        errors.add(
            "reason",
            "The reason is too long (at most %(max)s characters).",
            "reason_too_long",
            max=REASON_MAX,
        )


# --- matches -------------------------------------------------------------------------------


def record_match(
    league: League,
    *,
    player_a: Player | int,
    player_b: Player | int,
    score_a: Decimal | str | float,
    played_at: dt.datetime | dt.date,
    recorded_by: Any = None,
    points: str = "",
    note: str = "",
    idempotency_key: str | None = None,
    neutral: bool | str = False,
    fixture: Fixture | int | None = None,
) -> Event:
    """Append one ``match_recorded`` event (``score_a`` is 1, 0.5 or 0; ``neutral``: played
    on neutral ground, no advantage for ``player_a``).

    With ``fixture``, the match is that fixture's result: its players must be the
    fixture's, in the fixture's order, and the fixture must be open (neither cancelled nor
    played already).
    """
    row = {
        "player_a": player_a,
        "player_b": player_b,
        "score_a": score_a,
        "played_at": played_at,
        "points": points,
        "note": note,
        "idempotency_key": idempotency_key,
        "neutral": neutral,
    }
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    parsed = _parse_match(league, row, errors)
    target = None if fixture is None else resolve_fixture(league, fixture, errors)
    if parsed is not None and target is not None:
        if (parsed.player_a.pk, parsed.player_b.pk) != (target.player_a_id, target.player_b_id):
            errors.add(
                "fixture",
                "This fixture is %(a)s v %(b)s: record its result with those players.",
                "other_players",
                a=target.player_a.display_name,
                b=target.player_b.display_name,
            )
        parsed = dataclasses.replace(
            parsed,
            submission=Submission(
                dataclasses.replace(parsed.fact, fixture_id=target.pk),
                parsed.submission.idempotency_key,
            ),
        )
    errors.raise_if_any()
    assert parsed is not None

    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, parsed.submission) is None:
            _check_match_state(league, parsed, errors)
            if target is not None:
                check_open(Fixture.objects.get(pk=target.pk), errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [parsed.submission], recorded_by=recorded_by)
    return event


def record_fixture_result(
    league: League,
    fixture: Fixture | int,
    *,
    score_a: Decimal | str | float,
    played_at: dt.datetime | dt.date | str | None = None,
    points: str = "",
    note: str = "",
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Record the result of ``fixture``: its players, the score given, the fixture named.

    ``played_at`` defaults to the fixture's scheduled moment, or now when the fixture was
    played before it.
    """
    errors = Errors()
    target = resolve_fixture(league, fixture, errors)
    errors.raise_if_any()
    assert target is not None
    if played_at is None or played_at == "":
        played_at = min(target.scheduled_at, timezone.now()).astimezone(league_zone(league))
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
    """Append many results at once: all of them, or none.

    Each result is a dict of ``record_match`` keyword arguments (without ``recorded_by``).
    Errors are keyed ``results.<row>.<field>`` (rows from 0); see
    ``league.validation.row_errors``.
    """
    return _record_rows(
        league,
        results,
        name="record_round",
        fields={*MATCH_FIELDS, "idempotency_key"},
        parse=_parse_match,
        check_state=_check_match_state,
        recorded_by=recorded_by,
    )


def void_match(
    league: League,
    match: Event | int,
    *,
    reason: str,
    recorded_by: Any = None,
    idempotency_key: str | None = None,
) -> Event:
    """Append a ``match_voided`` event: the match no longer counts."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    reason = check_reason(reason, errors)
    key = clean_key(idempotency_key, errors)
    target = resolve_match(league, match, errors)
    errors.raise_if_any()
    assert target is not None
    submission = Submission(MatchVoided(match_id=target.pk, reason=reason), key)
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, submission) is None:
            check_not_voided(target, errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [submission], recorded_by=recorded_by)
    return event


def correct_match(
    league: League,
    match: Event | int,
    *,
    reason: str,
    recorded_by: Any = None,
    **new_result: Any,
) -> tuple[Event, Event]:
    """Void ``match`` and record the corrected result, linked, in one transaction.

    ``new_result`` takes ``record_match`` keyword arguments; fields left out keep the
    original match's values. With an ``idempotency_key`` the new result carries the key
    and the void carries the key derived from it (``league.idempotency_keys``).
    """
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    reason = check_reason(reason, errors)
    target = resolve_match(league, match, errors)
    errors.raise_if_any()
    assert target is not None
    if target.kind == Event.Kind.SIDE_MATCH_RECORDED:
        return _correct_side_match(league, target, reason, recorded_by, new_result)
    unknown = set(new_result) - {*MATCH_FIELDS, "idempotency_key"}
    if unknown:
        raise TypeError(f"correct_match() got unexpected keyword arguments: {sorted(unknown)}")

    row: dict[str, Any] = {field: getattr(target, field) for field in MATCH_FIELDS}
    row.update(new_result)
    row["played_at"] = _kept_played_at(league, target, row["played_at"])
    parsed = _parse_match(league, row, errors)
    void_key = correction_void_key(parsed.submission.idempotency_key if parsed else None)
    if void_key:
        clean_key(void_key, errors)
    errors.raise_if_any()
    assert parsed is not None
    # A correction keeps the fixture the match played while it names the same players.
    same_players = (parsed.player_a.pk, parsed.player_b.pk) == (
        target.player_a_id,
        target.player_b_id,
    )
    fixture_id = target.fixture_id if same_players else None
    replacement = dataclasses.replace(
        parsed,
        submission=Submission(
            dataclasses.replace(
                parsed.fact, replaces_id=target.pk, reason=reason, fixture_id=fixture_id
            ),
            parsed.submission.idempotency_key,
        ),
    )
    void = Submission(MatchVoided(match_id=target.pk, reason=reason), void_key)

    with transaction.atomic():
        event_store.lock_league(league)
        repeated = event_store.existing_for(league, void)
        if event_store.existing_for(league, replacement.submission) is None:
            _check_match_state(league, replacement, errors)
        if repeated is None:
            check_not_voided(target, errors)
        new = replacement.fact
        if all(getattr(new, field) == getattr(target, field) for field in RESULT_FIELDS):
            errors.add(
                "__all__",
                "The correction is identical to the recorded result; change at least one field.",
                "unchanged",
            )
        errors.raise_if_any()
        voided, corrected = event_store.append(
            league, [void, replacement.submission], recorded_by=recorded_by
        )
    return voided, corrected


def _kept_played_at(league: League, target: Event, played_at: Any) -> Any:
    """A correction's ``played_at``: the recorded match's day, when the correction keeps the
    moment that day was stored as (local noon), else ``played_at`` as given.

    A match recorded with a date is stored at noon in the league's time zone. Kept as a
    moment, it would be checked as one: corrected on its own day before noon, the match would
    be refused as played in the future. Kept as its day, it is checked and stored as the date
    was (the same noon).
    """
    if played_at != target.played_at or target.played_at is None:
        return played_at
    day = league_day(league, target.played_at)
    return day if target.played_at == local_noon(day, league.time_zone) else played_at


def _parse_match(league: League, row: dict[str, Any], errors: Errors) -> _ParsedMatch | None:
    """A ``match_recorded`` submission from loose input, with its players."""
    found = Errors()
    player_a = resolve_player(league, row.get("player_a"), "player_a", found)
    player_b = resolve_player(league, row.get("player_b"), "player_b", found)
    score = parse_score(row.get("score_a"), found)
    when = parse_played_at(league, row.get("played_at"), found)
    points = parse_points(row.get("points"), found)
    check_points_agree(score, points, found)
    note = str(row.get("note") or "").strip()
    check_text(note, found, "note")
    neutral = parse_neutral(row.get("neutral"), found)
    key = clean_key(row.get("idempotency_key"), found)
    check_opponents(player_a, player_b, found)
    check_format(league, (1, 1), found, "__all__")
    errors.merge(found)
    if found or when is None:
        return None
    assert player_a is not None
    assert player_b is not None
    assert score is not None
    played_at, date_only = when
    fact = MatchRecorded(
        player_a_id=player_a.pk,
        player_b_id=player_b.pk,
        score_a=score,
        played_at=played_at,
        points=points,
        note=note,
        neutral=neutral,
    )
    return _ParsedMatch(Submission(fact, key), player_a, player_b, date_only)


def _check_match_state(league: League, parsed: _ParsedMatch, errors: Errors) -> None:
    """Checks that depend on stored rows or the clock (run under the league lock).

    The players are read again: the caller's objects may predate a deactivation.
    """
    players = Player.objects.in_bulk([parsed.player_a.pk, parsed.player_b.pk])
    check_active(players[parsed.player_a.pk], players[parsed.player_b.pk], errors)
    check_played_at(league, parsed.fact.played_at, parsed.date_only, errors, "played_at")


# --- matches with sides --------------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class _ParsedSideMatch:
    """A match with sides read from loose input (two sides of one player: a ``MatchRecorded``)."""

    submission: Submission
    players: tuple[Player, ...]
    date_only: bool


def record_side_match(
    league: League,
    *,
    sides: Any,
    played_at: dt.datetime | dt.date,
    score_a: Decimal | str | float | None = None,
    places: Any = None,
    recorded_by: Any = None,
    points: str = "",
    note: str = "",
    idempotency_key: str | None = None,
) -> Event:
    """Append a match with sides: ``sides`` lists each side's players (``Player`` or id).

    Two sides take side A's ``score_a`` (1, 0.5, 0) or ``places``; three or more take
    ``places``, a finishing position from 1 per side (ties allowed). Two sides of one player
    each are stored as a one-vs-one ``match_recorded`` event, exactly as ``record_match``
    stores them; every other shape as a ``side_match_recorded`` event with participants.
    The league's format (``League.match_format``) decides which shapes are accepted.
    """
    row = {
        "sides": sides,
        "score_a": score_a,
        "places": places,
        "played_at": played_at,
        "points": points,
        "note": note,
        "idempotency_key": idempotency_key,
    }
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    parsed = parse_side_match(league, row, errors)
    errors.raise_if_any()
    assert parsed is not None
    with transaction.atomic():
        event_store.lock_league(league)
        if event_store.existing_for(league, parsed.submission) is None:
            _check_side_match_state(league, parsed, errors)
            errors.raise_if_any()
        (event,) = event_store.append(league, [parsed.submission], recorded_by=recorded_by)
    return event


def parse_side_match(
    league: League, row: dict[str, Any], errors: Errors
) -> _ParsedSideMatch | None:
    """A submission for a match with sides from loose input (``SIDE_MATCH_FIELDS`` keys)."""
    found = Errors()
    sides = resolve_sides(league, row.get("sides"), found)
    n_sides = len(sides) if sides is not None else _count(row.get("sides"))
    places = places_of(n_sides, row.get("score_a"), row.get("places"), found) if n_sides else None
    when = parse_played_at(league, row.get("played_at"), found)
    points = parse_points(row.get("points"), found)
    note = str(row.get("note") or "").strip()
    check_text(note, found, "note")
    key = clean_key(row.get("idempotency_key"), found)
    if sides is not None:
        check_format(league, [len(side) for side in sides], found, SIDES_FIELD)
    errors.merge(found)
    if found or when is None or sides is None or places is None:
        return None
    played, date_only = when
    players = tuple(player for side in sides for player in side)
    fact: Fact
    if len(sides) == 2 and len(sides[0]) == 1 and len(sides[1]) == 1:
        score = score_of_places(places)
        fact = MatchRecorded(
            player_a_id=sides[0][0].pk,
            player_b_id=sides[1][0].pk,
            score_a=score,
            played_at=played,
            points=points,
            note=note,
        )
    else:
        fact = SideMatchRecorded(
            sides=tuple(tuple(player.pk for player in side) for side in sides),
            places=places,
            played_at=played,
            points=points,
            note=note,
        )
    return _ParsedSideMatch(Submission(fact, key), players, date_only)


def _count(sides: Any) -> int:
    return len(sides) if isinstance(sides, list | tuple) and len(sides) >= 2 else 0


def _check_side_match_state(league: League, parsed: _ParsedSideMatch, errors: Errors) -> None:
    """Every player active now, the date in the league's window (under the league lock)."""
    current = Player.objects.in_bulk([player.pk for player in parsed.players])
    for player in parsed.players:
        if not current[player.pk].active:
            errors.add(
                SIDES_FIELD,
                "%(player)s is inactive; reactivate them before recording a result.",
                "inactive_player",
                player=player.display_name,
            )
    fact = parsed.submission.fact
    check_played_at(league, fact.played_at, parsed.date_only, errors, "played_at")  # type: ignore[attr-defined]


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


def _correct_side_match(
    league: League, target: Event, reason: str, recorded_by: Any, new_result: dict[str, Any]
) -> tuple[Event, Event]:
    """``correct_match`` for a match with sides: fields left out keep the original's values."""
    unknown = set(new_result) - {*SIDE_MATCH_FIELDS, "idempotency_key"}
    if unknown:
        raise TypeError(f"correct_match() got unexpected keyword arguments: {sorted(unknown)}")
    errors = Errors()
    sides, places = sides_of_match(target)
    row: dict[str, Any] = {
        "sides": sides,
        "played_at": target.played_at,
        "points": target.points,
        "note": target.note,
    }
    if "score_a" not in new_result and "places" not in new_result:
        row["places"] = [place + 1 for place in places]
    row.update(new_result)
    row["played_at"] = _kept_played_at(league, target, row["played_at"])
    parsed = parse_side_match(league, row, errors)
    void_key = correction_void_key(parsed.submission.idempotency_key if parsed else None)
    if void_key:
        clean_key(void_key, errors)
    errors.raise_if_any()
    assert parsed is not None
    fact = dataclasses.replace(parsed.submission.fact, replaces_id=target.pk, reason=reason)  # type: ignore[type-var]
    replacement = _ParsedSideMatch(
        Submission(fact, parsed.submission.idempotency_key), parsed.players, parsed.date_only
    )
    void = Submission(MatchVoided(match_id=target.pk, reason=reason), void_key)
    with transaction.atomic():
        event_store.lock_league(league)
        repeated = event_store.existing_for(league, void)
        if event_store.existing_for(league, replacement.submission) is None:
            _check_side_match_state(league, replacement, errors)
        if repeated is None:
            check_not_voided(target, errors)
        original = event_store.fact_of(target)
        if dataclasses.replace(original, replaces_id=target.pk, reason=reason) == fact:  # type: ignore[type-var]
            errors.add(
                "__all__",
                "The correction is identical to the recorded result; change at least one field.",
                "unchanged",
            )
        errors.raise_if_any()
        voided, corrected = event_store.append(
            league, [void, replacement.submission], recorded_by=recorded_by
        )
    return voided, corrected


def record_side_round(
    league: League, results: list[dict[str, Any]], *, recorded_by: Any = None
) -> list[Event]:
    """Append many matches with sides at once: all of them, or none.

    Each result is a dict of ``record_side_match`` keyword arguments (without
    ``recorded_by``); errors are keyed ``results.<row>.<field>`` (rows from 0), like
    ``record_round``'s.
    """
    # A player in two matches of one round is allowed (a round may hold several games at
    # one table over an evening), as in one-vs-one rounds.
    return _record_rows(
        league,
        results,
        name="record_side_round",
        fields={*SIDE_MATCH_FIELDS, "idempotency_key"},
        parse=parse_side_match,
        check_state=_check_side_match_state,
        recorded_by=recorded_by,
    )


def _record_rows(
    league: League,
    results: list[dict[str, Any]],
    *,
    name: str,
    fields: set[str],
    parse: Callable[[League, dict[str, Any], Errors], Any],
    check_state: Callable[[League, Any, Errors], None],
    recorded_by: Any,
) -> list[Event]:
    """A round's rows parsed, checked against stored state under the league lock and
    appended: all of them, or none, with every row's problems in one answer."""
    errors = Errors()
    check_recorder(league, recorded_by, errors)
    if not results:
        errors.add("results", "A round needs at least one result.", "required")
    errors.raise_if_any()

    parsed: list[Any] = []
    keys: dict[str, int] = {}
    for index, row in enumerate(results):
        unknown = set(row) - fields
        if unknown:
            raise TypeError(f"{name}() result {index} has unknown keys: {sorted(unknown)}")
        row_errors = Errors()
        item = parse(league, row, row_errors)
        key = item.submission.idempotency_key if item is not None else None
        if key:
            if key in keys:
                row_errors.add(
                    "idempotency_key",
                    "This idempotency key is also used by result %(row)s of this round.",
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
                check_state(league, item, row_errors)
            errors.merge(row_errors, prefix=f"results.{index}")
        errors.raise_if_any()
        return event_store.append(
            league,
            [item.submission for item in parsed if item is not None],
            recorded_by=recorded_by,
        )
