"""Contract tests: every endpoint's status codes, field names and pagination."""

from __future__ import annotations

import datetime as dt

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league.models import Event
from ratings.models import PlayerPeriod, Publication, RatingConfig, Replay, Standing

pytestmark = pytest.mark.django_db

ERROR_KEYS = {"detail", "code", "errors"}
PAGE_KEYS = {"count", "next", "previous", "results"}
MATCH_EVENT_KEYS = {
    "id",
    "seq",
    "played_at",
    "played_on",
    "player_a",
    "player_b",
    "score_a",
    "score_b",
    "points",
    "neutral",
    "margin",
    "note",
    "replaces",
    "recorded_at",
    "recorded_by",
    "colours",
}
MATCH_KEYS = MATCH_EVENT_KEYS | {"player_a_name", "player_b_name", "voided", "void"}


def url(name: str, league, **kwargs) -> str:
    return reverse(f"api:{name}", kwargs={"league_slug": league.slug, **kwargs})


# --- Leagues and players ---------------------------------------------------------------


def test_league_list_is_paginated_and_searchable(anon, league, other_league):
    response = anon.get(reverse("api:league-list"), {"limit": 1})
    assert response.status_code == 200
    assert set(response.data) == PAGE_KEYS
    assert response.data["count"] == 2
    assert len(response.data["results"]) == 1
    assert response.data["next"] is not None
    assert set(response.data["results"][0]) == {
        "slug",
        "name",
        "description",
        "sport",
        "time_zone",
        "start_date",
        "created_at",
        "live_version",
    }
    found = anon.get(reverse("api:league-list"), {"search": "table tennis"}).data["results"]
    assert [item["slug"] for item in found] == ["hilltop"]


def test_league_list_ordering(anon, league, other_league):
    response = anon.get(reverse("api:league-list"), {"ordering": "-name"})
    assert [item["slug"] for item in response.data["results"]] == ["riverside", "hilltop"]


def test_league_list_organised_filter_keeps_the_callers_leagues(
    client_for, anon, league, other_league
):
    def slugs(client) -> list[str]:
        response = client.get(reverse("api:league-list"), {"organised": "true"})
        assert response.status_code == 200
        return [item["slug"] for item in response.data["results"]]

    assert slugs(client_for("organiser")) == ["riverside"]
    assert slugs(client_for("other_organiser")) == ["hilltop"]
    assert slugs(client_for("superuser")) == ["hilltop", "riverside"]
    assert slugs(anon) == []


def test_league_detail_and_unknown_league(anon, rated):
    response = anon.get(reverse("api:league-detail", kwargs={"league_slug": "riverside"}))
    assert response.status_code == 200
    assert response.data["live_version"] == 1
    missing = anon.get(reverse("api:league-detail", kwargs={"league_slug": "nowhere"}))
    assert missing.status_code == 404
    assert set(missing.data) == ERROR_KEYS
    assert missing.data["code"] == "not_found"


def test_players_list_filters_and_orders(anon, league, players, stranger):
    players[3].active = False
    players[3].save()
    response = anon.get(url("player-list", league))
    assert response.status_code == 200
    assert [p["display_name"] for p in response.data["results"]] == ["Ann", "Bob", "Cat", "Dan"]
    assert set(response.data["results"][0]) == {
        "id",
        "slug",
        "display_name",
        "active",
        "merged_into",
        "created_at",
    }
    assert response.data["results"][0]["merged_into"] is None
    active = anon.get(url("player-list", league), {"active": "true", "ordering": "-display_name"})
    assert [p["display_name"] for p in active.data["results"]] == ["Cat", "Bob", "Ann"]
    inactive = anon.get(url("player-list", league), {"active": "false"})
    assert [p["display_name"] for p in inactive.data["results"]] == ["Dan"]


@pytest.mark.parametrize("value", ["yes", "1", "TRUE", ""])
def test_boolean_query_parameters_accept_only_true_or_false(anon, league, value):
    response = anon.get(url("player-list", league), {"active": value})
    assert response.status_code == 400
    assert "active" in response.data["errors"]


