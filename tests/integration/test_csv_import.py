"""CSV import of results: format, all-or-nothing, idempotency, and the export round trip."""

from __future__ import annotations

import datetime as dt
import io
from decimal import Decimal

import pytest

from league import services as league_services
from league.csv_format import MAX_LINE_BYTES, iter_results, parse_score
from league.csv_import import import_results
from league.event_store import facts_of
from league.event_store.bulk import BulkAppendError, NewMatch, append_matches_bulk
from league.event_store.signals import events_appended
from league.models import Event, League, Player
from ratings import exports
from ratings import services as rating_services
from ratings.models import Replay, Standing

HEADER = "date,player_a,player_b,score_a,id\n"


def csv_bytes(*lines: str, header: str = HEADER) -> bytes:
    return (header + "".join(line + "\n" for line in lines)).encode("utf-8")


def run(league: League, data: bytes, **options):
    return import_results(league, io.BytesIO(data), **options)


def event_rows(league: League) -> list[tuple]:
    return list(Event.objects.filter(league=league).order_by("seq").values_list())


@pytest.fixture
def players(league):
    return [league_services.register_player(league, name) for name in ("Ann", "Bob", "Cy")]


# --- the format, without a database --------------------------------------------------------


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("1", "1"),
        ("0", "0"),
        ("0.5", "0.5"),
        ("½", "0.5"),
        ("1-0", "1"),
        ("0-1", "0"),
        ("½-½", "0.5"),
        ("0.5-0.5", "0.5"),
        ("1/2-1/2", "0.5"),
        (" 1 - 0 ", "1"),
    ],
)
def test_score_forms_are_read_as_one_half_or_zero(text, expected):
    assert parse_score(text) == Decimal(expected)


@pytest.mark.parametrize("text", ["2", "1-1", "0-0", "win", "", "0.25", "1-0-0"])
def test_unknown_score_forms_are_refused(text):
    with pytest.raises(ValueError, match="unknown score_a"):
        parse_score(text)


def test_points_decide_the_score_and_are_kept_as_text():
    data = csv_bytes(
        "2024-03-01,Ann,Bob,3,1",
        "2024-03-02,Ann,Bob,0,2",
        "2024-03-03,Ann,Bob,2,2",
        header="date,player_a,player_b,points_a,points_b\n",
    )
    rows = list(iter_results(io.BytesIO(data)))
    assert [(row.score_a, row.points) for row in rows] == [
        (Decimal("1"), "3\u20131"),
        (Decimal("0"), "0\u20132"),
        (Decimal("0.5"), "2\u20132"),
    ]


def test_a_byte_order_mark_and_iso_date_times_are_accepted():
    data = b"\xef\xbb\xbf" + csv_bytes("2024-03-01T18:30:00+01:00,Ann,Bob,1,k1")
    (row,) = iter_results(io.BytesIO(data))
    assert row.played == dt.datetime(2024, 3, 1, 18, 30, tzinfo=dt.timezone(dt.timedelta(hours=1)))
    assert row.key == "k1"


# --- malformed files: each refused with its reason and line, nothing recorded -----------------

