"""Merging and unmerging players: the events, their refusals, and replays that agree.

A merge counts every match of the merged player (earlier ones too) as the surviving player's
in every replay, until an unmerge; the expected projection here is folded by the pure engine
from the test's own match list, mapped through the test's own record of the merges.
"""

from __future__ import annotations

import datetime as dt
import random
from zoneinfo import ZoneInfo

import pytest
from django.core.exceptions import ValidationError

from league import services as league_services
from league.event_log import event_log
from league.models import Event, Player
from ratings import services
from ratings.models import Replay, Standing
from ratings.time import current_period
from tests.replay_support import KeptMatch, expected_projection, explain_difference, snapshot

START = dt.date(2024, 1, 1)


def _event_count(league) -> int:
    return Event.objects.filter(league=league).count()


def _mapped(kept: list[KeptMatch], merged: dict[int, int]) -> list[KeptMatch]:
    """The test's matches as they count: merged-away players replaced by their survivor."""
    return [
        KeptMatch(merged.get(m.a, m.a), merged.get(m.b, m.b), m.score, m.day, m.event, m.voided)
        for m in kept
    ]


# --- the events and the players' state ------------------------------------------------------


def test_a_merge_and_an_unmerge_are_events_with_who_and_why(league, organiser, make_player):
    bob, bob2 = make_player(league, "Bob Baker"), make_player(league, "Bob Bakr")
    merged = league_services.merge_player(
        league, bob2, bob, reason="typo in the CSV", recorded_by=organiser
    )
    assert merged.kind == Event.Kind.PLAYER_MERGED
    assert (merged.player_id, merged.other_player_id) == (bob2.pk, bob.pk)
    assert merged.recorded_by == organiser
    assert merged.reason == "typo in the CSV"
    assert Player.objects.get(pk=bob2.pk).merged_into_id == bob.pk

    unmerged = league_services.unmerge_player(
        league, bob2, reason="two brothers after all", recorded_by=organiser
    )
    assert unmerged.kind == Event.Kind.PLAYER_UNMERGED
    assert (unmerged.player_id, unmerged.other_player_id) == (bob2.pk, bob.pk)
    assert Player.objects.get(pk=bob2.pk).merged_into_id is None

    log = event_log(league).items
    assert (
        log[0].summary
        == "Bob Bakr unmerged from Bob Baker: Bob Bakr's matches count as their own again"
    )
    assert log[0].reason == "two brothers after all"
    assert log[0].recorded_by == organiser.username
    assert (
        log[1].summary == "Bob Bakr merged into Bob Baker: Bob Bakr's matches count as Bob Baker's"
    )
    assert log[1].reason == "typo in the CSV"


def test_a_retried_merge_and_unmerge_store_nothing_twice(league, organiser, make_player):
    a, b = make_player(league, "Ann"), make_player(league, "Ann L")
    first = league_services.merge_player(
        league, b, a, reason="dup", recorded_by=organiser, idempotency_key="m-1"
    )
    again = league_services.merge_player(
        league, b, a, reason="dup", recorded_by=organiser, idempotency_key="m-1"
    )
    assert again.pk == first.pk
    undo = league_services.unmerge_player(
        league, b, reason="oops", recorded_by=organiser, idempotency_key="u-1"
    )
    assert (
        league_services.unmerge_player(
            league, b, reason="oops", recorded_by=organiser, idempotency_key="u-1"
        ).pk
        == undo.pk
    )
    assert (
        Event.objects.filter(league=league, kind__in=["player_merged", "player_unmerged"]).count()
        == 2
    )


def _refusal(league, organiser, call) -> ValidationError:
    before = _event_count(league)
    states = list(Player.objects.order_by("pk").values_list("pk", "merged_into_id", "active"))
    with pytest.raises(ValidationError) as raised:
        call()
    assert _event_count(league) == before
    assert (
        list(Player.objects.order_by("pk").values_list("pk", "merged_into_id", "active")) == states
    )
    return raised.value


