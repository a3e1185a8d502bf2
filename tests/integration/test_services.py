"""Write services: bad inputs are refused with a clear message and write nothing."""

from __future__ import annotations

import datetime as dt
import zoneinfo
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from league import services
from league.event_store import facts_of
from league.event_store.signals import events_appended
from league.models import Event, League, Player
from league.validation import row_errors

PLAYED = dt.date(2024, 3, 2)


@pytest.fixture
def signals():
    """Every events_appended call made during the test."""
    calls: list[dict] = []

    def receiver(sender, **kwargs):
        calls.append({"sender": sender, **kwargs})

    events_appended.connect(receiver, dispatch_uid="test_services")
    yield calls
    events_appended.disconnect(dispatch_uid="test_services")


@pytest.fixture
def club(league, other_league, make_player, organiser):
    """Players of both leagues and one recorded match, before signals are watched."""
    ann = services.register_player(league, "Ann", recorded_by=organiser)
    bob = services.register_player(league, "Bob", recorded_by=organiser)
    make_player(league, "Idle Ian", active=False)
    services.register_player(other_league, "Olga")
    match = services.record_match(league, player_a=ann, player_b=bob, score_a=1, played_at=PLAYED)
    return {"ann": ann, "bob": bob, "match": match}


def state() -> tuple:
    return (
        list(Event.objects.order_by("pk").values()),
        list(Player.objects.order_by("pk").values()),
    )


def resolve(club, league, value):
    """Table values naming fixtures: 'ann', 'ian', 'olga', 'olga_id'."""
    if value == "ann":
        return club["ann"]
    if value == "bob":
        return club["bob"]
    if value == "ian":
        return Player.objects.get(display_name="Idle Ian")
    if value == "olga":
        return Player.objects.get(display_name="Olga")
    if value == "olga_id":
        return Player.objects.get(display_name="Olga").pk
    if value == "bob_id_and_a_half":
        return club["bob"].pk + 0.5
    return value


TOMORROW = object()
IN_AN_HOUR = object()

BAD_MATCHES = [
    ("unknown player", {"player_a": 999_999}, "player_a", "unknown_player", "has no player"),
    ("player id as text", {"player_b": "abc"}, "player_b", "invalid_player", "not a player id"),
    ("player id True", {"player_b": True}, "player_b", "invalid_player", "not a player id"),
    (
        "player id with a fraction",
        {"player_b": "bob_id_and_a_half"},
        "player_b",
        "invalid_player",
        "not a player id",
    ),
    ("missing player", {"player_b": None}, "player_b", "required", "Choose a player"),
    ("inactive player", {"player_b": "ian"}, "player_b", "inactive_player", "inactive"),
    ("player of another league", {"player_b": "olga"}, "player_b", "other_league", "another"),
    ("id of another league's player", {"player_a": "olga_id"}, "player_a", "unknown_player", ""),
    ("self-play", {"player_b": "ann"}, "player_b", "self_play", "cannot play themselves"),
    ("score 0.3", {"score_a": 0.3}, "score_a", "invalid_score", "1 (first player won)"),
    ("score 2", {"score_a": 2}, "score_a", "invalid_score", "0.5 (draw)"),
    ("score abc", {"score_a": "abc"}, "score_a", "invalid_score", "got 'abc'"),
    ("score True", {"score_a": True}, "score_a", "invalid_score", ""),
    ("score NaN", {"score_a": "NaN"}, "score_a", "invalid_score", ""),
    ("date in the future", {"played_at": TOMORROW}, "played_at", "future", "in the future"),
    ("time in the future", {"played_at": IN_AN_HOUR}, "played_at", "future", "in the future"),
    (
        "before the league start",
        {"played_at": dt.date(2023, 12, 31)},
        "played_at",
        "before_start",
        "before the league started (2024-01-01)",
    ),
    ("not a date", {"played_at": "last tuesday"}, "played_at", "invalid_played_at", "YYYY"),
    ("points too long", {"points": "1" * 121}, "points", "points_too_long", "too long"),
    ("key too long", {"idempotency_key": "k" * 201}, "idempotency_key", "key_too_long", ""),
    (
        "key reused for different content",
        {"idempotency_key": "used", "score_a": "0"},
        "idempotency_key",
        "idempotency_conflict",
        "already used for a different submission",
    ),
]