def test_player_detail_is_scoped_to_the_league(anon, league, players, stranger):
    assert anon.get(url("player-detail", league, player_id=players[0].pk)).status_code == 200
    response = anon.get(url("player-detail", league, player_id=stranger.pk))
    assert response.status_code == 404


def test_player_history_rows(anon, rated, players):
    ann = players[0]
    response = anon.get(url("player-history", rated, player_id=ann.pk))
    assert response.status_code == 200
    assert set(response.data) == PAGE_KEYS
    rows = response.data["results"]
    config = RatingConfig.objects.get(league=rated, version=1)
    stored = PlayerPeriod.objects.filter(config=config, player=ann).order_by("period_index")
    assert [row["period"] for row in rows] == [p.period_index for p in stored]
    assert set(rows[0]) == {
        "period",
        "start",
        "end",
        "rating",
        "rd",
        "low",
        "high",
        "volatility",
        "games",
        "wins",
        "draws",
        "losses",
        "change",
    }
    # Ann: a win and a draw in week 0, a win in week 2.
    assert [(r["games"], r["wins"], r["draws"], r["losses"]) for r in rows] == [
        (2, 1, 1, 0),
        (1, 1, 0, 0),
    ]
    assert rows[0]["start"] == "2024-01-01"
    assert rows[0]["end"] == "2024-01-07"
    assert rows[0]["rating"] == stored[0].rating
    assert rows[0]["rd"] == stored[0].rd


def test_player_history_without_configuration_is_empty(anon, league, players):
    response = anon.get(url("player-history", league, player_id=players[0].pk))
    assert response.status_code == 200
    assert response.data["results"] == []


def test_player_history_unknown_version_is_404(anon, rated, players):
    response = anon.get(url("player-history", rated, player_id=players[0].pk), {"version": 9})
    assert response.status_code == 404


# --- Matches ---------------------------------------------------------------------------


def test_match_list_marks_voids_and_hides_private_fields_from_anonymous(anon, league, matches):
    response = anon.get(url("match-list", league))
    assert response.status_code == 200
    assert set(response.data) == PAGE_KEYS
    assert response.data["count"] == 5
    rows = response.data["results"]
    assert set(rows[0]) == MATCH_KEYS
    by_id = {row["id"]: row for row in rows}
    voided = by_id[matches[-1].pk]
    assert voided["voided"] is True
    assert voided["void"]["reason"] == "Wrong board"
    assert voided["void"]["recorded_by"] is None
    assert by_id[matches[0].pk]["voided"] is False
    assert by_id[matches[0].pk]["void"] is None
    assert all(row["recorded_by"] is None for row in rows)
    # Newest first by default.
    assert [row["id"] for row in rows] == [m.pk for m in reversed(matches)]


def test_match_list_shows_private_fields_to_organisers(org, league, matches):
    rows = org.get(url("match-list", league)).data["results"]
    assert {row["recorded_by"] for row in rows} == {"organiser"}
    voided = next(row for row in rows if row["voided"])
    assert voided["void"]["recorded_by"] == "organiser"


def test_match_fields(anon, league, matches, players):
    first = matches[0]
    row = anon.get(url("match-detail", league, match_id=first.pk)).data
    assert row["player_a"] == players[0].pk
    assert row["player_b"] == players[1].pk
    assert row["player_a_name"] == "Ann"
    assert row["score_a"] == 1.0
    assert row["score_b"] == 0.0
    assert row["played_on"] == "2024-01-02"
    assert row["seq"] == first.seq


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        ({"voided": "true"}, [4]),
        ({"voided": "false"}, [3, 2, 1, 0]),
        ({"date_from": "2024-01-10", "date_to": "2024-01-17"}, [3, 2]),
        ({"date_to": "2024-01-02"}, [1, 0]),
        ({"player": "DAN"}, None),
        ({"ordering": "played_at"}, [0, 1, 2, 3, 4]),
        ({"ordering": "-seq", "limit": "2", "offset": "1"}, [3, 2]),
    ],
)
def test_match_list_filters(anon, league, matches, players, params, expected):
    if params.get("player") == "DAN":
        params = {"player": str(players[3].pk)}
        expected = [4]
    response = anon.get(url("match-list", league), params)
    assert response.status_code == 200
    assert [row["id"] for row in response.data["results"]] == [matches[i].pk for i in expected]


