"""The organisers' admin: leagues, players, result entry and the read-only event log.

Access is per league (``league.admin_scope``): every queryset, form choice and object check
goes through ``League.objects.organised_by``. Writes go through ``league.services``;
nothing here saves an
``Event`` or changes a ``Player`` itself. The read side adds its own pages to the league's
admin (recomputing standings, their progress) by registering a subclass of ``LeagueAdmin``
with extra URLs and ``league_context``.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin, messages
from django.core.exceptions import PermissionDenied, ValidationError
from django.db import transaction
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, HttpResponseRedirect
from django.shortcuts import get_object_or_404
from django.template.response import TemplateResponse
from django.urls import path, reverse
from django.utils.html import format_html

from league import services
from league.admin_import import import_urls
from league.admin_scope import OrganisedLeagueFilter, OrganiserScopedAdmin, scoped_league
from league.event_log import side_match_texts
from league.forms import (
    PLAYER_LIST_ID,
    CorrectionForm,
    LeagueForm,
    MatchForm,
    PlayerAddForm,
    PlayerChangeForm,
    RoundForm,
    RoundFormSet,
    SideCorrectionForm,
    SideMatchForm,
    SideRoundFormSet,
    VoidForm,
    add_service_errors,
    show_round_errors,
)
from league.idempotency_keys import round_row_key
from league.models import MATCH_KINDS, Event, League, Player
from league.scores import score_text
from league.sides import format_label


@admin.register(League)
class LeagueAdmin(OrganiserScopedAdmin):
    """Leagues; the result entry pages and the CSV import hang off a league's page."""

    form = LeagueForm
    list_display = ["name", "slug", "sport", "start_date", "time_zone", "event_count"]
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

    @admin.display(description="events")
    def event_count(self, league: League) -> int:
        return league.events.count()

    def get_urls(self) -> list:
        return [*import_urls(self.admin_site), *super().get_urls()]

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
    """The read-only event log, with the entry points for new events."""

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
    actions = ["void_selected"]
    change_form_template = "admin/league/event/change_form.html"
    change_list_template = "admin/league/event/change_list.html"

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

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def has_void_permission(self, request: HttpRequest) -> bool:
        return self.has_module_permission(request)

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

    # --- entry points -----------------------------------------------------------------

    def get_urls(self) -> list:
        view = self.admin_site.admin_view
        return [
            path("record/", view(self.choose_league_view), name="league_event_record"),
            path(
                "record/<int:league_id>/",
                view(self.record_match_view),
                name="league_event_record_match",
            ),
            path(
                "round/<int:league_id>/",
                view(self.record_round_view),
                name="league_event_record_round",
            ),
            path(
                "team-round/<int:league_id>/",
                view(self.record_side_round_view),
                name="league_event_record_side_round",
            ),
            path(
                "team/<int:league_id>/",
                view(self.record_side_match_view),
                name="league_event_record_side_match",
            ),
            path("<int:event_id>/void/", view(self.void_view), name="league_event_void"),
            path("<int:event_id>/correct/", view(self.correct_view), name="league_event_correct"),
            *super().get_urls(),
        ]

    def add_view(self, request: HttpRequest, form_url: str = "", extra_context=None):
        # Events are never added through a generic form: the add button leads to result entry.
        return HttpResponseRedirect(reverse("admin:league_event_record"))

    def render_change_form(
        self,
        request: HttpRequest,
        context: dict[str, Any],
        add: bool = False,
        change: bool = False,
        form_url: str = "",
        obj: Any = None,
    ) -> HttpResponse:
        # Here rather than in change_view, which would have to fetch the event a second time.
        if obj is not None and obj.kind in MATCH_KINDS:
            context["can_void"] = not Event.objects.filter(voids=obj).exists()
        return super().render_change_form(request, context, add, change, form_url, obj)

    def choose_league_view(self, request: HttpRequest) -> HttpResponse:
        leagues = list(League.objects.organised_by(request.user))
        if not leagues:
            raise PermissionDenied
        if len(leagues) == 1:
            return HttpResponseRedirect(
                reverse("admin:league_event_record_match", args=[leagues[0].pk])
            )
        return TemplateResponse(
            request,
            "admin/league/choose_league.html",
            self.page_context(request, "Record results: choose a league", leagues=leagues),
        )

    def record_match_view(self, request: HttpRequest, league_id: int) -> HttpResponse:
        league = scoped_league(request, league_id)
        form = MatchForm(self.posted(request), league=league)
        if request.method == "POST" and form.is_valid():
            try:
                event = services.record_match(
                    league, recorded_by=request.user, **form.service_arguments()
                )
            except ValidationError as error:
                add_service_errors(form, error, {"played_at": "played_on"})
            else:
                self.message_user(
                    request, f"Recorded #{event.seq}: {self.summary(event)}.", messages.SUCCESS
                )
                return HttpResponseRedirect(request.path)
        return TemplateResponse(
            request,
            "admin/league/record_match.html",
            self.page_context(
                request,
                f"Record a result — {league.name}",
                league=league,
                form=form,
                **self.player_list(league),
            ),
        )

    def record_side_match_view(self, request: HttpRequest, league_id: int) -> HttpResponse:
        """Record a doubles or team match, or a game of three or more sides."""
        league = scoped_league(request, league_id)
        form = SideMatchForm(self.posted(request), league=league)
        if request.method == "POST" and form.is_valid():
            try:
                event = services.record_side_match(
                    league, recorded_by=request.user, **form.service_arguments()
                )
            except ValidationError as error:
                add_service_errors(form, error, {"played_at": "played_on"})
            else:
                self.message_user(
                    request, f"Recorded #{event.seq}: {self.summary(event)}.", messages.SUCCESS
                )
                return HttpResponseRedirect(request.path)
        return TemplateResponse(
            request,
            "admin/league/record_side_match.html",
            self.page_context(
                request,
                f"Record a team match — {league.name}",
                league=league,
                form=form,
                format_label=format_label(league),
                **self.player_list(league),
            ),
        )

    def record_side_round_view(self, request: HttpRequest, league_id: int) -> HttpResponse:
        """A round of team matches (or multi-side games), stored whole or not at all."""
        league = scoped_league(request, league_id)
        data = self.posted(request)
        round_form = RoundForm(data, league=league)
        formset = SideRoundFormSet(data, league=league, prefix="results")
        if request.method == "POST" and round_form.is_valid() and formset.is_valid():
            rows = formset.filled_forms()
            key = round_form.cleaned_data["idempotency_key"]
            results = [
                {
                    **row.result_arguments(),
                    "played_at": round_form.cleaned_data["played_on"],
                    "idempotency_key": round_row_key(key, index),
                }
                for index, row in enumerate(rows)
            ]
            try:
                events = services.record_side_round(league, results, recorded_by=request.user)
            except ValidationError as error:
                show_round_errors(round_form, rows, error)
            else:
                self.message_user(
                    request,
                    f"Recorded {len(events)} match(es) of the round of "
                    f"{round_form.cleaned_data['played_on']:%Y-%m-%d}.",
                    messages.SUCCESS,
                )
                changelist = reverse("admin:league_event_changelist")
                return HttpResponseRedirect(f"{changelist}?league={league.pk}")
        return TemplateResponse(
            request,
            "admin/league/record_side_round.html",
            self.page_context(
                request,
                f"Record a round of team matches — {league.name}",
                league=league,
                form=round_form,
                formset=formset,
                format_label=format_label(league),
                **self.player_list(league),
            ),
        )

    def record_round_view(self, request: HttpRequest, league_id: int) -> HttpResponse:
        league = scoped_league(request, league_id)
        data = self.posted(request)
        round_form = RoundForm(data, league=league)
        formset = RoundFormSet(data, league=league, prefix="results")
        if request.method == "POST" and round_form.is_valid() and formset.is_valid():
            rows = formset.filled_forms()
            key = round_form.cleaned_data["idempotency_key"]
            results = [
                {
                    "player_a": row.cleaned_data["player_a"],
                    "player_b": row.cleaned_data["player_b"],
                    "score_a": row.cleaned_data["score_a"],
                    "points": row.cleaned_data["points"],
                    "neutral": row.cleaned_data["neutral"],
                    "played_at": round_form.cleaned_data["played_on"],
                    "idempotency_key": round_row_key(key, index),
                }
                for index, row in enumerate(rows)
            ]
            try:
                events = services.record_round(league, results, recorded_by=request.user)
            except ValidationError as error:
                show_round_errors(round_form, rows, error)
            else:
                self.message_user(
                    request,
                    f"Recorded {len(events)} result(s) of the round of "
                    f"{round_form.cleaned_data['played_on']:%Y-%m-%d}.",
                    messages.SUCCESS,
                )
                changelist = reverse("admin:league_event_changelist")
                return HttpResponseRedirect(f"{changelist}?league={league.pk}")
        return TemplateResponse(
            request,
            "admin/league/record_round.html",
            self.page_context(
                request,
                f"Record a round — {league.name}",
                league=league,
                form=round_form,
                formset=formset,
                **self.player_list(league),
            ),
        )

    def void_view(self, request: HttpRequest, event_id: int) -> HttpResponse:
        match = self.scoped_match(request, event_id)
        form = VoidForm(self.posted(request))
        if request.method == "POST" and form.is_valid():
            try:
                services.void_match(
                    match.league,
                    match,
                    reason=form.cleaned_data["reason"],
                    recorded_by=request.user,
                    idempotency_key=form.cleaned_data["idempotency_key"] or None,
                )
            except ValidationError as error:
                add_service_errors(form, error)
            else:
                self.message_user(request, f"Match #{match.seq} voided.", messages.SUCCESS)
                return HttpResponseRedirect(reverse("admin:league_event_change", args=[match.pk]))
        return TemplateResponse(
            request,
            "admin/league/event_form.html",
            self.page_context(
                request,
                f"Void match #{match.seq}",
                form=form,
                match=match,
                league=match.league,
                summary=self.summary(match),
                submit_label="Void this match",
            ),
        )

    def correct_view(self, request: HttpRequest, event_id: int) -> HttpResponse:
        match = self.scoped_match(request, event_id)
        form_class = (
            SideCorrectionForm if match.kind == Event.Kind.SIDE_MATCH_RECORDED else CorrectionForm
        )
        form = form_class(self.posted(request), league=match.league, match=match)
        if request.method == "POST" and form.is_valid():
            try:
                _void, corrected = services.correct_match(
                    match.league,
                    match,
                    reason=form.cleaned_data["reason"],
                    recorded_by=request.user,
                    **form.service_arguments(),
                )
            except ValidationError as error:
                add_service_errors(form, error, {"played_at": "played_on"})
            else:
                self.message_user(
                    request,
                    f"Match #{match.seq} corrected: #{corrected.seq} {self.summary(corrected)}.",
                    messages.SUCCESS,
                )
                return HttpResponseRedirect(
                    reverse("admin:league_event_change", args=[corrected.pk])
                )
        template = (
            "admin/league/record_side_match.html"
            if isinstance(form, SideCorrectionForm)
            else "admin/league/event_form.html"
        )
        return TemplateResponse(
            request,
            template,
            self.page_context(
                request,
                f"Correct match #{match.seq}",
                form=form,
                match=match,
                league=match.league,
                summary=self.summary(match),
                submit_label="Void and record the correction",
                **self.player_list(match.league),
            ),
        )

    def scoped_match(self, request: HttpRequest, event_id: int) -> Event:
        """A recorded match the user may act on; 404 for other leagues' events."""
        return get_object_or_404(
            self.get_queryset(request).select_related("league"),
            pk=event_id,
            kind__in=MATCH_KINDS,
        )

    @staticmethod
    def player_list(league: League) -> dict[str, Any]:
        return {
            "player_list_id": PLAYER_LIST_ID,
            # Names a result may be recorded for: active and not merged into another player.
            "players": Player.objects.filter(
                league=league, active=True, merged_into__isnull=True
            ).values_list("display_name", flat=True),
        }

    @admin.action(description="Void selected matches…", permissions=["void"])
    def void_selected(self, request: HttpRequest, queryset: QuerySet) -> HttpResponse | None:
        matches = list(queryset.select_related("league", "player_a", "player_b"))
        not_matches = [event for event in matches if event.kind != Event.Kind.MATCH_RECORDED]
        if not_matches:
            self.message_user(
                request,
                "Only recorded matches can be voided; deselect "
                + ", ".join(f"#{event.seq}" for event in not_matches)
                + ".",
                messages.ERROR,
            )
            return None
        form = VoidForm(request.POST if "apply" in request.POST else None)
        if "apply" in request.POST and form.is_valid():
            try:
                with transaction.atomic():
                    for match in matches:
                        services.void_match(
                            match.league,
                            match,
                            reason=form.cleaned_data["reason"],
                            recorded_by=request.user,
                        )
            except ValidationError as error:
                self.message_user(
                    request, "Nothing was voided: " + " ".join(error.messages), messages.ERROR
                )
                return None
            self.message_user(request, f"{len(matches)} match(es) voided.", messages.SUCCESS)
            return None
        return TemplateResponse(
            request,
            "admin/league/void_selected.html",
            self.page_context(
                request,
                "Void matches",
                form=form,
                matches=[(match, self.summary(match)) for match in matches],
                action_checkbox_name=admin.helpers.ACTION_CHECKBOX_NAME,
            ),
        )