@pytest.mark.parametrize(
    ("overrides", "field", "code", "message"),
    [case[1:] for case in BAD_MATCHES],
    ids=[case[0] for case in BAD_MATCHES],
)
def test_record_match_refuses_bad_input(club, league, signals, overrides, field, code, message):
    services.record_match(
        league,
        player_a=club["ann"],
        player_b=club["bob"],
        score_a="0.5",
        played_at=PLAYED,
        idempotency_key="used",
    )
    signals.clear()
    arguments = {
        "player_a": club["ann"],
        "player_b": club["bob"],
        "score_a": "1",
        "played_at": PLAYED,
    }
    for name, value in overrides.items():
        if value is TOMORROW:
            value = timezone.localdate(timezone=zoneinfo.ZoneInfo("Europe/London"))
            value += dt.timedelta(days=1)
        elif value is IN_AN_HOUR:
            value = timezone.now() + dt.timedelta(hours=1)
        arguments[name] = resolve(club, league, value)
    before = state()

    with pytest.raises(ValidationError) as raised:
        services.record_match(league, **arguments)

    errors = raised.value.error_dict[field]
    assert code in [error.code for error in errors]
    assert message in " ".join(raised.value.message_dict[field])
    assert state() == before
    assert signals == []


def test_a_recorder_who_does_not_organise_the_league_is_refused(club, league, other_organiser):
    before = state()
    with pytest.raises(ValidationError) as raised:
        services.record_match(
            league,
            player_a=club["ann"],
            player_b=club["bob"],
            score_a=1,
            played_at=PLAYED,
            recorded_by=other_organiser,
        )
    assert raised.value.message_dict["recorded_by"] == [
        "other is not an organiser of Riverside Chess Club."
    ]
    assert state() == before


def test_a_date_means_noon_in_the_league_time_zone(club, league):
    event = services.record_match(
        league, player_a=club["ann"], player_b=club["bob"], score_a="0", played_at="2024-07-01"
    )
    london = event.played_at.astimezone(zoneinfo.ZoneInfo("Europe/London"))
    assert (london.date(), london.hour, london.minute) == (dt.date(2024, 7, 1), 12, 0)
    assert event.score_a == Decimal("0")
    assert event.score_b == Decimal("1")


def test_a_match_today_is_accepted_even_before_noon(club, league):
    today = timezone.localdate(timezone=zoneinfo.ZoneInfo("Europe/London"))
    event = services.record_match(
        league, player_a=club["ann"], player_b=club["bob"], score_a=0.5, played_at=today
    )
    assert event.score_a == Decimal("0.5")


def test_a_match_dated_today_is_corrected_before_noon(club, league, monkeypatch):
    """A date is stored as local noon; a correction that keeps it is checked as the date was,
    not as a moment still to come (the morning of the match's own day)."""
    london = zoneinfo.ZoneInfo("Europe/London")
    today = timezone.localdate(timezone=london)
    morning = dt.datetime.combine(today, dt.time(9), tzinfo=london)
    monkeypatch.setattr(timezone, "now", lambda: morning)
    original = services.record_match(
        league, player_a=club["ann"], player_b=club["bob"], score_a="1", played_at=today
    )
    assert original.played_at > morning  # noon, still to come

    voided, corrected = services.correct_match(league, original, reason="reversed", score_a="0")

    assert corrected.played_at == original.played_at
    assert corrected.score_a == Decimal("0")
    assert voided.voids == original
    # A moment given with the correction is still checked as a moment.
    with pytest.raises(ValidationError) as raised:
        services.correct_match(
            league, corrected, reason="later", played_at=morning + dt.timedelta(hours=4)
        )
    assert raised.value.error_dict["played_at"][0].code == "future"


BAD_VOIDS = [
    ("unknown match", lambda c: 999_999, {}, "match", "unknown_match", "has no event"),
    (
        "match id with a fraction",
        lambda c: c["match"].pk + 0.5,
        {},
        "match",
        "invalid_match",
        "not a match id",
    ),
    ("match id True", lambda c: True, {}, "match", "invalid_match", "not a match id"),
    ("not a match", lambda c: Event.objects.get(player=c["ann"]), {}, "match", "not_a_match", ""),
    (
        "match of another league",
        lambda c: c["other_match"],
        {},
        "match",
        "other_league",
        "another league",
    ),
    ("voided twice", lambda c: c["voided"], {}, "match", "already_voided", "already voided"),
    ("no reason", lambda c: c["match"], {"reason": "  "}, "reason", "required", "reason"),
]


