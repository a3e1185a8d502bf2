"""Replays of leagues with matches with sides: incremental equals full, bit for bit.

Random sequences of doubles and team results, multi-side games with ties, one-vs-one
results and voids are recorded through the services (each step's incremental replay run by
the receiver, tasks eager); after every step every stored number must equal a fold of the
whole history by the pure engine (``fold_sides`` over the test's own match list), and at the
end a full replay rewrites exactly the same rows.
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.side_fold import fold_sides
from engine.sides import SideMatches
from league import services as league_services
from league.models import League, MatchFormat, Player
from ratings import services
from ratings.models import ProjectionState, Replay
from ratings.time import current_period
from tests.replay_support import config_spec, fold_rows, snapshot

START = dt.date(2024, 1, 1)
_leagues = itertools.count()


@dataclass
class KeptSideMatch:
    """A match as the test recorded it: each side's player ids, places, local date."""

    sides: list[list[int]]
    places: list[int]
    day: dt.date
    event: object = None
    voided: bool = False


def expected_side_projection(config, matches: list[KeptSideMatch], through_period: int):
    """(history rows, standing rows) from the engine's ``fold_sides`` of the kept matches."""
    spec, params = config_spec(config)
    ids = sorted(Player.objects.filter(league=config.league_id).values_list("pk", flat=True))
    live = [m for m in matches if not m.voided]
    by_period = sorted(enumerate(live), key=lambda im: (spec.index_of(im[1].day), im[0]))
    ordered = [m for _, m in by_period]
    arrays = SideMatches.from_lists(
        [spec.index_of(m.day) for m in ordered],
        [[[ids.index(p) for p in side] for side in m.sides] for m in ordered],
        [m.places for m in ordered],
    )
    return fold_rows(fold_sides(arrays, len(ids), params, 0, through_period), ids, spec)


# One step: ("doubles" | "team" | "multi" | "single", day offset, seed numbers) or ("void", i).
STEP = st.one_of(
    st.tuples(
        st.sampled_from(["doubles", "team", "multi", "single"]),
        st.integers(0, 59),
        st.lists(st.integers(0, 10_000), min_size=8, max_size=8),
    ),
    st.tuples(st.just("void"), st.integers(0, 10_000)),
)


def _record(league, players, kept, step) -> None:
    kind, offset, draws = step
    day = START + dt.timedelta(days=offset)
    pool = sorted(players, key=lambda p: (draws[0] * 7919 + p.pk * 104729) % 10_007)
    if kind == "doubles":
        sides = [pool[:2], pool[2:4]]
    elif kind == "team":
        sides = [pool[:3], pool[3:6]] if draws[1] % 2 else [pool[:1], pool[1:3]]
    elif kind == "single":
        sides = [pool[:1], pool[1:2]]
    else:
        count = 3 + draws[1] % 3
        size = 1 + draws[2] % 2 if 2 * count <= len(pool) else 1
        sides = [pool[i * size : (i + 1) * size] for i in range(count)]
    if len(sides) == 2:
        score = ["1", "0.5", "0"][draws[3] % 3]
        places = {"1": [0, 1], "0.5": [0, 0], "0": [1, 0]}[score]
        event = league_services.record_match(league, sides=sides, score_a=score, played_at=day)
    else:
        positions = [1 + draws[4 + i % 4] % len(sides) for i in range(len(sides))]
        dense = {v: r for r, v in enumerate(sorted(set(positions)))}
        places = [dense[v] for v in positions]
        event = league_services.record_match(league, sides=sides, places=positions, played_at=day)
    kept.append(KeptSideMatch([[p.pk for p in s] for s in sides], places, day, event))


@pytest.mark.django_db
@settings(
    max_examples=6,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEP, min_size=3, max_size=10))
def test_incremental_equals_full_for_random_team_results_multi_side_games_and_voids(
    django_capture_on_commit_callbacks, steps
):
    number = next(_leagues)
    league = League.objects.create(
        name=f"Side league {number}",
        slug=f"sides-{number}",
        start_date=START,
        match_format=MatchFormat.ANY,
    )
    players = [league_services.register_player(league, f"Player {i}") for i in range(8)]
    kept: list[KeptSideMatch] = []
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(league, tau=0.6, period_length=7, update_mode="period")
    for step in steps:
        with django_capture_on_commit_callbacks(execute=True):
            live = [m for m in kept if not m.voided]
            if step[0] == "void" and live:
                target = live[step[1] % len(live)]
                league_services.void_match(league, target.event, reason="entered twice")
                target.voided = True
            elif step[0] != "void":
                _record(league, players, kept, step)
        through = current_period(config)
        assert ProjectionState.objects.get(config=config).through_period == through
        assert snapshot(config) == expected_side_projection(config, kept, through)

    kept_rows = snapshot(config)
    with django_capture_on_commit_callbacks(execute=True):
        full = services.request_full_replay(league)
    full.refresh_from_db()
    assert full.status == Replay.Status.COMPLETE
    assert snapshot(config) == kept_rows


def test_a_league_of_singles_replays_through_the_plain_fold(
    league, make_player, monkeypatch, django_capture_on_commit_callbacks
):
    """No match with sides: the replay never calls ``fold_sides`` (today's numbers, bit for bit)."""
    import ratings.replay.compute as compute

    def refuse(*args, **kwargs):
        raise AssertionError("fold_sides called for a league of singles")

    monkeypatch.setattr(compute, "fold_sides", refuse)
    a, b = make_player(league, "Ann"), make_player(league, "Bob")
    league_services.record_match(league, player_a=a, player_b=b, score_a="1", played_at=START)
    with django_capture_on_commit_callbacks(execute=True):
        services.create_config(league, tau=0.5, update_mode="period")
        replay = services.request_full_replay(league)
    replay.refresh_from_db()
    assert replay.status == Replay.Status.COMPLETE