@pytest.mark.parametrize(
    ("params", "field"),
    [
        ({"date_from": "yesterday"}, "date_from"),
        ({"player": "1.0"}, "player"),
        ({"limit": "0"}, "limit"),
        ({"limit": "abc"}, "limit"),
        ({"offset": "-1"}, "offset"),
    ],
)
def test_match_list_refuses_bad_filters(anon, league, matches, params, field):
    response = anon.get(url("match-list", league), params)
    assert response.status_code == 400
    assert set(response.data) == ERROR_KEYS
    assert field in response.data["errors"]


@pytest.mark.parametrize("time_zone", ["Europe/London", "Asia/Tokyo", "America/Anchorage"])
@pytest.mark.parametrize(
    ("params", "expected"),
    [
        # An empty range is no error: it holds no matches.
        ({"date_from": "2024-02-01", "date_to": "2024-01-01"}, []),
        # The calendar's first and last days bound nothing.
        ({"date_from": "0001-01-01"}, [3, 2, 1, 0]),
        ({"date_to": "9999-12-31"}, [3, 2, 1, 0]),
        ({"date_from": "9999-12-31"}, []),
        ({"date_to": "0001-01-01"}, []),
    ],
)
def test_match_list_dates_are_answered_to_the_ends_of_the_calendar(
    anon, league, matches, time_zone, params, expected
):
    league.time_zone = time_zone
    league.save()
    response = anon.get(url("match-list", league), {**params, "voided": "false"})
    assert response.status_code == 200
    assert [row["id"] for row in response.data["results"]] == [matches[i].pk for i in expected]


def test_match_detail_of_another_league_is_404(anon, league, other_league, matches):
    response = anon.get(url("match-detail", other_league, match_id=matches[0].pk))
    assert response.status_code == 404


def test_record_result_returns_the_stored_event(org, league, players):
    ann, bob = players[:2]
    body = {
        "player_a": ann.pk,
        "player_b": bob.pk,
        "score_a": 0.5,
        "played_on": "2024-03-05",
        "points": "2-2",
        "note": "Board 1",
    }
    response = org.post(url("match-list", league), body, format="json")
    assert response.status_code == 201, response.data
    assert set(response.data) == MATCH_EVENT_KEYS
    event = Event.objects.get(pk=response.data["id"])
    assert response["Location"] == url("match-detail", league, match_id=event.pk)
    assert (event.player_a_id, event.player_b_id, str(event.score_a)) == (ann.pk, bob.pk, "0.5")
    assert event.recorded_by.username == "organiser"
    assert response.data["played_on"] == "2024-03-05"
    assert response.data["recorded_by"] == "organiser"
    assert response.data["points"] == "2-2"
    assert (response.data["neutral"], response.data["margin"]) == (False, 0)
    assert event.idempotency_key is None


def test_record_result_on_neutral_ground(org, league, players):
    league.sport = "Football"  # a sport with home grounds (a chess game is never neutral)
    league.save()
    body = {
        "player_a": players[0].pk,
        "player_b": players[1].pk,
        "score_a": 0,
        "played_on": "2024-03-05",
        "points": "1-3",
        "neutral": True,
    }
    response = org.post(url("match-list", league), body, format="json")
    assert response.status_code == 201, response.data
    event = Event.objects.get(pk=response.data["id"])
    assert (event.neutral, event.margin) == (True, -2)
    assert (response.data["neutral"], response.data["margin"]) == (True, -2)


