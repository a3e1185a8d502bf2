"""Shared fixtures: users, leagues and players.

Tests marked ``postgres`` need PostgreSQL; on the embedded default they are deselected
(reported as such), and CI's PostgreSQL pass runs them. Tests marked ``sqlite`` are the
mirror image. Nothing is skipped: a test either runs or is visibly deselected.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.db import connection

from league import services
from league.models import League, Player


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    other = "sqlite" if connection.vendor == "postgresql" else "postgres"
    selected, deselected = [], []
    for item in items:
        (deselected if item.get_closest_marker(other) else selected).append(item)
    if deselected:
        config.hook.pytest_deselected(items=deselected)
        items[:] = selected


@pytest.fixture
def organiser(db):
    return get_user_model().objects.create_user("organiser", password="pw-organiser-1")


@pytest.fixture
def other_organiser(db):
    return get_user_model().objects.create_user("other", password="pw-other-1")


@pytest.fixture
def superuser(db):
    return get_user_model().objects.create_superuser("root", password="pw-root-1")


@pytest.fixture
def league(db, organiser) -> League:
    league = League.objects.create(
        name="Riverside Chess Club",
        slug="riverside",
        sport="Chess",
        time_zone="Europe/London",
        start_date=dt.date(2024, 1, 1),
    )
    league.organisers.add(organiser)
    return league


@pytest.fixture
def other_league(db, other_organiser) -> League:
    league = League.objects.create(
        name="Hilltop Table Tennis",
        slug="hilltop",
        sport="Table tennis",
        start_date=dt.date(2024, 1, 1),
    )
    league.organisers.add(other_organiser)
    return league


@pytest.fixture
def make_player(db):
    """Players made as in production: registered (and deactivated) through the services."""

    def make(league: League, name: str, *, active: bool = True) -> Player:
        player = services.register_player(league, name)
        if not active:
            services.deactivate_player(
                league, player, reason="inactive from the start", recorded_by=None
            )
        return player

    return make
