"""Hostile query strings in the organisers' admin: a message naming the filter, never a 5xx.

The NUL cases fail only on PostgreSQL (it refuses NUL in text); CI's PostgreSQL pass runs
this module too.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from tests.functional.test_hostile_queries import HOSTILE

pytestmark = pytest.mark.django_db

CHANGELISTS = [
    "admin:league_league_changelist",
    "admin:league_player_changelist",
    "admin:league_event_changelist",
    "admin:ratings_ratingconfig_changelist",
    "admin:ratings_replay_changelist",
]

PARAMS = [
    "league",
    "kind",
    "status",
    "active",
    "q",
    "o",
    "p",
    "e",
    "all",
    "recorded_at__year",
    "recorded_at__month",
    "recorded_at__day",
    "played_at__gte",
    "recorded_by__id__exact",
    "league__id__exact",
    "config__league__id__exact",
    "_changelist_filters",
]


def failures(client: Client, value: str) -> list[str]:
    found = []
    for name in CHANGELISTS:
        url = reverse(name)
        for query in [dict.fromkeys(PARAMS, value), *({param: value} for param in PARAMS)]:
            response = client.get(url, query, follow=True)
            if response.status_code >= 500:
                names = ", ".join(query) if len(query) == 1 else "every parameter"
                found.append(f"{url} with {names} = {value[:30]!r}: {response.status_code}")
    return found


@pytest.fixture
def staff_organiser(club, organiser):
    organiser.is_staff = True
    organiser.save()
    return organiser


# A hand-typed date without a time zone is read in UTC, as Django does (with a warning).
@pytest.mark.filterwarnings("ignore:DateTimeField .* received a naive datetime")
@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_no_admin_list_answers_a_hostile_query_with_a_server_error(staff_organiser, value):
    client = Client(raise_request_exception=False)
    client.force_login(staff_organiser)
    found = failures(client, value)
    assert not found, "\n".join(found)


@pytest.mark.filterwarnings("ignore:DateTimeField .* received a naive datetime")
@pytest.mark.parametrize("value", ["abc", "\x00", "99999999999999999999", "1.5"], ids=repr)
def test_a_superuser_gets_no_server_error_either(club, superuser, value):
    client = Client(raise_request_exception=False)
    client.force_login(superuser)
    found = failures(client, value)
    assert not found, "\n".join(found)