MALFORMED = [
    pytest.param(
        b"date,player_a,score_a\n2024-03-01,Ann,1\n", 1, "missing column: player_b", id="missing"
    ),
    pytest.param(
        csv_bytes("2024-03-01,Ann,Bob,1,", "2024-02-30,Ann,Bob,1,"), 3, "bad date", id="bad-date"
    ),
    pytest.param(csv_bytes("2024-03-01,Ann,Bob,2-0,"), 2, "unknown score_a '2-0'", id="score"),
    pytest.param(csv_bytes("2024-03-01,Ann,Ann,1,"), 2, "cannot play themselves", id="self-play"),
    pytest.param(b"", 1, "the file is empty", id="empty"),
    pytest.param(csv_bytes(), 1, "header but no data rows", id="header-only"),
    pytest.param(
        csv_bytes("2024-03-01,Ann,Bob,1,").replace(b"Bob", "Zoë".encode("latin-1"))
        + csv_bytes("2024-03-02,Ann,Bob,1,", header=""),
        2,
        "not UTF-8",
        id="latin-1",
    ),
    pytest.param(
        csv_bytes("2024-03-01,Ann,Bob,1," + "x" * (MAX_LINE_BYTES + 10), "2024-03-02,Ann,Bob,1,"),
        2,
        "longer than",
        id="huge-line",
    ),
    pytest.param(csv_bytes("2999-01-01,Ann,Bob,1,"), 2, "in the future", id="future"),
    pytest.param(csv_bytes("2023-12-31,Ann,Bob,1,"), 2, "before the league started", id="early"),
    pytest.param(csv_bytes("2024-03-01,Ann,Zed,1,"), 2, "has no player named “Zed”", id="unknown"),
    pytest.param(
        csv_bytes("2024-03-01,Ann,Bob,1,k", "2024-03-01,Ann,Bob,0,k"),
        3,
        "Idempotency key 'k' is used twice in this submission",
        id="duplicate-id",
    ),
    pytest.param(
        csv_bytes("2024-03-01,Ann,Bob,-1,2", header="date,player_a,player_b,points_a,points_b\n"),
        2,
        "non-negative",
        id="negative-points",
    ),
    pytest.param(csv_bytes("2024-03-01,Ann,Bob,1"), 2, "expected 5 fields", id="short-row"),
]


@pytest.mark.parametrize(("data", "line", "reason"), MALFORMED)
def test_a_malformed_file_is_refused_with_its_reason_and_nothing_is_recorded(
    league, players, data, line, reason
):
    before = event_rows(league)
    report = run(league, data)
    assert not report.ok
    assert (line, True) in [(error.line, reason in error.message) for error in report.errors]
    assert event_rows(league) == before
    assert Player.objects.filter(league=league).count() == 3


def test_every_bad_row_is_reported_not_only_the_first(league, players):
    data = csv_bytes(
        "2024-03-01,Ann,Ann,1,",
        "2024-03-02,Ann,Bob,1,",
        "2024-13-01,Ann,Bob,1,",
        "2024-03-04,Ann,Nobody,1,",
        "2024-03-05,Bob,Cy,0.5,",
    )
    before = event_rows(league)
    report = run(league, data)
    assert [error.line for error in report.errors] == [2, 4, 5]
    assert report.error_count == 3
    assert event_rows(league) == before


def test_an_inactive_player_is_refused_as_by_the_services(league, players):
    Player.objects.filter(pk=players[2].pk).update(active=False)
    report = run(league, csv_bytes("2024-03-01,Ann,Cy,1,"))
    assert [(e.line, "inactive" in e.message) for e in report.errors] == [(2, True)]


def test_an_id_stored_with_other_content_is_a_conflict(league, players):
    league_services.record_match(
        league,
        player_a=players[0],
        player_b=players[1],
        score_a="1",
        played_at=dt.date(2024, 3, 1),
        idempotency_key="match-1",
    )
    before = event_rows(league)
    report = run(league, csv_bytes("2024-03-01,Ann,Bob,0,match-1"))
    assert [(e.line, "already used" in e.message) for e in report.errors] == [(2, True)]
    assert event_rows(league) == before


# --- recording --------------------------------------------------------------------------------


def test_an_import_records_the_rows_in_order_with_contiguous_sequence_numbers(league, players):
    received = []

    def receiver(**kwargs):
        received.append(kwargs)

    events_appended.connect(receiver, dispatch_uid="test_csv_import")
    try:
        data = csv_bytes(
            "2024-03-01,Ann,Bob,1,a", "2024-03-02,Bob,Cy,½-½,b", "2024-03-03T09:00,Cy,Ann,0-1,"
        )
        report = run(league, data)
    finally:
        events_appended.disconnect(dispatch_uid="test_csv_import")
    assert report.ok
    assert report.recorded == 3
    matches = list(Event.objects.matches().filter(league=league).order_by("seq"))
    assert [m.seq for m in matches] == [4, 5, 6]
    assert [(m.player_a.display_name, m.player_b.display_name, m.score_a) for m in matches] == [
        ("Ann", "Bob", Decimal("1")),
        ("Bob", "Cy", Decimal("0.5")),
        ("Cy", "Ann", Decimal("0")),
    ]
    assert matches[0].played_at == dt.datetime(2024, 3, 1, 12, tzinfo=dt.UTC)  # noon, GMT
    assert matches[2].played_at == dt.datetime(2024, 3, 3, 9, tzinfo=dt.UTC)
    assert [m.idempotency_key for m in matches] == ["a", "b", None]
    (call,) = received
    assert call["league"] == league
    assert len(call["events"]) == 3
    assert list(call["events"]) == facts_of(matches)
    # One shape for every append: the league and the facts, nothing more.
    assert set(call) == {"sender", "signal", "league", "events"}


