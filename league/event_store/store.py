"""The only code that appends events to a league's history.

``append`` stores facts (``league.event_store.vocabulary``) for one league in one
transaction: it locks the league (so sequence numbers are handed out one writer at a
time), resolves idempotency keys, maps each new fact to an ``Event`` row with the next
``seq``, brings the ``Player`` rows (the write side's current state of the players) in line
with the facts about players, and the ``Fixture`` rows with the facts about fixtures, and
sends ``events_appended`` once. Services validate before
calling it; this module guarantees ordering and "at most once".

The mapping between facts and rows lives here, one function each way (``row_fields`` and
``fact_of``); the bulk path (``league.event_store.bulk``) uses the
same functions, lock, numbering and key lookup.
"""

from __future__ import annotations

import dataclasses
import datetime as dt
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.exceptions import ValidationError
from django.db import IntegrityError, transaction
from django.utils import timezone

from league.event_store.clubs import (
    CLUB_FACT_KINDS,
    CLUB_FACTS,
    apply_to_clubs,
    club_fact,
    club_row_fields,
)
from league.event_store.signals import events_appended
from league.event_store.vocabulary import (
    ByeRequested,
    ChallengeAccepted,
    ChallengeDeclined,
    ChallengeExpired,
    ChallengeIssued,
    CompetitionCreated,
    DivisionPlayerMoved,
    DivisionsFixed,
    DivisionsSet,
    EntrantEntered,
    EntrantWithdrawn,
    Fact,
    FixtureCancelled,
    FixtureRescheduled,
    FixtureScheduled,
    ForfeitRecorded,
    MatchRecorded,
    MatchVoided,
    PairingForbidden,
    PlayerClaimed,
    PlayerDeactivated,
    PlayerForgotten,
    PlayerIdentified,
    PlayerMerged,
    PlayerReactivated,
    PlayerRegistered,
    PlayerReleased,
    PlayerRenamed,
    PlayerSeeded,
    PlayerUnmerged,
    ReportConfirmed,
    ReportDisputed,
    ReportRejected,
    ReportSubmitted,
    ReportWithdrawn,
    RoundPaired,
    SideMatchRecorded,
)
from league.models import (
    ByeKind,
    Challenge,
    ChallengeStatus,
    Competition,
    Division,
    DivisionMember,
    DivisionSetup,
    Entrant,
    Event,
    Fixture,
    FixtureSide,
    League,
    MatchParticipant,
    Player,
    Report,
    ReportStatus,
    RoundBye,
    Season,
)
from league.player_names import forgotten_name, free_slug
from league.prepared_queries import PreparedQuery

# Keys looked up per query by ``stored_facts_by_key``.
KEY_LOOKUP_CHUNK = 500


@dataclass(frozen=True, slots=True)
class Submission:
    """A fact as submitted: with the idempotency key it was submitted under, if any.

    Who submitted it is the same for every submission of one ``append`` call.
    """

    fact: Fact
    idempotency_key: str | None = None


# Compiled per database (``PreparedQuery``), so the vendor read here is the compiling one's.
_LOCK_LEAGUE_ROW = PreparedQuery(
    lambda league_id: (
        League.objects.select_for_update(no_key=transaction.get_connection().vendor == "postgresql")
        .filter(pk=league_id)
        .order_by()
        .values_list("pk")
    )
)


def lock_league(league: League) -> None:
    """Serialise the writers of ``league`` until the current transaction ends.

    PostgreSQL: ``SELECT … FOR NO KEY UPDATE`` on the league row (it conflicts with itself but
    not with the key-share locks taken by inserts that reference the league). SQLite: the
    transaction was opened with ``BEGIN IMMEDIATE`` (see settings), which already holds the
    database's single write lock, so there is nothing more to take.
    """
    connection = transaction.get_connection()
    if not connection.in_atomic_block:
        raise transaction.TransactionManagementError(
            "lock_league() must be called inside transaction.atomic()."
        )
    if connection.features.has_select_for_update:
        _LOCK_LEAGUE_ROW.rows(league_id=league.pk)


_TOP_SEQ = PreparedQuery(
    lambda league_id: (
        Event.objects.filter(league_id=league_id).order_by("-seq").values_list("seq")[:1]
    )
)


def top_seq(league_id: int) -> int:
    """The league's highest event sequence number (0 without events)."""
    return _TOP_SEQ.value(league_id=league_id) or 0


def next_seq(league: League) -> int:
    """The sequence number the next event of ``league`` gets (call under ``lock_league``)."""
    return top_seq(league.pk) + 1


# --- facts <-> rows ------------------------------------------------------------------------

#: The ``Event`` columns a fact is read from: ``fact_of`` takes an ``Event`` or a row of
#: ``values_list(*FACT_COLUMNS, named=True)``. ``player__display_name`` stands in for the
#: name of a registration stored before rows kept it (migration 0003): until the player's
#: first rename it is the registered name.
FACT_COLUMNS = (
    "id",
    "kind",
    "player_id",
    "display_name",
    "player__display_name",
    "player_a_id",
    "player_b_id",
    "score_a",
    "played_at",
    "points",
    "note",
    "replaces_id",
    "voids_id",
    "reason",
    "neutral",
    "other_player_id",
    "fixture_id",
    "fixture__player_a_id",
    "fixture__player_b_id",
    "scheduled_at",
    "deadline",
    "venue",
    "report_id",
    "challenge_id",
    "account_id",
    "competition_id",
    "round_number",
    "details",
    "fixture__board",
    "seed_rating",
    "seed_rd",
    "seed_list",
    "seed_games",
)


