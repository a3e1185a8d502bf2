"""The one score box of the workspace, points that contradict a result, dates in words."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from hypothesis import given
from hypothesis import strategies as st

from engine.periods import PeriodSpec
from league.scores import DRAW, LOSS, WIN, entry_text, points_disagree, read_entry
from web.workspace.dates import day_words, how_long_ago, period_words, played_words


@pytest.mark.parametrize(
    ("typed", "score", "points"),
    [
        ("3-1", WIN, "3\u20131"),
        (" 1 - 3 ", LOSS, "1\u20133"),
        ("21:19", WIN, "21\u201319"),
        ("2\u20132", DRAW, "2\u20132"),
        ("0-0", DRAW, "0\u20130"),
        ("W", WIN, ""),
        ("draw", DRAW, ""),
        ("l", LOSS, ""),
    ],
)
def test_points_league_reads_points_or_a_bare_result(typed, score, points):
    assert read_entry(typed, records_points=True) == (score, points)


@pytest.mark.parametrize(
    ("typed", "score"),
    [("1-0", WIN), ("½-½", DRAW), ("0.5-0.5", DRAW), ("0-1", LOSS), ("1", WIN), ("d", DRAW)],
)
def test_result_league_reads_a_result_without_points(typed, score):
    assert read_entry(typed, records_points=False) == (score, "")


@pytest.mark.parametrize(
    ("typed", "records_points"),
    [("", True), ("3-", True), ("3-1-2", True), ("a-b", True), ("-3-1", True),
     ("1" * 12 + "-0", True), ("3-1", False), ("2-0", False), ("", False)],
)  # fmt: skip
def test_unreadable_entries_are_refused_with_the_accepted_forms(typed, records_points):
    with pytest.raises(ValueError, match="Type the"):
        read_entry(typed, records_points=records_points)


@pytest.mark.property
@given(st.integers(0, 10**6), st.integers(0, 10**6))
def test_points_imply_the_result_and_read_back(a, b):
    score, points = read_entry(f"{a}-{b}", records_points=True)
    assert score == (WIN if a > b else LOSS if a < b else DRAW)
    assert points_disagree(score, points) is None
    assert read_entry(entry_text(score, points, records_points=True), records_points=True) == (
        score,
        points,
    )


@pytest.mark.parametrize(
    ("score", "points", "implied"),
    [
        (WIN, "1-3", LOSS),
        (DRAW, "3\u20131", WIN),
        (LOSS, "2:2", DRAW),
        (WIN, "3-1", None),
        (WIN, "6-4 3-6 7-5", None),
        (LOSS, "w/o", None),
        (DRAW, "", None),
    ],
)
def test_only_one_pair_of_numbers_can_contradict_a_result(score, points, implied):
    assert points_disagree(Decimal(score), points) == implied


TODAY = dt.date(2026, 11, 23)


@pytest.mark.parametrize(
    ("day", "words"),
    [
        (TODAY, "today"),
        (dt.date(2026, 11, 22), "yesterday"),
        (dt.date(2026, 11, 18), "5 days ago"),
        (dt.date(2026, 11, 2), "3 weeks ago"),
        (dt.date(2026, 9, 20), "2 months ago"),
        (dt.date(2026, 2, 1), "10 months ago"),
        (dt.date(2026, 1, 20), "10 months ago"),
        (dt.date(2024, 12, 20), "23 months ago"),
        (dt.date(2024, 11, 1), "2 years ago"),
        (dt.date(2023, 5, 24), "4 years ago"),
    ],
)
def test_how_long_ago_in_words(day, words):
    assert how_long_ago(day, TODAY) == words


def test_the_date_in_words_names_the_weekday():
    assert day_words(dt.date(2026, 2, 1)) == "Sun 1 Feb 2026"
    assert played_words(dt.date(2026, 1, 20), TODAY) == "played Tue 20 Jan 2026, 10 months ago"
    assert played_words(TODAY, TODAY) == "played today, Mon 23 Nov 2026"


@pytest.mark.parametrize(
    ("spec", "words"),
    [
        (PeriodSpec("months", 1, dt.date(2020, 1, 1)), "February 2026"),
        (PeriodSpec("days", 7, dt.date(2024, 1, 1)), "the week of Mon 2 Feb 2026"),
        (PeriodSpec("days", 1, dt.date(2024, 1, 1)), "Wed 4 Feb 2026"),
        (PeriodSpec("days", 14, dt.date(2024, 1, 1)), "the period from Mon 26 Jan 2026"),
        (PeriodSpec("months", 1, dt.date(2020, 1, 15)), "the period from Thu 15 Jan 2026"),
    ],
)
def test_the_recomputed_period_is_named_as_an_organiser_would(spec, words):
    assert period_words(spec, dt.date(2026, 2, 4)) == words
