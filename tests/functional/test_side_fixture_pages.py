"""Fixtures with sides on the workspace and the public pages: schedule one, a round robin of
fixed sides (preview, publish), the result recorded from the fixture with its sides filled
in, refusals that change nothing, and the public list and calendar."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse

from league import fixtures as fixture_services
from league import services
from league.models import Event, Fixture, FixtureSide, MatchFormat
from web.workspace.dates import league_today


@pytest.fixture
def signed_in(client, organiser):
    client.force_login(organiser)
    return client


@pytest.fixture
def doubles(league):
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    names = ("Ana", "Ben", "Cai", "Dee", "Eve", "Fay")
    return league, {name: services.register_player(league, name) for name in names}


def url(name, league, *args):
    return reverse(f"workspace:{name}", args=[league.slug, *args])


def _when(league, days=1):
    return f"{(league_today(league) + dt.timedelta(days=days)).isoformat()}T19:00"


def _schedule_data(league, **fields):
    return {
        "action": "schedule",
        "side_0_0": "Ana",
        "side_0_1": "Ben",
        "side_1_0": "Cai",
        "side_1_1": "Dee",
        "scheduled_at": _when(league),
        "deadline": "",
        "venue": "Court 2",
        "label": "Doubles night",
        "idempotency_key": "side-fixture-1",
        **fields,
    }


def test_an_organiser_schedules_a_doubles_fixture_and_sees_it_everywhere(
    signed_in, client, doubles
):
    league, players = doubles
    fixtures_page = signed_in.get(url("fixtures", league)).content.decode()
    assert url("side_fixtures", league) in fixtures_page
    response = signed_in.post(url("side_fixtures", league), _schedule_data(league))
    assert response.status_code == 302, response.content.decode()[:2000]
    fixture = Fixture.objects.get()
    assert fixture_services.fixture_sides(fixture) == [
        [players["Ana"].pk, players["Ben"].pk],
        [players["Cai"].pk, players["Dee"].pk],
    ]
    workspace = signed_in.get(url("fixtures", league)).content.decode()
    assert "Ana &amp; Ben v Cai &amp; Dee" in workspace
    assert f"{url('team_match', league)}?fixture={fixture.pk}" in workspace
    public = client.get(reverse("pages:fixtures", args=[league.slug])).content.decode()
    for name in ("Ana", "Ben", "Cai", "Dee"):
        assert f'/{players[name].slug}/"' in public or players[name].slug in public
    assert "Ana &amp; Ben wins" in public  # the team-sum forecast, by side
    calendar = client.get(reverse("pages:fixtures_ics", args=[league.slug])).content.decode()
    assert "SUMMARY:Ana & Ben v Cai & Dee (Doubles night)" in calendar


@pytest.mark.parametrize(
    ("fields", "field", "text"),
    [
        ({"side_1_0": "Ana"}, "sides", "on side A and side B"),
        ({"side_1_1": "Nobody"}, "side_1_1", "has no player named"),
        ({"side_1_1": ""}, "sides", "accepts sides of 2 players each"),
    ],
)
def test_bad_side_fixtures_are_refused_naming_the_field(signed_in, doubles, fields, field, text):
    league, _players = doubles
    before = Event.objects.count()
    response = signed_in.post(url("side_fixtures", league), _schedule_data(league, **fields))
    assert response.status_code == 200
    body = response.content.decode()
    assert text in body
    assert 'role="alert"' in body
    assert not Fixture.objects.exists()
    assert Event.objects.count() == before


def test_an_inactive_player_is_refused(signed_in, doubles):
    league, players = doubles
    services.deactivate_player(league, players["Dee"], reason="moved", recorded_by=None)
    response = signed_in.post(url("side_fixtures", league), _schedule_data(league))
    assert "Dee is inactive" in response.content.decode()
    assert not Fixture.objects.exists()


def test_a_round_robin_of_fixed_sides_is_previewed_then_published(signed_in, doubles):
    league, _players = doubles
    data = {
        "robin-teams": "Ana, Ben\nCai & Dee\nEve, Fay",
        "robin-series": "Pairs",
        "robin-start": _when(league),
        "robin-days_between": "7",
        "robin-deadline_days": "2",
        "robin-venue": "",
        "publish_key": "robin-1",
    }
    preview = signed_in.post(url("side_fixtures", league), {**data, "action": "preview"})
    body = preview.content.decode()
    assert preview.status_code == 200
    assert not Fixture.objects.exists()
    # Three sides: three rounds of one fixture, one side sitting out each round.
    assert body.count("Sits out:") == 3
    assert "Pairs · round 3" in body
    published = signed_in.post(url("side_fixtures", league), {**data, "action": "publish"})
    assert published.status_code == 302
    assert Fixture.objects.count() == 3
    assert FixtureSide.objects.count() == 12
    pairs = {
        frozenset(frozenset(side) for side in fixture_services.fixture_sides(f))
        for f in Fixture.objects.all()
    }
    assert len(pairs) == 3  # every pair of sides meets once
    # Publishing again (a resent form) stores nothing new.
    signed_in.post(url("side_fixtures", league), {**data, "action": "publish"})
    assert Fixture.objects.count() == 3


@pytest.mark.parametrize(
    ("teams", "text"),
    [
        ("Ana, Ben\nBen, Cai", "Ben is already on line 1"),
        ("Ana, Ben, Cai\nDee, Eve, Fay", "accepts sides of 2 players each"),
        ("Ana, Ben", "Give 2 to 20 sides"),
        ("Ana, Ben\nCai, Zed", "has no player named"),
    ],
)
def test_a_bad_round_robin_of_sides_names_the_line_and_stores_nothing(
    signed_in, doubles, teams, text
):
    league, _players = doubles
    data = {
        "action": "publish",
        "robin-teams": teams,
        "robin-series": "Pairs",
        "robin-start": _when(league),
        "robin-days_between": "7",
        "robin-deadline_days": "0",
        "publish_key": "robin-bad",
    }
    response = signed_in.post(url("side_fixtures", league), data)
    assert response.status_code == 200
    assert text in response.content.decode()
    assert not Fixture.objects.exists()


def test_the_record_link_prefills_the_sides_and_plays_the_fixture(signed_in, doubles):
    league, players = doubles
    fixture = fixture_services.schedule_fixture(
        league,
        sides=[[players["Ana"], players["Ben"]], [players["Cai"], players["Dee"]]],
        scheduled_at=dt.datetime.combine(league_today(league), dt.time(0)),
    )
    page = signed_in.get(f"{url('team_match', league)}?fixture={fixture.pk}").content.decode()
    for slot, name in (("side_0_0", "Ana"), ("side_0_1", "Ben"), ("side_1_1", "Dee")):
        assert f'name="{slot}"' in page
        assert f'value="{name}"' in page
    assert f'name="fixture" value="{fixture.pk}"' in page
    response = signed_in.post(
        url("team_match", league),
        {
            "fixture": str(fixture.pk),
            "side_0_0": "Ana",
            "side_0_1": "Ben",
            "side_1_0": "Cai",
            "side_1_1": "Dee",
            "score": "21-15",
            "played_on": league_today(league).isoformat(),
            "note": "",
            "idempotency_key": "from-fixture",
            "confirmed": "",
        },
    )
    assert response.status_code == 302, response.content.decode()[:3000]
    match = Event.objects.get(kind=Event.Kind.SIDE_MATCH_RECORDED)
    assert match.fixture_id == fixture.pk
    workspace = signed_in.get(url("fixtures", league)).content.decode()
    assert "No fixtures to be played." in workspace


def test_other_sides_for_the_fixture_are_refused_above_the_form(signed_in, doubles):
    league, players = doubles
    fixture = fixture_services.schedule_fixture(
        league,
        sides=[[players["Ana"], players["Ben"]], [players["Cai"], players["Dee"]]],
        scheduled_at=dt.datetime.combine(league_today(league), dt.time(0)),
    )
    response = signed_in.post(
        url("team_match", league),
        {
            "fixture": str(fixture.pk),
            "side_0_0": "Ana",
            "side_0_1": "Eve",
            "side_1_0": "Cai",
            "side_1_1": "Dee",
            "score": "21-15",
            "played_on": league_today(league).isoformat(),
            "idempotency_key": "other-sides",
            "confirmed": "",
        },
    )
    assert response.status_code == 200
    assert "record its result with those sides" in response.content.decode()
    assert not Event.objects.filter(kind=Event.Kind.SIDE_MATCH_RECORDED).exists()


def test_a_fixture_of_another_league_is_a_404(signed_in, doubles, other_league, make_player):
    league, _players = doubles
    a, b = make_player(other_league, "Xan"), make_player(other_league, "Yul")
    other = fixture_services.schedule_fixture(
        other_league, player_a=a, player_b=b, scheduled_at=_when(other_league)
    )
    response = signed_in.get(f"{url('team_match', league)}?fixture={other.pk}")
    assert response.status_code == 404


def test_the_inline_score_box_plays_a_two_side_fixture_and_cancel_names_its_sides(
    signed_in, doubles
):
    league, players = doubles
    played = fixture_services.schedule_fixture(
        league,
        sides=[[players["Ana"], players["Ben"]], [players["Cai"], players["Dee"]]],
        scheduled_at=dt.datetime.combine(league_today(league), dt.time(0)),
    )
    dropped = fixture_services.schedule_fixture(
        league,
        sides=[[players["Ana"], players["Eve"]], [players["Cai"], players["Fay"]]],
        scheduled_at=_when(league),
    )
    response = signed_in.post(
        url("fixture_result", league, played.pk), {"score": "15-21", "idempotency_key": "in-1"}
    )
    assert response.status_code == 302
    match = Event.objects.get(kind=Event.Kind.SIDE_MATCH_RECORDED)
    assert (match.fixture_id, match.score_a) == (played.pk, Decimal("0"))
    cancelled = signed_in.post(
        url("fixture_cancel", league, dropped.pk), {"reason": "rain"}, follow=True
    )
    assert "Cancelled Ana &amp; Eve v Cai &amp; Fay." in cancelled.content.decode()