def test_merge_refusals_say_why_and_store_nothing(
    league, other_league, organiser, other_organiser, make_player
):
    ann, bea, cy, dee = (make_player(league, name) for name in ("Ann", "Bea", "Cy", "Dee"))
    stranger = make_player(other_league, "Stranger")
    merge = league_services.merge_player

    error = _refusal(
        league, organiser, lambda: merge(league, ann, ann, reason="x", recorded_by=organiser)
    )
    assert error.message_dict == {"into": ["A player cannot be merged into themselves."]}

    error = _refusal(
        league, organiser, lambda: merge(league, ann, stranger, reason="x", recorded_by=organiser)
    )
    assert "Stranger is a player of another league" in error.message_dict["into"][0]

    error = _refusal(
        league, organiser, lambda: merge(league, ann, bea, reason=" ", recorded_by=organiser)
    )
    assert error.message_dict["reason"] == ["Give a reason (it is shown in the event log)."]

    error = _refusal(
        league, organiser, lambda: merge(league, ann, bea, reason="x", recorded_by=other_organiser)
    )
    assert "is not an organiser of" in error.message_dict["recorded_by"][0]

    match = league_services.record_match(
        league, player_a=ann, player_b=bea, score_a="1", played_at=START
    )
    assert match.seq == 5
    error = _refusal(
        league, organiser, lambda: merge(league, ann, bea, reason="x", recorded_by=organiser)
    )
    assert error.message_dict["into"] == [
        "Ann and Bea played each other (1 counted match, first #5): merged, those would be "
        "matches against oneself. Void them first if the records are one player."
    ]

    # Chains: into a merged-away player, or merging a player others were merged into.
    merge(league, cy, dee, reason="same person", recorded_by=organiser)
    error = _refusal(
        league, organiser, lambda: merge(league, ann, cy, reason="x", recorded_by=organiser)
    )
    assert error.message_dict["into"] == ["Cy was merged into Dee; merge into Dee instead."]
    error = _refusal(
        league, organiser, lambda: merge(league, dee, ann, reason="x", recorded_by=organiser)
    )
    assert error.message_dict["player"][0].startswith("Cy was merged into Dee; unmerge them")
    error = _refusal(
        league, organiser, lambda: merge(league, cy, ann, reason="x", recorded_by=organiser)
    )
    assert error.message_dict["player"] == ["Cy is already merged into Dee; unmerge them first."]
    error = _refusal(
        league,
        organiser,
        lambda: league_services.unmerge_player(league, ann, reason="x", recorded_by=organiser),
    )
    assert error.message_dict["player"] == ["Ann is not merged into anyone."]


def test_merging_into_a_player_whose_absorbed_record_played_them_is_refused(
    league, organiser, make_player
):
    ann, bea, cy = (make_player(league, name) for name in ("Ann", "Bea", "Cy"))
    league_services.record_match(league, player_a=cy, player_b=ann, score_a="0", played_at=START)
    league_services.merge_player(league, cy, bea, reason="same person", recorded_by=organiser)
    error = _refusal(
        league,
        organiser,
        lambda: league_services.merge_player(league, ann, bea, reason="x", recorded_by=organiser),
    )
    assert error.message_dict["into"][0].startswith(
        "Ann and Bea played each other (1 counted match"
    )


def test_a_voided_match_between_them_does_not_block_a_merge(league, organiser, make_player):
    ann, bea = make_player(league, "Ann"), make_player(league, "Bea")
    match = league_services.record_match(
        league, player_a=ann, player_b=bea, score_a="1", played_at=START
    )
    league_services.void_match(league, match, reason="same person twice", recorded_by=organiser)
    league_services.merge_player(league, bea, ann, reason="same person", recorded_by=organiser)
    assert Player.objects.get(pk=bea.pk).merged_into_id == ann.pk


