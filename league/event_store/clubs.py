"""The facts about teams and club matches: their ``Event`` columns and the rows they keep.

``team_created`` creates the ``Team``, ``roster_player_added`` the ``RosterEntry``,
``club_match_scheduled`` the ``ClubMatch``, ``board_order_submitted`` the team's
``BoardOrder`` (a later one replaces it), ``club_match_recorded`` and ``club_match_voided``
set and clear ``ClubMatch.games``, ``team_captain_set`` sets ``Team.captain`` and
``club_season_set`` the season's ``ClubSeason``. Ids and what has no column of its own go to
``Event.details`` (JSON: decimals as text).
"""

from __future__ import annotations

import dataclasses
from decimal import Decimal
from typing import Any

from django.utils import timezone

from league.event_store.vocabulary import (
    BoardOrderSubmitted,
    ClubMatchRecorded,
    ClubMatchScheduled,
    ClubMatchVoided,
    ClubSeasonSet,
    Fact,
    RosterPlayerAdded,
    TeamCaptainSet,
    TeamCreated,
)
from league.models import BoardOrder, ClubMatch, ClubSeason, League, RosterEntry, Season, Team

CLUB_FACTS: tuple[type[Fact], ...] = (
    TeamCreated,
    RosterPlayerAdded,
    ClubMatchScheduled,
    BoardOrderSubmitted,
    ClubMatchRecorded,
    ClubMatchVoided,
    TeamCaptainSet,
    ClubSeasonSet,
)
CLUB_FACT_KINDS = {cls.kind for cls in CLUB_FACTS}


def club_row_fields(fact: Fact) -> dict[str, Any]:
    """The ``Event`` field values that store a fact about teams or club matches."""
    match fact:
        case TeamCreated():
            return {"display_name": fact.name, "details": {"team": fact.team_id, "slug": fact.slug}}
        case RosterPlayerAdded():
            return {"player_id": fact.player_id, "details": {"team": fact.team_id}}
        case ClubMatchScheduled():
            return {
                "scheduled_at": fact.scheduled_at,
                "venue": fact.venue,
                "details": {
                    "club_match": fact.club_match_id,
                    "home": fact.home_id,
                    "away": fact.away_id,
                    "boards": fact.boards,
                    "points": [str(value) for value in fact.points],
                },
            }
        case BoardOrderSubmitted():
            return {
                "details": {
                    "club_match": fact.club_match_id,
                    "team": fact.team_id,
                    "players": list(fact.player_ids),
                    "by": fact.by,
                }
            }
        case ClubMatchRecorded():
            return {"details": {"club_match": fact.club_match_id, "games": list(fact.game_ids)}}
        case ClubMatchVoided():
            return {"reason": fact.reason, "details": {"club_match": fact.club_match_id}}
        case TeamCaptainSet():
            return {"player_id": fact.player_id, "details": {"team": fact.team_id}}
        case ClubSeasonSet():
            return {
                "details": {
                    "season": fact.season_id,
                    "boards": fact.boards,
                    "points": [str(value) for value in fact.points],
                }
            }
    raise TypeError(f"Not a fact about teams: {fact!r}")


