"""Hostile query strings in the organisers' admin: a message naming the filter, never a 5xx.

The NUL cases fail only on PostgreSQL (it refuses NUL in text); CI's PostgreSQL pass runs
this module too.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from league.models import Player
from ratings.models import RatingConfig

pytestmark = pytest.mark.django_db

HOSTILE = [
    "99999999999999999999",
    "-99999999999999999999",
    "9" * 5000,
    "\u00b2",
    "\x00",
    "1\x00",
    "-1",
    "1.5",
    "",
    "abc",
    "0001-01-01",
    "9999-12-31",
]

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


def messages_of(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


@pytest.mark.parametrize(
    ("name", "query", "landing", "message"),
    [
        (
            "admin:league_event_changelist",
            "league=abc",
            "",
            "The filter league='abc' was ignored: 'abc' is not a league id.",
        ),
        (
            "admin:league_player_changelist",
            "league=abc&active__exact=1",
            "?active__exact=1",
            "The filter league='abc' was ignored: 'abc' is not a league id.",
        ),
        (
            "admin:league_event_changelist",
            "kind=%00",
            "",
            "The filter kind='\\x00' was ignored: it contains the control character U+0000 "
            "(a NUL byte) at character 1.",
        ),
        (
            "admin:ratings_replay_changelist",
            "status=%00",
            "",
            "The filter status='\\x00' was ignored: it contains the control character U+0000 "
            "(a NUL byte) at character 1.",
        ),
        (
            "admin:league_player_changelist",
            "q=Ann%00",
            "",
            "The search q='Ann\\x00' was ignored: it contains the control character U+0000 "
            "(a NUL byte) at character 4.",
        ),
        (
            "admin:league_event_changelist",
            "recorded_at__year=99999999999999999999",
            "",
            "The filter recorded_at__year='99999999999999999999' was ignored: "
            "the value is out of range.",
        ),
    ],
    ids=[
        "event-league",
        "player-league",
        "event-kind",
        "replay-status",
        "search",
        "year",
    ],
)
def test_a_filter_the_list_cannot_apply_is_dropped_with_a_message(
    staff_organiser, name, query, landing, message
):
    client = Client()
    client.force_login(staff_organiser)
    url = reverse(name)
    response = client.get(f"{url}?{query}", follow=True)
    assert response.redirect_chain == [(url + landing, 302)]
    assert response.status_code == 200
    assert messages_of(response) == [message]


def test_a_good_league_filter_still_filters(staff_organiser, club, other_league):
    Player.objects.create(league=other_league, display_name="Elsewhere", slug="elsewhere")
    client = Client()
    client.force_login(staff_organiser)
    response = client.get(reverse("admin:league_player_changelist"), {"league": club["league"].pk})
    assert response.status_code == 200
    shown = {player.display_name for player in response.context["cl"].result_list}
    assert shown == set(
        Player.objects.filter(league=club["league"]).values_list("display_name", flat=True)
    )


@pytest.mark.parametrize("value", ["3000000000", "99999999999999999999", "\u00b2", "1\x00"])
def test_a_period_length_out_of_range_is_a_field_error_on_the_config_form(
    club, staff_organiser, value
):
    league = club["league"]
    data = {
        "tau": "0.5",
        "initial_rating": "1500",
        "initial_rd": "350",
        "initial_volatility": "0.06",
        "period_unit": "days",
        "period_length": value,
        "period_anchor": "2024-01-01",
        "max_rd": "350",
        "note": "",
    }
    before = list(RatingConfig.objects.values_list("pk", flat=True))
    client = Client()
    client.force_login(staff_organiser)
    page = client.post(reverse("workspace:config", kwargs={"league_slug": league.slug}), data)
    assert page.status_code == 200
    (message,) = page.context["form"].errors["period_length"]
    assert message.startswith("The period length must")
    assert list(RatingConfig.objects.values_list("pk", flat=True)) == before
