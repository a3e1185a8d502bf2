"""Fixtures for the API tests: clients per role, players, a league with published standings."""

from __future__ import annotations

import datetime as dt

import pytest
from rest_framework.test import APIClient

from league import services as league_services
from league.models import Event, League, Player
from ratings import services as rating_services
from ratings.models import Publication
from tests.api.support import token_client
from tests.functional.conftest import rank_everyone


@pytest.fixture
def anon() -> APIClient:
    return APIClient()


@pytest.fixture
def client_for(organiser, other_organiser, superuser):
    """``client_for(role)``: a token client for one of ``ROLES`` (anonymous: no token)."""
    users = {"organiser": organiser, "other_organiser": other_organiser, "superuser": superuser}

    def make(role: str) -> APIClient:
        return APIClient() if role == "anonymous" else token_client(users[role])

    return make


@pytest.fixture
def org(organiser) -> APIClient:
    """A token client for an organiser of ``league``."""
    return token_client(organiser)


@pytest.fixture
def players(league) -> list[Player]:
    """Ann, Bob, Cat and Dan, registered in ``league`` through the write service."""
    return [league_services.register_player(league, name) for name in ("Ann", "Bob", "Cat", "Dan")]


@pytest.fixture
def stranger(other_league) -> Player:
    """A player of ``other_league``."""
    return league_services.register_player(other_league, "Stranger")


def record(league: League, a: Player, b: Player, score: str, day: dt.date, **extra) -> Event:
    return league_services.record_match(
        league, player_a=a, player_b=b, score_a=score, played_at=day, **extra
    )


@pytest.fixture
def matches(league, players, organiser) -> list[Event]:
    """Five results in January 2024 (recorded by ``organiser``), the last one voided."""
    ann, bob, cat, dan = players
    day = dt.date(2024, 1, 2)
    events = [
        record(league, ann, bob, "1", day, recorded_by=organiser),
        record(league, ann, cat, "0.5", day, recorded_by=organiser),
        record(league, bob, cat, "0", day + dt.timedelta(days=8), recorded_by=organiser),
        record(league, ann, bob, "1", day + dt.timedelta(days=15), recorded_by=organiser),
        record(league, cat, dan, "1", day + dt.timedelta(days=16), recorded_by=organiser),
    ]
    league_services.void_match(league, events[-1], reason="Wrong board", recorded_by=organiser)
    return events


@pytest.fixture
def rated(league, matches, organiser, django_capture_on_commit_callbacks) -> League:
    """``league`` with a configuration (weekly periods) whose replay ran and was published.

    Its rules rank every rated player (its four players are all provisional under the
    defaults); the default rules are tested in ``test_standings_eligibility.py``.
    """
    rank_everyone(league)
    with django_capture_on_commit_callbacks(execute=True):
        rating_services.create_config(
            league,
            created_by=organiser,
            period_unit="days",
            period_length=7,
            period_anchor=dt.date(2024, 1, 1),
        )
    assert Publication.objects.filter(league=league).exists(), "the replay did not publish"
    return league
