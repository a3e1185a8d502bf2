"""``league.prepared_queries``: an ORM query compiled once answers as the ORM does for any
integer arguments, and refuses arguments it could not have compiled for."""

from __future__ import annotations

import datetime as dt

import pytest
from django.core.exceptions import ValidationError
from django.db.models import F

from league import services
from league.models import Event, Player
from league.prepared_queries import PreparedQuery, model_fields


def _moments(league_id: int, after_seq: int):
    return (
        Event.objects.filter(league_id=league_id, seq__gt=after_seq)
        .alias(bound=F("seq") + 0)
        .filter(bound__gt=after_seq)
        .order_by("seq")
        .values_list("seq", "played_at", "player_a_id")
    )


@pytest.fixture
def two_leagues(league, other_league, make_player):
    start = dt.datetime(2024, 3, 4, 18, 30, tzinfo=dt.UTC)
    for n, current in enumerate((league, other_league)):
        a, b = make_player(current, f"Ann {n}"), make_player(current, f"Ben {n}")
        for day in range(3 + n):
            services.record_match(
                current,
                player_a=a.pk,
                player_b=b.pk,
                score_a="1",
                played_at=start + dt.timedelta(days=day, minutes=n),
            )
    return league, other_league


def test_rows_are_the_orm_rows_for_every_argument(two_leagues):
    prepared = PreparedQuery(_moments)
    checked = 0
    for current in two_leagues:
        top = Event.objects.filter(league=current).count()
        for after_seq in range(top + 2):
            expected = [tuple(row) for row in _moments(current.pk, after_seq)]
            assert prepared.rows(league_id=current.pk, after_seq=after_seq) == expected
            checked += len(expected)
    # Matches and registrations of both leagues were compared, datetimes included.
    assert checked > 10
    first = prepared.first(league_id=two_leagues[0].pk, after_seq=0)
    assert first is not None
    played = prepared.rows(league_id=two_leagues[0].pk, after_seq=0)
    moments = [row[1] for row in played if row[1] is not None]
    assert len(moments) == 3
    assert all(moment.tzinfo is not None for moment in moments)
    assert min(moments) == dt.datetime(2024, 3, 4, 18, 30, tzinfo=dt.UTC)


def test_value_first_and_exists_without_rows(two_leagues):
    prepared = PreparedQuery(_moments)
    league = two_leagues[0]
    top = Event.objects.filter(league=league).count()
    assert prepared.first(league_id=league.pk, after_seq=top) is None
    assert prepared.value(league_id=league.pk, after_seq=top) is None
    assert not prepared.exists(league_id=league.pk, after_seq=top)
    assert prepared.exists(league_id=league.pk, after_seq=top - 1)
    assert prepared.value(league_id=league.pk, after_seq=top - 1) == top


def test_the_query_is_built_once(two_leagues):
    built = []

    def build(league_id: int, after_seq: int):
        built.append((league_id, after_seq))
        return _moments(league_id, after_seq)

    prepared = PreparedQuery(build)
    for current in two_leagues:
        for after_seq in (0, 2, 4):
            prepared.rows(league_id=current.pk, after_seq=after_seq)
    assert len(built) == 1


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"league_id": None, "after_seq": 0}, "'league_id' must be an int, not NoneType"),
        ({"league_id": 1, "after_seq": True}, "'after_seq' must be an int, not bool"),
        ({"league_id": 1, "after_seq": "3"}, "'after_seq' must be an int, not str"),
        ({"league_id": 1}, "expected arguments ('league_id', 'after_seq')"),
        ({"league_id": 1, "after_seq": 0, "seq": 2}, "expected arguments"),
    ],
)
def test_refuses_arguments_it_did_not_compile_for(two_leagues, arguments, message):
    prepared = PreparedQuery(_moments)
    with pytest.raises(TypeError, match=message.replace("(", r"\(").replace(")", r"\)")):
        prepared.rows(**arguments)


def test_an_argument_the_query_ignores_is_an_error(db):
    prepared = PreparedQuery(lambda league_id, seq: Event.objects.filter(league_id=league_id))
    with pytest.raises(ValueError, match=r"\['seq'\] do not reach the compiled query"):
        prepared.rows(league_id=1, seq=2)


