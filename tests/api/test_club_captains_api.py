"""The club-match API for captains and set-up: a captain hands in their own team's board
order with their account's token (``team`` may be left out) and nobody else can; the
organiser names captains, sets a season's boards and match points and generates a round
robin (a preview stores nothing; a retry with the same key stores nothing new); bad
bodies are 400s naming the field, nothing stored."""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from league import seasons
from league.models import BoardOrder, ClubMatch, ClubSeason, Event, Team
from league.player_accounts import claim_player
from ratings import club_matches as clubs
from tests.api.support import token_client

pytestmark = pytest.mark.django_db


def url(name: str, league, **kwargs) -> str:
    return reverse(f"api:{name}", kwargs={"league_slug": league.slug, **kwargs})


@pytest.fixture
def setup(league, make_player, organiser):
    home = clubs.create_team(league, name="Riverside", recorded_by=organiser)
    away = clubs.create_team(league, name="Hilltop", recorded_by=organiser)
    p = {}
    for team, names in ((home, ("Ann", "Bob")), (away, ("Eve", "Fay"))):
        for name in names:
            p[name] = make_player(league, name)
            clubs.add_to_roster(league, team, p[name], recorded_by=organiser)
    match = clubs.schedule_club_match(
        league, home=home, away=away, boards=2, scheduled_at=dt.date(2024, 5, 1),
        recorded_by=organiser,
    )  # fmt: skip
    users = {}
    for name in ("Ann", "Eve"):
        users[name] = get_user_model().objects.create_user(name.lower(), password="pw-x-12345")
        claim_player(p[name], users[name], by=organiser)
    return home, away, p, match, users


def test_the_organiser_names_a_captain_who_hands_in_the_order_with_a_token(
    anon, org, league, setup
):
    home, _away, p, match, users = setup
    named = org.post(
        url("team-captain", league, team_id=home.pk), {"player": p["Ann"].pk}, format="json"
    )
    assert named.status_code == 200, named.content
    assert named.json()["captain"] == p["Ann"].pk
    teams = {t["name"]: t["captain"] for t in anon.get(url("team-list", league)).json()}
    assert teams == {"Riverside": p["Ann"].pk, "Hilltop": None}

    ann = token_client(users["Ann"])
    sent = ann.post(
        url("club-match-order", league, match_id=match.pk),
        {"players": [p["Bob"].pk, p["Ann"].pk]}, format="json",
    )  # fmt: skip
    assert sent.status_code == 200, sent.content
    assert sent.json()["home_submitted_order"] is True
    assert [b["home_player"] for b in sent.json()["board_list"]] == [p["Bob"].pk, p["Ann"].pk]
    order = BoardOrder.objects.get(club_match=match, team=home)
    assert order.submitted_by == "captain"
    assert Event.objects.filter(league=league).last().details["by"] == "captain"


def test_others_are_refused_and_nothing_changes(anon, org, league, setup):
    home, away, p, match, users = setup
    clubs.set_captain(league, home, p["Ann"], recorded_by=None)
    before = Event.objects.count()
    ann, eve = token_client(users["Ann"]), token_client(users["Eve"])
    # Eve holds a player of the league but captains nothing.
    refused = eve.post(
        url("club-match-order", league, match_id=match.pk),
        {"team": home.pk, "players": [p["Ann"].pk, p["Bob"].pk]}, format="json",
    )  # fmt: skip
    assert refused.status_code == 400
    assert "captain" in refused.json()["errors"]["team"][0]
    no_team = eve.post(
        url("club-match-order", league, match_id=match.pk),
        {"players": [p["Eve"].pk]},
        format="json",
    )
    assert no_team.status_code == 400
    assert "team" in no_team.json()["errors"]
    # The captain names a player of the other team, or one player twice, or too few.
    for players, field in (
        ([p["Ann"].pk, p["Eve"].pk], "board_2"),
        ([p["Ann"].pk, p["Ann"].pk], "board_2"),
        ([p["Ann"].pk], "players"),
    ):
        bad = ann.post(
            url("club-match-order", league, match_id=match.pk), {"players": players}, format="json"
        )
        assert bad.status_code == 400
        assert field in bad.json()["errors"]
    # The captain cannot hand in the other team's order.
    other = ann.post(
        url("club-match-order", league, match_id=match.pk),
        {"team": away.pk, "players": [p["Eve"].pk, p["Fay"].pk]}, format="json",
    )  # fmt: skip
    assert other.status_code == 400
    assert other.json()["errors"]["team"] == [
        "You captain Riverside, not Hilltop: hand in your own team's board order."
    ]
    # Players cannot name captains; anonymous callers cannot hand in orders.
    assert (
        ann.post(
            url("team-captain", league, team_id=home.pk), {"player": p["Bob"].pk}, format="json"
        ).status_code
        == 403
    )
    assert anon.post(
        url("club-match-order", league, match_id=match.pk), {"players": []}, format="json"
    ).status_code in (401, 403)
    assert (
        org.post(
            url("team-captain", league, team_id=away.pk), {"player": p["Ann"].pk}, format="json"
        ).status_code
        == 400
    )
    assert (
        org.post(
            url("team-captain", league, team_id=9999), {"player": p["Ann"].pk}, format="json"
        ).status_code
        == 404
    )
    assert (
        org.post(
            url("team-captain", league, team_id=home.pk), {"player": "Ann"}, format="json"
        ).status_code
        == 400
    )
    assert Event.objects.count() == before
    assert not BoardOrder.objects.exists()