@pytest.fixture
def void_cases(club, league, other_league):
    cleo = services.register_player(other_league, "Cleo")
    olga = Player.objects.get(display_name="Olga")
    other_match = services.record_match(
        other_league, player_a=cleo, player_b=olga, score_a=1, played_at=PLAYED
    )
    voided = services.record_match(
        league, player_a=club["bob"], player_b=club["ann"], score_a=1, played_at=PLAYED
    )
    services.void_match(league, voided, reason="entered twice")
    return {**club, "other_match": other_match, "voided": voided}


@pytest.mark.parametrize(
    ("target", "overrides", "field", "code", "message"),
    [case[1:] for case in BAD_VOIDS],
    ids=[case[0] for case in BAD_VOIDS],
)
def test_void_match_refuses_bad_input(
    void_cases, league, signals, target, overrides, field, code, message
):
    before = state()
    arguments = {"reason": "wrong players", **overrides}
    with pytest.raises(ValidationError) as raised:
        services.void_match(league, target(void_cases), **arguments)
    assert code in [error.code for error in raised.value.error_dict[field]]
    assert message in " ".join(raised.value.message_dict[field])
    assert state() == before
    assert signals == []


def test_void_match_appends_one_event_and_signals_it(club, league, signals):
    void = services.void_match(league, club["match"].pk, reason="wrong players")
    assert void.voids == club["match"]
    assert list(Event.objects.live_matches()) == []
    assert len(signals) == 1
    assert signals[0]["sender"] is League
    assert signals[0]["league"] == league
    assert signals[0]["events"] == facts_of([void])


def test_a_retried_void_returns_the_stored_void(club, league, signals):
    first = services.void_match(league, club["match"], reason="typo", idempotency_key="v1")
    again = services.void_match(league, club["match"], reason="typo", idempotency_key="v1")
    assert again == first
    assert len(signals) == 1


def test_register_player_refuses_a_blank_or_duplicate_name(club, league):
    before = state()
    for name, code in (
        ("   ", "required"),
        ("ann", "duplicate_name"),
        ("x" * 121, "name_too_long"),
    ):
        with pytest.raises(ValidationError) as raised:
            services.register_player(league, name)
        assert raised.value.error_dict["display_name"][0].code == code
    assert state() == before


def test_register_player_gives_each_player_a_free_slug(league):
    first = services.register_player(league, "Ann Lee")
    second = services.register_player(league, "Ann  Lee!")
    assert second.display_name == "Ann Lee!"
    assert (first.slug, second.slug) == ("ann-lee", "ann-lee-2")
    registered = Event.objects.filter(kind=Event.Kind.PLAYER_REGISTERED)
    assert [e.player for e in registered] == [first, second]


class TestRecordRound:
    def rows(self, club):
        ann, bob = club["ann"], club["bob"]
        cleo = services.register_player(ann.league, "Cleo")
        return [
            {"player_a": ann, "player_b": bob, "score_a": "1", "played_at": PLAYED},
            {"player_a": bob.pk, "player_b": cleo.pk, "score_a": "0.5", "played_at": PLAYED},
            {"player_a": cleo, "player_b": ann, "score_a": 0, "played_at": PLAYED, "points": "0-2"},
        ]

    def test_stores_every_result_and_signals_once(self, club, league, signals):
        rows = self.rows(club)
        signals.clear()
        first = Event.objects.filter(league=league).count() + 1
        events = services.record_round(league, rows)
        assert [e.score_a for e in events] == [Decimal("1"), Decimal("0.5"), Decimal("0")]
        assert [e.seq for e in events] == [first, first + 1, first + 2]
        assert len(signals) == 1
        assert signals[0]["events"] == facts_of(events)

    def test_one_bad_row_stores_nothing_and_names_the_row(self, club, league, signals):
        rows = self.rows(club)
        rows[1]["score_a"] = "2"
        rows[2]["player_b"] = rows[2]["player_a"]
        signals.clear()
        before = state()
        with pytest.raises(ValidationError) as raised:
            services.record_round(league, rows)
        by_row = row_errors(raised.value)
        assert set(by_row) == {1, 2}
        assert "score_a" in by_row[1]
        assert "cannot play themselves" in by_row[2]["player_b"][0]
        assert state() == before
        assert signals == []

    def test_an_empty_round_is_refused(self, league):
        with pytest.raises(ValidationError) as raised:
            services.record_round(league, [])
        assert raised.value.message_dict == {"results": ["A round needs at least one result."]}

    def test_the_same_key_twice_in_a_round_is_refused(self, club, league):
        rows = self.rows(club)
        rows[0]["idempotency_key"] = rows[2]["idempotency_key"] = "same"
        before = state()
        with pytest.raises(ValidationError) as raised:
            services.record_round(league, rows)
        assert row_errors(raised.value)[2]["idempotency_key"] == [
            "This idempotency key is also used by result 1 of this round."
        ]
        assert state() == before

    def test_a_retried_round_stores_nothing_new(self, club, league, signals):
        rows = self.rows(club)
        for number, row in enumerate(rows):
            row["idempotency_key"] = f"round-1/{number}"
        signals.clear()
        first = services.record_round(league, rows)
        again = services.record_round(league, rows)
        assert again == first
        assert len(signals) == 1


