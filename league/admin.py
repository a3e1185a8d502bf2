"""The operator's console: leagues (with their organisers), players and a read-only browsing
of the event log.

Everything an organiser records (results, rounds, team matches, voids and corrections, CSV
imports) happens in the workspace (``web.workspace``); the league's admin page links to it.
Access is per league (``league.admin_scope``): every queryset, form choice and object check
goes through ``League.objects.organised_by``. Writes go through ``league.services``; nothing
here saves an ``Event`` or changes a ``Player`` itself. The read side adds its own pages to
the league's admin (recomputing standings, their progress) by registering a subclass of
``LeagueAdmin`` with extra URLs and ``league_context``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.urls import reverse
from django.utils.html import format_html

from league import (
    admin_tables,  # noqa: F401  (registers the read-only tables' pages)
    services,
)
from league.admin_scope import OrganisedLeagueFilter, OrganiserScopedAdmin
from league.event_log import side_match_texts
from league.forms import LeagueForm, PlayerAddForm, PlayerChangeForm
from league.models import MATCH_KINDS, Event, League, Player
from league.scores import score_text


@admin.register(League)
class LeagueAdmin(OrganiserScopedAdmin):
    """Leagues; a league's page links to its workspace, where its results are recorded."""

    form = LeagueForm
    list_display = ["name", "slug", "sport", "chess", "start_date", "time_zone", "event_count"]
    search_fields = ["name", "slug", "sport"]
    prepopulated_fields = {"slug": ["name"]}
    filter_horizontal = ["organisers"]
    change_form_template = "admin/league/league/change_form.html"

    def league_of(self, obj: League) -> League:
        return obj

    def scope(self, queryset: QuerySet, request: HttpRequest) -> QuerySet:
        return queryset.filter(pk__in=League.objects.organised_by(request.user))

    def has_add_permission(self, request: HttpRequest) -> bool:
        return request.user.is_superuser

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        fields = [] if request.user.is_superuser else ["organisers"]
        if obj is not None and obj.events.matches().exists():
            # The time zone decides which local day (so which rating period) each recorded
            # match belongs to, and every recorded match lies after the start date: changing
            # either would reinterpret history that the event store holds as fixed.
            fields += ["time_zone", "start_date"]
        return fields

    def formfield_for_manytomany(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "organisers":
            kwargs["queryset"] = db_field.related_model.objects.filter(is_staff=True)
        return super().formfield_for_manytomany(db_field, request, **kwargs)

    @admin.display(description="chess", boolean=True)
    def chess(self, league: League) -> bool:
        """Whether the sport makes it a chess league (``league.sports.sport_key``)."""
        return league.is_chess

    @admin.display(description="events")
    def event_count(self, league: League) -> int:
        return league.events.count()

    def change_view(
        self, request: HttpRequest, object_id: str, form_url: str = "", extra_context=None
    ) -> HttpResponse:
        extra = dict(extra_context or {})
        league = self.get_object(request, object_id)
        if league is not None and self.has_view_permission(request, league):
            extra.update(self.league_context(request, league))
        return super().change_view(request, object_id, form_url, extra)

    def league_context(self, request: HttpRequest, league: League) -> dict[str, Any]:
        """What the league's page shows beside the form (subclasses add to it)."""
        return {"league": league}


@admin.register(Player)
class PlayerAdmin(OrganiserScopedAdmin):
    list_display = ["display_name", "league", "active", "merged_into", "created_at", "organise"]
    list_filter = [OrganisedLeagueFilter, "active"]
    list_select_related = ["league"]
    search_fields = ["display_name", "slug"]
    actions = ["activate", "deactivate"]

    @admin.display(description="Organise")
    def organise(self, obj: Player) -> str:
        """A link to the player on the organisers' players page (rename, merge, unmerge…)."""
        url = reverse("workspace:player", args=[obj.league.slug, obj.slug])
        return format_html('<a href="{}">rename, merge…</a>', url)

    def get_form(self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any):
        kwargs["form"] = PlayerChangeForm if obj is not None else PlayerAddForm
        return super().get_form(request, obj, change=change, **kwargs)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [] if obj is None else ["league", "slug", "created_at"]

    def formfield_for_foreignkey(self, db_field: Any, request: HttpRequest, **kwargs: Any) -> Any:
        if db_field.name == "league":
            kwargs["queryset"] = League.objects.organised_by(request.user)
        return super().formfield_for_foreignkey(db_field, request, **kwargs)

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            return ["league", "display_name"]
        return ["league", "display_name", "slug", "active", "reason", "created_at"]

    def save_model(self, request: HttpRequest, obj: Player, form: Any, change: bool) -> None:
        if not obj.league.is_organiser(request.user):
            raise PermissionDenied
        if change:
            # Each change is an event of its own (renamed, deactivated, reactivated).
            for change_player, arguments in form.service_calls():
                change_player(obj.league, obj, recorded_by=request.user, **arguments)
            return
        player = services.register_player(obj.league, obj.display_name, recorded_by=request.user)
        obj.pk, obj.slug, obj.display_name = player.pk, player.slug, player.display_name
        obj._state.adding = False

    def changeform_view(self, request, object_id=None, form_url="", extra_context=None):
        try:
            return super().changeform_view(request, object_id, form_url, extra_context)
        except ValidationError as error:
            # Only reachable by a race (the form checked the same things): say so plainly.
            self.message_user(request, " ".join(error.messages), messages.ERROR)
            return HttpResponseRedirect(request.get_full_path())

    @admin.action(description="Mark selected players active", permissions=["change"])
    def activate(self, request: HttpRequest, queryset: QuerySet) -> None:
        self.change_activity(request, queryset, services.reactivate_player, active=True)

    @admin.action(description="Mark selected players inactive", permissions=["change"])
    def deactivate(self, request: HttpRequest, queryset: QuerySet) -> None:
        self.change_activity(request, queryset, services.deactivate_player, active=False)

    def change_activity(
        self, request: HttpRequest, queryset: QuerySet, service: Any, *, active: bool
    ) -> None:
        """Apply ``service`` to the selected players not yet ``active``: all, or none."""
        # In league order: two organisers acting on overlapping selections take the leagues'
        # locks in the same order, so neither waits for the other forever.
        players = list(
            queryset.filter(active=not active).select_related("league").order_by("league_id", "pk")
        )
        word = "active" if active else "inactive"
        try:
            with transaction.atomic():
                for player in players:
                    service(
                        player.league,
                        player,
                        reason=f"Marked {word} in the admin.",
                        recorded_by=request.user,
                    )
        except ValidationError as error:
            self.message_user(
                request, "Nothing was changed: " + " ".join(error.messages), messages.ERROR
            )
            return
        self.message_user(request, f"{len(players)} player(s) marked {word}.", messages.SUCCESS)


@admin.register(Event)
class EventAdmin(OrganiserScopedAdmin):
    """The event log, read-only: listed, filtered, searched and opened, never added, changed
    or deleted (the workspace records, voids and corrects)."""

    list_display = [
        "seq",
        "league",
        "kind",
        "summary",
        "played_at",
        "recorded_at",
        "recorded_by",
        "status",
    ]
    list_display_links = ["seq", "summary"]
    list_filter = [
        "kind",
        OrganisedLeagueFilter,
        ("recorded_by", admin.RelatedOnlyFieldListFilter),
        ("played_at", admin.DateFieldListFilter),
        ("recorded_at", admin.DateFieldListFilter),
    ]
    list_select_related = [
        "league",
        "recorded_by",
        "player",
        "player_a",
        "player_b",
        "voids",
        "voided_by",
    ]
    search_fields = [
        "player__display_name",
        "player_a__display_name",
        "player_b__display_name",
        "points",
        "note",
        "reason",
        "idempotency_key",
    ]
    date_hierarchy = "recorded_at"
    # Newest first: what was just recorded is at the top of page 1, not on the last page.
    ordering = ["-pk"]
    actions = None
    change_form_template = "admin/league/event/change_form.html"

    def get_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return [
            "league",
            "seq",
            "kind",
            "recorded_at",
            "recorded_by",
            "idempotency_key",
            "player",
            "display_name",
            "played_at",
            "player_a",
            "player_b",
            "score_a",
            "points",
            "neutral",
            "margin",
            "note",
            "replaces",
            "voids",
            "reason",
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return self.get_fields(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    @admin.display(description="event")
    def summary(self, event: Event) -> str:
        because = f": {event.reason}" if event.reason else ""
        if event.kind == Event.Kind.PLAYER_REGISTERED:
            return f"{event.display_name or event.player} registered"
        if event.kind == Event.Kind.PLAYER_RENAMED:
            # The row holds the new name only; the player's current name may be later.
            return f"player #{event.player_id} renamed to {event.display_name}{because}"
        if event.kind == Event.Kind.PLAYER_DEACTIVATED:
            return f"{event.player} deactivated{because}"
        if event.kind == Event.Kind.PLAYER_REACTIVATED:
            return f"{event.player} reactivated{because}"
        if event.kind == Event.Kind.MATCH_VOIDED:
            return f"voids #{event.voids.seq}: {event.reason}"
        points = f" ({event.points})" if event.points else ""
        if event.kind == Event.Kind.SIDE_MATCH_RECORDED:
            text = side_match_texts([event.pk]).get(event.pk)
            return f"{text.summary if text else 'team match'}{points}"
        return f"{event.player_a} {score_text(event.score_a)} {event.player_b}{points}"

    @admin.display(description="status")
    def status(self, event: Event) -> str:
        if event.kind not in MATCH_KINDS:
            return ""
        return "voided" if hasattr(event, "voided_by") else "counts"