#: Where each kind of fact is stored: (``Event`` attribute, fact attribute) pairs; the kind
#: goes to ``Event.kind`` and every column not named stays empty.
COLUMNS_OF: dict[type[Fact], tuple[tuple[str, str], ...]] = {
    PlayerRegistered: (("player_id", "player_id"), ("display_name", "display_name")),
    PlayerRenamed: (
        ("player_id", "player_id"),
        ("display_name", "display_name"),
        ("reason", "reason"),
    ),
    PlayerDeactivated: (("player_id", "player_id"), ("reason", "reason")),
    PlayerReactivated: (("player_id", "player_id"), ("reason", "reason")),
    PlayerMerged: (
        ("player_id", "player_id"),
        ("other_player_id", "into_id"),
        ("reason", "reason"),
    ),
    PlayerUnmerged: (
        ("player_id", "player_id"),
        ("other_player_id", "from_id"),
        ("reason", "reason"),
    ),
    PlayerClaimed: (
        ("player_id", "player_id"),
        ("account_id", "account_id"),
        ("reason", "reason"),
    ),
    PlayerReleased: (
        ("player_id", "player_id"),
        ("account_id", "account_id"),
        ("reason", "reason"),
    ),
    PlayerForgotten: (("player_id", "player_id"),),
    # The FIDE details in ``details`` (``DETAILS_OF``).
    PlayerIdentified: (("player_id", "player_id"),),
    MatchRecorded: tuple(
        (name, name)
        for name in (
            "player_a_id",
            "player_b_id",
            "score_a",
            "played_at",
            "points",
            "note",
            "replaces_id",
            "reason",
            "neutral",
            "margin",
        )
    ),
    MatchVoided: (("voids_id", "match_id"), ("reason", "reason")),
    # The players and places of a match with sides go to MatchParticipant (participant_rows).
    SideMatchRecorded: tuple(
        (name, name) for name in ("score_a", "played_at", "points", "note", "replaces_id", "reason")
    ),
    # A fixture's players live on its ``Fixture`` row (created with the event, never changed);
    # a fixture with sides keeps them in ``details`` too (``DETAILS_OF``), and its
    # ``FixtureSide`` rows.
    FixtureScheduled: (
        ("fixture_id", "fixture_id"),
        ("scheduled_at", "scheduled_at"),
        ("deadline", "deadline"),
        ("venue", "venue"),
        ("note", "label"),
    ),
    FixtureRescheduled: (
        ("fixture_id", "fixture_id"),
        ("scheduled_at", "scheduled_at"),
        ("deadline", "deadline"),
        ("venue", "venue"),
        ("reason", "reason"),
    ),
    FixtureCancelled: (("fixture_id", "fixture_id"), ("reason", "reason")),
    # A report's sides and places live on its ``Report`` row (created with the event, never
    # changed); the match a confirmation recorded is on the row too.
    ReportSubmitted: (
        ("report_id", "report_id"),
        ("player_id", "player_id"),
        ("played_at", "played_at"),
        ("points", "points"),
        ("note", "note"),
        ("neutral", "neutral"),
    ),
    ReportConfirmed: (
        ("report_id", "report_id"),
        ("player_id", "player_id"),
        ("reason", "reason"),
    ),
    ReportDisputed: (
        ("report_id", "report_id"),
        ("player_id", "player_id"),
        ("reason", "reason"),
    ),
    ReportRejected: (("report_id", "report_id"), ("reason", "reason")),
    ReportWithdrawn: (
        ("report_id", "report_id"),
        ("player_id", "player_id"),
        ("reason", "reason"),
    ),
    ChallengeIssued: (
        ("challenge_id", "challenge_id"),
        ("player_a_id", "challenger_id"),
        ("player_b_id", "challenged_id"),
        ("deadline", "respond_by"),
    ),
    ChallengeAccepted: (("challenge_id", "challenge_id"), ("fixture_id", "fixture_id")),
    ChallengeDeclined: (("challenge_id", "challenge_id"), ("reason", "reason")),
    # Whether an expiry was a forfeit is the challenge row's status (set with the event).
    ChallengeExpired: (("challenge_id", "challenge_id"),),
    # The facts about competitions: what has no column of its own goes to ``details``
    # (``DETAILS_OF``).
    CompetitionCreated: (
        ("competition_id", "competition_id"),
        ("display_name", "name"),
        ("round_number", "planned_rounds"),
    ),
    EntrantEntered: (
        ("competition_id", "competition_id"),
        ("player_id", "player_id"),
        ("round_number", "from_round"),
    ),
    EntrantWithdrawn: (
        ("competition_id", "competition_id"),
        ("player_id", "player_id"),
        ("round_number", "from_round"),
        ("reason", "reason"),
    ),
    ByeRequested: (
        ("competition_id", "competition_id"),
        ("player_id", "player_id"),
        ("round_number", "round_number"),
    ),
    RoundPaired: (("competition_id", "competition_id"), ("round_number", "round_number")),
    # The players and the last round in ``details``.
    PairingForbidden: (
        ("competition_id", "competition_id"),
        ("round_number", "first_round"),
        ("reason", "reason"),
    ),
    # The winner (None: a double forfeit) in ``player``.
    ForfeitRecorded: (("fixture_id", "fixture_id"), ("player_id", "winner_id"), ("note", "note")),
    # The season, the divisions and the rule in ``details``.
    DivisionsSet: (),
    # The player moved in ``player``; the season and the two divisions in ``details``.
    DivisionPlayerMoved: (("player_id", "player_id"),),
    DivisionsFixed: (),
    PlayerSeeded: (
        ("player_id", "player_id"),
        ("seed_rating", "rating"),
        ("seed_rd", "rd"),
        ("seed_list", "list_kind"),
        ("seed_games", "games"),
        ("reason", "reason"),
    ),
}


