"""Forbidden pairings and full-point byes from the organiser's event page and the API: set,
shown on the event pages, refused with a clear message (a pair already forbidden, a player
not in the event, a bye for a round already paired), and a forbidden pair kept apart by the
club generator of other sports as an absolute rule."""

from __future__ import annotations

import datetime as dt
import io

import pytest
from django.core.exceptions import ValidationError
from django.core.management import call_command
from django.urls import reverse
from rest_framework.test import APIClient

from league import competitions, services
from league.competition_pairing import propose_round
from league.models import Competition, Event, League, Player, RoundBye
from tests.api.support import token_client

pytestmark = pytest.mark.django_db

NAMES = ["Ann Able", "Bob Baker", "Cem Cole", "Dee Dunn"]


@pytest.fixture
def swiss(league, organiser) -> tuple[Competition, list[Player]]:
    event = competitions.create_competition(
        league, name="Club Swiss", planned_rounds=3, recorded_by=organiser
    )
    players = [services.register_player(league, name) for name in NAMES]
    for rating, player in zip((2100, 2000, 1900, 1800), players, strict=True):
        competitions.enter_player(event, player, seed_rating=rating, recorded_by=organiser)
    return event, players


def flashed(response) -> list[str]:
    return [str(message) for message in response.context["messages"]]


def test_the_event_page_forbids_a_pairing_and_shows_it(client, league, organiser, swiss):
    event, (ann, _bob, _cem, dee) = swiss
    client.force_login(organiser)
    url = reverse("workspace:competition", args=[league.slug, event.slug])
    page = client.get(url).text
    assert 'id="forbid-form"' in page
    forbid = reverse("workspace:competition_forbid", args=[league.slug, event.slug])
    response = client.post(
        forbid,
        {"players": [ann.pk, dee.pk], "first_round": "1", "last_round": "3", "reason": "family"},
        follow=True,
    )
    assert "Ann Able, Dee Dunn will not be paired together in rounds 1 to 3." in flashed(response)
    assert competitions.forbidden_pairs(event) == (((ann.pk, dee.pk), 1, 3),)
    assert "Ann Able, Dee Dunn" in response.text
    assert "not paired together in rounds 1 to 3" in response.text
    public = client.get(reverse("pages:competition", args=[league.slug, event.slug])).text
    assert "Forbidden pairings" in public
    assert "Ann Able, Dee Dunn" in public

    # The same pair again, over rounds it already covers: refused, nothing stored.
    before = Event.objects.count()
    again = client.post(forbid, {"players": [dee.pk, ann.pk], "first_round": "2"}, follow=True)
    assert any("already kept apart in rounds 2 to 3" in m for m in flashed(again))
    assert Event.objects.count() == before
    # A player of the league who is not in the event.
    outsider = services.register_player(league, "Out Sider")
    before = Event.objects.count()
    refused = client.post(forbid, {"players": [ann.pk, outsider.pk]}, follow=True)
    assert any("players: Out Sider is not entered in Club Swiss." in m for m in flashed(refused))
    assert Event.objects.count() == before


def test_the_event_page_records_a_full_point_bye_and_refuses_one_for_a_paired_round(
    client, league, organiser, swiss
):
    event, (ann, *_rest) = swiss
    client.force_login(organiser)
    page = client.get(reverse("workspace:competition", args=[league.slug, event.slug])).text
    assert 'value="requested_full"' in page
    bye = reverse("workspace:competition_bye", args=[league.slug, event.slug])
    response = client.post(
        bye, {"player": ann.pk, "round_number": "2", "kind": "requested_full"}, follow=True
    )
    assert any("Ann Able" in m and "round 2" in m for m in flashed(response))
    stored = RoundBye.objects.get(competition=event, player=ann)
    assert (stored.kind, stored.points, stored.round_number) == ("requested_full", 1, 2)
    assert "Byes for rounds not yet paired" in response.text
    call_command("pair_round", league.slug, event.slug, stdout=io.StringIO())
    before = Event.objects.count()
    late = client.post(
        bye, {"player": ann.pk, "round_number": "1", "kind": "requested_full"}, follow=True
    )
    assert any(
        m == "round_number: Round 1 is already paired: a bye must be requested before its round is "
        "paired."
        for m in flashed(late)
    )
    assert Event.objects.count() == before


