"""The per-league replay lock: one holder at a time, expiry of a dead holder's lease (SQLite)."""

from __future__ import annotations

import threading

import pytest

from ratings import services
from ratings.locks import LeagueReplayLock, LockLost
from ratings.models import Replay
from ratings.replay import runner


def in_other_connection(function):
    """Run ``function`` in a thread (its own database connection) and return its result."""
    result: list = []

    def target() -> None:
        from django.db import connection as own

        try:
            result.append(function())
        finally:
            own.close()

    thread = threading.Thread(target=target)
    thread.start()
    thread.join(30)
    return result[0]


@pytest.mark.django_db(transaction=True)
def test_a_second_holder_is_refused_until_the_first_releases(league, other_league):
    first = LeagueReplayLock(league.pk)
    assert first.acquire()
    try:
        assert in_other_connection(lambda: LeagueReplayLock(league.pk).acquire()) is False
        # Another league replays in parallel.
        other = LeagueReplayLock(other_league.pk)
        assert in_other_connection(lambda: other.acquire() and (other.release() or True))
    finally:
        first.release()
    second = LeagueReplayLock(league.pk)
    assert in_other_connection(lambda: second.acquire() and (second.release() or True))


@pytest.mark.django_db(transaction=True)
def test_a_replay_finding_the_league_locked_reports_busy_and_changes_nothing(league, monkeypatch):
    monkeypatch.setattr(services, "send_replay", lambda replay: None)  # run it by hand below
    config = services.create_config(league)
    replay = Replay.objects.get(config=config)
    holder = LeagueReplayLock(league.pk)
    assert holder.acquire()
    try:
        outcome = in_other_connection(lambda: runner.execute(replay.pk))
    finally:
        holder.release()
    assert outcome is runner.Outcome.BUSY
    replay.refresh_from_db()
    assert (replay.status, replay.attempts) == (Replay.Status.QUEUED, 0)
    assert runner.execute(replay.pk) is runner.Outcome.COMPLETE


# SQLite's lock is a lease row; PostgreSQL's advisory lock dies with its session.
@pytest.mark.sqlite
@pytest.mark.django_db(transaction=True)
def test_an_expired_lease_is_taken_over_and_its_old_holder_stops(league, settings):
    settings.REPLAY_LEASE_SECONDS = 0  # a lease expires at once (its holder died)
    dead = LeagueReplayLock(league.pk)
    assert dead.acquire()
    successor = LeagueReplayLock(league.pk)
    assert successor.acquire()
    with pytest.raises(LockLost):
        dead.renew()
    successor.release()


@pytest.mark.sqlite
@pytest.mark.django_db(transaction=True)
def test_a_replay_whose_lease_expired_while_computing_writes_nothing(league, settings, monkeypatch):
    from league import services as league_services
    from ratings.models import PlayerPeriod, ProjectionState

    monkeypatch.setattr(services, "send_replay", lambda replay: None)  # run it by hand below
    ann = league_services.register_player(league, "Ann")
    bob = league_services.register_player(league, "Bob")
    league_services.record_match(
        league, player_a=ann, player_b=bob, score_a=1, played_at=league.start_date
    )
    config = services.create_config(league)
    replay = Replay.objects.filter(config=config).order_by("-pk").first()

    # The holder computes past its lease without renewing it (a stalled worker), and
    # another replay takes the league over before the first one writes.
    settings.REPLAY_LEASE_SECONDS = 0
    lock = LeagueReplayLock(league.pk)
    assert lock.acquire()
    monkeypatch.setattr(lock, "renew", lambda: None)
    assert LeagueReplayLock(league.pk).acquire()

    with pytest.raises(LockLost):
        runner.run_claimable(replay.pk, lock)
    assert not PlayerPeriod.objects.filter(config=config).exists()
    assert not ProjectionState.objects.filter(config=config).exists()
    replay.refresh_from_db()
    assert replay.status == Replay.Status.QUEUED  # back in the queue for the new holder