def _day(value: dt.date | None) -> str | None:
    return None if value is None else value.isoformat()


def _parse_day(value: str | None) -> dt.date | None:
    return None if value is None else dt.date.fromisoformat(value)


#: The ``Event.details`` of the facts that need one (JSON: decimals as text, days ISO).
DETAILS_OF: dict[type[Fact], Callable[[Any], dict[str, Any]]] = {
    CompetitionCreated: lambda fact: {
        "slug": fact.slug,
        "format": fact.format,
        "bye_points": str(fact.bye_points),
        "rated": fact.rated,
        "tiebreaks": list(fact.tiebreaks),
        "start_date": _day(fact.start_date),
        "end_date": _day(fact.end_date),
        "season_id": fact.season_id,
        "draw_rule": fact.draw_rule,
        "third_place": fact.third_place,
        # Written only when set, so the details of every earlier cup stay as they were.
        **({"double_elimination": True} if fact.double_elimination else {}),
        **({"bracket_reset": True} if fact.bracket_reset else {}),
        **({"accelerated": True} if fact.accelerated else {}),
    },
    EntrantEntered: lambda fact: {"number": fact.number, "seed_rating": fact.seed_rating},
    ByeRequested: lambda fact: {"kind": fact.bye_kind, "points": str(fact.points)},
    RoundPaired: lambda fact: {
        "byes": [[player, kind, str(points)] for player, kind, points in fact.byes],
        **({"bracket": list(fact.bracket)} if fact.bracket else {}),
    },
    PairingForbidden: lambda fact: {
        "players": list(fact.player_ids),
        "last_round": fact.last_round,
    },
    DivisionsSet: lambda fact: {
        "season_id": fact.season_id,
        "divisions": [[name, list(players)] for name, players in fact.divisions],
        "promotion": fact.promotion,
        "newcomers": fact.newcomers,
        "proposed": fact.proposed,
    },
    DivisionPlayerMoved: lambda fact: {
        "season_id": fact.season_id,
        "from": fact.from_division,
        "to": fact.to_division,
    },
    DivisionsFixed: lambda fact: {"season_id": fact.season_id},
    PlayerIdentified: lambda fact: {
        "fide_id": fact.fide_id,
        "federation": fact.federation,
        "title": fact.title,
    },
}

#: Columns a fact fills only through ``append``: the bulk path (a CSV file's results, which
#: name no fixture) leaves them empty, as the model's defaults.
OPTIONAL_COLUMNS_OF: dict[type[Fact], tuple[tuple[str, str], ...]] = {
    MatchRecorded: (("fixture_id", "fixture_id"),),
    SideMatchRecorded: (("fixture_id", "fixture_id"),),
}


def participant_rows(event_id: int, fact: SideMatchRecorded) -> list[MatchParticipant]:
    """The ``MatchParticipant`` rows that store the sides of ``fact`` (event ``event_id``)."""
    return [
        MatchParticipant(event_id=event_id, side=side, player_id=player, place=place)
        for side, (members, place) in enumerate(zip(fact.sides, fact.places, strict=True))
        for player in members
    ]


def sides_of(
    rows: Iterable[tuple[int, int, int]],
) -> tuple[tuple[tuple[int, ...], ...], tuple[int, ...]]:
    """(sides, places) from (side, player, place) rows in (side, id) order."""
    members: dict[int, list[int]] = {}
    places: dict[int, int] = {}
    for side, player, place in rows:
        members.setdefault(side, []).append(player)
        places[side] = place
    order = sorted(members)
    return tuple(tuple(members[x]) for x in order), tuple(places[x] for x in order)


def side_match_fact(
    row: Any, sides: tuple[tuple[int, ...], ...], places: tuple[int, ...]
) -> SideMatchRecorded:
    """The ``SideMatchRecorded`` fact of a stored row, given its sides."""
    return SideMatchRecorded(
        sides=sides,
        places=places,
        played_at=row.played_at,
        points=row.points,
        note=row.note,
        replaces_id=row.replaces_id,
        reason=row.reason,
        fixture_id=row.fixture_id,
    )


def row_fields(fact: Fact) -> dict[str, Any]:
    """The ``Event`` field values (by attribute name) that store ``fact``."""
    if isinstance(fact, CLUB_FACTS):
        return {"kind": fact.kind, **club_row_fields(fact)}
    try:
        columns = COLUMNS_OF[type(fact)]
    except KeyError:
        raise TypeError(f"Not a fact of the event vocabulary: {fact!r}") from None
    columns += OPTIONAL_COLUMNS_OF.get(type(fact), ())
    fields = {"kind": fact.kind, **{column: getattr(fact, name) for column, name in columns}}
    if isinstance(fact, FixtureScheduled) and fact.competition_id is not None:
        fields.update(competition_id=fact.competition_id, round_number=fact.round_number)
    details = DETAILS_OF.get(type(fact))
    if details is not None:
        fields["details"] = details(fact)
    if isinstance(fact, FixtureScheduled) and fact.sides:
        fields["details"] = {"sides": [list(side) for side in fact.sides]}
    return fields


