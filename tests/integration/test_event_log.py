"""The public event log describes every kind of fact in words, newest first."""

from __future__ import annotations

import datetime as dt

from league import services
from league.event_log import event_log


def test_player_facts_are_described_in_the_log(league, organiser):
    ann = services.register_player(league, "Ann Lee", recorded_by=organiser)
    services.register_player(league, "Bo Chen", recorded_by=organiser)
    services.rename_player(league, ann, "Ann Lee-Smith", reason="married", recorded_by=organiser)
    services.deactivate_player(league, ann, reason="moved away", recorded_by=organiser)
    services.reactivate_player(league, ann, reason="back", recorded_by=organiser)

    rows = event_log(league).items

    assert [row.summary for row in rows] == [
        "Ann Lee-Smith reactivated",
        "Ann Lee-Smith deactivated: no new results until reactivated",
        "Ann Lee renamed to Ann Lee-Smith",
        "Bo Chen registered",
        "Ann Lee registered",
    ]
    assert [row.kind_label for row in rows[:3]] == [
        "Player reactivated",
        "Player deactivated",
        "Player renamed",
    ]
    assert [row.reason for row in rows[:3]] == ["back", "moved away", "married"]


def test_a_later_rename_keeps_the_earlier_facts_as_they_were(league, organiser):
    ann = services.register_player(league, "Ann Lee", recorded_by=organiser)
    services.rename_player(league, ann, "Ann Lee-Smith", reason="married", recorded_by=organiser)
    services.rename_player(league, ann, "Ann Smith", reason="shorter", recorded_by=organiser)

    summaries = [row.summary for row in event_log(league).items]

    assert summaries == [
        "Ann Lee-Smith renamed to Ann Smith",
        "Ann Lee renamed to Ann Lee-Smith (now Ann Smith)",
        "Ann Lee registered",
    ]


def test_matches_and_voids_are_described_with_the_result(league, organiser):
    ann = services.register_player(league, "Ann Lee", recorded_by=organiser)
    bo = services.register_player(league, "Bo Chen", recorded_by=organiser)
    match = services.record_match(
        league,
        player_a=ann,
        player_b=bo,
        score_a="0.5",
        played_at=dt.date(2024, 3, 2),
        points="2-2",
        recorded_by=organiser,
    )
    services.void_match(league, match, reason="wrong night", recorded_by=organiser)

    summaries = [row.summary for row in event_log(league).items]

    assert summaries[:2] == [
        f"Match #{match.seq} (Ann Lee v Bo Chen) voided",
        "Ann Lee \u00bd\u2013\u00bd Bo Chen (2-2), played 2 Mar 2024",
    ]
