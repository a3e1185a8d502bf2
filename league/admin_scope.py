"""What every admin page of the write side shares: the organiser's scope.

Access is per league, from ``League.organisers`` (a superuser sees everything) as
``League.objects.organised_by`` answers it; Django's model permissions are not used, so an
organiser needs
only ``is_staff`` (the admin site itself demands it). The league admin, the CSV import
pages and the read side's admin pages build on this module.
"""

from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import Http404, HttpRequest

from league.models import League


def scoped_league(request: HttpRequest, league_id: Any) -> League:
    """The league with ``league_id`` if the user organises it; 404 otherwise."""
    try:
        return League.objects.organised_by(request.user).get(pk=int(league_id))
    except (League.DoesNotExist, TypeError, ValueError):
        raise Http404("No such league.") from None


class OrganisedLeagueFilter(admin.SimpleListFilter):
    """Filter by league, offering only the leagues the user organises."""

    title = "league"
    parameter_name = "league"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[int, str]]:
        return [(league.pk, league.name) for league in League.objects.organised_by(request.user)]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        if self.value():
            return queryset.filter(league_id=self.value())
        return queryset


class OrganiserScopedAdmin(admin.ModelAdmin):
    """Rows of a league: visible and changeable by that league's organisers only."""

    def league_of(self, obj: Any) -> League:
        return obj.league

    def scope(self, queryset: QuerySet, request: HttpRequest) -> QuerySet:
        return queryset.filter(league__in=League.objects.organised_by(request.user))

    def get_queryset(self, request: HttpRequest) -> QuerySet:
        return self.scope(super().get_queryset(request), request)

    def has_module_permission(self, request: HttpRequest) -> bool:
        return League.objects.organised_by(request.user).exists()

    def has_view_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        if obj is None:
            return self.has_module_permission(request)
        league = self.league_of(obj)
        return league is not None and league.is_organiser(request.user)

    def has_change_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return self.has_view_permission(request, obj)

    def has_add_permission(self, request: HttpRequest) -> bool:
        return self.has_module_permission(request)

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        # Players and events are referenced by the history; leagues own it.
        return False

    def page_context(self, request: HttpRequest, title: str, **extra: Any) -> dict[str, Any]:
        return {
            **self.admin_site.each_context(request),
            "opts": self.model._meta,
            "title": title,
            **extra,
        }

    @staticmethod
    def posted(request: HttpRequest) -> Any:
        """Form data for a POST (even an empty one), None for a GET."""
        return request.POST if request.method == "POST" else None