def _competition_fact(row: Any) -> Fact:
    """The fact about a competition a stored row holds."""
    kind, details = row.kind, row.details or {}
    if kind == CompetitionCreated.kind:
        return CompetitionCreated(
            competition_id=row.competition_id,
            slug=details["slug"],
            name=row.display_name,
            format=details["format"],
            planned_rounds=row.round_number,
            bye_points=Decimal(details["bye_points"]),
            rated=details["rated"],
            tiebreaks=tuple(details["tiebreaks"]),
            start_date=_parse_day(details["start_date"]),
            end_date=_parse_day(details["end_date"]),
            season_id=details["season_id"],
            draw_rule=details.get("draw_rule", ""),
            third_place=details.get("third_place", False),
            double_elimination=details.get("double_elimination", False),
            bracket_reset=details.get("bracket_reset", False),
            accelerated=details.get("accelerated", False),
        )
    if kind == EntrantEntered.kind:
        return EntrantEntered(
            competition_id=row.competition_id,
            player_id=row.player_id,
            from_round=row.round_number,
            seed_rating=details["seed_rating"],
            number=details["number"],
        )
    if kind == EntrantWithdrawn.kind:
        return EntrantWithdrawn(
            competition_id=row.competition_id,
            player_id=row.player_id,
            from_round=row.round_number,
            reason=row.reason,
        )
    if kind == ByeRequested.kind:
        return ByeRequested(
            competition_id=row.competition_id,
            player_id=row.player_id,
            round_number=row.round_number,
            bye_kind=details["kind"],
            points=Decimal(details["points"]),
        )
    if kind == PairingForbidden.kind:
        return PairingForbidden(
            competition_id=row.competition_id,
            player_ids=tuple(details["players"]),
            first_round=row.round_number,
            last_round=details["last_round"],
            reason=row.reason,
        )
    if kind == RoundPaired.kind:
        return RoundPaired(
            competition_id=row.competition_id,
            round_number=row.round_number,
            byes=tuple(
                (player, bye_kind, Decimal(points)) for player, bye_kind, points in details["byes"]
            ),
            bracket=tuple(details.get("bracket", ())),
        )
    if kind == ForfeitRecorded.kind:
        return ForfeitRecorded(fixture_id=row.fixture_id, winner_id=row.player_id, note=row.note)
    raise ValueError(f"Unknown event kind {kind!r}.")


def fact_of(row: Any) -> Fact:
    """The fact a stored row holds (an ``Event``, or a named row of ``FACT_COLUMNS``)."""
    kind = row.kind
    if kind == MatchRecorded.kind:
        return MatchRecorded(
            player_a_id=row.player_a_id,
            player_b_id=row.player_b_id,
            score_a=row.score_a,
            played_at=row.played_at,
            points=row.points,
            note=row.note,
            replaces_id=row.replaces_id,
            reason=row.reason,
            fixture_id=row.fixture_id,
            neutral=row.neutral,
        )
    if kind == MatchVoided.kind:
        return MatchVoided(match_id=row.voids_id, reason=row.reason)
    if kind == SideMatchRecorded.kind:
        participants = MatchParticipant.objects.filter(event_id=row.id).order_by("side", "id")
        return side_match_fact(
            row, *sides_of(participants.values_list("side", "player_id", "place"))
        )
    if kind == PlayerRegistered.kind:
        name = row.display_name or (
            row.player.display_name if isinstance(row, Event) else row.player__display_name
        )
        return PlayerRegistered(player_id=row.player_id, display_name=name)
    if kind == PlayerRenamed.kind:
        return PlayerRenamed(
            player_id=row.player_id, display_name=row.display_name, reason=row.reason
        )
    if kind == PlayerDeactivated.kind:
        return PlayerDeactivated(player_id=row.player_id, reason=row.reason)
    if kind == PlayerReactivated.kind:
        return PlayerReactivated(player_id=row.player_id, reason=row.reason)
    if kind == PlayerMerged.kind:
        return PlayerMerged(player_id=row.player_id, into_id=row.other_player_id, reason=row.reason)
    if kind == PlayerUnmerged.kind:
        return PlayerUnmerged(
            player_id=row.player_id, from_id=row.other_player_id, reason=row.reason
        )
    if kind == PlayerClaimed.kind:
        return PlayerClaimed(player_id=row.player_id, account_id=row.account_id, reason=row.reason)
    if kind == PlayerReleased.kind:
        return PlayerReleased(player_id=row.player_id, account_id=row.account_id, reason=row.reason)
    if kind == PlayerForgotten.kind:
        return PlayerForgotten(player_id=row.player_id)
    if kind == PlayerIdentified.kind:
        details = row.details or {}
        return PlayerIdentified(
            player_id=row.player_id,
            fide_id=details["fide_id"],
            federation=details["federation"],
            title=details["title"],
        )
    if kind == FixtureScheduled.kind:
        if isinstance(row, Event):
            sides = (row.fixture.player_a_id, row.fixture.player_b_id)
            board = row.fixture.board
        else:
            sides = (row.fixture__player_a_id, row.fixture__player_b_id)
            board = row.fixture__board
        return FixtureScheduled(
            fixture_id=row.fixture_id,
            player_a_id=sides[0],
            player_b_id=sides[1],
            scheduled_at=row.scheduled_at,
            deadline=row.deadline,
            venue=row.venue,
            label=row.note,
            competition_id=row.competition_id,
            round_number=row.round_number,
            board=board,
            sides=tuple(tuple(side) for side in (row.details or {}).get("sides", ())),
        )
    if kind == FixtureRescheduled.kind:
        return FixtureRescheduled(
            fixture_id=row.fixture_id,
            scheduled_at=row.scheduled_at,
            deadline=row.deadline,
            venue=row.venue,
            reason=row.reason,
        )
    if kind == FixtureCancelled.kind:
        return FixtureCancelled(fixture_id=row.fixture_id, reason=row.reason)
    if kind == PlayerSeeded.kind:
        return PlayerSeeded(
            player_id=row.player_id,
            rating=row.seed_rating,
            rd=row.seed_rd,
            list_kind=row.seed_list,
            games=row.seed_games,
            reason=row.reason,
        )
    if kind in DIVISION_FACTS:
        return _division_fact(row)
    if kind in REPORT_FACTS:
        return _report_fact(row)
    if kind in CHALLENGE_FACTS:
        return _challenge_fact(row)
    if kind in CLUB_FACT_KINDS:
        return club_fact(row)
    return _competition_fact(row)


