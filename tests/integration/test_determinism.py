"""Same events and configuration, same numbers, on SQLite and on PostgreSQL.

CI runs this suite on both databases; here both are pinned, bit for bit (``float.hex``), to a
fold of the same in-memory match list by the pure engine. The matches sit near local midnight
in a time zone with summer time, so bucketing by local date is exercised too.
"""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import pytest

from league import services as league_services
from league.models import League
from ratings import services
from ratings.models import Replay
from ratings.time import current_period
from tests.replay_support import KeptMatch, expected_projection, snapshot

NEW_YORK = ZoneInfo("America/New_York")


@pytest.fixture
def late_league(db, make_player):
    league = League.objects.create(
        name="Night Owls",
        slug="night-owls",
        time_zone="America/New_York",
        start_date=dt.date(2024, 1, 31),
    )
    return league, [make_player(league, f"Owl {i}") for i in range(7)]


@pytest.mark.parametrize(
    ("unit", "length", "tau"), [("months", 1, 0.5), ("days", 3, 1.2), ("days", 7, 0.3)]
)
def test_projection_matches_the_pure_engine_bit_for_bit(
    late_league, django_capture_on_commit_callbacks, unit, length, tau
):
    league, players = late_league
    rng = random.Random(42)
    kept: list[KeptMatch] = []
    for _ in range(80):
        a, b = rng.sample(players, 2)
        day = dt.date(2024, 1, 31) + dt.timedelta(days=rng.randrange(0, 300))
        # 23:59 or 00:01 local: the UTC date differs from the local one half the time.
        moment = dt.datetime.combine(day, rng.choice([dt.time(23, 59), dt.time(0, 1)]), NEW_YORK)
        score = rng.choice(["1", "0.5", "0"])
        event = league_services.record_match(
            league, player_a=a, player_b=b, score_a=score, played_at=moment
        )
        kept.append(KeptMatch(a.pk, b.pk, float(score), day, event))
    with django_capture_on_commit_callbacks(execute=True):
        league_services.void_match(league, kept[10].event, reason="forfeit")
    kept[10].voided = True

    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(
            league,
            period_unit=unit,
            period_length=length,
            tau=tau,
            max_rd=350.0,
            initial_rd=300.0,
            update_mode="period",
        )
    assert Replay.objects.get(config=config).status == Replay.Status.COMPLETE
    assert snapshot(config) == expected_projection(config, kept, current_period(config))

    # Replaying again gives the same table.
    first = snapshot(config)
    with django_capture_on_commit_callbacks(execute=True):
        services.request_full_replay(league)
    assert snapshot(config) == first
