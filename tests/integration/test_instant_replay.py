"""Replays with instant updates: the engine's instant fold, incremental equal to full.

A league whose configuration rates every match when it is played (``update_mode`` "instant")
records random one-vs-one results, team matches and multi-side games, some on earlier days than
results already stored, and voids (each step's incremental replay run by the receiver, tasks
eager). After every step every stored number must equal the pure engine's
``fold_sides_instant`` of the test's own match list (played order: local day, then recording
order; the end of the day as the moment), and at the end a full replay rewrites the same rows.
"""

from __future__ import annotations

import datetime as dt
import itertools
from dataclasses import dataclass

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from engine.instant import fold_sides_instant
from engine.sides import SideMatches
from league import services as league_services
from league.models import League, MatchFormat, Player
from ratings import services
from ratings.models import ProjectionState, RatingConfig, Replay
from ratings.time import current_period
from tests.replay_support import COUNTS, FLOATS, config_spec, snapshot

START = dt.date(2024, 1, 1)
_leagues = itertools.count()


@dataclass
class Kept:
    """A match as the test recorded it: each side's player ids, places, local date."""

    sides: list[list[int]]
    places: list[int]
    day: dt.date
    event: object = None
    voided: bool = False


def expected_projection(config: RatingConfig, kept: list[Kept], through_period: int):
    """(history rows, standing rows) from the engine's instant fold of the kept matches."""
    spec, params = config_spec(config)
    ids = sorted(Player.objects.filter(league=config.league_id).values_list("pk", flat=True))
    live = [m for m in kept if not m.voided]
    # Played order: the day (every match of a day is at the same moment), then recording.
    ordered = [m for _, m in sorted(enumerate(live), key=lambda im: (im[1].day, im[0]))]
    days = np.array([m.day for m in ordered], dtype="datetime64[D]")
    arrays = SideMatches.from_lists(
        [spec.index_of(m.day) for m in ordered],
        [[[ids.index(p) for p in side] for side in m.sides] for m in ordered],
        [m.places for m in ordered],
    )
    result = fold_sides_instant(
        arrays,
        spec.end_of_day_fractions(days) if len(ordered) else np.zeros(0),
        len(ids),
        params,
        0,
        through_period,
    ).fold
    h = result.history
    history = sorted(
        (
            ids[int(h.player[i])],
            int(h.period[i]),
            *spec.bounds(int(h.period[i])),
            *(float(getattr(h, f)[i]).hex() for f in FLOATS),
            *(int(getattr(h, f)[i]) for f in COUNTS),
        )
        for i in range(len(h))
    )
    state = result.final_state
    standings = []
    for index, pid in enumerate(ids):
        if state.last_period[index] < 0:
            continue
        rows = [row for row in history if row[0] == pid]
        standings.append(
            (
                pid,
                float(state.rating[index]).hex(),
                float(state.rd[index]).hex(),
                float(state.volatility[index]).hex(),
                int(state.last_period[index]),
                *(sum(row[9 + k] for row in rows) for k in range(4)),
            )
        )
    return history, sorted(standings)


# One step: (kind, day offset, seed numbers) or ("void", i).
STEP = st.one_of(
    st.tuples(
        st.sampled_from(["single", "single", "doubles", "multi"]),
        st.integers(0, 40),
        st.lists(st.integers(0, 10_000), min_size=8, max_size=8),
    ),
    st.tuples(st.just("void"), st.integers(0, 10_000)),
)


def _record(league, players, kept: list[Kept], step, *, singles_only: bool) -> None:
    kind, offset, draws = step
    if singles_only:
        kind = "single"
    day = START + dt.timedelta(days=offset)
    pool = sorted(players, key=lambda p: (draws[0] * 7919 + p.pk * 104729) % 10_007)
    if kind == "single":
        score = ["1", "0.5", "0"][draws[3] % 3]
        places = {"1": [0, 1], "0.5": [0, 0], "0": [1, 0]}[score]
        if singles_only:
            event = league_services.record_match(
                league, player_a=pool[0], player_b=pool[1], score_a=score, played_at=day
            )
        else:
            event = league_services.record_match(
                league, sides=[pool[:1], pool[1:2]], score_a=score, played_at=day
            )
        kept.append(Kept([[pool[0].pk], [pool[1].pk]], places, day, event))
        return
    if kind == "doubles":
        sides = [pool[:2], pool[2:4]]
        score = ["1", "0.5", "0"][draws[3] % 3]
        places = {"1": [0, 1], "0.5": [0, 0], "0": [1, 0]}[score]
        event = league_services.record_match(league, sides=sides, score_a=score, played_at=day)
    else:
        sides = [pool[i : i + 1] for i in range(3 + draws[1] % 3)]
        positions = [1 + draws[4 + i % 4] % len(sides) for i in range(len(sides))]
        dense = {v: r for r, v in enumerate(sorted(set(positions)))}
        places = [dense[v] for v in positions]
        event = league_services.record_match(league, sides=sides, places=positions, played_at=day)
    kept.append(Kept([[p.pk for p in s] for s in sides], places, day, event))


