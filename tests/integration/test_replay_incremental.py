"""Incremental replays equal full ones: random results, backdated results, voids, corrections.

After every step (its incremental replay run by the receiver, tasks eager) every stored number
of the live projection must equal, bit for bit, a fold of the whole history by the pure engine;
at the end a full replay of the same configuration rewrites exactly the same rows.
"""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import pytest

from league import services as league_services
from ratings import services
from ratings.models import PlayerPeriod, ProjectionState, Publication, Replay, Standing
from ratings.time import current_period
from tests.replay_support import KeptMatch, expected_projection, snapshot

START = dt.date(2024, 1, 1)


def _step(league, rng, players, kept, today, make_player):
    live = [m for m in kept if not m.voided]
    action = rng.choices(
        ["record", "backdate", "today", "void", "correct", "newcomer"], [4, 3, 1, 2, 2, 1]
    )[0]
    if action in ("void", "correct") and not live:
        action = "record"
    if action == "newcomer":
        players.append(make_player(league, f"Newcomer {len(players)}"))
        action = "record"
    if action in ("record", "backdate", "today"):
        a, b = rng.sample(players, 2)
        if action == "record":
            latest = max((m.day for m in kept), default=START)
            day = min(today, latest + dt.timedelta(days=rng.randrange(0, 10)))
        elif action == "backdate":
            day = START + dt.timedelta(days=rng.randrange(0, 60))
        else:
            day = today
        score = rng.choice(["1", "0.5", "0"])
        event = league_services.record_match(
            league, player_a=a, player_b=b, score_a=score, played_at=day
        )
        kept.append(KeptMatch(a.pk, b.pk, float(score), day, event))
        return action
    target = rng.choice(live)
    if action == "void":
        league_services.void_match(league, target.event, reason="entered twice")
        target.voided = True
        return action
    new_score = rng.choice([s for s in ("1", "0.5", "0") if float(s) != target.score])
    new_day = START + dt.timedelta(days=rng.randrange(0, 60))
    _, corrected = league_services.correct_match(
        league, target.event, reason="wrong score", score_a=new_score, played_at=new_day
    )
    target.voided = True
    kept.append(KeptMatch(target.a, target.b, float(new_score), new_day, corrected))
    return action


@pytest.mark.parametrize("seed", [7, 2024])
def test_incremental_replays_equal_a_full_fold_after_every_step(
    league, make_player, django_capture_on_commit_callbacks, seed
):
    rng = random.Random(seed)
    zone = ZoneInfo(league.time_zone)
    today = dt.datetime.now(zone).date()
    players = [make_player(league, f"Player {i}") for i in range(5)]
    kept: list[KeptMatch] = []
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(league, tau=0.6, period_length=5, update_mode="period")
    seen = set()
    for _step_number in range(30):
        with django_capture_on_commit_callbacks(execute=True):
            seen.add(_step(league, rng, players, kept, today, make_player))
        assert Publication.objects.get(league=league).config == config
        through = current_period(config)
        assert ProjectionState.objects.get(config=config).through_period == through
        assert snapshot(config) == expected_projection(config, kept, through)
    assert {"backdate", "void", "correct"} <= seen
    incremental = Replay.objects.filter(config=config, kind=Replay.Kind.INCREMENTAL)
    assert incremental.filter(status=Replay.Status.COMPLETE).count() >= 25
    assert incremental.filter(from_period__gt=0).exists()  # resumed from checkpoints

    kept_rows = snapshot(config)
    with django_capture_on_commit_callbacks(execute=True):
        full = services.request_full_replay(league)
    full.refresh_from_db()
    assert full.status == Replay.Status.COMPLETE
    assert snapshot(config) == kept_rows


def test_a_queued_incremental_replay_absorbs_later_requests(league, make_player):
    config = services.create_config(league, update_mode="period")
    Replay.objects.filter(config=config).update(status=Replay.Status.COMPLETE)
    ProjectionState.objects.create(config=config, complete=True)
    Publication.objects.create(league=league, config=config)
    (first,) = services.request_catch_up(league)
    (second,) = services.request_catch_up(league)
    assert first.pk == second.pk
    assert first.kind == Replay.Kind.INCREMENTAL
    assert Replay.objects.filter(status=Replay.Status.QUEUED).count() == 1


def test_a_queued_full_replay_absorbs_a_catch_up_request(league, make_player):
    config = services.create_config(league, update_mode="period")
    Replay.objects.filter(config=config).update(status=Replay.Status.COMPLETE)
    ProjectionState.objects.create(config=config, complete=True)
    Publication.objects.create(league=league, config=config)
    full = services.request_full_replay(league)
    (absorbing,) = services.request_catch_up(league)
    assert absorbing.pk == full.pk
    assert Replay.objects.filter(status=Replay.Status.QUEUED).count() == 1