def test_importing_the_same_file_twice_records_nothing_new(league, players):
    data = csv_bytes("2024-03-01,Ann,Bob,1,a", "2024-03-02,Bob,Cy,0.5,b", "2024-03-02,Bob,Cy,0.5,b")
    first = run(league, data)
    assert (first.recorded, first.skipped) == (2, 1)
    after_first = event_rows(league)
    second = run(league, data)
    assert second.ok
    assert (second.recorded, second.skipped) == (0, 3)
    assert event_rows(league) == after_first


def test_a_dry_run_reports_what_it_would_record_and_records_nothing(league, players):
    before = event_rows(league)
    report = run(
        league,
        csv_bytes("2024-03-01,Ann,Bob,1,a", "2024-03-01,Ann,Dan,1,b"),
        dry_run=True,
        create_players=True,
    )
    assert report.ok
    assert report.recorded == 2
    assert report.players_created == ["Dan"]
    assert not report.committed
    assert event_rows(league) == before
    assert not Player.objects.filter(league=league, display_name="Dan").exists()


def test_create_players_registers_unknown_names_once(league, players):
    report = run(
        league,
        csv_bytes("2024-03-01,Ann,Dan,1,", "2024-03-02,dan,Eve,0,", "2024-03-03,Eve,Ann,1,"),
        create_players=True,
    )
    assert report.ok
    assert report.players_created == ["Dan", "Eve"]
    registrations = Event.objects.filter(league=league, kind=Event.Kind.PLAYER_REGISTERED)
    assert sorted(e.player.display_name for e in registrations) == [
        "Ann",
        "Bob",
        "Cy",
        "Dan",
        "Eve",
    ]
    assert Player.objects.get(league=league, display_name="Dan").slug == "dan"


def test_the_bulk_path_refuses_everything_when_one_result_is_bad(league, players, other_league):
    ann, bob, _ = players
    stranger = league_services.register_player(other_league, "Stranger")
    before = event_rows(league)
    with pytest.raises(BulkAppendError) as caught:
        append_matches_bulk(
            league,
            [
                NewMatch(ann, bob, "1", dt.date(2024, 3, 1), ref="first"),
                NewMatch(ann, stranger, "1", dt.date(2024, 3, 1), ref="second"),
            ],
        )
    assert [ref for ref, _ in caught.value.result.errors] == ["second"]
    assert event_rows(league) == before


def test_the_bulk_path_checks_each_score_as_the_services_do(league, players):
    """A score of True is refused even after the equal-hashing 1 was accepted (and back)."""
    ann, bob, _ = players
    before = event_rows(league)
    day = dt.date(2024, 3, 1)
    for scores, bad_row in (((1, True), "row 1"), ((True, 1), "row 0"), ((0, False), "row 1")):
        with pytest.raises(BulkAppendError) as caught:
            append_matches_bulk(
                league,
                [NewMatch(ann, bob, score, day, ref=f"row {i}") for i, score in enumerate(scores)],
            )
        assert [ref for ref, _ in caught.value.result.errors] == [bad_row], scores
    assert event_rows(league) == before


def test_the_bulk_path_reports_bad_played_values_as_row_errors(league, players):
    """An unhashable or boolean ``played`` is a row error naming what was given, not a crash."""
    ann, bob, _ = players
    before = event_rows(league)
    with pytest.raises(BulkAppendError) as caught:
        append_matches_bulk(
            league,
            [
                NewMatch(ann, bob, "1", dt.date(2024, 3, 1), ref="good"),
                NewMatch(ann, bob, "1", ["2024-03-01"], ref="list"),
                NewMatch(ann, bob, "1", True, ref="boolean"),
            ],
        )
    errors = dict(caught.value.result.errors)
    assert sorted(errors) == ["boolean", "list"]
    assert "True" in errors["boolean"]
    assert event_rows(league) == before