def test_record_result_with_a_moment(org, league, players):
    body = {
        "player_a": players[0].pk,
        "player_b": players[1].pk,
        "score_a": 1,
        "played_at": "2024-03-05T23:30:00+00:00",
    }
    response = org.post(url("match-list", league), body, format="json")
    assert response.status_code == 201, response.data
    event = Event.objects.get(pk=response.data["id"])
    assert event.played_at == dt.datetime(2024, 3, 5, 23, 30, tzinfo=dt.UTC)


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"score_a": 0.3}, "score_a"),
        ({"score_a": "1"}, "score_a"),
        ({"score_a": True}, "score_a"),
        ({"player_a": "1"}, "player_a"),
        ({"player_b": None}, "player_b"),
        ({"played_on": None}, "played_on"),
        ({"played_on": "2024-13-01"}, "played_on"),
        ({"played_at": "2024-03-05T10:00:00"}, "played_at"),
        ({"points": 3}, "points"),
        ({"points": "x" * 121}, "points"),
        ({"neutral": "yes"}, "neutral"),
        ({"neutral": 1}, "neutral"),
        ({"SELF": True}, "player_b"),
        ({"OTHER_LEAGUE": True}, "player_b"),
        # Keyed by the field sent (issue 18, item 9): these two once said played_at.
        ({"played_on": "2023-12-31"}, "played_on"),
        ({"played_on": "2999-01-01"}, "played_on"),
    ],
)
def test_record_result_refuses_bad_input_and_stores_nothing(
    org, league, players, stranger, change, field
):
    body = {"player_a": players[0].pk, "player_b": players[1].pk, "score_a": 1}
    body["played_on"] = "2024-03-05"
    if change.pop("SELF", False):
        change = {"player_b": players[0].pk}
    if change.pop("OTHER_LEAGUE", False):
        change = {"player_b": stranger.pk}
    if "played_at" in change:
        del body["played_on"]
    body.update(change)
    before = Event.objects.count()
    response = org.post(url("match-list", league), body, format="json")
    assert response.status_code == 400, response.data
    assert set(response.data) == ERROR_KEYS
    assert response.data["errors"].get(field), response.data
    assert all(isinstance(m, str) for ms in response.data["errors"].values() for m in ms)
    assert Event.objects.count() == before


def test_record_result_needs_exactly_one_of_played_at_and_played_on(org, league, players):
    body = {"player_a": players[0].pk, "player_b": players[1].pk, "score_a": 1}
    assert org.post(url("match-list", league), body, format="json").status_code == 400
    both = {**body, "played_on": "2024-03-05", "played_at": "2024-03-05T10:00:00+00:00"}
    response = org.post(url("match-list", league), both, format="json")
    assert response.status_code == 400
    assert "played_at" in response.data["errors"]


def test_record_result_refuses_form_encoded_bodies(org, league, players):
    body = {"player_a": players[0].pk, "player_b": players[1].pk, "score_a": 1}
    response = org.post(url("match-list", league), body)  # multipart
    assert response.status_code == 415
    assert set(response.data) == ERROR_KEYS


def test_void_result(org, anon, league, matches):
    target = matches[0]
    response = org.post(
        url("match-void", league, match_id=target.pk), {"reason": "Played twice"}, format="json"
    )
    assert response.status_code == 201, response.data
    assert set(response.data) == {"id", "seq", "voids", "reason", "recorded_at", "recorded_by"}
    assert response.data["voids"] == target.pk
    row = anon.get(url("match-detail", league, match_id=target.pk)).data
    assert row["voided"] is True
    assert row["void"]["reason"] == "Played twice"


def test_void_needs_a_reason_and_voids_once(org, league, matches):
    target = matches[0]
    blank = org.post(url("match-void", league, match_id=target.pk), {"reason": ""}, format="json")
    assert blank.status_code == 400
    assert "reason" in blank.data["errors"]
    again = org.post(
        url("match-void", league, match_id=matches[-1].pk), {"reason": "Again"}, format="json"
    )
    assert again.status_code == 400
    assert again.data["errors"]


def test_void_of_a_match_of_another_league_is_404(client_for, league, other_league, matches):
    client = client_for("other_organiser")
    response = client.post(
        url("match-void", other_league, match_id=matches[0].pk), {"reason": "x"}, format="json"
    )
    assert response.status_code == 404


