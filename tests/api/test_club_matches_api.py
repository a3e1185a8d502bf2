"""The club matches API: everyone reads teams, club matches and the team table; organisers
submit board orders, record a match's boards with an Idempotency-Key (a retry stores
nothing new) and void it; bad bodies are 400s naming the board, nothing stored; the schema
lists the endpoints."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league.models import ClubMatch, Event
from ratings import club_matches as clubs

pytestmark = pytest.mark.django_db


def url(name: str, league, **kwargs) -> str:
    return reverse(f"api:{name}", kwargs={"league_slug": league.slug, **kwargs})


@pytest.fixture
def match(league, make_player, organiser):
    home = clubs.create_team(league, name="Riverside", recorded_by=organiser)
    away = clubs.create_team(league, name="Hilltop", recorded_by=organiser)
    for team, names in ((home, ("Ann", "Bob")), (away, ("Eve", "Fay"))):
        for name in names:
            clubs.add_to_roster(league, team, make_player(league, name), recorded_by=organiser)
    return clubs.schedule_club_match(
        league, home=home, away=away, boards=2, scheduled_at=dt.date(2024, 5, 1),
        points_win="3", recorded_by=organiser,
    )  # fmt: skip


def test_reading_teams_and_a_scheduled_match(anon, league, match):
    teams = anon.get(url("team-list", league)).json()
    assert [(t["name"], len(t["players"])) for t in teams] == [("Hilltop", 2), ("Riverside", 2)]
    body = anon.get(url("club-match-detail", league, match_id=match.pk)).json()
    assert (body["boards"], body["recorded"], body["match_points"]) == (2, False, [3.0, 1.0, 0.0])
    assert [b["home_white"] for b in body["board_list"]] == [True, False]
    assert anon.get(url("club-match-detail", league, match_id=999)).status_code == 404


def test_recording_is_idempotent_and_feeds_the_team_table(anon, org, league, match):
    body = {"results": ["1-0", "½-½"], "played_on": "2024-05-01"}
    first = org.post(
        url("club-match-result", league, match_id=match.pk), body, format="json",
        HTTP_IDEMPOTENCY_KEY="k-1",
    )  # fmt: skip
    assert first.status_code == 201, first.content
    assert (first.json()["home_points"], first.json()["away_points"]) == (1.5, 0.5)
    count = Event.objects.count()
    again = org.post(
        url("club-match-result", league, match_id=match.pk), body, format="json",
        HTTP_IDEMPOTENCY_KEY="k-1",
    )  # fmt: skip
    assert again.status_code == 201
    assert Event.objects.count() == count
    table = anon.get(url("team-table", league)).json()
    assert [(r["name"], r["won"], r["board_points_for"], r["match_points"]) for r in table] == [
        ("Riverside", 1, 1.5, 3.0),
        ("Hilltop", 0, 0.5, 0.0),
    ]
    void = org.post(
        url("club-match-void", league, match_id=match.pk), {"reason": "wrong team"}, format="json"
    )
    assert void.status_code == 200
    assert void.json()["recorded"] is False


def test_bad_bodies_name_the_board_and_store_nothing(anon, org, client_for, league, match):
    before = Event.objects.count()
    missing = org.post(
        url("club-match-result", league, match_id=match.pk),
        {"results": ["1-0"], "played_on": "2024-05-01"}, format="json",
    )  # fmt: skip
    assert missing.status_code == 400
    assert "board_2" in missing.json()["errors"]
    order = org.post(
        url("club-match-order", league, match_id=match.pk),
        {"team": match.home_id, "players": [match.away.roster.first().player_id, 99999]},
        format="json",
    )
    assert order.status_code == 400
    assert set(order.json()["errors"]) == {"board_1", "board_2"}
    assert anon.post(
        url("club-match-result", league, match_id=match.pk),
        {"results": ["1-0", "1-0"], "played_on": "2024-05-01"}, format="json",
    ).status_code in (401, 403)  # fmt: skip
    stranger = client_for("other_organiser")
    assert stranger.post(
        url("club-match-result", league, match_id=match.pk),
        {"results": ["1-0", "1-0"], "played_on": "2024-05-01"}, format="json",
    ).status_code == 403  # fmt: skip
    assert org.post(
        url("club-match-result", league, match_id=4242),
        {"results": ["1-0", "1-0"], "played_on": "2024-05-01"}, format="json",
    ).status_code == 404  # fmt: skip
    assert Event.objects.count() == before
    assert ClubMatch.objects.get(pk=match.pk).games == []


def test_the_schema_lists_the_club_match_endpoints(anon):
    paths = anon.get(reverse("api:schema"), {"format": "json"}).json()["paths"]
    record = paths["/api/leagues/{league_slug}/club-matches/{match_id}/result/"]["post"]
    assert any(p["name"] == "Idempotency-Key" for p in record["parameters"])
    assert "/api/leagues/{league_slug}/team-table/" in paths
