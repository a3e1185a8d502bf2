"""Challenges between players: within the ranking's places, answered once, by the day.

The club of ``conftest.club`` with every rated player ranked: Ann, Bob, Cat and Dan have a
place, Eve (no game) has none. The places are read from the standings as every page shows
them (``leaderboard_ranks``); the rule under test is the distance between them.
"""

from __future__ import annotations

import datetime as dt

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from league.event_log import event_log
from league.models import (
    Challenge,
    ChallengeStatus,
    Event,
    Fixture,
    IgnoredChallenge,
    PlayerRules,
)
from league.player_accounts import claim_player
from ratings import challenges
from ratings.selectors.standings import leaderboard_ranks

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("everyone_ranked")]


@pytest.fixture
def ladder(club, organiser):
    """The club's players by place (1 first), each held by an account; challenges within one
    place, three days to answer."""
    league = club["league"]
    PlayerRules.objects.create(league=league, challenges=True, challenge_places=1, challenge_days=3)
    ranks = leaderboard_ranks(league, club["config"])
    ranked = sorted(
        (club[name] for name in ("ann", "bob", "cat", "dan")),
        key=lambda player: ranks[player.pk].rank,
    )
    assert [ranks[p.pk].rank for p in ranked] == [1, 2, 3, 4]
    users = {}
    for player in [*ranked, club["eve"]]:
        user = get_user_model().objects.create_user(f"u{player.pk}", password="pw-player-1")
        claim_player(player, user, by=organiser)
        users[player.pk] = user
    return league, ranked, users


def test_a_challenge_within_the_places_is_accepted_and_becomes_a_fixture(ladder):
    league, ranked, users = ladder
    second, first = ranked[1], ranked[0]
    challenge = challenges.issue_challenge(
        league, user=users[second.pk], challenged=first.pk, idempotency_key="c-1"
    )
    assert challenge.status == ChallengeStatus.ISSUED
    today = timezone.localdate(timezone=dt.UTC)
    assert today + dt.timedelta(days=2) <= challenge.respond_by <= today + dt.timedelta(days=4)
    # The same key again is the same challenge.
    assert (
        challenges.issue_challenge(
            league, user=users[second.pk], challenged=first.pk, idempotency_key="c-1"
        ).pk
        == challenge.pk
    )
    # Only the challenged player answers.
    with pytest.raises(ValidationError) as caught:
        challenges.accept_challenge(league, challenge, user=users[second.pk])
    assert caught.value.error_dict["player"][0].code == "not_challenged"

    answer = challenges.accept_challenge(league, challenge, user=users[first.pk])
    assert answer.stored
    fixture = answer.challenge.fixture
    assert (fixture.player_a_id, fixture.player_b_id) == (second.pk, first.pk)
    kinds = list(
        Event.objects.filter(league=league).order_by("-seq").values_list("kind", flat=True)[:3]
    )
    assert kinds == ["challenge_accepted", "fixture_scheduled", "challenge_issued"]
    # Accepting twice stores nothing; declining after accepting is refused.
    assert not challenges.accept_challenge(league, challenge, user=users[first.pk]).stored
    with pytest.raises(ValidationError) as caught:
        challenges.decline_challenge(league, challenge, user=users[first.pk])
    assert caught.value.error_dict["challenge"][0].code == "already_answered"
    assert Fixture.objects.filter(league=league).count() == 1
    summaries = [row.summary for row in event_log(league).items]
    assert (
        f"Challenge {challenge.pk}: {second.display_name} challenged {first.display_name}"
        in summaries
    )


def test_challenges_outside_the_rules_are_refused(ladder, club):
    league, ranked, users = ladder
    before = Event.objects.filter(league=league).count()
    cases = [
        (users[ranked[3].pk], ranked[0].pk, "challenged", "too_far"),
        (users[ranked[0].pk], ranked[0].pk, "challenged", "same_player"),
        (users[ranked[0].pk], club["eve"].pk, "challenged", "unranked"),
        (users[ranked[0].pk], 999999, "challenged", "unknown_player"),
        (users[ranked[0].pk], "x", "challenged", "invalid_player"),
    ]
    for user, target, field, code in cases:
        with pytest.raises(ValidationError) as caught:
            challenges.issue_challenge(league, user=user, challenged=target)
        assert [e.code for e in caught.value.error_dict[field]] == [code], (target, code)
    # Acting for someone else's player.
    with pytest.raises(ValidationError) as caught:
        challenges.issue_challenge(
            league, user=users[ranked[0].pk], player=ranked[1].pk, challenged=ranked[2].pk
        )
    assert caught.value.error_dict["player"][0].code == "not_your_player"
    assert Event.objects.filter(league=league).count() == before
    # Two open challenges between one pair: the second is refused.
    challenges.issue_challenge(league, user=users[ranked[1].pk], challenged=ranked[0].pk)
    with pytest.raises(ValidationError) as caught:
        challenges.issue_challenge(league, user=users[ranked[0].pk], challenged=ranked[1].pk)
    assert caught.value.error_dict["challenged"][0].code == "already_challenged"