DIVISION_FACTS = {cls.kind for cls in (DivisionsSet, DivisionPlayerMoved, DivisionsFixed)}


def _division_fact(row: Any) -> Fact:
    """The fact about a season's divisions a stored row holds."""
    details = row.details or {}
    if row.kind == DivisionsSet.kind:
        return DivisionsSet(
            season_id=details["season_id"],
            divisions=tuple((name, tuple(players)) for name, players in details["divisions"]),
            promotion=details["promotion"],
            newcomers=details["newcomers"],
            proposed=details["proposed"],
        )
    if row.kind == DivisionPlayerMoved.kind:
        return DivisionPlayerMoved(
            season_id=details["season_id"],
            player_id=row.player_id,
            from_division=details["from"],
            to_division=details["to"],
        )
    return DivisionsFixed(season_id=details["season_id"])


REPORT_FACTS = {
    cls.kind
    for cls in (ReportSubmitted, ReportConfirmed, ReportDisputed, ReportRejected, ReportWithdrawn)
}
CHALLENGE_FACTS = {
    cls.kind for cls in (ChallengeIssued, ChallengeAccepted, ChallengeDeclined, ChallengeExpired)
}


def _report_fact(row: Any) -> Fact:
    """The fact about a report a stored row holds (the report row completes it)."""
    kind = row.kind
    if kind == ReportSubmitted.kind:
        report = row.report if isinstance(row, Event) else Report.objects.get(pk=row.report_id)
        return ReportSubmitted(
            report_id=row.report_id,
            player_id=row.player_id,
            sides=tuple(tuple(side) for side in report.sides),
            places=tuple(report.places),
            played_at=row.played_at,
            points=row.points,
            note=row.note,
            neutral=row.neutral,
        )
    if kind == ReportConfirmed.kind:
        report = row.report if isinstance(row, Event) else Report.objects.get(pk=row.report_id)
        return ReportConfirmed(
            report_id=row.report_id,
            match_id=report.match_id,
            player_id=row.player_id,
            reason=row.reason,
        )
    if kind == ReportDisputed.kind:
        return ReportDisputed(report_id=row.report_id, player_id=row.player_id, reason=row.reason)
    if kind == ReportRejected.kind:
        return ReportRejected(report_id=row.report_id, reason=row.reason)
    return ReportWithdrawn(report_id=row.report_id, player_id=row.player_id, reason=row.reason)


def _challenge_fact(row: Any) -> Fact:
    """The fact about a challenge a stored row holds (the challenge row completes it)."""
    kind = row.kind
    if kind == ChallengeIssued.kind:
        return ChallengeIssued(
            challenge_id=row.challenge_id,
            challenger_id=row.player_a_id,
            challenged_id=row.player_b_id,
            respond_by=row.deadline,
        )
    if kind == ChallengeAccepted.kind:
        return ChallengeAccepted(challenge_id=row.challenge_id, fixture_id=row.fixture_id)
    if kind == ChallengeDeclined.kind:
        return ChallengeDeclined(challenge_id=row.challenge_id, reason=row.reason)
    status = Challenge.objects.filter(pk=row.challenge_id).values_list("status", flat=True).get()
    return ChallengeExpired(
        challenge_id=row.challenge_id, forfeit=status == ChallengeStatus.FORFEITED
    )


def facts_of(events: Iterable[Event]) -> list[Fact]:
    """``fact_of`` for each event, in order."""
    return [fact_of(event) for event in events]


# --- idempotency keys ----------------------------------------------------------------------


def idempotency_conflict(key: str, seq: int | None, kind: str) -> ValidationError:
    """The error for a key reused with different content (``seq`` None: in the same call)."""
    if seq is None:
        message = (
            "Idempotency key %(key)r is used twice in this submission for different facts; "
            "give each its own key."
        )
    else:
        message = (
            "Idempotency key %(key)r was already used for a different submission "
            "(event #%(seq)s, %(kind)s); use a new key for a new result."
        )
    label = Event.Kind(kind).label if kind in Event.Kind.values else kind
    return ValidationError(
        {
            "idempotency_key": ValidationError(
                message,
                code="idempotency_conflict",
                params={"key": key, "seq": seq, "kind": label},
            )
        }
    )