def club_fact(row: Any) -> Fact:
    """The fact about teams or club matches a stored row holds."""
    kind, details = row.kind, row.details or {}
    if kind == TeamCreated.kind:
        return TeamCreated(team_id=details["team"], name=row.display_name, slug=details["slug"])
    if kind == RosterPlayerAdded.kind:
        return RosterPlayerAdded(team_id=details["team"], player_id=row.player_id)
    if kind == ClubMatchScheduled.kind:
        win, draw, loss = (Decimal(value) for value in details["points"])
        return ClubMatchScheduled(
            club_match_id=details["club_match"],
            home_id=details["home"],
            away_id=details["away"],
            boards=details["boards"],
            scheduled_at=row.scheduled_at,
            venue=row.venue,
            points=(win, draw, loss),
        )
    if kind == BoardOrderSubmitted.kind:
        return BoardOrderSubmitted(
            club_match_id=details["club_match"],
            team_id=details["team"],
            player_ids=tuple(details["players"]),
            # Orders stored before captains could hand them in were all an organiser's.
            by=details.get("by", "organiser"),
        )
    if kind == ClubMatchRecorded.kind:
        return ClubMatchRecorded(
            club_match_id=details["club_match"], game_ids=tuple(details["games"])
        )
    if kind == ClubMatchVoided.kind:
        return ClubMatchVoided(club_match_id=details["club_match"], reason=row.reason)
    if kind == TeamCaptainSet.kind:
        return TeamCaptainSet(team_id=details["team"], player_id=row.player_id)
    if kind == ClubSeasonSet.kind:
        win, draw, loss = (Decimal(value) for value in details["points"])
        return ClubSeasonSet(
            season_id=details["season"], boards=details["boards"], points=(win, draw, loss)
        )
    raise ValueError(f"Unknown event kind {kind!r}.")


def apply_to_clubs(league: League, fact: Fact) -> Fact:
    """Bring the ``Team``, ``RosterEntry``, ``ClubMatch`` and ``BoardOrder`` rows in line with
    ``fact``, before its row is inserted (a new team or match: the returned fact carries its
    id). Other facts change none of these rows."""
    match fact:
        case TeamCreated(team_id=None):
            team = Team.objects.create(league=league, name=fact.name, slug=fact.slug)
            return dataclasses.replace(fact, team_id=team.pk)
        case RosterPlayerAdded():
            _team(league, fact.team_id)
            RosterEntry.objects.create(team_id=fact.team_id, player_id=fact.player_id)
        case ClubMatchScheduled(club_match_id=None):
            _team(league, fact.home_id)
            _team(league, fact.away_id)
            win, draw, loss = fact.points
            match_row = ClubMatch.objects.create(
                league=league,
                home_id=fact.home_id,
                away_id=fact.away_id,
                boards=fact.boards,
                scheduled_at=fact.scheduled_at,
                venue=fact.venue,
                points_win=win,
                points_draw=draw,
                points_loss=loss,
            )
            return dataclasses.replace(fact, club_match_id=match_row.pk)
        case BoardOrderSubmitted():
            _match(league, fact.club_match_id)
            BoardOrder.objects.update_or_create(
                club_match_id=fact.club_match_id,
                team_id=fact.team_id,
                defaults={
                    "players": list(fact.player_ids),
                    "submitted_at": timezone.now(),
                    "submitted_by": fact.by,
                },
            )
        case ClubMatchRecorded():
            _match(league, fact.club_match_id)
            ClubMatch.objects.filter(pk=fact.club_match_id).update(games=list(fact.game_ids))
        case ClubMatchVoided():
            _match(league, fact.club_match_id)
            ClubMatch.objects.filter(pk=fact.club_match_id).update(games=[])
        case TeamCaptainSet():
            _team(league, fact.team_id)
            Team.objects.filter(pk=fact.team_id).update(captain_id=fact.player_id)
        case ClubSeasonSet():
            if not Season.objects.filter(league=league, pk=fact.season_id).exists():
                raise ValueError(f"{league} has no season with id {fact.season_id}.")
            win, draw, loss = fact.points
            ClubSeason.objects.update_or_create(
                season_id=fact.season_id,
                defaults={
                    "boards": fact.boards,
                    "points_win": win,
                    "points_draw": draw,
                    "points_loss": loss,
                    "set_at": timezone.now(),
                },
            )
    return fact


def _team(league: League, team_id: int) -> None:
    if not Team.objects.filter(league=league, pk=team_id).exists():
        raise ValueError(f"{league} has no team with id {team_id}.")


def _match(league: League, club_match_id: int) -> None:
    if not ClubMatch.objects.filter(league=league, pk=club_match_id).exists():
        raise ValueError(f"{league} has no club match with id {club_match_id}.")