def test_round_is_all_or_nothing(org, league, players):
    ann, bob, cat, dan = players
    rows = [
        {"player_a": ann.pk, "player_b": bob.pk, "score_a": 1, "played_on": "2024-03-01"},
        {"player_a": cat.pk, "player_b": dan.pk, "score_a": 0, "played_on": "2024-03-01"},
        {"player_a": cat.pk, "player_b": cat.pk, "score_a": 0.5, "played_on": "2024-03-01"},
    ]
    response = org.post(url("round", league), {"results": rows}, format="json")
    assert response.status_code == 400
    assert "results.2.player_b" in response.data["errors"], response.data
    assert not Event.objects.matches().filter(league=league).exists()

    response = org.post(url("round", league), {"results": rows[:2]}, format="json")
    assert response.status_code == 201, response.data
    assert [set(item) for item in response.data] == [MATCH_EVENT_KEYS] * 2
    assert Event.objects.matches().filter(league=league).count() == 2


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"results": []}, "results"),
        ({}, "results"),
        ({"results": [{"player_a": 1}]}, "results.0.player_b"),
        ({"results": "nope"}, "results"),
    ],
)
def test_round_shape_errors(org, league, players, body, field):
    response = org.post(url("round", league), body, format="json")
    assert response.status_code == 400
    assert field in response.data["errors"], response.data


# --- Standings and predictions ---------------------------------------------------------


STANDING_KEYS = {
    "eligible",
    "reasons",
    "rank",
    "player_id",
    "name",
    "slug",
    "active",
    "rating",
    "rd",
    "low",
    "high",
    "volatility",
    "games",
    "wins",
    "draws",
    "losses",
    "last_period",
    "last_played",
    "change",
    "provisional",
}


def test_standings_current(anon, rated, players):
    response = anon.get(url("standings", rated))
    assert response.status_code == 200
    assert set(response.data) == {
        "version",
        "is_live",
        "computed_at",
        "current_period",
        "as_of",
        "count",
        "listed",
        "everyone",
        "ranked_count",
        "separate_count",
        "rules",
        "level",
        "interval_coverage",
        "page",
        "per_page",
        "num_pages",
        "next",
        "previous",
        "results",
    }
    assert response.data["version"] == 1
    assert response.data["interval_coverage"] is None  # not measured in the suite
    assert response.data["is_live"] is True
    rows = response.data["results"]
    assert set(rows[0]) == STANDING_KEYS
    config = RatingConfig.objects.get(league=rated, version=1)
    stored = {s.player_id: s for s in Standing.objects.filter(config=config, games__gt=0)}
    # Ranked by rating; Dan's only match was voided, so he is unrated and absent.
    assert [row["player_id"] for row in rows] == sorted(stored, key=lambda pid: -stored[pid].rating)
    assert [row["rank"] for row in rows] == [1, 2, 3]
    assert players[3].pk not in {row["player_id"] for row in rows}
    for row in rows:
        assert row["rating"] == stored[row["player_id"]].rating
        assert row["games"] == stored[row["player_id"]].games


def test_standings_pages(anon, rated):
    first = anon.get(url("standings", rated), {"per_page": 2})
    assert first.data["num_pages"] == 2
    assert len(first.data["results"]) == 2
    assert first.data["previous"] is None
    second = anon.get(first.data["next"])
    assert second.status_code == 200
    assert second.data["page"] == 2
    assert [r["rank"] for r in second.data["results"]] == [3]


def test_standings_as_of_a_period_and_a_date(anon, rated):
    by_period = anon.get(url("standings", rated), {"period": 0})
    assert by_period.status_code == 200
    assert by_period.data["as_of"] == {"index": 0, "start": "2024-01-01", "end": "2024-01-07"}
    # Week 0: Ann beat Bob and drew with Cat.
    assert {r["name"]: r["games"] for r in by_period.data["results"]} == {
        "Ann": 2,
        "Bob": 1,
        "Cat": 1,
    }
    by_date = anon.get(url("standings", rated), {"date": "2024-01-05"})
    assert by_date.data["results"] == by_period.data["results"]
    assert by_date.data["as_of"] == by_period.data["as_of"]


def test_standings_refuses_bad_queries(anon, rated):
    for params, field in (
        ({"period": 0, "date": "2024-01-05"}, "period"),
        ({"ordering": "height"}, "ordering"),
        ({"per_page": 0}, "per_page"),
        ({"level": "0"}, "level"),
    ):
        response = anon.get(url("standings", rated), params)
        assert response.status_code == 400, params
        assert field in response.data["errors"], params
    # A well-formed day before the first period has no standings: not found.
    before = anon.get(url("standings", rated), {"date": "2023-01-01"})
    assert before.status_code == 404
    assert before.data["errors"] == {"date": ["Before the first rating period (from 2024-01-01)."]}


