"""Issue 34, item 1: a worker lives through its broker's Redis going away, mid-replay or idle.

The broker is a Redis server of the test's own; the worker is a real ``celery worker`` with the
prefork pool, as in production (the solo pool never showed the fault: its event loop is
blocked while the replay runs). Before the fix, stopping Redis for 5 s while a replay ran
killed the worker's main process for good ("Unrecoverable error: AttributeError … 'hostname'"
inside kombu). The worker must finish the replay (or hand it back), stay alive, and take new
work once Redis is back.

Replays are queued here without a message (``send_replay`` replaced) and reach the worker
through its start-up recovery or through :func:`send_over`, so this process never needs the
test's broker.
"""

from __future__ import annotations

import datetime as dt
import time
from unittest import mock

import pytest
from django.utils import timezone
from kombu import Connection

from league import services as league_services
from league.models import League, Player
from ratings import services as rating_services
from ratings.models import Publication, RatingConfig, Replay
from ratings.tasks import replay_league
from tests.faults.conftest import RedisServer, wait_for
from tests.worker.conftest import WorkerProcess

pytestmark = [pytest.mark.worker, pytest.mark.faults, pytest.mark.slow]

#: Weekly periods of the test league, and the seconds the worker spends on each.
WEEKS = 60
PERIOD_DELAY = 0.2
#: How long the broker stays down, as in the issue.
OUTAGE_SECONDS = 5
DEADLINE = 60
ACTIVE = [Replay.Status.QUEUED, Replay.Status.RUNNING]


def long_league() -> tuple[League, list[Player]]:
    """A league of ``WEEKS`` weekly periods up to today, its first full replay queued."""
    start = timezone.localdate() - dt.timedelta(weeks=WEEKS)
    league = League.objects.create(name="Drop", slug="drop", time_zone="UTC", start_date=start)
    players = [league_services.register_player(league, n) for n in ("Ann", "Bob", "Cat", "Dan")]
    results = [
        {
            "player_a": players[week % 4],
            "player_b": players[(week + 1) % 4],
            "score_a": "1",
            "played_at": start + dt.timedelta(weeks=week, days=1),
        }
        for week in range(0, WEEKS, 3)
    ]
    with mock.patch.object(rating_services, "send_replay"):
        league_services.record_round(league, results)
    return league, players


def settled(league: League, version: int) -> bool:
    live = Publication.objects.filter(league=league, config__version=version).exists()
    return live and not Replay.objects.filter(config__league=league, status__in=ACTIVE).exists()


def send_over(broker: RedisServer, replay: Replay) -> None:
    """Send ``replay`` to the workers through ``broker`` (not this process's broker)."""
    with Connection(broker.url()) as connection:
        replay_league.apply_async(kwargs={"replay_id": replay.pk}, connection=connection)


def outage(broker: RedisServer, seconds: float) -> None:
    broker.stop()
    time.sleep(seconds)
    broker.start()


def takes_new_work(broker: RedisServer, league: League, version: int) -> None:
    """A new configuration's replay, sent once Redis is back, goes live."""
    with mock.patch.object(rating_services, "send_replay"):
        config = rating_services.create_config(league, tau=0.4 + 0.1 * version)
    assert config.version == version
    send_over(broker, Replay.objects.get(config=config))
    wait_for(lambda: settled(league, version), DEADLINE, f"version {version} live")


def assert_alive(worker: WorkerProcess) -> None:
    assert worker.alive(), f"the worker died:\n{worker.log.read_text(errors='replace')[-4000:]}"


def test_a_worker_lives_through_a_broker_drop_in_the_middle_of_a_replay(
    redis_factory, worker_factory
):
    broker = redis_factory()
    league, _ = long_league()
    worker = worker_factory(
        period_delay=PERIOD_DELAY, pool="prefork", concurrency=2, broker_url=broker.url()
    )  # its start-up recovery sends the queued replay
    replay = Replay.objects.get(config__league=league)
    wait_for(
        lambda: Replay.objects.filter(pk=replay.pk, periods_done__gt=0).exists(),
        DEADLINE,
        "the replay under way",
    )

    broker.stop()
    replay.refresh_from_db()
    assert replay.status == Replay.Status.RUNNING
    assert replay.periods_done < replay.periods_total, "stopped in the middle of the replay"
    time.sleep(OUTAGE_SECONDS)
    broker.start()

    wait_for(lambda: settled(league, 1), DEADLINE, "the replay finished")
    replay.refresh_from_db()
    assert replay.status == Replay.Status.COMPLETE
    assert_alive(worker)
    takes_new_work(broker, league, 2)
    assert_alive(worker)
    assert "Unrecoverable error" not in worker.log.read_text(errors="replace")


def test_an_idle_worker_lives_through_a_broker_drop(redis_factory, worker_factory):
    broker = redis_factory()
    league, _ = long_league()
    worker = worker_factory(pool="prefork", concurrency=2, broker_url=broker.url())
    wait_for(lambda: settled(league, 1), DEADLINE, "the first version live")

    outage(broker, OUTAGE_SECONDS)

    takes_new_work(broker, league, 2)
    assert_alive(worker)
    assert RatingConfig.objects.filter(league=league).count() == 2
