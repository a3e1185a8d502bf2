"""Who organises which league (``League.objects.organised_by``), asked by the admin, services
and pages."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser

from league.models import League


def test_an_organiser_organises_their_own_leagues_only(league, other_league, organiser):
    assert list(League.objects.organised_by(organiser)) == [league]
    assert league.is_organiser(organiser)
    assert not other_league.is_organiser(organiser)


def test_a_superuser_organises_every_league(league, other_league, superuser):
    assert set(League.objects.organised_by(superuser)) == {league, other_league}
    assert other_league.is_organiser(superuser)


def test_anonymous_and_inactive_users_organise_nothing(league, organiser):
    assert not League.objects.organised_by(AnonymousUser()).exists()
    assert not league.is_organiser(AnonymousUser())
    assert not league.is_organiser(None)
    organiser.is_active = False
    organiser.save()
    assert not League.objects.organised_by(organiser).exists()
    assert not league.is_organiser(organiser)


def test_a_user_listed_nowhere_organises_nothing(league):
    nobody = get_user_model().objects.create_user("nobody", password="pw-nobody-1")
    assert not League.objects.organised_by(nobody).exists()
    assert not league.is_organiser(nobody)


def test_an_unsaved_league_has_no_organisers(organiser):
    assert not League(name="Draft", slug="draft").is_organiser(organiser)
