"""The pages of captains and club-match set-up: the organiser names a captain; the captain,
signed in, reaches "My team" from "My games" and hands in the order for an open match
(bad orders come back naming the board, nothing written; another team's match and a
recorded one are refused); a player who captains nothing is told so; the organiser sets
a season's boards and match points and generates a round robin after a preview."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.urls import reverse

from league import seasons
from league.models import BoardOrder, ClubMatch, ClubSeason, Event, Team
from league.player_accounts import claim_player
from ratings import club_matches as clubs


def url(name, league, *args):
    return reverse(f"workspace:{name}", args=[league.slug, *args])


@pytest.fixture
def setup(league, make_player, organiser):
    home = clubs.create_team(league, name="Riverside", recorded_by=organiser)
    away = clubs.create_team(league, name="Hilltop", recorded_by=organiser)
    p = {}
    for team, names in ((home, ("Ann", "Bob", "Cem")), (away, ("Eve", "Fay", "Gus"))):
        for name in names:
            p[name] = make_player(league, name)
            clubs.add_to_roster(league, team, p[name], recorded_by=organiser)
    match = clubs.schedule_club_match(
        league, home=home, away=away, boards=3, scheduled_at="2024-04-02", recorded_by=organiser
    )
    users = {}
    for name in ("Ann", "Bob"):
        users[name] = get_user_model().objects.create_user(name.lower(), password="pw-x-12345")
        claim_player(p[name], users[name], by=organiser)
    return home, away, p, match, users


def test_organiser_names_a_captain_who_hands_in_the_order(client, league, organiser, setup):
    home, _away, p, match, users = setup
    client.force_login(organiser)
    named = client.post(
        url("clubs", league), {"action": "captain", "team": home.pk, "player": p["Ann"].pk}
    )
    assert named.status_code == 302
    assert Team.objects.get(pk=home.pk).captain == p["Ann"]
    page = client.get(url("clubs", league)).content.decode()
    assert "captain: Ann" in page
    refused = client.post(
        url("clubs", league), {"action": "captain", "team": home.pk, "player": p["Eve"].pk}
    )
    assert refused.status_code == 200
    assert refused.context["field_errors"]["id_captain_player"] == [
        "Eve is not on Riverside's roster: a captain is one of its players."
    ]

    client.force_login(users["Ann"])
    games = client.get(url("my_games", league)).content.decode()
    assert url("my_team", league) in games
    page = client.get(url("my_team", league))
    assert page.status_code == 200
    assert f'id="order-m{match.pk}"' in page.content.decode()
    before = Event.objects.count()
    bad = client.post(
        url("my_team", league),
        {"match": match.pk, "board_1": p["Ann"].pk, "board_2": p["Eve"].pk, "board_3": p["Ann"].pk},
    )
    assert bad.status_code == 200
    errors = bad.context["field_errors"]
    assert errors[f"id_m{match.pk}_board_2"] == ["Board 2: Eve plays for Hilltop, not Riverside."]
    assert errors[f"id_m{match.pk}_board_3"] == ["Board 3: Ann is already on board 1."]
    assert 'aria-invalid="true"' in bad.content.decode()
    assert Event.objects.count() == before
    sent = client.post(
        url("my_team", league),
        {"match": match.pk, "board_1": p["Cem"].pk, "board_2": p["Ann"].pk, "board_3": p["Bob"].pk,
         "idempotency_key": "k1"},
    )  # fmt: skip
    assert sent.status_code == 302
    order = BoardOrder.objects.get(club_match=match, team=home)
    assert (order.players, order.submitted_by) == (
        [p["Cem"].pk, p["Ann"].pk, p["Bob"].pk],
        "captain",
    )
    # The organiser's match page says who handed it in.
    client.force_login(organiser)
    assert (
        'id="home-by-captain"' in client.get(url("club_match", league, match.pk)).content.decode()
    )


def test_captains_cannot_touch_other_matches_or_recorded_ones(
    client, league, organiser, setup, make_player
):
    home, away, p, match, users = setup
    clubs.set_captain(league, home, p["Ann"], recorded_by=organiser)
    third = clubs.create_team(league, name="Cedar", recorded_by=organiser)
    for name in ("Hal", "Ivy", "Jo"):
        clubs.add_to_roster(league, third, make_player(league, name), recorded_by=organiser)
    elsewhere = clubs.schedule_club_match(
        league, home=away, away=third, boards=3, scheduled_at="2024-04-09", recorded_by=organiser
    )
    client.force_login(users["Ann"])
    page = client.get(url("my_team", league)).content.decode()
    assert f'id="order-m{elsewhere.pk}"' not in page
    before = Event.objects.count()
    other = client.post(
        url("my_team", league),
        {
            "match": elsewhere.pk,
            "board_1": p["Ann"].pk,
            "board_2": p["Bob"].pk,
            "board_3": p["Cem"].pk,
        },
    )
    assert other.status_code == 200
    assert any(
        "Riverside does not play Hilltop v Cedar." in text
        for text, _id in other.context["form_errors"]
    )
    junk = client.post(url("my_team", league), {"match": "x'; drop", "board_1": "1"})
    assert junk.status_code == 200
    assert junk.context["form_errors"]
    clubs.record_club_match(
        league,
        match,
        results=["1-0", "1-0", "1-0"],
        played_at="2024-04-02",
        recorded_by=organiser,
        reader=lambda lg, ids: dict.fromkeys(ids),
    )
    before = Event.objects.count()
    late = client.post(
        url("my_team", league),
        {"match": match.pk, "board_1": p["Ann"].pk, "board_2": p["Bob"].pk, "board_3": p["Cem"].pk},
    )
    assert late.status_code == 200
    assert any("recorded already" in text for text, _id in late.context["form_errors"])
    assert Event.objects.count() == before
    assert "no club match waiting" in late.content.decode()


def test_a_player_who_captains_nothing_is_told_so(client, league, setup):
    _home, _away, p, match, users = setup
    client.force_login(users["Bob"])
    games = client.get(url("my_games", league)).content.decode()
    assert url("my_team", league) not in games
    page = client.get(url("my_team", league))
    assert page.status_code == 200
    assert 'id="not-captain"' in page.content.decode()
    before = Event.objects.count()
    refused = client.post(url("my_team", league), {"match": match.pk, "board_1": p["Bob"].pk})
    assert refused.status_code == 200
    assert Event.objects.count() == before
    client.logout()
    assert client.get(url("my_team", league)).status_code == 302


def test_season_settings_and_a_generated_round_robin_with_a_preview(
    client, league, organiser, setup
):
    client.force_login(organiser)
    seasons.create_season(league, name="Autumn", start_date="2024-09-01", end_date="2024-12-31")
    bad = client.post(url("clubs", league), {"action": "season", "season": "autumn", "boards": "0"})
    assert bad.status_code == 200
    assert "id_season_boards" in bad.context["field_errors"]
    done = client.post(
        url("clubs", league),
        {"action": "season", "season": "autumn", "boards": "4", "points_win": "2",
         "points_draw": "1", "points_loss": "0"},
    )  # fmt: skip
    assert done.status_code == 302
    assert ClubSeason.objects.get(season__slug="autumn").boards == 4

    gen = url("club_fixtures", league)
    assert client.get(gen).status_code == 200
    before = Event.objects.count()
    refused = client.post(gen, {"action": "preview", "start": "", "interval_days": "7"})
    assert refused.status_code == 200
    assert "id_start" in refused.context["field_errors"]
    form = {
        "action": "preview", "start": "2024-09-03", "interval_days": "7", "double": "on",
        "teams": [t.pk for t in Team.objects.filter(league=league)], "idempotency_key": "g1",
    }  # fmt: skip
    preview = client.post(gen, form)
    assert preview.status_code == 200
    body = preview.content.decode()
    assert 'id="club-fixture-preview"' in body
    assert 'id="confirm-generate"' in body
    assert sum(len(ms) for _n, ms in preview.context["rounds"]) == 2
    assert Event.objects.count() == before
    form["action"] = "generate"
    made = client.post(gen, form)
    assert made.status_code == 302
    generated = ClubMatch.objects.filter(scheduled_at__date__gte="2024-09-01")
    assert generated.count() == 2
    assert {m.boards for m in generated} == {4}
    assert {(m.home.name, m.away.name) for m in generated} == {
        ("Hilltop", "Riverside"),
        ("Riverside", "Hilltop"),
    }


def test_unticking_every_team_is_refused_and_one_board_is_singular(
    client, league, organiser, setup
):
    client.force_login(organiser)
    season = seasons.create_season(
        league, name="2024", start_date="2024-09-01", end_date="2024-12-31"
    )
    # The form posts the season's address, here all digits.
    done = client.post(
        url("clubs", league),
        {"action": "season", "season": season.slug, "boards": "1", "points_win": "2",
         "points_draw": "1", "points_loss": "0"},
    )  # fmt: skip
    assert done.status_code == 302
    assert ClubSeason.objects.get(season=season).boards == 1
    assert "2024: 1 board, 2 / 1 / 0" in client.get(url("clubs", league)).content.decode()
    gen = url("club_fixtures", league)
    assert "2024: 1 board, 2 / 1 / 0" in client.get(gen).content.decode()
    before = Event.objects.count()
    refused = client.post(gen, {"action": "generate", "start": "2024-09-03", "interval_days": "7"})
    assert refused.status_code == 200
    assert refused.context["field_errors"]["id_teams"] == [
        "A round robin needs at least two teams; 0 given."
    ]
    assert Event.objects.count() == before
