"""The event log's days and moments follow the page's language inside its translated
sentences (``league.calendar.page_day_text`` / ``page_moment_text``); English keeps the
one way the site writes them ("5 Mar 2030, 19:00")."""

from __future__ import annotations

import datetime as dt

import pytest
from django.utils import translation

from league import fixtures, services
from league.event_log import event_log

pytestmark = pytest.mark.django_db


@pytest.fixture
def logged(league, make_player):
    ann, bob = make_player(league, "Ann"), make_player(league, "Bob")
    services.record_match(
        league, played_at=dt.date(2024, 1, 2), player_a=ann, player_b=bob, score_a="1"
    )
    fixtures.schedule_fixture(
        league, player_a=ann, player_b=bob, scheduled_at=dt.datetime(2030, 3, 5, 19, 0)
    )
    return league


def summaries(league, language):
    with translation.override(language):
        return [row.summary for row in event_log(league).items[:2]]


def test_the_log_writes_days_and_moments_in_german(logged):
    fixture, match = summaries(logged, "de")
    assert fixture == "Ann – Bob angesetzt für 5. März 2030, 19:00"
    assert match.endswith("gespielt am 2. Januar 2024")
    assert "Mar" not in fixture
    assert "Jan " not in match


def test_english_keeps_its_short_month_names(logged):
    fixture, match = summaries(logged, "en-gb")
    assert fixture == "Ann v Bob scheduled 5 Mar 2030, 19:00"
    assert match.endswith("played 2 Jan 2024")
