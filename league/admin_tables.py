"""The admin's read-only pages for the write side's newer tables: seasons and their
divisions, fixtures (and the players of their sides), competitions (entrants, byes), teams,
rosters, each season's club-match settings, club matches and board orders, reports,
challenges, join requests, the players of each side of a team match and a league's player
rules and website access.

Each of these rows is the current state the event store projects from the log (only the
transaction that appends a fact changes it), so the admin lists, filters, searches and
opens them, and never adds, changes or deletes one: a write here would bypass the log.
Each row's page links to the workspace page where the organiser changes it. Access is per
league as everywhere in the admin (``league.admin_scope``): a row is reached through its
league (``league_path``), and another league's organiser neither lists nor opens it.
"""

from __future__ import annotations

from functools import reduce
from typing import Any

from django.contrib import admin
from django.db.models import Count, QuerySet
from django.http import HttpRequest
from django.urls import reverse
from django.utils.html import format_html
from django.utils.translation import gettext_lazy as _

from league.admin_scope import OrganisedLeagueFilter, OrganiserScopedAdmin
from league.models import (
    BoardOrder,
    Challenge,
    ClubMatch,
    ClubSeason,
    Competition,
    Division,
    DivisionMember,
    DivisionSetup,
    Entrant,
    Fixture,
    FixtureSide,
    JoinRequest,
    League,
    MatchParticipant,
    Player,
    PlayerRules,
    Report,
    RosterEntry,
    RoundBye,
    Season,
    Team,
    WebsiteAccess,
)


def league_filter(path: str) -> type[OrganisedLeagueFilter]:
    """The organised-league filter for rows that reach their league through ``path``."""
    if path == "league":
        return OrganisedLeagueFilter
    name = "".join(part.title() for part in path.split("__")) + "Filter"
    return type(name, (OrganisedLeagueFilter,), {"league_field": path})


class ProjectionAdmin(OrganiserScopedAdmin):
    """A projected table, read-only, scoped to the leagues the user organises.

    ``league_path`` is the lookup from a row to its league (``"season__league"``);
    ``organise`` names the workspace page (a URL name and a function of the row giving its
    arguments) where the organiser changes the row through the event log.
    """

    league_path = "league"
    organise_url: tuple[str, Any] | None = None
    actions = None

    def league_of(self, obj: Any) -> League:
        return reduce(getattr, self.league_path.split("__"), obj)

    def scope(self, queryset: QuerySet, request: HttpRequest) -> QuerySet:
        organised = League.objects.organised_by(request.user)
        return queryset.filter(**{f"{self.league_path}__in": organised})

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        names = [field.name for field in self.model._meta.fields if not field.primary_key]
        return [*names, *(["organise"] if self.organise_url else [])]

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return self.get_readonly_fields(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description=_("Organise"))
    def organise(self, obj: Any) -> str:
        """A link to the workspace page where the row is changed (through the event log)."""
        if self.organise_url is None:
            return ""
        name, arguments = self.organise_url
        url = reverse(name, args=arguments(obj))
        return format_html('<a href="{}">{}</a>', url, _("in the workspace"))


def _league_slug(obj: Any) -> list[str]:
    return [obj.league.slug]


def _season_args(season: Season) -> list[str]:
    return [season.league.slug, season.slug]


def _competition_args(competition: Competition) -> list[str]:
    return [competition.league.slug, competition.slug]


@admin.register(Season)
class SeasonAdmin(ProjectionAdmin):
    list_display = ["name", "league", "start_date", "end_date", "tiebreaks", "closed", "organise"]
    list_filter = [OrganisedLeagueFilter, ("start_date", admin.DateFieldListFilter)]
    list_select_related = ["league"]
    search_fields = ["name", "slug"]
    organise_url = ("workspace:season", _season_args)

    @admin.display(description=_("closed"), boolean=True)
    def closed(self, season: Season) -> bool:
        return season.closed_at is not None


@admin.register(Fixture)
class FixtureAdmin(ProjectionAdmin):
    list_display = [
        "__str__", "league", "scheduled_at", "deadline", "label", "competition",
        "round_number", "cancelled", "organise",
    ]  # fmt: skip
    list_filter = [OrganisedLeagueFilter, "cancelled", ("scheduled_at", admin.DateFieldListFilter)]
    list_select_related = ["league", "player_a", "player_b", "competition"]
    search_fields = ["player_a__display_name", "player_b__display_name", "label", "venue"]
    organise_url = ("workspace:fixtures", _league_slug)