@pytest.mark.django_db
def test_a_replay_queued_as_the_holder_lets_go_runs_at_once_not_after_its_retry(
    league, monkeypatch
):
    """A result stored after the holder's last look at the queue but before it releases the
    lock: its replay's worker found the lock held (BUSY, re-sent with a countdown). The
    holder looks again once the lock is free and runs it, so it need not wait."""
    from league import services as league_services
    from ratings.models import ProjectionState

    monkeypatch.setattr(services, "send_replay", lambda replay: None)  # run by hand below
    ann = league_services.register_player(league, "Ann")
    bob = league_services.register_player(league, "Bob")
    league_services.record_match(
        league, player_a=ann, player_b=bob, score_a=1, played_at=league.start_date
    )
    # What the result's commit does (the test's transaction never commits).
    (first,) = services.request_catch_up(league)
    late: list[Replay] = []
    release = LeagueReplayLock.release

    def release_after_a_late_result(lock: LeagueReplayLock) -> None:
        if not late:
            event = league_services.record_match(
                league, player_a=bob, player_b=ann, score_a=1, played_at=league.start_date
            )
            late.extend(services.request_catch_up(league))
            late.append(event)
        release(lock)

    monkeypatch.setattr(LeagueReplayLock, "release", release_after_a_late_result)
    assert runner.execute(first.pk) is runner.Outcome.COMPLETE

    queued, event = late
    assert queued.pk != first.pk
    queued.refresh_from_db()
    assert (queued.status, queued.attempts) == (Replay.Status.COMPLETE, 1)
    state = ProjectionState.objects.get(config=first.config)
    assert state.through_seq == event.seq
    # Its own message, arriving after the countdown, finds it finished and does nothing.
    assert runner.execute(queued.pk) is runner.Outcome.SKIPPED
    assert LeagueReplayLock(league.pk).acquire()  # nothing left holding the lock


def a_late_result_during_a_results_replay(
    league, monkeypatch, settings, before_it=None, after_it=None
):
    """A live league (rated by period: what ``expected_projection`` folds) whose result's
    replay, past its catch-up budget (0 s), meets a result stored while its first pass
    computes; ``before_it(config)`` runs just before that result is stored and
    ``after_it(replays)`` just after, with the replays ``request_catch_up`` returned.

    Returns the running replay, the results kept so far (``KeptMatch``) and what the late
    result left: its ``KeptMatch`` followed by the replays ``request_catch_up`` returned.
    """
    from league import services as league_services
    from tests.replay_support import KeptMatch

    monkeypatch.setattr(services, "send_replay", lambda replay: None)  # run by hand below
    settings.REPLAY_CATCH_UP_SECONDS = 0
    first = Replay.objects.get(config=services.create_config(league, update_mode="period"))
    ann = league_services.register_player(league, "Ann")
    bob = league_services.register_player(league, "Bob")
    day = league.start_date

    def result(a, b, score: float) -> KeptMatch:
        event = league_services.record_match(
            league, player_a=a, player_b=b, score_a=str(score), played_at=day
        )
        return KeptMatch(a.pk, b.pk, score, day, event)

    kept = [result(ann, bob, 1.0)]
    services.run_replay(first.pk)  # the league is live
    kept.append(result(bob, ann, 0.5))
    (busy,) = services.request_catch_up(league)
    late: list = []
    plan_pass = runner.plan_pass

    def plan_then_a_late_result(config, *, from_scratch):
        plan = plan_pass(config, from_scratch=from_scratch)
        if not late:  # a result stored while the first pass computes
            if before_it is not None:
                before_it(config)
            late.append(result(ann, bob, 0.0))
            late.extend(services.request_catch_up(league))
            if after_it is not None:
                after_it(late[1:])
        return plan

    monkeypatch.setattr(runner, "plan_pass", plan_then_a_late_result)
    return busy, kept, late


def messages_are_sent(monkeypatch) -> None:
    """Tasks go to a broker (as on a worker): a message that finds the lock held is sent
    again, so a hand-over is allowed (``runner._may_hand_over``)."""
    from celery import current_app

    monkeypatch.setitem(current_app.conf, "task_always_eager", False)


