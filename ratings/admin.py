"""Admin for rating configurations and replays, scoped to the leagues a user organises.

Configurations are immutable: the admin shows stored versions read-only, and "add" leads to
the league's configuration page, the one form for a new version.
Replays are read-only progress records, and so are the derived tables (the live
configuration, standings, archived season tables and their rows) and the ranking rules
(changed on the league's ranking page). Superusers see every league; an organiser (staff)
sees and acts on the leagues they organise only (``League.objects.organised_by``).

The league's own admin page belongs to the write side (``league.admin.LeagueAdmin``); the
read side registers a subclass of it, ``RatedLeagueAdmin``, that adds the "Recompute
ratings" button and the progress of the latest replay, so that ``league/`` never refers to
``ratings``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import ValidationError
from django.db.models import Count, QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseNotAllowed, HttpResponseRedirect
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.translation import gettext_lazy as _

from league.admin import LeagueAdmin
from league.admin_scope import CheckedChangeListMixin, OrganisedLeagueFilter, scoped_league
from league.models import League
from ratings import new_league, services
from ratings.models import (
    Publication,
    RankingRules,
    RatingConfig,
    Replay,
    SeasonRow,
    SeasonTable,
    Standing,
)
from ratings.selectors.progress import league_progress


def organised_leagues(request: HttpRequest) -> QuerySet[League]:
    """Leagues ``request.user`` may manage (all of them for a superuser)."""
    return League.objects.organised_by(request.user)


class RatedLeagueAdmin(LeagueAdmin):
    """The league's admin page with its ratings: recompute them, follow the progress."""

    change_form_template = "admin/ratings/league/change_form.html"

    def get_urls(self) -> list:
        view = self.admin_site.admin_view
        return [
            path("<int:league_id>/recompute/", view(self.recompute_view), name="league_recompute"),
            path("<int:league_id>/progress/", view(self.progress_view), name="league_progress"),
            *super().get_urls(),
        ]

    def save_model(self, request: HttpRequest, obj: League, form: Any, change: bool) -> None:
        """A league added here gets its first configuration and a new club's ranking rules
        at once (``ratings.new_league``, as every new league), so it has standings from its
        first result on."""
        super().save_model(request, obj, form, change)
        if not change:
            new_league.start_ratings(obj, created_by=request.user)

    def league_context(self, request: HttpRequest, league: League) -> dict[str, Any]:
        return {
            **super().league_context(request, league),
            "progress": league_progress(league),
        }

    def recompute_view(self, request: HttpRequest, league_id: int) -> HttpResponse:
        league = scoped_league(request, league_id)
        if request.method != "POST":
            return HttpResponseNotAllowed(["POST"])
        try:
            replay = services.request_full_replay(league, requested_by=request.user)
        except ValidationError as error:
            for message in error.messages:
                self.message_user(request, message, messages.ERROR)
        else:
            self.message_user(
                request,
                f"Recomputation of {league.name} queued (replay #{replay.pk}); "
                "its progress is shown below.",
                messages.SUCCESS,
            )
        return HttpResponseRedirect(reverse("admin:league_league_change", args=[league.pk]))

    def progress_view(self, request: HttpRequest, league_id: int) -> HttpResponse:
        league = scoped_league(request, league_id)
        return TemplateResponse(
            request,
            "admin/ratings/league/_progress.html",
            {"league": league, "progress": league_progress(league)},
        )


admin.site.unregister(League)
admin.site.register(League, RatedLeagueAdmin)


class OrganiserScopedAdmin(CheckedChangeListMixin, admin.ModelAdmin):
    """Visible to superusers and to staff organisers, for their own leagues only; a list
    filter it cannot apply is dropped with a message (``CheckedChangeListMixin``)."""

    league_path = "league"

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        rows = super().get_queryset(request)
        if request.user.is_superuser:
            return rows
        return rows.filter(**{f"{self.league_path}__in": organised_leagues(request)})

    def has_module_permission(self, request: HttpRequest) -> bool:
        return organised_leagues(request).exists()

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is None:
            return self.has_module_permission(request)
        return self.get_queryset(request).filter(pk=obj.pk).exists()

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False