def test_results_for_a_merged_away_player_are_refused_naming_the_survivor(
    league, organiser, make_player
):
    bob, bob2, cy = (make_player(league, n) for n in ("Bob Baker", "Bob Bakr", "Cy"))
    league_services.merge_player(league, bob2, bob, reason="typo", recorded_by=organiser)
    error = _refusal(
        league,
        organiser,
        lambda: league_services.record_match(
            league, player_a=cy, player_b=bob2, score_a="1", played_at=START, recorded_by=organiser
        ),
    )
    assert error.message_dict["player_b"] == [
        "Bob Bakr was merged into Bob Baker: record the result for Bob Baker."
    ]


# --- replays: incremental after merges and unmerges equals a fold from scratch -----------------


def _step(league, organiser, rng, players, kept, merged, today) -> str:
    action = rng.choices(["record", "backdate", "void", "merge", "unmerge"], [4, 3, 1, 2, 2])[0]
    live = [m for m in kept if not m.voided]
    playing = [p for p in players if p.pk not in merged]
    if action == "unmerge" and not merged:
        action = "merge"
    if action == "void" and not live:
        action = "record"
    if action == "merge":
        absorbed = set(merged.values())
        candidates = [
            (x, y)
            for x in playing
            for y in playing
            if x.pk != y.pk
            and x.pk not in absorbed
            and not any({merged.get(m.a, m.a), merged.get(m.b, m.b)} == {x.pk, y.pk} for m in live)
        ]
        if not candidates:
            action = "record"
        else:
            x, y = rng.choice(candidates)
            league_services.merge_player(league, x, y, reason="same person", recorded_by=organiser)
            merged[x.pk] = y.pk
            return action
    if action == "unmerge":
        x = rng.choice(sorted(merged))
        league_services.unmerge_player(league, x, reason="not the same", recorded_by=organiser)
        del merged[x]
        return action
    if action == "void":
        target = rng.choice(live)
        league_services.void_match(league, target.event, reason="entered twice")
        target.voided = True
        return action
    a, b = rng.sample(playing, 2)
    if action == "record":
        latest = max((m.day for m in kept), default=START)
        day = min(today, latest + dt.timedelta(days=rng.randrange(0, 10)))
    else:
        day = START + dt.timedelta(days=rng.randrange(0, 60))
    score = rng.choice(["1", "0.5", "0"])
    event = league_services.record_match(
        league, player_a=a, player_b=b, score_a=score, played_at=day
    )
    kept.append(KeptMatch(a.pk, b.pk, float(score), day, event))
    return action


@pytest.mark.parametrize("seed", [3, 11, 2026])
def test_incremental_replays_after_merges_and_unmerges_equal_a_replay_from_scratch(
    league, organiser, make_player, django_capture_on_commit_callbacks, seed
):
    rng = random.Random(seed)
    today = dt.datetime.now(ZoneInfo(league.time_zone)).date()
    players = [make_player(league, f"Player {i}") for i in range(7)]
    kept: list[KeptMatch] = []
    merged: dict[int, int] = {}
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(league, tau=0.6, period_length=5, update_mode="period")
    seen = set()
    for _ in range(40):
        with django_capture_on_commit_callbacks(execute=True):
            seen.add(_step(league, organiser, rng, players, kept, merged, today))
        expected = expected_projection(config, _mapped(kept, merged), current_period(config))
        actual = snapshot(config)
        assert actual == expected, explain_difference(config, actual, expected)
        # A merged-away player has no standing: only the survivor is ranked.
        assert not Standing.objects.filter(config=config, player_id__in=list(merged)).exists()
    assert {"merge", "unmerge"} <= seen
    incremental = Replay.objects.filter(config=config, kind=Replay.Kind.INCREMENTAL)
    assert incremental.filter(from_period__gt=0).exists()  # resumed from checkpoints

    def every_row():
        history, standings = snapshot(config)
        last = sorted(
            Standing.objects.filter(config=config).values_list("player_id", "last_played_at")
        )
        return history, standings, last

    kept_rows = every_row()
    with django_capture_on_commit_callbacks(execute=True):
        full = services.request_full_replay(league)
    full.refresh_from_db()
    assert full.status == Replay.Status.COMPLETE
    assert every_row() == kept_rows


