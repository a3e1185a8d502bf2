"""Which replays count as stranded, and how often a request sends one again (no worker)."""

from __future__ import annotations

import datetime as dt
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.db import connection
from django.utils import timezone

from league import services as league_services
from league.models import League
from ratings import services as rating_services
from ratings import stranded
from ratings.locks import LeagueReplayLock
from ratings.models import Replay

pytestmark = [pytest.mark.worker, pytest.mark.faults, pytest.mark.django_db(transaction=True)]

START = dt.date(2024, 1, 1)


@pytest.fixture
def sent(monkeypatch) -> list[int]:
    """The ids of the replays sent to the workers (none runs)."""
    ids: list[int] = []
    monkeypatch.setattr(rating_services, "send_replay", lambda replay: ids.append(replay.pk))
    return ids


def make_league(slug: str) -> League:
    return League.objects.create(name=slug.title(), slug=slug, start_date=START)


def age(replay: Replay, seconds: float) -> None:
    """Pretend ``replay`` was queued ``seconds`` ago."""
    queued_at = timezone.now() - dt.timedelta(seconds=seconds)
    Replay.objects.filter(pk=replay.pk).update(queued_at=queued_at)
    replay.refresh_from_db()


@contextmanager
def held_elsewhere(league: League) -> Iterator[None]:
    """The league's replay lock held by another database session (as a live worker does)."""
    taken, done = threading.Event(), threading.Event()
    outcome: list[bool] = []

    def hold() -> None:
        lock = LeagueReplayLock(league.pk)
        try:
            outcome.append(lock.acquire())
            taken.set()
            done.wait(30)
            lock.release()
        finally:
            taken.set()
            connection.close()

    thread = threading.Thread(target=hold)
    thread.start()
    taken.wait(30)
    try:
        assert outcome == [True]
        yield
    finally:
        done.set()
        thread.join(30)


def test_a_queued_replay_is_stranded_only_after_the_grace_period(sent, settings):
    settings.REPLAY_RESEND_SECONDS = 10
    replay = Replay.objects.get(config=rating_services.create_config(make_league("fresh")))
    assert sent == [replay.pk]

    assert not stranded.is_stranded(replay)
    assert stranded.stranded_replays() == []
    age(replay, 11)
    assert stranded.is_stranded(replay)
    assert stranded.stranded_replays() == [replay.pk]


def test_nothing_is_stranded_while_a_live_process_holds_the_league_lock(sent, settings):
    settings.REPLAY_RESEND_SECONDS = 10
    league = make_league("busy")
    replay = Replay.objects.get(config=rating_services.create_config(league))
    age(replay, 60)
    Replay.objects.filter(pk=replay.pk).update(status=Replay.Status.RUNNING)
    replay.refresh_from_db()

    with held_elsewhere(league):
        assert not stranded.is_stranded(replay)
        assert stranded.stranded_replays() == []
    assert stranded.stranded_replays() == [replay.pk], "the holder is gone"


def test_the_sweep_names_each_league_oldest_stranded_replay_once(sent, settings):
    settings.REPLAY_RESEND_SECONDS = 10
    first, second = make_league("first"), make_league("second")
    older = Replay.objects.get(config=rating_services.create_config(first))
    newer = Replay.objects.get(config=rating_services.create_config(first, tau=0.9))
    other = Replay.objects.get(config=rating_services.create_config(second))
    finished = Replay.objects.create(config=other.config, status=Replay.Status.COMPLETE)
    for replay in (older, newer, other, finished):
        age(replay, 60)
    # create_config supersedes the older version's queued full replay: queue it again.
    Replay.objects.filter(pk=older.pk).update(status=Replay.Status.QUEUED)

    assert stranded.stranded_replays() == [older.pk, other.pk]


def test_a_request_absorbed_into_a_stranded_replay_sends_it_again_once_per_grace(
    settings, monkeypatch
):
    settings.REPLAY_RESEND_SECONDS = 10
    league = make_league("absorbed")
    ann, bob = (league_services.register_player(league, name) for name in ("Ann", "Bob"))

    def record(day: int) -> None:
        league_services.record_match(
            league, player_a=ann, player_b=bob, score_a="1", played_at=START.replace(day=day)
        )

    record(1)  # eager mode: the first version is replayed and published at once
    sent: list[int] = []
    monkeypatch.setattr(rating_services, "send_replay", lambda replay: sent.append(replay.pk))
    record(2)
    queued = Replay.objects.get(config__league=league, status=Replay.Status.QUEUED)
    assert sent == [queued.pk]

    record(3)
    assert sent == [queued.pk], "absorbed: the replay is fresh"
    age(queued, 11)
    record(4)
    assert sent == [queued.pk, queued.pk], "absorbed into a stranded replay: sent again"
    record(5)
    assert sent == [queued.pk, queued.pk], "not again within the grace period"
    assert Replay.objects.filter(config__league=league, status=Replay.Status.QUEUED).count() == 1