def find_by_key(league: League, key: str) -> Event | None:
    """The stored event of ``league`` carrying idempotency ``key``, if any."""
    return (
        Event.objects.select_related("player", "fixture")
        .filter(league=league, idempotency_key=key)
        .first()
    )


def stored_facts_by_key(league: League, keys: Iterable[str]) -> dict[str, tuple[int, Fact]]:
    """(seq, fact) of the stored events of ``league`` carrying any of ``keys``."""
    wanted = sorted(set(keys))
    found: dict[str, tuple[int, Fact]] = {}
    for start in range(0, len(wanted), KEY_LOOKUP_CHUNK):
        chunk = wanted[start : start + KEY_LOOKUP_CHUNK]
        # No ORDER BY: the default (league, seq) ordering would make SQLite walk the whole
        # league instead of seeking the keys in their index.
        rows = Event.objects.filter(league=league, idempotency_key__in=chunk).order_by()
        for row in rows.values_list("idempotency_key", "seq", *FACT_COLUMNS, named=True):
            found[row.idempotency_key] = (row.seq, fact_of(row))
    return found


def existing_for(league: League, submission: Submission) -> Event | None:
    """The stored event a keyed submission repeats, or None when it is new.

    Raises ``ValidationError`` (code ``idempotency_conflict``) when the key is taken by an
    event with different content. Call under ``lock_league`` for a stable answer.
    """
    key = submission.idempotency_key
    if not key:
        return None
    existing = find_by_key(league, key)
    if existing is not None and fact_of(existing).content_key() != submission.fact.content_key():
        raise idempotency_conflict(key, existing.seq, existing.kind)
    return existing


# --- the players' current state ------------------------------------------------------------


def apply_to_players(league: League, fact: Fact) -> tuple[Fact, Player | None]:
    """Bring the ``Player`` rows in line with ``fact``, before its row is inserted.

    A registration creates the player (the returned fact carries its id); a rename, a
    deactivation, a reactivation, a merge, an unmerge, a claim, a release or a forgetting
    updates it. Facts about matches
    change no player.
    Returns the fact to store and the player it created or changed.
    """
    match fact:
        case PlayerRegistered(player_id=None):
            player = Player.objects.create(
                league=league,
                display_name=fact.display_name,
                slug=free_slug(league, fact.display_name),
            )
            return dataclasses.replace(fact, player_id=player.pk), player
        case PlayerRenamed():
            _update_player(league, fact.player_id, display_name=fact.display_name)
        case PlayerDeactivated():
            _update_player(league, fact.player_id, active=False)
        case PlayerReactivated():
            _update_player(league, fact.player_id, active=True)
        case PlayerMerged():
            _update_player(league, fact.player_id, merged_into_id=fact.into_id)
        case PlayerUnmerged():
            _update_player(league, fact.player_id, merged_into_id=None)
        case PlayerClaimed():
            _update_player(league, fact.player_id, account_id=fact.account_id)
        case PlayerReleased():
            _update_player(league, fact.player_id, account_id=None)
        case PlayerForgotten():
            name = forgotten_name(fact.player_id)
            _update_player(
                league,
                fact.player_id,
                display_name=name,
                slug=free_slug(league, name),
                account_id=None,
                fide_id="",
                federation="",
                title="",
            )
        case PlayerIdentified():
            _update_player(
                league,
                fact.player_id,
                fide_id=fact.fide_id,
                federation=fact.federation,
                title=fact.title,
            )
    return fact, None


def apply_to_fixtures(league: League, fact: Fact) -> Fact:
    """Bring the ``Fixture`` rows in line with ``fact``, before its row is inserted.

    Scheduling creates the fixture (the returned fact carries its id); rescheduling moves
    it; cancelling marks it cancelled. Other facts change no fixture.
    """
    match fact:
        case FixtureScheduled(fixture_id=None):
            fixture = Fixture.objects.create(
                league=league,
                player_a_id=fact.player_a_id,
                player_b_id=fact.player_b_id,
                scheduled_at=fact.scheduled_at,
                deadline=fact.deadline,
                venue=fact.venue,
                label=fact.label,
                competition_id=fact.competition_id,
                round_number=fact.round_number,
                board=fact.board,
            )
            FixtureSide.objects.bulk_create(
                FixtureSide(fixture=fixture, side=side, player_id=player)
                for side, members in enumerate(fact.sides)
                for player in members
            )
            return dataclasses.replace(fact, fixture_id=fixture.pk)
        case FixtureRescheduled():
            _update_fixture(
                league,
                fact.fixture_id,
                scheduled_at=fact.scheduled_at,
                deadline=fact.deadline,
                venue=fact.venue,
            )
        case FixtureCancelled():
            _update_fixture(league, fact.fixture_id, cancelled=True)
    return fact


