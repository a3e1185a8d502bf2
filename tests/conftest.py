"""Shared fixtures: users, leagues and players.

Tests marked ``postgres`` need PostgreSQL; on the embedded default they are deselected
(reported as such), and CI's PostgreSQL pass runs them. Tests marked ``sqlite`` are the
mirror image. Nothing is skipped: a test either runs or is visibly deselected.
"""

from __future__ import annotations

import datetime as dt
import os

import pytest
from django.contrib.auth import get_user_model
from django.db import connection
from hypothesis import settings as hypothesis_settings

from league import services
from league.models import League, Player

# Hypothesis: "ci" (the default) is derandomised, so every run of the suite tries the same
# examples; "random" draws new ones on every run (bin/test runs the property tests once more
# with it). Neither saves failing examples to a local database, so a failure found once is
# not replayed by every later run in that checkout; it prints how to reproduce it instead.
hypothesis_settings.register_profile(
    "ci", derandomize=True, max_examples=100, database=None, print_blob=True
)
hypothesis_settings.register_profile("random", database=None, print_blob=True)
hypothesis_settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


@pytest.fixture(autouse=True)
def _site_language_after_each_test():
    """Each test starts in the site's language: a request answered in German leaves German
    active in its thread (``LocaleMiddleware`` activates and never deactivates), and the
    next test's code outside a request would read it."""
    yield
    from django.utils import translation

    translation.deactivate()


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