@admin.register(FixtureSide)
class FixtureSideAdmin(ProjectionAdmin):
    league_path = "fixture__league"
    list_display = ["player", "side", "fixture", "organise"]
    list_filter = [league_filter(league_path)]
    list_select_related = ["player", "fixture__league", "fixture__player_a", "fixture__player_b"]
    search_fields = ["player__display_name"]
    organise_url = ("workspace:fixtures", lambda row: [row.fixture.league.slug])


@admin.register(Competition)
class CompetitionAdmin(ProjectionAdmin):
    list_display = [
        "name", "league", "format", "planned_rounds", "rounds_paired", "rated",
        "double_elimination", "season", "start_date", "organise",
    ]  # fmt: skip
    list_filter = [OrganisedLeagueFilter, "format", "rated", "double_elimination"]
    list_select_related = ["league", "season"]
    search_fields = ["name", "slug"]
    organise_url = ("workspace:competition", _competition_args)


@admin.register(Entrant)
class EntrantAdmin(ProjectionAdmin):
    league_path = "competition__league"
    list_display = [
        "number", "player", "competition", "seed_rating", "from_round",
        "withdrawn_from_round", "organise",
    ]  # fmt: skip
    list_display_links = ["number", "player"]
    list_filter = [league_filter(league_path)]
    list_select_related = ["player", "competition__league"]
    search_fields = ["player__display_name", "competition__name"]
    organise_url = ("workspace:competition", lambda row: _competition_args(row.competition))


@admin.register(RoundBye)
class RoundByeAdmin(ProjectionAdmin):
    league_path = "competition__league"
    list_display = ["player", "competition", "round_number", "kind", "points", "organise"]
    list_filter = [league_filter(league_path), "kind"]
    list_select_related = ["player", "competition__league"]
    search_fields = ["player__display_name", "competition__name"]
    organise_url = ("workspace:competition", lambda row: _competition_args(row.competition))


@admin.register(Team)
class TeamAdmin(ProjectionAdmin):
    list_display = ["name", "league", "players", "created_at", "organise"]
    list_filter = [OrganisedLeagueFilter]
    list_select_related = ["league"]
    search_fields = ["name", "slug"]
    organise_url = ("workspace:clubs", _league_slug)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # Counted in the list's own query: a count per row would be a query per row.
        return super().get_queryset(request).annotate(roster_count=Count("roster"))

    @admin.display(description=_("players on the roster"), ordering="roster_count")
    def players(self, team: Team) -> int:
        return team.roster_count


@admin.register(RosterEntry)
class RosterEntryAdmin(ProjectionAdmin):
    league_path = "team__league"
    list_display = ["player", "team", "added_at", "organise"]
    list_filter = [league_filter(league_path), ("team", admin.RelatedOnlyFieldListFilter)]
    list_select_related = ["player", "team__league"]
    search_fields = ["player__display_name", "team__name"]
    organise_url = ("workspace:clubs", lambda row: [row.team.league.slug])


@admin.register(ClubMatch)
class ClubMatchAdmin(ProjectionAdmin):
    list_display = [
        "__str__", "league", "scheduled_at", "boards", "venue", "recorded", "organise",
    ]  # fmt: skip
    list_filter = [OrganisedLeagueFilter, ("scheduled_at", admin.DateFieldListFilter)]
    list_select_related = ["league", "home", "away"]
    search_fields = ["home__name", "away__name", "venue"]
    organise_url = ("workspace:club_match", lambda row: [row.league.slug, row.pk])

    @admin.display(description=_("recorded"), boolean=True)
    def recorded(self, match: ClubMatch) -> bool:
        return match.recorded


@admin.register(ClubSeason)
class ClubSeasonAdmin(ProjectionAdmin):
    league_path = "season__league"
    list_display = ["season", "boards", "points_win", "points_draw", "points_loss", "organise"]
    list_filter = [league_filter(league_path)]
    list_select_related = ["season__league"]
    search_fields = ["season__name"]
    organise_url = ("workspace:clubs", lambda row: [row.season.league.slug])