class TestCorrectMatch:
    def test_voids_and_records_linked_in_one_call(self, club, league, signals, organiser):
        original = club["match"]
        void, corrected = services.correct_match(
            league, original, reason="score was reversed", score_a="0", recorded_by=organiser
        )
        assert void.voids == original
        assert corrected.replaces == original
        assert (corrected.player_a, corrected.player_b) == (original.player_a, original.player_b)
        assert corrected.score_a == Decimal("0")
        assert corrected.played_at == original.played_at
        assert (void.seq, corrected.seq) == (original.seq + 1, original.seq + 2)
        assert corrected.recorded_by == organiser
        assert list(Event.objects.live_matches()) == [corrected]
        assert len(signals) == 1
        assert signals[0]["events"] == facts_of([void, corrected])

    def test_an_invalid_new_result_writes_not_even_the_void(self, club, league, signals):
        before = state()
        with pytest.raises(ValidationError) as raised:
            services.correct_match(league, club["match"], reason="typo", player_b=club["ann"])
        assert raised.value.error_dict["player_b"][0].code == "self_play"
        assert state() == before
        assert signals == []

    def test_a_correction_that_changes_nothing_is_refused(self, club, league):
        before = state()
        with pytest.raises(ValidationError) as raised:
            services.correct_match(league, club["match"], reason="typo")
        assert raised.value.error_dict["__all__"][0].code == "unchanged"
        assert state() == before

    def test_a_voided_match_cannot_be_corrected(self, club, league):
        services.void_match(league, club["match"], reason="never played")
        before = state()
        with pytest.raises(ValidationError) as raised:
            services.correct_match(league, club["match"], reason="typo", score_a="0")
        assert raised.value.error_dict["match"][0].code == "already_voided"
        assert state() == before

    def test_a_retried_correction_returns_the_stored_pair(self, club, league, signals):
        first = services.correct_match(
            league, club["match"], reason="typo", score_a="0.5", idempotency_key="fix-1"
        )
        again = services.correct_match(
            league, club["match"], reason="typo", score_a="0.5", idempotency_key="fix-1"
        )
        assert again == first
        assert first[0].idempotency_key == "fix-1/void"
        assert len(signals) == 1


def test_nothing_is_written_when_a_receiver_fails(club, league):
    """The signal is sent inside the transaction: a failing receiver rolls back the append."""
    before = state()

    def broken(**kwargs):
        raise RuntimeError("receiver failed")

    events_appended.connect(broken, dispatch_uid="broken")
    try:
        with pytest.raises(RuntimeError):
            services.record_match(
                league, player_a=club["ann"], player_b=club["bob"], score_a=1, played_at=PLAYED
            )
    finally:
        events_appended.disconnect(dispatch_uid="broken")
    assert state() == before


def test_a_superuser_may_record_in_any_league(club, league):
    root = get_user_model().objects.create_superuser("boss", password="pw-boss-1")
    event = services.record_match(
        league,
        player_a=club["ann"],
        player_b=club["bob"],
        score_a="1",
        played_at=PLAYED,
        recorded_by=root,
    )
    assert event.recorded_by == root
