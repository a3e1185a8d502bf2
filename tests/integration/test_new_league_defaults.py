"""A new league's first configuration: instant updates and a volatility of 0.10 a week,
scaled to another period length (its fourth root) (docs/intervals.md)."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from ratings import services as rating_services
from ratings.models import RatingConfig

pytestmark = pytest.mark.django_db


def test_a_first_version_has_instant_updates_and_volatility_point_one(league):
    config = rating_services.create_config(league)
    assert (config.update_mode, config.initial_volatility) == ("instant", 0.1)
    assert (config.period_unit, config.period_length) == ("days", 7)


@pytest.mark.parametrize(
    ("period", "volatility"),
    [
        ({"period_length": 1}, 0.0615),
        ({"period_length": 28}, 0.1414),
        ({"period_unit": "months", "period_length": 1}, 0.1444),
    ],
)
def test_a_first_version_of_another_period_length_scales_the_volatility(league, period, volatility):
    config = rating_services.create_config(league, **period)
    assert config.initial_volatility == pytest.approx(volatility, abs=1e-9)


def test_a_volatility_given_is_kept_and_a_later_version_inherits_it(league):
    first = rating_services.create_config(league, period_length=1, initial_volatility=0.06)
    assert first.initial_volatility == 0.06
    # A later version changes only what it is given: the period, not the volatility.
    later = rating_services.create_config(league, period_length=14)
    assert (later.initial_volatility, later.update_mode) == (0.06, "instant")


def test_create_league_without_parameters_uses_the_new_defaults():
    call_command(
        "create_league",
        "chess-club",
        "--name", "Chess Club",
        "--start-date", "2024-01-01",
        "--period-days", "14",
        stdout=io.StringIO(),
    )  # fmt: skip
    config = RatingConfig.objects.get(league__slug="chess-club")
    assert config.update_mode == "instant"
    assert config.initial_volatility == pytest.approx(0.1189, abs=1e-9)