@admin.register(RatingConfig)
class RatingConfigAdmin(OrganiserScopedAdmin):
    """Stored versions, read-only. A new version is made on the league's configuration page
    (one form for it in the whole site): "add" leads there."""

    list_display = ("__str__", "version", "tau", "period", "max_rd", "live", "created_at")
    list_filter = (OrganisedLeagueFilter,)
    ordering = ("league", "-version")

    @admin.display(description="periods")
    def period(self, obj: RatingConfig) -> str:
        return f"{obj.period_length} {obj.period_unit} from {obj.period_anchor:%Y-%m-%d}"

    @admin.display(boolean=True)
    def live(self, obj: RatingConfig) -> bool:
        return Publication.objects.filter(config=obj).exists()

    def has_add_permission(self, request: HttpRequest) -> bool:
        return organised_leagues(request).exists()

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in RatingConfig._meta.fields]

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context=None):
        """The league's configuration page (the one chosen, or the only one organised);
        with several leagues, a list of their pages. Nothing is ever saved here."""
        leagues = list(organised_leagues(request))
        chosen = request.GET.get("league", "")
        picked = [league for league in leagues if str(league.pk) == chosen] or (
            leagues if len(leagues) == 1 else []
        )
        if picked:
            return HttpResponseRedirect(reverse("workspace:config", args=[picked[0].slug]))
        return TemplateResponse(
            request,
            "admin/ratings/choose_config_league.html",
            {
                **self.admin_site.each_context(request),
                "title": "New configuration version: choose a league",
                "leagues": leagues,
            },
        )


class ReplayLeagueFilter(OrganisedLeagueFilter):
    """A replay's league is its configuration's."""

    league_field = "config__league"


@admin.register(Replay)
class ReplayAdmin(OrganiserScopedAdmin):
    league_path = "config__league"
    list_display = (
        "pk",
        "config",
        "kind",
        "status",
        "progress",
        "attempts",
        "queued_at",
        "started_at",
        "finished_at",
    )
    list_filter = ("status", "kind", ReplayLeagueFilter)
    readonly_fields = [field.name for field in Replay._meta.fields] + ["progress"]

    @admin.display(description="progress")
    def progress(self, obj: Replay) -> str:
        if not obj.periods_total:
            return "-"
        return f"{obj.periods_done}/{obj.periods_total} periods"

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False


class DerivedTableAdmin(OrganiserScopedAdmin):
    """A table derived from the event log: listed and opened, never added, changed or
    deleted (a replay or the season's archive writes it)."""

    actions = None

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [field.name for field in self.model._meta.fields]


def league_filter(path: str) -> type[OrganisedLeagueFilter]:
    """The organised-league filter for rows that reach their league through ``path``."""
    name = "".join(part.title() for part in path.split("__")) + "Filter"
    return type(name, (OrganisedLeagueFilter,), {"league_field": path})


@admin.register(Publication)
class PublicationAdmin(DerivedTableAdmin):
    list_display = ("__str__", "league", "config", "published_at")
    list_filter = (OrganisedLeagueFilter,)
    list_select_related = ("league", "config__league")


@admin.register(RankingRules)
class RankingRulesAdmin(DerivedTableAdmin):
    list_display = ("__str__", "active_periods", "max_rd", "rank_by", "updated_at")
    list_filter = (OrganisedLeagueFilter, "rank_by")
    list_select_related = ("league",)


@admin.register(Standing)
class StandingAdmin(DerivedTableAdmin):
    league_path = "config__league"
    list_display = ("player", "config", "rating", "rd", "games", "last_played_at")
    list_filter = (league_filter(league_path),)
    list_select_related = ("player", "config__league")
    search_fields = ("player__display_name",)


@admin.register(SeasonTable)
class SeasonTableAdmin(DerivedTableAdmin):
    league_path = "season__league"
    list_display = ("__str__", "season", "kind", "through_seq", "derived_at", "rows")
    list_filter = (league_filter(league_path), "kind")
    list_select_related = ("season__league",)
    search_fields = ("season__name",)

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        # Counted in the list's own query: a count per row would be a query per row.
        return super().get_queryset(request).annotate(row_count=Count("rows"))

    @admin.display(description=_("rows"), ordering="row_count")
    def rows(self, table: SeasonTable) -> int:
        return table.row_count


@admin.register(SeasonRow)
class SeasonRowAdmin(DerivedTableAdmin):
    league_path = "table__season__league"
    list_display = ("position", "player", "table", "games", "points", "rating_end", "rank_end")
    list_display_links = ("position", "player")
    list_filter = (league_filter(league_path),)
    list_select_related = ("player", "table__season__league")
    search_fields = ("player__display_name", "table__season__name")