def test_a_merge_moves_the_matches_to_the_survivor_and_an_unmerge_moves_them_back(
    league, organiser, make_player, django_capture_on_commit_callbacks
):
    ann, bob, bob2, cy = (make_player(league, n) for n in ("Ann", "Bob Baker", "Bob Bakr", "Cy"))
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(league, tau=0.5, period_length=7, update_mode="period")
    with django_capture_on_commit_callbacks(execute=True):
        for day, (a, b) in enumerate([(ann, bob), (bob2, cy), (cy, bob2), (ann, cy)]):
            league_services.record_match(
                league,
                player_a=a,
                player_b=b,
                score_a="1",
                played_at=START + dt.timedelta(days=7 * day),
            )

    def games():
        return dict(
            Standing.objects.filter(config=config).values_list("player__display_name", "games")
        )

    assert games() == {"Ann": 2, "Bob Baker": 1, "Bob Bakr": 2, "Cy": 3}
    with django_capture_on_commit_callbacks(execute=True):
        league_services.merge_player(league, bob2, bob, reason="typo", recorded_by=organiser)
    assert games() == {"Ann": 2, "Bob Baker": 3, "Cy": 3}
    with django_capture_on_commit_callbacks(execute=True):
        league_services.unmerge_player(league, bob2, reason="brothers", recorded_by=organiser)
    assert games() == {"Ann": 2, "Bob Baker": 1, "Bob Bakr": 2, "Cy": 3}


def test_an_export_after_a_merge_imports_into_an_empty_league_with_the_same_standings(
    league, organiser, make_player, django_capture_on_commit_callbacks
):
    import io

    from league.csv_import import import_results
    from league.models import League
    from ratings import exports

    ann, bob, bob2, cy = (make_player(league, n) for n in ("Ann", "Bob Baker", "Bob Bakr", "Cy"))
    params = {"period_length": 7, "period_anchor": START}
    with django_capture_on_commit_callbacks(execute=True):
        services.create_config(league, **params, update_mode="period")
        for day, (a, b, score) in enumerate(
            [(ann, bob, "1"), (bob2, cy, "0.5"), (cy, bob2, "0"), (ann, cy, "1"), (bob2, ann, "1")]
        ):
            league_services.record_match(
                league,
                player_a=a,
                player_b=b,
                score_a=score,
                played_at=START + dt.timedelta(days=3 * day),
            )
        league_services.merge_player(league, bob2, bob, reason="typo", recorded_by=organiser)

    out = io.StringIO()
    exports.write_csv(exports.results(league), out)
    assert "Bob Bakr" not in out.getvalue()
    copy = League.objects.create(
        name="Copy", slug="copy", time_zone=league.time_zone, start_date=league.start_date
    )
    with django_capture_on_commit_callbacks(execute=True):
        report = import_results(copy, io.BytesIO(out.getvalue().encode()), create_players=True)
        assert report.ok
        services.create_config(copy, **params, update_mode="period")

    def by_name(of):
        config = of.publication.config
        return {
            s.player.display_name: (float(s.rating).hex(), float(s.rd).hex(), s.games, s.wins)
            for s in Standing.objects.filter(config=config).select_related("player")
        }

    assert by_name(league).keys() == {"Ann", "Bob Baker", "Cy"}
    assert by_name(copy) == by_name(league)


def test_an_import_naming_a_merged_away_player_is_refused_naming_the_survivor(
    league, organiser, make_player
):
    import io

    from league.csv_import import import_results

    make_player(league, "Ann")
    bob, bob2 = make_player(league, "Bob Baker"), make_player(league, "Bob Bakr")
    league_services.merge_player(league, bob2, bob, reason="typo", recorded_by=organiser)
    before = _event_count(league)
    data = b"date,player_a,player_b,score_a,id\n2024-03-01,Ann,Bob Bakr,1,\n"
    report = import_results(league, io.BytesIO(data), create_players=True)
    assert not report.ok
    assert [e.line for e in report.errors] == [2]
    assert "Bob Bakr was merged into Bob Baker: record the result for Bob Baker." in (
        report.errors[0].message
    )
    assert _event_count(league) == before
