"""Who organises which league (``league.scope``), asked by the admin, services and pages."""

from __future__ import annotations

from django.contrib.auth import get_user_model
from django.contrib.auth.models import AnonymousUser

from league.scope import is_organiser, organised_leagues


def test_an_organiser_organises_their_own_leagues_only(league, other_league, organiser):
    assert list(organised_leagues(organiser)) == [league]
    assert is_organiser(organiser, league)
    assert not is_organiser(organiser, other_league)
    assert league.is_organiser(organiser)
    assert not other_league.is_organiser(organiser)


def test_a_superuser_organises_every_league(league, other_league, superuser):
    assert set(organised_leagues(superuser)) == {league, other_league}
    assert is_organiser(superuser, other_league)


def test_anonymous_and_inactive_users_organise_nothing(league, organiser):
    assert not organised_leagues(AnonymousUser()).exists()
    assert not is_organiser(AnonymousUser(), league)
    assert not is_organiser(None, league)
    organiser.is_active = False
    organiser.save()
    assert not organised_leagues(organiser).exists()
    assert not league.is_organiser(organiser)


def test_a_user_listed_nowhere_organises_nothing(league):
    nobody = get_user_model().objects.create_user("nobody", password="pw-nobody-1")
    assert not organised_leagues(nobody).exists()
    assert not is_organiser(nobody, league)