def test_refuses_a_number_no_database_integer_holds(two_leagues):
    prepared = PreparedQuery(_moments)
    with pytest.raises(ValueError, match="'after_seq' is out of a database integer's range"):
        prepared.rows(league_id=two_leagues[0].pk, after_seq=2**63)
    assert prepared.rows(league_id=two_leagues[0].pk, after_seq=2**63 - 1) == []


def test_instances_are_the_models_rows(two_leagues):
    league = two_leagues[0]
    prepared = PreparedQuery(
        lambda league_id: (
            Player.objects.filter(league_id=league_id)
            .order_by("pk")
            .values_list(*model_fields(Player))
        )
    )
    players = prepared.instances(Player, league_id=league.pk)
    expected = list(Player.objects.filter(league=league).order_by("pk"))
    names = model_fields(Player)
    assert len(players) == 2
    for got, want in zip(players, expected, strict=True):
        assert [getattr(got, name) for name in names] == [getattr(want, name) for name in names]
    # Full rows: saving one changes only what was changed.
    players[0].active = False
    players[0].save(update_fields=["active"])
    assert not Player.objects.get(pk=players[0].pk).active


def test_a_subset_of_fields_lands_in_the_right_attributes(two_leagues):
    # ``Model.from_db`` takes a subset's values in the model's order: ``model_fields``
    # puts the names in that order whatever order they are asked in.
    league = two_leagues[0]
    names = model_fields(Player, "slug", "id", "display_name")
    assert names == ("id", "display_name", "slug")
    prepared = PreparedQuery(
        lambda league_id: (
            Player.objects.filter(league_id=league_id).order_by("pk").values_list(*names)
        )
    )
    got = [
        (p.pk, p.display_name, p.slug)
        for p in prepared.instances(Player, *names, league_id=league.pk)
    ]
    assert got == list(
        Player.objects.filter(league=league)
        .order_by("pk")
        .values_list("pk", "display_name", "slug")
    )
    with pytest.raises(ValueError, match=r"Player has no columns \['nickname'\]"):
        model_fields(Player, "nickname")


def test_the_queued_replay_is_the_one_the_orm_picks(league, make_player):
    # ``request_catch_up``'s prepared read against the queryset it replaced: the newest
    # queued full replay (the model's order), the oldest queued incremental one.
    from ratings.models import Replay
    from ratings.services import _queued, create_config

    config = create_config(league)  # with its first full replay, queued (never sent here)
    for kind in (Replay.Kind.FULL, Replay.Kind.INCREMENTAL, Replay.Kind.FULL):
        Replay.objects.create(config=config, kind=kind)
    Replay.objects.create(
        config=config, kind=Replay.Kind.INCREMENTAL, status=Replay.Status.COMPLETE
    )
    Replay.objects.create(config=config, kind=Replay.Kind.INCREMENTAL)
    pending = Replay.objects.filter(config=config, status=Replay.Status.QUEUED)
    full = pending.filter(kind=Replay.Kind.FULL).first()
    incremental = pending.filter(kind=Replay.Kind.INCREMENTAL).order_by("pk").first()
    for kind, expected in ((Replay.Kind.FULL, full), (Replay.Kind.INCREMENTAL, incremental)):
        got = _queued(config.pk, kind)
        assert (got.pk, got.config_id, got.kind, got.status, got.queued_at) == (
            expected.pk, expected.config_id, expected.kind, expected.status, expected.queued_at
        )  # fmt: skip
    assert _queued(config.pk + 1000, Replay.Kind.FULL) is None


@pytest.mark.parametrize("player_id", [10**20, -(10**20), 0, 2**63 - 1])
def test_an_id_no_row_can_have_is_an_unknown_player(two_leagues, player_id):
    # ``resolve_player`` reads players through a prepared query: an id past a database
    # integer is "no such player", as the ORM answered, not a driver's overflow.
    league = two_leagues[0]
    known = Player.objects.filter(league=league).first()
    before = Event.objects.filter(league=league).count()
    with pytest.raises(ValidationError) as raised:
        services.record_match(
            league,
            player_a=known.pk,
            player_b=player_id,
            score_a="1",
            played_at=dt.datetime(2024, 3, 10, tzinfo=dt.UTC),
        )
    assert raised.value.message_dict["player_b"] == [
        f"Riverside Chess Club has no player with id {player_id}."
    ]
    assert Event.objects.filter(league=league).count() == before