def apply_to_reports(league: League, fact: Fact) -> Fact:
    """Bring the ``Report`` rows in line with ``fact``, before its row is inserted.

    A submission creates the report (the returned fact carries its id); a confirmation,
    dispute, rejection or withdrawal moves its status on. Other facts change no report.
    """
    now = timezone.now()
    match fact:
        case ReportSubmitted(report_id=None):
            report = Report.objects.create(
                league=league,
                reporter_id=fact.player_id,
                sides=[list(side) for side in fact.sides],
                places=list(fact.places),
                played_at=fact.played_at,
                points=fact.points,
                note=fact.note,
                neutral=fact.neutral,
            )
            return dataclasses.replace(fact, report_id=report.pk)
        case ReportConfirmed():
            _update_report(
                league,
                fact.report_id,
                status=ReportStatus.CONFIRMED,
                match_id=fact.match_id,
                settled_at=now,
            )
        case ReportDisputed():
            _update_report(league, fact.report_id, status=ReportStatus.DISPUTED)
        case ReportRejected():
            _update_report(league, fact.report_id, status=ReportStatus.REJECTED, settled_at=now)
        case ReportWithdrawn():
            _update_report(league, fact.report_id, status=ReportStatus.WITHDRAWN, settled_at=now)
    return fact


def apply_to_challenges(league: League, fact: Fact) -> Fact:
    """Bring the ``Challenge`` rows in line with ``fact``, before its row is inserted."""
    match fact:
        case ChallengeIssued(challenge_id=None):
            challenge = Challenge.objects.create(
                league=league,
                challenger_id=fact.challenger_id,
                challenged_id=fact.challenged_id,
                respond_by=fact.respond_by,
            )
            return dataclasses.replace(fact, challenge_id=challenge.pk)
        case ChallengeAccepted():
            _update_challenge(
                league,
                fact.challenge_id,
                status=ChallengeStatus.ACCEPTED,
                fixture_id=fact.fixture_id,
            )
        case ChallengeDeclined():
            _update_challenge(league, fact.challenge_id, status=ChallengeStatus.DECLINED)
        case ChallengeExpired():
            status = ChallengeStatus.FORFEITED if fact.forfeit else ChallengeStatus.EXPIRED
            _update_challenge(league, fact.challenge_id, status=status)
    return fact


def _update_report(league: League, report_id: int, **state: Any) -> None:
    if not Report.objects.filter(league=league, pk=report_id).update(**state):
        raise ValueError(f"{league} has no report with id {report_id}.")


def _update_challenge(league: League, challenge_id: int, **state: Any) -> None:
    if not Challenge.objects.filter(league=league, pk=challenge_id).update(**state):
        raise ValueError(f"{league} has no challenge with id {challenge_id}.")


def apply_to_competitions(league: League, fact: Fact) -> Fact:
    """Bring the ``Competition``, ``Entrant`` and ``RoundBye`` rows in line with ``fact``,
    before its row is inserted.

    Creating a competition creates its row and an entry its entrant (the returned facts
    carry the new id and the pairing number, the next one in the order of entry); a
    withdrawal marks the entrant; a requested bye stores the bye; a paired round stores the
    byes it allocated and moves the competition's count of paired rounds. Other facts change
    none of these rows.
    """
    match fact:
        case CompetitionCreated(competition_id=None):
            competition = Competition.objects.create(
                league=league,
                slug=fact.slug,
                name=fact.name,
                format=fact.format,
                planned_rounds=fact.planned_rounds,
                bye_points=fact.bye_points,
                rated=fact.rated,
                tiebreaks=list(fact.tiebreaks),
                start_date=fact.start_date,
                end_date=fact.end_date,
                season_id=fact.season_id,
                draw_rule=fact.draw_rule,
                third_place=fact.third_place,
                double_elimination=fact.double_elimination,
                bracket_reset=fact.bracket_reset,
                accelerated=fact.accelerated,
            )
            return dataclasses.replace(fact, competition_id=competition.pk)
        case EntrantEntered(number=None):
            _competition(league, fact.competition_id)
            top = Entrant.objects.filter(competition_id=fact.competition_id).order_by("-number")
            number = (top.values_list("number", flat=True).first() or 0) + 1
            Entrant.objects.create(
                competition_id=fact.competition_id,
                player_id=fact.player_id,
                number=number,
                seed_rating=fact.seed_rating,
                from_round=fact.from_round,
            )
            return dataclasses.replace(fact, number=number)
        case EntrantWithdrawn():
            _competition(league, fact.competition_id)
            updated = Entrant.objects.filter(
                competition_id=fact.competition_id, player_id=fact.player_id
            ).update(withdrawn_from_round=fact.from_round)
            if not updated:
                raise ValueError(f"Player {fact.player_id} is not an entrant of that event.")
        case ByeRequested():
            _competition(league, fact.competition_id)
            RoundBye.objects.create(
                competition_id=fact.competition_id,
                round_number=fact.round_number,
                player_id=fact.player_id,
                kind=fact.bye_kind,
                points=fact.points,
            )
        case PairingForbidden():
            _competition(league, fact.competition_id)
        case RoundPaired():
            _competition(league, fact.competition_id)
            RoundBye.objects.bulk_create(
                RoundBye(
                    competition_id=fact.competition_id,
                    round_number=fact.round_number,
                    player_id=player,
                    kind=kind,
                    points=points,
                )
                for player, kind, points in fact.byes
                if kind == ByeKind.PAIRING_ALLOCATED
            )
            Competition.objects.filter(pk=fact.competition_id).update(
                rounds_paired=fact.round_number
            )
    return fact