def test_the_api_forbids_pairings_and_records_full_point_byes(league, organiser, swiss):
    event, (ann, bob, cem, _dee) = swiss
    api = token_client(organiser)
    base = f"/api/leagues/{league.slug}/competitions/{event.slug}"
    created = api.post(
        f"{base}/forbidden-pairings/",
        {"players": [ann.pk, bob.pk], "first_round": 1, "last_round": 2},
        format="json",
    )
    assert created.status_code == 201, created.content
    assert created.json() == {"players": [ann.pk, bob.pk], "first_round": 1, "last_round": 2}
    before = Event.objects.count()
    duplicate = api.post(
        f"{base}/forbidden-pairings/", {"players": [bob.pk, ann.pk], "last_round": 1}, format="json"
    )
    assert duplicate.status_code in (400, 422)
    assert "already kept apart" in duplicate.content.decode()
    assert Event.objects.count() == before
    outsider = services.register_player(league, "Out Sider")
    before = Event.objects.count()
    stranger = api.post(
        f"{base}/forbidden-pairings/", {"players": [ann.pk, outsider.pk]}, format="json"
    )
    assert stranger.status_code in (400, 422)
    assert "is not entered" in stranger.content.decode()
    assert Event.objects.count() == before
    anon = APIClient()
    listed = anon.get(f"{base}/forbidden-pairings/")
    assert listed.json() == [{"players": [ann.pk, bob.pk], "first_round": 1, "last_round": 2}]
    assert anon.post(f"{base}/forbidden-pairings/", {"players": [ann.pk, cem.pk]}).status_code in (
        401,
        403,
    )

    full = api.post(
        f"{base}/byes/", {"player": cem.pk, "round": 1, "kind": "requested_full"}, format="json"
    )
    assert full.status_code == 201, full.content
    assert full.json() == {"player": cem.pk, "kind": "requested_full", "points": 1.0}


@pytest.fixture
def go_league(organiser) -> League:
    league = League.objects.create(
        name="Go Club", slug="go", sport="Go", start_date=dt.date(2024, 1, 1)
    )
    league.organisers.add(organiser)
    return league


def test_the_club_generator_never_makes_a_forbidden_pairing(go_league, organiser):
    """Four players who have met A-B, C-D, A-C, B-D: the only new pairing is A-D with B-C.
    With A-D forbidden, the club generator repeats two games rather than pair A with D (as a
    rematch, it would have been the cheapest)."""
    event = competitions.create_competition(go_league, name="Go Swiss", planned_rounds=3)
    players = [services.register_player(go_league, name) for name in "ABCD"]
    a, b, c, d = players
    for rating, player in zip((2100, 2000, 1900, 1800), players, strict=True):
        competitions.enter_player(event, player, seed_rating=rating)
    for number, games in ((1, [(a, b), (c, d)]), (2, [(a, c), (b, d)])):
        published = competitions.publish_round(event, number, games)
        for fixture in published.fixtures:
            services.record_fixture_result(go_league, fixture, score_a=1)
    competitions.forbid_pairing(event, [a, d], first_round=3, recorded_by=organiser)
    proposed = {frozenset(pair) for pair in propose_round(event).pairings}
    assert frozenset((a.pk, d.pk)) not in proposed
    assert len(proposed) == 2


def test_the_club_generator_says_when_no_pairing_avoids_a_forbidden_pair(go_league, organiser):
    event = competitions.create_competition(go_league, name="Duel", planned_rounds=1)
    ann, bob = (services.register_player(go_league, name) for name in NAMES[:2])
    for player in (ann, bob):
        competitions.enter_player(event, player)
    competitions.forbid_pairing(event, [ann, bob], recorded_by=organiser)
    with pytest.raises(ValidationError, match="keeps every forbidden pair apart"):
        propose_round(event)
