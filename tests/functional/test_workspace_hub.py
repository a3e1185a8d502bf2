"""The organisers' hub: reachable from the public header, closed to everyone else."""

from __future__ import annotations

from django.urls import reverse

from ratings.workspace.sections import SECTIONS


def test_hub_lists_every_task_for_the_leagues_organiser(client, league, organiser):
    client.force_login(organiser)
    response = client.get(reverse("workspace:hub", args=[league.slug]))
    assert response.status_code == 200
    body = response.content.decode()
    assert len(SECTIONS) >= 2
    for section in SECTIONS:
        assert section.title in body
        assert reverse(section.url_name, args=[league.slug]) in body


def test_public_header_links_the_hub_for_a_signed_in_organiser(client, league, organiser):
    client.force_login(organiser)
    body = client.get(reverse("pages:league", args=[league.slug])).content.decode()
    assert reverse("workspace:hub", args=[league.slug]) in body


def test_anonymous_visitor_is_sent_to_sign_in(client, league):
    response = client.get(reverse("workspace:hub", args=[league.slug]))
    assert response.status_code == 302
    assert "login" in response["Location"]
    assert "next=" in response["Location"]


def test_another_leagues_organiser_is_refused(client, league, other_organiser):
    client.force_login(other_organiser)
    response = client.get(reverse("workspace:hub", args=[league.slug]))
    assert response.status_code == 403


def test_unknown_league_is_not_found(client, organiser):
    client.force_login(organiser)
    assert client.get(reverse("workspace:hub", args=["no-such-league"])).status_code == 404