def apply_to_divisions(league: League, fact: Fact) -> Fact:
    """Bring the ``DivisionSetup``, ``Division`` and ``DivisionMember`` rows of a season in
    line with ``fact``, before its row is inserted: setting divisions replaces the season's
    (not yet fixed) divisions, a move moves the player's membership, fixing marks the setup.
    Other facts change none of these rows."""
    match fact:
        case DivisionsSet():
            season = Season.objects.get(league=league, pk=fact.season_id)
            DivisionMember.objects.filter(season=season).delete()
            Division.objects.filter(season=season).delete()
            DivisionSetup.objects.update_or_create(
                season=season,
                defaults={
                    "promotion": fact.promotion,
                    "newcomers": fact.newcomers,
                    "proposed": fact.proposed,
                    "fixed_at": None,
                },
            )
            for position, (name, players) in enumerate(fact.divisions, start=1):
                division = Division.objects.create(season=season, position=position, name=name)
                DivisionMember.objects.bulk_create(
                    DivisionMember(season=season, division=division, player_id=player)
                    for player in players
                )
        case DivisionPlayerMoved():
            season = Season.objects.get(league=league, pk=fact.season_id)
            target = Division.objects.get(season=season, position=fact.to_division)
            moved = DivisionMember.objects.filter(
                season=season, player_id=fact.player_id, division__position=fact.from_division
            ).update(division=target)
            if not moved:
                raise ValueError(f"Player {fact.player_id} is not in that division.")
        case DivisionsFixed():
            season = Season.objects.get(league=league, pk=fact.season_id)
            DivisionSetup.objects.filter(season=season).update(fixed_at=timezone.now())
    return fact


def _competition(league: League, competition_id: int) -> None:
    if not Competition.objects.filter(league=league, pk=competition_id).exists():
        raise ValueError(f"{league} has no event with id {competition_id}.")


def _update_fixture(league: League, fixture_id: int, **state: Any) -> None:
    if not Fixture.objects.filter(league=league, pk=fixture_id).update(**state):
        raise ValueError(f"{league} has no fixture with id {fixture_id}.")


def _update_player(league: League, player_id: int, **state: Any) -> None:
    if not Player.objects.filter(league=league, pk=player_id).update(**state):
        raise ValueError(f"{league} has no player with id {player_id}.")


# --- appending -----------------------------------------------------------------------------


def append(
    league: League, submissions: Sequence[Submission], *, recorded_by: Any = None
) -> list[Event]:
    """Store the facts of ``submissions`` in ``league`` and return the stored events.

    The result is parallel to ``submissions``: a keyed submission that repeats a stored
    event (same key, same content) yields that event and stores nothing. The new events
    get consecutive sequence numbers and are announced, as facts, in one
    ``events_appended`` signal.
    """
    with transaction.atomic():
        lock_league(league)
        outcomes: list[Event | None] = []
        new: list[int] = []
        batch_keys: dict[str, Submission] = {}
        for submission in submissions:
            if not isinstance(submission, Submission):
                raise TypeError(f"append() takes Submission objects, not {submission!r}.")
            key = submission.idempotency_key
            earlier = batch_keys.get(key) if key else None
            if earlier is not None:
                if earlier.fact.content_key() != submission.fact.content_key():
                    raise idempotency_conflict(key, None, submission.fact.kind)  # type: ignore[arg-type]
                outcomes.append(None)
                continue
            existing = existing_for(league, submission)
            if existing is not None:
                outcomes.append(existing)
                continue
            if key:
                batch_keys[key] = submission
            new.append(len(outcomes))
            outcomes.append(None)

        seq = next_seq(league)
        appended: list[Fact] = []
        by_key: dict[str, Event] = {}
        for index in new:
            submission = submissions[index]
            event, fact = _insert(league, submission, seq, recorded_by)
            outcomes[index] = event
            if submission.idempotency_key:
                by_key[submission.idempotency_key] = event
            if fact is not None:
                appended.append(fact)
                seq += 1
        stored = [
            event if event is not None else by_key[submissions[index].idempotency_key]  # type: ignore[index]
            for index, event in enumerate(outcomes)
        ]
        if appended:
            events_appended.send(sender=League, league=league, events=appended)
    return stored


def _insert(
    league: League, submission: Submission, seq: int, recorded_by: Any
) -> tuple[Event, Fact | None]:
    """Store one submission with ``seq``; resolve a concurrent insert of the same key.

    Returns the stored event and the fact it stores, or (the other writer's event, None)
    when that writer stored the same submission first. The league lock makes a duplicate
    key unreachable for writers that go through this module, but the UNIQUE constraint is
    the real guarantee: if it fires, the other writer's event is the answer (or a
    conflict), and the sequence number stays free.
    """
    key = submission.idempotency_key
    try:
        with transaction.atomic():
            fact, player = apply_to_players(league, submission.fact)
            fact = apply_to_fixtures(league, fact)
            fact = apply_to_reports(league, fact)
            fact = apply_to_challenges(league, fact)
            fact = apply_to_competitions(league, fact)
            fact = apply_to_clubs(league, fact)
            fact = apply_to_divisions(league, fact)
            event = Event(
                league=league,
                seq=seq,
                recorded_by=recorded_by,
                idempotency_key=key,
                **row_fields(fact),
            )
            if player is not None:
                event.player = player
            event.save()
            if isinstance(fact, SideMatchRecorded):
                MatchParticipant.objects.bulk_create(participant_rows(event.pk, fact))
    except IntegrityError:
        existing = find_by_key(league, key) if key else None
        if existing is None:
            raise
        if fact_of(existing).content_key() != submission.fact.content_key():
            raise idempotency_conflict(key, existing.seq, existing.kind) from None  # type: ignore[arg-type]
        return existing, None
    return event, fact
