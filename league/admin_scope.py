"""What every admin page of the write side shares: the organiser's scope.

Access is per league, from ``League.organisers`` (a superuser sees everything) as
``League.objects.organised_by`` answers it; Django's model permissions are not used, so an
organiser needs only ``is_staff`` (the admin site itself demands it). The league admin and
the read side's admin pages build on this module.

Their lists also share ``CheckedChangeListMixin``: a filter in the address that the list
cannot apply (``?league=abc``, ``?kind=%00``, a year past the calendar) is dropped with a
message naming it, instead of reaching the database and failing there.
"""

from __future__ import annotations

import copy
import re
from contextlib import nullcontext
from typing import Any

from django.contrib import admin, messages
from django.contrib.admin.options import IncorrectLookupParameters
from django.contrib.admin.views import main as changelist
from django.core.exceptions import ValidationError
from django.db import DatabaseError, connections, router, transaction
from django.db.models import QuerySet
from django.http import Http404, HttpRequest, HttpResponse, HttpResponseRedirect, QueryDict
from django.utils.translation import gettext_lazy as _

from league.control_characters import first_control_character
from league.models import League

# Longest query value a list reads; a filter value is an id, a date or a search.
MAX_QUERY_VALUE = 500
# Django's own parameters of a list (page, order, search…): not filters, never tried alone.
_LIST_PARAMETERS = frozenset(
    {
        changelist.ALL_VAR,
        changelist.ERROR_FLAG,
        changelist.IS_FACETS_VAR,
        changelist.IS_POPUP_VAR,
        changelist.ORDER_VAR,
        changelist.PAGE_VAR,
        changelist.SEARCH_VAR,
        changelist.SOURCE_MODEL_VAR,
        changelist.TO_FIELD_VAR,
    }
)
_ID = re.compile(r"[0-9]{1,18}")
# What applying a filter value the database or Python cannot hold raises.
_UNUSABLE = (ValueError, TypeError, OverflowError, ValidationError, DatabaseError)


def scoped_league(request: HttpRequest, league_id: Any) -> League:
    """The league with ``league_id`` if the user organises it; 404 otherwise."""
    try:
        return League.objects.organised_by(request.user).get(pk=int(league_id))
    except (League.DoesNotExist, TypeError, ValueError):
        raise Http404("No such league.") from None


class OrganisedLeagueFilter(admin.SimpleListFilter):
    """Filter by league, offering only the leagues the user organises (Django's own filter
    on a foreign key would list every league). A subclass sets ``league_field`` for rows
    that reach their league through another table (``"config__league"``)."""

    title = _("league")
    parameter_name = "league"
    league_field = "league"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[int, str]]:
        return [(league.pk, league.name) for league in League.objects.organised_by(request.user)]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if not value:
            return queryset
        if not _ID.fullmatch(value):
            raise ValueError(f"{value[:40]!r} is not a league id")
        return queryset.filter(**{f"{self.league_field}_id": int(value)})


class UnusableFilter(Exception):
    """A list's query parameter that cannot be applied, and why."""

    def __init__(self, name: str | None, reason: str) -> None:
        super().__init__(reason)
        self.name, self.reason = name, reason


def _reason(error: Exception) -> str:
    if isinstance(error, OverflowError):
        return "the value is out of range"
    if isinstance(error, ValidationError):
        return " ".join(error.messages)
    if isinstance(error, DatabaseError):
        return "the database cannot compare it"
    return str(error) or type(error).__name__


def refused_parameter(name: str, value: str) -> str | None:
    """Why the list query parameter ``name=value`` is refused before any use; None if not."""
    for text in (name, value):
        found = first_control_character(text)
        if found is not None:
            return f"it contains the control character {found}"
    if len(value) > MAX_QUERY_VALUE and name != changelist.SEARCH_VAR:
        return f"the value is longer than {MAX_QUERY_VALUE} characters"
    return None


def _filter_names(query: QueryDict) -> list[str]:
    return [name for name in query if name not in _LIST_PARAMETERS]


class CheckedChangeListMixin:
    """Admin lists that drop a filter they cannot apply, with a message naming it.

    Parameters are checked for control characters first (PostgreSQL refuses NUL); a filter
    that still fails once applied (a value its column cannot hold) is found by trying each
    parameter alone. Either way the list is shown again without it.
    """

    def changelist_view(self, request: HttpRequest, extra_context: Any = None) -> HttpResponse:
        refused: dict[str, str] = {}
        for name, values in request.GET.lists():
            for value in values:
                reason = refused_parameter(name, value)
                if reason is not None:
                    refused.setdefault(name, reason)
        if not refused:
            try:
                return super().changelist_view(request, extra_context)  # type: ignore[misc]
            except UnusableFilter as error:
                # No single parameter fails alone: every filter together is dropped.
                names = [error.name] if error.name else _filter_names(request.GET)
                if not names:
                    raise
                refused = dict.fromkeys(names, error.reason)
        for name, reason in refused.items():
            shown = f"{name}={request.GET.get(name, '')[:40]!r}"
            what = "search" if name == changelist.SEARCH_VAR else "filter"
            messages.error(request, f"The {what} {shown} was ignored: {reason}.")
        kept = request.GET.copy()
        for name in refused:
            kept.pop(name, None)
        query = kept.urlencode()
        return HttpResponseRedirect(request.path + (f"?{query}" if query else ""))

    def get_changelist_instance(self, request: HttpRequest) -> Any:
        try:
            return self._changelist(request)
        except IncorrectLookupParameters:
            raise
        except _UNUSABLE as error:
            raise UnusableFilter(self._culprit(request), _reason(error)) from error

    def _changelist(self, request: HttpRequest) -> Any:
        # Inside a transaction (tests, ATOMIC_REQUESTS) a failed statement would abort it:
        # a savepoint keeps it usable. Outside one, autocommit needs none.
        connection = connections[router.db_for_read(self.model)]  # type: ignore[attr-defined]
        guard = transaction.atomic(using=connection.alias) if connection.in_atomic_block else None
        with guard or nullcontext():
            return super().get_changelist_instance(request)  # type: ignore[misc]

    def _culprit(self, request: HttpRequest) -> str | None:
        """The first filter parameter that fails on its own, by trying each alone."""
        for name in _filter_names(request.GET):
            alone = copy.copy(request)
            alone.GET = QueryDict(mutable=True)
            alone.GET.setlist(name, request.GET.getlist(name))
            try:
                self._changelist(alone)
            except IncorrectLookupParameters:
                continue
            except _UNUSABLE:
                return name
        return None


class OrganiserScopedAdmin(CheckedChangeListMixin, admin.ModelAdmin):
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