def test_standings_under_another_version(anon, org, rated):
    response = org.post(url("config-list", rated), {"tau": 0.9}, format="json")
    assert response.status_code == 201
    old = anon.get(url("standings", rated), {"version": 1})
    assert old.data["version"] == 1
    assert anon.get(url("standings", rated), {"version": 7}).status_code == 404


def test_standings_without_configuration(anon, league):
    response = anon.get(url("standings", league))
    assert response.status_code == 200
    assert response.data["version"] is None
    assert response.data["results"] == []


def test_standings_read_the_publication_and_the_current_period_once(anon, rated):
    # The cache validators, the leaderboard and its description all need the live
    # version and the current period (which reads the league's latest match): one
    # request reads each once and shares them.
    with CaptureQueriesContext(connection) as captured:
        response = anon.get(url("standings", rated))
    assert response.status_code == 200
    assert response.data["is_live"] is True
    statements = [query["sql"] for query in captured.captured_queries]
    publication_reads = [sql for sql in statements if Publication._meta.db_table in sql]
    events = Event._meta.db_table
    latest_match = f'SELECT "{events}"."played_at" AS "played_at" FROM'
    latest_match_reads = [sql for sql in statements if sql.startswith(latest_match)]
    assert len(publication_reads) == 1, publication_reads
    assert len(latest_match_reads) == 1, latest_match_reads
    # League, publication, latest match, players and projection (the validators), then
    # the leaderboard: its page, its count, last played days and changes.
    # One more than before the eligibility rules: the rules themselves (the leaderboard
    # now always counts its two lists in a statement of its own).
    assert len(statements) <= 10, statements


def test_standings_of_another_version_say_they_are_not_live(anon, org, rated):
    assert org.post(url("config-list", rated), {"tau": 0.9}, format="json").status_code == 201
    old = anon.get(url("standings", rated), {"version": 1})
    assert (old.data["version"], old.data["is_live"]) == (1, True)
    newer = anon.get(url("standings", rated), {"version": 2})
    assert (newer.data["version"], newer.data["is_live"]) == (2, False)


def test_standings_etag_gives_304_until_something_changes(
    anon, org, rated, players, django_capture_on_commit_callbacks
):
    first = anon.get(url("standings", rated))
    etag = first["ETag"]
    assert etag.startswith('"')
    assert first["Last-Modified"]
    again = anon.get(url("standings", rated), HTTP_IF_NONE_MATCH=etag)
    assert again.status_code == 304
    assert again["ETag"] == etag
    assert not again.content
    weak = anon.get(url("standings", rated), HTTP_IF_NONE_MATCH=f'"x", W/{etag}')
    assert weak.status_code == 304
    other_query = anon.get(url("standings", rated), {"per_page": 1}, HTTP_IF_NONE_MATCH=etag)
    assert other_query.status_code == 200

    body = {"player_a": players[0].pk, "player_b": players[2].pk, "score_a": 0}
    body["played_on"] = "2024-01-20"
    with django_capture_on_commit_callbacks(execute=True):
        assert org.post(url("match-list", rated), body, format="json").status_code == 201
    changed = anon.get(url("standings", rated), HTTP_IF_NONE_MATCH=etag)
    assert changed.status_code == 200
    assert changed["ETag"] != etag


def test_head_to_head(anon, rated, players):
    ann, bob, cat, dan = players
    response = anon.get(url("head-to-head", rated), {"player_a": ann.pk, "player_b": bob.pk})
    assert response.status_code == 200
    assert set(response.data) == {
        "version",
        "player_a",
        "player_b",
        "games",
        "wins_a",
        "draws",
        "wins_b",
        "expected_score_a",
        "team_opponents",
        "team_partners",
    }
    assert (response.data["games"], response.data["wins_a"], response.data["wins_b"]) == (2, 2, 0)
    # A league of singles: no team games between them.
    empty = {"results": 0, "wins": 0, "draws": 0, "losses": 0}
    assert response.data["team_opponents"] == response.data["team_partners"] == empty
    assert response.data["player_a"] == {"id": ann.pk, "slug": "ann", "display_name": "Ann"}
    assert 0.5 < response.data["expected_score_a"] < 1
    reverse_ = anon.get(url("head-to-head", rated), {"player_a": bob.pk, "player_b": ann.pk})
    assert (reverse_.data["wins_a"], reverse_.data["wins_b"]) == (0, 2)
    assert reverse_.data["expected_score_a"] == pytest.approx(1 - response.data["expected_score_a"])
    # The voided Cat-Dan match does not count.
    voided = anon.get(url("head-to-head", rated), {"player_a": cat.pk, "player_b": dan.pk})
    assert voided.data["games"] == 0