@pytest.mark.django_db
def test_a_results_replay_past_its_catch_up_budget_hands_over_to_the_queued_one(
    league, monkeypatch, settings
):
    """Results keep arriving while a league's replay runs: past
    ``REPLAY_CATCH_UP_SECONDS`` it completes through what it folded and leaves the newer
    results to the replay queued for them (its own message), instead of holding the worker
    pass after pass. That replay then brings the standings to the log's end, exactly."""
    from ratings.models import ProjectionState
    from ratings.time import current_period
    from tests.replay_support import expected_projection, snapshot

    messages_are_sent(monkeypatch)
    busy, kept, late = a_late_result_during_a_results_replay(league, monkeypatch, settings)
    assert runner.execute(busy.pk) is runner.Outcome.HANDED_OVER

    match, queued = late
    busy.refresh_from_db()
    assert (busy.status, busy.through_seq) == (Replay.Status.COMPLETE, kept[1].event.seq)
    queued.refresh_from_db()
    assert queued.pk != busy.pk
    assert queued.status == Replay.Status.QUEUED  # not run here
    config = busy.config
    assert ProjectionState.objects.get(config=config).through_seq == kept[1].event.seq
    assert snapshot(config) == expected_projection(config, kept, current_period(config))

    assert runner.execute(queued.pk) is runner.Outcome.COMPLETE  # its message arrives
    kept.append(match)
    assert ProjectionState.objects.get(config=config).through_seq == match.event.seq
    assert snapshot(config) == expected_projection(config, kept, current_period(config))


def assert_caught_up_itself(busy, kept, match) -> None:
    """``busy`` did not hand over: it completed through the late result, exactly."""
    from ratings.models import ProjectionState
    from ratings.time import current_period
    from tests.replay_support import expected_projection, snapshot

    busy.refresh_from_db()
    assert (busy.status, busy.through_seq) == (Replay.Status.COMPLETE, match.event.seq)
    config = busy.config
    assert ProjectionState.objects.get(config=config).through_seq == match.event.seq
    expected = expected_projection(config, [*kept, match], current_period(config))
    assert snapshot(config) == expected


@pytest.mark.django_db
def test_a_results_replay_does_not_hand_over_to_a_queued_one_out_of_attempts(
    league, monkeypatch, settings
):
    """The queued replay has used its last attempt: claimed, it fails without folding
    anything, so the running replay catches up with the late result itself."""
    messages_are_sent(monkeypatch)

    def out_of_attempts(replays) -> None:
        (queued,) = replays
        Replay.objects.filter(pk=queued.pk).update(attempts=settings.REPLAY_MAX_ATTEMPTS)

    busy, kept, late = a_late_result_during_a_results_replay(
        league, monkeypatch, settings, after_it=out_of_attempts
    )

    assert runner.execute(busy.pk) is runner.Outcome.COMPLETE
    match, queued = late
    assert_caught_up_itself(busy, kept, match)
    queued.refresh_from_db()
    assert queued.status == Replay.Status.FAILED  # run after it, as the league's queue


@pytest.mark.django_db
def test_a_results_replay_does_not_hand_over_to_a_queued_full_one_of_an_older_version(
    league, monkeypatch, settings
):
    """A newer version exists and the published one's queued replay is a full one (one
    sent back to the queue, say): claimed, it is superseded without folding anything, so
    the running replay catches up with the late result itself."""
    messages_are_sent(monkeypatch)
    queued_full: list = []

    def newer_version_and_a_queued_full_replay(config) -> None:
        services.create_config(config.league, note="newer")
        queued_full.append(Replay.objects.create(config=config, kind=Replay.Kind.FULL))

    busy, kept, late = a_late_result_during_a_results_replay(
        league, monkeypatch, settings, before_it=newer_version_and_a_queued_full_replay
    )

    assert runner.execute(busy.pk) is runner.Outcome.COMPLETE
    match, *covering = late
    assert [replay.pk for replay in covering] == [queued_full[0].pk]  # the late result's
    assert_caught_up_itself(busy, kept, match)
    queued_full[0].refresh_from_db()
    assert queued_full[0].status == Replay.Status.SUPERSEDED


@pytest.mark.django_db
def test_a_results_replay_with_eager_tasks_catches_up_itself(league, monkeypatch, settings):
    """With eager tasks the queued replay's message already ran (and found the lock
    held): nothing would run it again, so the running replay never hands over."""
    busy, kept, late = a_late_result_during_a_results_replay(league, monkeypatch, settings)

    assert runner.execute(busy.pk) is runner.Outcome.COMPLETE
    match, queued = late
    assert_caught_up_itself(busy, kept, match)
    queued.refresh_from_db()
    assert queued.status == Replay.Status.COMPLETE  # run after it, as the league's queue