def test_a_replay_reading_an_event_queued_for_another_replay_replays_its_periods(
    league, make_player, django_capture_on_commit_callbacks
):
    """A replay's snapshot may hold a backdated result whose own request comes after it.

    The race, step by step: replay A is queued for a late result; a backdated result commits;
    A starts and reads the event store, backdated result included; only then does the
    backdated result's request arrive, finds A no longer queued and queues replay B. A must
    replay the periods of every event newer than the stored projection, not only its own:
    otherwise it records the backdated result as done and B, finding nothing new, skips it.
    """
    players = [make_player(league, f"Player {i}") for i in range(4)]
    kept: list[KeptMatch] = []
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(league, tau=0.6, period_length=5, update_mode="period")
    for offset, (a, b, score) in enumerate([(0, 1, "1"), (2, 3, "0.5"), (0, 2, "0"), (1, 3, "1")]):
        day = START + dt.timedelta(days=3 + 6 * offset)
        with django_capture_on_commit_callbacks(execute=True):
            event = league_services.record_match(
                league, player_a=players[a], player_b=players[b], score_a=score, played_at=day
            )
        kept.append(KeptMatch(players[a].pk, players[b].pk, float(score), day, event))
    late_day, early_day = START + dt.timedelta(days=40), START + dt.timedelta(days=4)
    settled = Replay.objects.order_by("pk").last().pk

    # The late result and its request: replay A, queued (its task not sent yet).
    with django_capture_on_commit_callbacks(execute=False) as late_callbacks:
        event = league_services.record_match(
            league, player_a=players[0], player_b=players[3], score_a="1", played_at=late_day
        )
    kept.append(KeptMatch(players[0].pk, players[3].pk, 1.0, late_day, event))
    with django_capture_on_commit_callbacks(execute=False):
        for callback in late_callbacks:
            callback()
    (replay_a,) = Replay.objects.filter(status=Replay.Status.QUEUED)
    # The backdated result commits; its request is held back until A has run.
    with django_capture_on_commit_callbacks(execute=False) as early_callbacks:
        event = league_services.record_match(
            league, player_a=players[1], player_b=players[2], score_a="0", played_at=early_day
        )
    kept.append(KeptMatch(players[1].pk, players[2].pk, 0.0, early_day, event))
    services.run_replay(replay_a.pk)
    replay_a.refresh_from_db()
    assert replay_a.from_period == 0  # the backdated result's period, not the late one's (8)
    with django_capture_on_commit_callbacks(execute=True):
        for callback in early_callbacks:
            callback()

    replays = Replay.objects.filter(config=config, pk__gt=settled).order_by("pk")
    assert replays.count() == 2
    assert set(replays.values_list("status", flat=True)) == {Replay.Status.COMPLETE}
    assert snapshot(config) == expected_projection(config, kept, current_period(config))


def test_an_incremental_replay_leaves_the_rows_it_does_not_change_in_place(
    league, make_player, django_capture_on_commit_callbacks
):
    """One more result rewrites its two players' rows; the others' rows are not touched (same
    ids), and the projection still equals a full fold."""
    today = dt.datetime.now(ZoneInfo(league.time_zone)).date()
    a, b, c, d = (make_player(league, name) for name in ("Ann", "Bob", "Cat", "Dan"))
    kept = []
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(league, update_mode="period")
    for x, y in ((a, b), (c, d), (a, c)):
        with django_capture_on_commit_callbacks(execute=True):
            event = league_services.record_match(
                league, player_a=x, player_b=y, score_a="1", played_at=today
            )
        kept.append(KeptMatch(x.pk, y.pk, 1.0, today, event))

    def row_ids():
        return (
            dict(Standing.objects.filter(config=config).values_list("player_id", "pk")),
            dict(PlayerPeriod.objects.filter(config=config).values_list("player_id", "pk")),
        )

    standings_before, history_before = row_ids()
    with django_capture_on_commit_callbacks(execute=True):
        event = league_services.record_match(
            league, player_a=b, player_b=d, score_a="0.5", played_at=today
        )
    kept.append(KeptMatch(b.pk, d.pk, 0.5, today, event))
    standings_after, history_after = row_ids()

    replay = Replay.objects.filter(config=config).latest("pk")
    assert replay.kind == Replay.Kind.INCREMENTAL
    assert replay.status == Replay.Status.COMPLETE
    for ids_before, ids_after in (
        (standings_before, standings_after),
        (history_before, history_after),
    ):
        assert {p: ids_after[p] == ids_before[p] for p in ids_before} == {
            a.pk: True,
            b.pk: False,
            c.pk: True,
            d.pk: False,
        }
    assert snapshot(config) == expected_projection(config, kept, current_period(config))