def test_season_settings_and_a_generated_round_robin(anon, org, league, organiser, setup):
    _home, _away, _p, _match, _users = setup
    clubs.create_team(league, name="Cedar", recorded_by=organiser)
    clubs.create_team(league, name="Dale", recorded_by=organiser)
    seasons.create_season(league, name="Autumn", start_date="2024-09-01", end_date="2024-12-31")
    made = org.post(
        url("club-season-list", league),
        {"season": "autumn", "boards": 6, "points_win": "3"},
        format="json",
    )
    assert made.status_code == 200, made.content
    assert made.json() == {"season": "autumn", "boards": 6, "match_points": [3.0, 1.0, 0.0]}
    assert anon.get(url("club-season-list", league)).json() == [made.json()]

    body = {"start": "2024-09-03", "interval_days": 7, "double": True, "preview": True}
    before = Event.objects.count()
    preview = org.post(url("club-match-generate", league), body, format="json")
    assert preview.status_code == 200, preview.content
    assert len(preview.json()) == 12
    assert {row["boards"] for row in preview.json()} == {6}
    assert Event.objects.count() == before
    body["preview"] = False
    done = org.post(
        url("club-match-generate", league), body, format="json", HTTP_IDEMPOTENCY_KEY="autumn-1"
    )
    assert done.status_code == 201, done.content
    assert len(done.json()) == 12
    assert {m["match_points"][0] for m in done.json()} == {3.0}
    count = Event.objects.count()
    again = org.post(
        url("club-match-generate", league), body, format="json", HTTP_IDEMPOTENCY_KEY="autumn-1"
    )
    assert again.status_code == 201
    assert [m["id"] for m in again.json()] == [m["id"] for m in done.json()]
    assert Event.objects.count() == count
    # Fixed now that matches are scheduled in it.
    fixed = org.post(
        url("club-season-list", league), {"season": "autumn", "boards": 8}, format="json"
    )
    assert fixed.status_code == 400
    assert "season" in fixed.json()["errors"]


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"start": "2024-09-03"}, "boards"),
        ({"start": "not a day", "boards": 4}, "start"),
        ({"start": "2024-09-03", "boards": 4, "interval_days": 0}, "interval_days"),
        ({"start": "2024-09-03", "boards": 4, "teams": [9999]}, "teams"),
        ({"start": "2024-09-03", "boards": 4, "double": "yes"}, "double"),
        ({"boards": 4}, "start"),
    ],
)
def test_bad_generator_bodies_name_the_field(org, league, setup, body, field):
    before = Event.objects.count()
    answer = org.post(url("club-match-generate", league), body, format="json")
    assert answer.status_code == 400
    assert field in answer.json()["errors"]
    assert Event.objects.count() == before
    assert ClubMatch.objects.count() == 1


def test_bad_season_bodies_and_strangers(org, client_for, league, setup):
    seasons.create_season(league, name="Autumn", start_date="2024-09-01", end_date="2024-12-31")
    for body, field in (
        ({"season": "nope", "boards": 4}, "season"),
        ({"season": "autumn", "boards": 0}, "boards"),
        ({"season": "autumn", "boards": 4, "points_win": "x"}, "points_win"),
    ):
        answer = org.post(url("club-season-list", league), body, format="json")
        assert answer.status_code == 400
        assert field in answer.json()["errors"]
    stranger = client_for("other_organiser")
    assert (
        stranger.post(
            url("club-season-list", league), {"season": "autumn", "boards": 4}, format="json"
        ).status_code
        == 403
    )
    assert (
        stranger.post(
            url("club-match-generate", league), {"start": "2024-09-03", "boards": 4}, format="json"
        ).status_code
        == 403
    )
    assert not ClubSeason.objects.exists()
    assert Team.objects.filter(captain__isnull=False).count() == 0