def test_win_probability(anon, rated, players):
    ann, bob = players[:2]
    response = anon.get(url("win-probability", rated), {"player_a": ann.pk, "player_b": bob.pk})
    assert response.status_code == 200
    data = response.data
    assert set(data) == {"version", "player_a", "player_b", "probability_a", "probability_b"} | {
        "neutral",
        "advantage_a",
    }
    assert set(data["player_a"]) == {"id", "name", "slug", "rank", "rating", "rd", "games"} | {
        "provisional",
        "reasons",
    }
    assert data["probability_a"] + data["probability_b"] == pytest.approx(1)
    assert data["probability_a"] > 0.5
    assert data["player_a"]["rating"] > data["player_b"]["rating"]


@pytest.mark.parametrize("endpoint", ["head-to-head", "win-probability"])
def test_pairs_refuse_bad_players(anon, rated, players, stranger, endpoint):
    ann = players[0]
    for params, field in (
        ({"player_a": ann.pk}, "player_b"),
        ({"player_a": "x", "player_b": ann.pk}, "player_a"),
    ):
        response = anon.get(url(endpoint, rated), params)
        assert response.status_code == 400, params
        assert field in response.data["errors"], (params, response.data)
    # A well-formed id of nobody in this league is not found, as in a path.
    for params, field in (
        ({"player_a": ann.pk, "player_b": stranger.pk}, "player_b"),
        ({"player_a": 10**12, "player_b": ann.pk}, "player_a"),
    ):
        response = anon.get(url(endpoint, rated), params)
        assert response.status_code == 404, params
        assert response.data["code"] == "not_found"
        assert response.data["errors"] == {
            field: [f"No player with id {params[field]} in this league."]
        }


def test_a_player_against_themselves_is_answered(anon, rated, players):
    ann = players[0]
    pair = {"player_a": ann.pk, "player_b": ann.pk}
    record = anon.get(url("head-to-head", rated), pair)
    assert record.status_code == 200
    assert (record.data["games"], record.data["wins_a"], record.data["wins_b"]) == (0, 0, 0)
    assert record.data["expected_score_a"] == pytest.approx(0.5, abs=1e-12)
    chances = anon.get(url("win-probability", rated), pair)
    assert chances.status_code == 200
    assert chances.data["probability_a"] == pytest.approx(0.5, abs=1e-12)


# --- Configurations and replays --------------------------------------------------------

CONFIG_KEYS = {
    "version",
    "tau",
    "initial_rating",
    "initial_rd",
    "initial_volatility",
    "period_unit",
    "period_length",
    "period_anchor",
    "max_rd",
    "volatility_ceiling",
    "rating_floor",
    "advantage",
    "margin_scale",
    "update_mode",
    "note",
    "created_at",
    "created_by",
    "is_live",
}


def test_configurations_list_and_detail(anon, org, rated):
    listing = anon.get(url("config-list", rated))
    assert listing.status_code == 200
    assert set(listing.data) == PAGE_KEYS
    (config,) = listing.data["results"]
    assert set(config) == CONFIG_KEYS
    assert config["is_live"] is True
    assert config["period_length"] == 7
    assert config["created_by"] is None
    assert org.get(url("config-list", rated)).data["results"][0]["created_by"] == "organiser"
    detail = anon.get(url("config-detail", rated, version=1))
    assert detail.status_code == 200
    assert detail.data["version"] == 1
    assert anon.get(url("config-detail", rated, version=2)).status_code == 404


def test_create_configuration_starts_a_replay(org, rated):
    response = org.post(url("config-list", rated), {"tau": 0.75, "note": "steadier"}, format="json")
    assert response.status_code == 201, response.data
    assert set(response.data) == CONFIG_KEYS
    assert response.data["version"] == 2
    assert response.data["tau"] == 0.75
    assert response.data["period_length"] == 7  # inherited from version 1
    assert response["Location"] == url("config-detail", rated, version=2)
    assert Replay.objects.filter(config__league=rated, config__version=2).exists()