def test_a_league_without_challenges_refuses_them(club, organiser):
    league = club["league"]
    user = get_user_model().objects.create_user("ann-user", password="pw-ann-1")
    claim_player(club["ann"], user, by=organiser)
    with pytest.raises(ValidationError) as caught:
        challenges.issue_challenge(league, user=user, challenged=club["bob"].pk)
    assert caught.value.error_dict["__all__"][0].code == "no_challenges"
    assert not Challenge.objects.exists()


@pytest.mark.parametrize(
    ("ignored", "status"),
    [
        (IgnoredChallenge.EXPIRED, ChallengeStatus.EXPIRED),
        (IgnoredChallenge.FORFEIT, ChallengeStatus.FORFEITED),
    ],
)
def test_an_unanswered_challenge_is_recorded_as_the_league_says(ladder, ignored, status):
    league, ranked, users = ladder
    PlayerRules.objects.filter(league=league).update(ignored_challenge=ignored)
    declined = challenges.issue_challenge(league, user=users[ranked[3].pk], challenged=ranked[2].pk)
    challenges.decline_challenge(league, declined, user=users[ranked[2].pk], reason="away")
    ignored_one = challenges.issue_challenge(
        league, user=users[ranked[1].pk], challenged=ranked[0].pk
    )
    matches_before = Event.objects.filter(league=league).all_matches().count()
    # Not yet past the answer day: nothing happens.
    assert challenges.expire_challenges() == 0
    later = timezone.now() + dt.timedelta(days=5)
    assert challenges.expire_challenges(later) == 1
    ignored_one.refresh_from_db()
    declined.refresh_from_db()
    assert ignored_one.status == status
    assert declined.status == ChallengeStatus.DECLINED
    # A forfeit is not rated: no match is recorded for it.
    assert Event.objects.filter(league=league).all_matches().count() == matches_before
    assert Event.objects.filter(league=league).last().kind == "challenge_expired"
    # Too late to accept now.
    assert challenges.expire_challenges(later) == 0
    with pytest.raises(ValidationError):
        challenges.accept_challenge(league, ignored_one, user=users[ranked[0].pk])
    summary = event_log(league).items[0].summary
    if status == ChallengeStatus.FORFEITED:
        assert summary == (
            f"Challenge {ignored_one.pk} unanswered: {ranked[1].display_name} wins by forfeit "
            "(not rated)"
        )
    else:
        assert summary == f"Challenge {ignored_one.pk} expired unanswered"


def test_the_beat_task_settles_reports_and_challenges(ladder, organiser):
    """``ratings.player_sweeps.settle_overdue`` (the beat's task, run here in-process)."""
    from league.models import Report, ReportPolicy
    from league.services import reports
    from ratings.player_sweeps import settle_overdue

    league, ranked, users = ladder
    PlayerRules.objects.filter(league=league).update(
        report_policy=ReportPolicy.AUTO, accept_after_days=1
    )
    report = reports.submit_report(
        league,
        user=users[ranked[0].pk],
        player_a=ranked[0].pk,
        player_b=ranked[1].pk,
        score_a="1",
        played_at=dt.date(2024, 3, 1),
    )
    challenge = challenges.issue_challenge(
        league, user=users[ranked[2].pk], challenged=ranked[1].pk
    )
    assert settle_overdue() == {"reports_accepted": 0, "challenges_expired": 0}
    Report.objects.filter(pk=report.pk).update(created_at=timezone.now() - dt.timedelta(days=2))
    Challenge.objects.filter(pk=challenge.pk).update(respond_by=dt.date(2024, 1, 1))
    assert settle_overdue.delay().get() == {"reports_accepted": 1, "challenges_expired": 1}
    assert Report.objects.get(pk=report.pk).match is not None
    assert Challenge.objects.get(pk=challenge.pk).status == ChallengeStatus.EXPIRED
