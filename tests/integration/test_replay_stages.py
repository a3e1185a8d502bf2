"""``bench/replay_stages.py``: the timers it reports are its own league's full replay's."""

from __future__ import annotations

import pytest

from bench.replay_stages import TIMERS, replay_timers
from ratings import services
from ratings.models import Replay


@pytest.mark.django_db
def test_the_timers_are_the_league_s_newest_full_replay_s(league, other_league):
    """Another league's replay, and a result's replay of the same league, queued after it
    do not stand in for the full replay the command ran."""
    ran = Replay.objects.get(config=services.create_config(league))
    Replay.objects.filter(pk=ran.pk).update(
        status=Replay.Status.COMPLETE,
        timings={"reading": 0.25, "computing": 1.5, "writing": 0.75, "total": 2.5},
    )
    Replay.objects.create(config=ran.config, kind=Replay.Kind.INCREMENTAL)
    services.create_config(other_league)  # a newer full replay, of another league

    assert replay_timers(league.slug) == {"reading": 0.25, "computing": 1.5, "writing": 0.75}
    assert tuple(replay_timers(league.slug)) == TIMERS


@pytest.mark.django_db
def test_a_replay_without_timers_exits_with_a_message(league, other_league):
    """A failed replay stores no timers: a message naming it, not a KeyError."""
    failed = Replay.objects.get(config=services.create_config(league))
    Replay.objects.filter(pk=failed.pk).update(status=Replay.Status.FAILED, error="Boom: no")

    with pytest.raises(SystemExit) as exited:
        replay_timers(league.slug)
    assert (
        str(exited.value)
        == f"riverside: replay {failed.pk} (failed) without stage timers: Boom: no"
    )
    with pytest.raises(SystemExit) as exited:
        replay_timers(other_league.slug)
    assert str(exited.value) == "hilltop: no full replay without stage timers"