@pytest.mark.django_db
@settings(
    max_examples=8,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(steps=st.lists(STEP, min_size=3, max_size=10), singles_only=st.booleans())
def test_instant_replays_are_the_engines_instant_fold_incremental_or_full(
    django_capture_on_commit_callbacks, steps, singles_only
):
    number = next(_leagues)
    league = League.objects.create(
        name=f"Instant league {number}",
        slug=f"instant-{number}",
        start_date=START,
        match_format=MatchFormat.SINGLES if singles_only else MatchFormat.ANY,
    )
    players = [league_services.register_player(league, f"Player {i}") for i in range(6)]
    kept: list[Kept] = []
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(league, period_length=7, update_mode="instant")
    assert config.update_mode == RatingConfig.UpdateMode.INSTANT
    for step in steps:
        with django_capture_on_commit_callbacks(execute=True):
            live = [m for m in kept if not m.voided]
            if step[0] == "void" and live:
                target = live[step[1] % len(live)]
                league_services.void_match(league, target.event, reason="entered twice")
                target.voided = True
            elif step[0] != "void":
                _record(league, players, kept, step, singles_only=singles_only)
        through = current_period(config)
        assert ProjectionState.objects.get(config=config).through_period == through
        assert snapshot(config) == expected_projection(config, kept, through)

    kept_rows = snapshot(config)
    with django_capture_on_commit_callbacks(execute=True):
        full = services.request_full_replay(league)
    full.refresh_from_db()
    assert full.status == Replay.Status.COMPLETE
    assert snapshot(config) == kept_rows


@pytest.mark.django_db
def test_switching_to_instant_updates_replays_with_other_numbers_and_back(
    league, make_player, django_capture_on_commit_callbacks
):
    """The mode is a configuration version like any other: switching replays; the period
    version's numbers are the period fold's, and switching back gives them again."""
    a, b, c = (make_player(league, name) for name in ("Ann", "Bob", "Cy"))
    for day, (x, y, score) in enumerate([(a, b, "1"), (b, c, "1"), (a, c, "0"), (a, b, "1")]):
        league_services.record_match(
            league, player_a=x, player_b=y, score_a=score, played_at=START + dt.timedelta(days=day)
        )
    with django_capture_on_commit_callbacks(execute=True):
        period = services.create_config(league, update_mode="period")
    with django_capture_on_commit_callbacks(execute=True):
        instant = services.create_config(league, update_mode="instant")
    with django_capture_on_commit_callbacks(execute=True):
        back = services.create_config(league, update_mode="period")
    assert period.update_mode == "period"
    assert instant.version == period.version + 1
    assert snapshot(instant) != snapshot(period)
    assert snapshot(back) == snapshot(period)


@pytest.mark.django_db
def test_an_unknown_update_mode_is_refused_with_the_field_named(league):
    from django.core.exceptions import ValidationError

    with pytest.raises(ValidationError) as refused:
        services.create_config(league, update_mode="sometimes")
    assert "update_mode" in refused.value.message_dict
    assert not RatingConfig.objects.filter(league=league).exists()


@pytest.mark.django_db
def test_set_config_takes_the_update_mode(league, capsys):
    from django.core.management import CommandError, call_command

    call_command("set_config", league.slug, "--update-mode", "instant")
    assert RatingConfig.objects.get(league=league).update_mode == "instant"
    with pytest.raises(CommandError, match="invalid choice"):
        call_command("set_config", league.slug, "--update-mode", "sometimes")
    assert RatingConfig.objects.filter(league=league).count() == 1