def test_create_configuration_with_instant_updates(org, rated):
    response = org.post(url("config-list", rated), {"update_mode": "instant"}, format="json")
    assert response.status_code == 201, response.data
    assert response.data["update_mode"] == "instant"
    assert RatingConfig.objects.get(league=rated, version=2).update_mode == "instant"
    # Omitted, the mode is inherited like every other parameter.
    again = org.post(url("config-list", rated), {"tau": 0.6}, format="json")
    assert again.data["update_mode"] == "instant"


@pytest.mark.parametrize(
    "body",
    [
        {"tau": 0},
        {"tau": "0.5"},
        {"period_unit": "weeks"},
        {"period_length": 0},
        {"period_length": 1.5},
        {"initial_rd": -1},
        {"period_anchor": "2030-01-01"},
        {"update_mode": "sometimes"},
        {"update_mode": 1},
    ],
)
def test_create_configuration_refuses_bad_parameters(org, rated, body):
    before = RatingConfig.objects.filter(league=rated).count()
    response = org.post(url("config-list", rated), body, format="json")
    assert response.status_code == 400, response.data
    assert set(body) & set(response.data["errors"]), response.data
    assert RatingConfig.objects.filter(league=rated).count() == before


def test_replays_start_list_detail_and_progress(org, anon, rated):
    started = org.post(url("replay-list", rated), format="json")
    assert started.status_code == 202, started.data
    assert set(started.data) == {
        "id",
        "version",
        "kind",
        "status",
        "from_period",
        "periods_total",
        "periods_done",
        "progress",
        "through_seq",
        "attempts",
        "queued_at",
        "started_at",
        "finished_at",
        "error",
        "requested_by",
    }
    assert started.data["kind"] == "full"
    assert started.data["requested_by"] == "organiser"
    listing = anon.get(url("replay-list", rated))
    assert listing.status_code == 200
    assert started.data["id"] in [r["id"] for r in listing.data["results"]]
    assert all(r["requested_by"] is None and r["error"] is None for r in listing.data["results"])
    queued = anon.get(url("replay-list", rated), {"status": "queued"}).data["results"]
    assert [r["id"] for r in queued] == [started.data["id"]]
    detail = anon.get(url("replay-detail", rated, replay_id=started.data["id"]))
    assert detail.status_code == 200
    progress = anon.get(url("progress", rated))
    assert progress.status_code == 200
    assert progress.data["replay"]["replay_id"] == started.data["id"]
    assert progress.data["replay"]["in_progress"] is True
    assert progress.data["replay"]["error"] is None


def test_replay_errors_are_visible_to_organisers_only(client_for, rated):
    replay = Replay.objects.filter(config__league=rated).first()
    Replay.objects.filter(pk=replay.pk).update(status="failed", error="Traceback: boom")
    path = url("replay-detail", rated, replay_id=replay.pk)
    assert client_for("organiser").get(path).data["error"] == "Traceback: boom"
    assert client_for("superuser").get(path).data["error"] == "Traceback: boom"
    assert client_for("other_organiser").get(path).data["error"] is None
    assert client_for("anonymous").get(path).data["error"] is None
    progress = client_for("other_organiser").get(url("progress", rated)).data["replay"]
    assert progress["error"] is None
    assert client_for("organiser").get(url("progress", rated)).data["replay"]["error"]


def test_progress_without_replays(anon, league):
    response = anon.get(url("progress", league))
    assert response.status_code == 200
    assert response.data == {"replay": None}


def test_replay_of_another_league_is_404(anon, rated, other_league):
    replay = Replay.objects.filter(config__league=rated).first()
    assert anon.get(url("replay-detail", other_league, replay_id=replay.pk)).status_code == 404


def test_start_replay_without_configuration_creates_the_first_version(org, league):
    response = org.post(url("replay-list", league), format="json")
    assert response.status_code == 202
    assert response.data["version"] == 1
    assert RatingConfig.objects.filter(league=league).count() == 1