@admin.register(BoardOrder)
class BoardOrderAdmin(ProjectionAdmin):
    league_path = "club_match__league"
    # The board order's names take a query of their own: on the row's page only.
    list_display = ["team", "club_match", "submitted_at", "organise"]
    list_filter = [league_filter(league_path)]
    list_select_related = ["team", "club_match__league", "club_match__home", "club_match__away"]
    search_fields = ["team__name"]
    organise_url = (
        "workspace:club_match",
        lambda row: [row.club_match.league.slug, row.club_match_id],
    )

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [*super().get_readonly_fields(request, obj), "board_order"]

    @admin.display(description=_("board order (board 1 first)"))
    def board_order(self, order: BoardOrder) -> str:
        """The players by name, board 1 first (the row stores their ids)."""
        ids = [player for player in order.players if isinstance(player, int)]
        names = dict(Player.objects.filter(pk__in=ids).values_list("pk", "display_name"))
        return "; ".join(names.get(player, f"#{player}") for player in ids)


@admin.register(DivisionSetup)
class DivisionSetupAdmin(ProjectionAdmin):
    league_path = "season__league"
    list_display = ["__str__", "promotion", "newcomers", "proposed", "fixed_at", "organise"]
    list_filter = [league_filter(league_path), "proposed"]
    list_select_related = ["season__league"]
    search_fields = ["season__name"]
    organise_url = ("workspace:season_divisions", lambda row: _season_args(row.season))


@admin.register(Division)
class DivisionAdmin(ProjectionAdmin):
    league_path = "season__league"
    list_display = ["name", "season", "position", "players", "organise"]
    list_filter = [league_filter(league_path)]
    list_select_related = ["season__league"]
    search_fields = ["name", "season__name"]
    organise_url = ("workspace:season_divisions", lambda row: _season_args(row.season))

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # Counted in the list's own query: a count per row would be a query per row.
        return super().get_queryset(request).annotate(member_count=Count("members"))

    @admin.display(description=_("players"), ordering="member_count")
    def players(self, division: Division) -> int:
        return division.member_count


@admin.register(DivisionMember)
class DivisionMemberAdmin(ProjectionAdmin):
    league_path = "season__league"
    list_display = ["player", "division", "season", "organise"]
    list_filter = [league_filter(league_path)]
    list_select_related = ["player", "division__season", "season__league"]
    search_fields = ["player__display_name", "division__name", "season__name"]
    organise_url = ("workspace:season_divisions", lambda row: _season_args(row.season))


@admin.register(Report)
class ReportAdmin(ProjectionAdmin):
    list_display = ["__str__", "reporter", "played_at", "status", "created_at", "organise"]
    list_filter = [OrganisedLeagueFilter, "status"]
    list_select_related = ["league", "reporter"]
    search_fields = ["reporter__display_name", "note"]
    organise_url = ("workspace:reports", _league_slug)


@admin.register(Challenge)
class ChallengeAdmin(ProjectionAdmin):
    list_display = ["__str__", "league", "respond_by", "status", "created_at"]
    list_filter = [OrganisedLeagueFilter, "status"]
    list_select_related = ["league", "challenger", "challenged"]
    search_fields = ["challenger__display_name", "challenged__display_name"]


@admin.register(JoinRequest)
class JoinRequestAdmin(ProjectionAdmin):
    list_display = ["name", "league", "status", "created_at", "decided_at", "organise"]
    list_filter = [OrganisedLeagueFilter, "status"]
    list_select_related = ["league"]
    search_fields = ["name"]
    organise_url = ("workspace:join_requests", _league_slug)


@admin.register(MatchParticipant)
class MatchParticipantAdmin(ProjectionAdmin):
    """The players of each side of a match with sides, as its event recorded them."""

    league_path = "event__league"
    list_display = ["player", "event", "side", "place"]
    list_filter = [league_filter(league_path)]
    list_select_related = ["player", "event__league"]
    search_fields = ["player__display_name"]


@admin.register(PlayerRules)
class PlayerRulesAdmin(ProjectionAdmin):
    list_display = ["__str__", "league"]
    list_filter = [OrganisedLeagueFilter]
    list_select_related = ["league"]


@admin.register(WebsiteAccess)
class WebsiteAccessAdmin(ProjectionAdmin):
    list_display = ["__str__", "league"]
    list_filter = [OrganisedLeagueFilter]
    list_select_related = ["league"]
    organise_url = ("workspace:website", _league_slug)