# --- round trip -------------------------------------------------------------------------------


def rate_now(league: League, **params) -> None:
    if params:
        rating_services.create_config(league, **params)
    else:
        rating_services.request_full_replay(league)
    for pk in (
        Replay.objects.filter(config__league=league, status=Replay.Status.QUEUED)
        .order_by("pk")
        .values_list("pk", flat=True)
    ):
        rating_services.run_replay(pk)


def standings_by_name(league: League) -> dict[str, tuple]:
    config = league.publication.config
    return {
        s.player.display_name: (s.rating, s.rd, s.volatility, s.games, s.wins, s.draws, s.losses)
        for s in Standing.objects.filter(config=config).select_related("player")
    }


def test_exported_results_import_into_a_new_league_with_identical_standings(league, players):
    import random

    rng = random.Random(4)
    names = [*players, *(league_services.register_player(league, n) for n in ("Di", "Ed"))]
    recorded = []
    for i in range(60):
        a, b = rng.sample(names, 2)
        recorded.append(
            league_services.record_match(
                league,
                player_a=a,
                player_b=b,
                score_a=(score := rng.choice(["1", "0.5", "0"])),
                played_at=dt.date(2024, 1, 1) + dt.timedelta(days=rng.randrange(120)),
                # Points that agree with the score (a pair that contradicts it is refused).
                points=rng.choice(["", {"1": "3-1", "0.5": "2-2", "0": "1-3"}[score], "w/o"]),
                note=rng.choice(["", 'friendly, "cup"']),
                idempotency_key=f"m{i}" if i % 2 else None,
            )
        )
    league_services.void_match(league, recorded[3], reason="entered twice")
    params = {"period_unit": "days", "period_length": 14, "period_anchor": dt.date(2024, 1, 1)}
    rate_now(league, **params)

    out = io.StringIO()
    exports.write_csv(exports.results(league), out)
    copy = League.objects.create(
        name="Copy", slug="copy", time_zone=league.time_zone, start_date=league.start_date
    )
    report = run(copy, out.getvalue().encode("utf-8"), create_players=True)
    assert report.ok
    assert report.recorded == 59
    rate_now(copy, **params)

    original, imported = standings_by_name(league), standings_by_name(copy)
    assert len(original) == 5
    assert imported == original
    copied = Event.objects.matches().filter(league=copy).order_by("seq")
    assert [(e.played_at, e.points, e.note) for e in copied] == [
        (e.played_at, e.points, e.note)
        for e in Event.objects.live_matches().filter(league=league).order_by("seq")
    ]


STATUS_HEADER = "date,player_a,player_b,score_a,note,player_status\n"


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (",Bob,,,,retired", "player_status 'retired' is not a status"),
        (",Bob,Cy,,,inactive", "names one player, in player_a, and no match"),
        (",Zed,,,,inactive", "no player named"),
    ],
)
def test_a_bad_player_status_row_is_reported_on_its_line_and_nothing_changes(
    league, players, line, message
):
    data = csv_bytes("2024-03-01,Ann,Bob,1,,", line, header=STATUS_HEADER)
    report = run(league, data)
    assert [(e.line, message in e.message) for e in report.errors] == [(3, True)]
    assert not Event.objects.matches().filter(league=league).exists()
    assert Player.objects.get(display_name="Bob").active


def test_a_player_status_row_deactivates_after_the_files_matches(league, players):
    data = csv_bytes(
        ",Bob,,,left the club,inactive",  # before Bob's match in the file: applied after it
        "2024-03-01,Ann,Bob,1,,",
        header=STATUS_HEADER,
    )
    report = run(league, data)
    assert (report.ok, report.recorded) == (True, 1)
    bob = Player.objects.get(display_name="Bob")
    assert not bob.active
    assert Event.objects.get(kind=Event.Kind.PLAYER_DEACTIVATED).reason == "left the club"
