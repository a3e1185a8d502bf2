"""Results reported by players: every step an event, every refusal writes nothing.

The services are driven as the pages and the API drive them (``league.services.reports``);
the players are claimed by their accounts through ``league.player_accounts``.
"""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.contrib.auth import get_user_model
from django.core.exceptions import ValidationError
from django.utils import timezone

from league.event_log import event_log
from league.models import Event, PlayerRules, Report, ReportPolicy, ReportStatus
from league.player_accounts import claim_player
from league.services import reports
from league.services.matches import record_match

DAY = dt.date(2024, 3, 2)


@pytest.fixture
def people(db, league, organiser, make_player):
    """Ann, Bob and Cat, each held by their own account; Dan held by no one."""
    users = {}
    players = {}
    for name in ("Ann", "Bob", "Cat"):
        user = get_user_model().objects.create_user(name.lower(), password=f"pw-{name}-1")
        player = make_player(league, f"{name} Player")
        claim_player(player, user, by=organiser)
        users[name], players[name] = user, player
    players["Dan"] = make_player(league, "Dan Player")
    return users, players


def kinds(league) -> list[str]:
    return list(Event.objects.filter(league=league).order_by("seq").values_list("kind", flat=True))


def report_ann_beat_bob(league, users, players, **extra) -> Report:
    return reports.submit_report(
        league,
        user=users["Ann"],
        player_a=players["Ann"].pk,
        player_b=players["Bob"].pk,
        score_a="1",
        played_at=DAY,
        **extra,
    )


def test_a_report_confirmed_by_the_opponent_is_recorded_as_a_match(league, people):
    users, players = people
    before = Event.objects.filter(league=league).count()
    report = report_ann_beat_bob(league, users, players, points="", note="club night")
    assert report.status == ReportStatus.PENDING
    assert report.sides == [[players["Ann"].pk], [players["Bob"].pk]]
    assert report.places == [0, 1]
    # Reported, not yet counted: no match.
    assert not Event.objects.filter(league=league).all_matches().exists()

    outcome = reports.confirm_report(league, report, user=users["Bob"])
    assert outcome.stored
    assert outcome.report.status == ReportStatus.CONFIRMED
    match = outcome.report.match
    assert match.kind == Event.Kind.MATCH_RECORDED
    assert (match.player_a_id, match.player_b_id, match.score_a) == (
        players["Ann"].pk,
        players["Bob"].pk,
        Decimal("1"),
    )
    assert match.note == "club night"
    assert match.recorded_by == users["Bob"]
    assert kinds(league)[before:] == ["report_submitted", "match_recorded", "report_confirmed"]

    # Confirming again (a double tap) stores nothing.
    again = reports.confirm_report(league, report, user=users["Bob"])
    assert not again.stored
    assert Event.objects.filter(league=league).count() == before + 3

    summaries = [row.summary for row in event_log(league).items]
    assert f"Report {report.pk} (Ann Player 1–0 Bob Player) confirmed by Bob Player" in summaries
    assert any(text.startswith(f"Report {report.pk}: Ann Player reported") for text in summaries)


def test_the_same_report_submitted_twice_with_one_key_is_stored_once(league, people):
    users, players = people
    first = report_ann_beat_bob(league, users, players, idempotency_key="k-1")
    second = report_ann_beat_bob(league, users, players, idempotency_key="k-1")
    assert first.pk == second.pk
    assert Report.objects.count() == 1
    with pytest.raises(ValidationError) as caught:
        reports.submit_report(
            league,
            user=users["Ann"],
            player_a=players["Ann"].pk,
            player_b=players["Bob"].pk,
            score_a="0",
            played_at=DAY,
            idempotency_key="k-1",
        )
    assert "idempotency_key" in caught.value.message_dict


@pytest.mark.parametrize(
    ("who", "a", "b", "field", "code"),
    [
        # Cat reports a game between Ann and Bob: she did not play in it.
        ("Cat", "Ann", "Bob", "player_a", "not_a_player_of_match"),
        # Ann acts for Bob's player record.
        ("Ann", "Bob", "Cat", "player", "not_your_player"),
    ],
)
def test_a_player_reports_only_their_own_results(league, people, who, a, b, field, code):
    users, players = people
    before = Event.objects.filter(league=league).count()
    with pytest.raises(ValidationError) as caught:
        reports.submit_report(
            league,
            user=users[who],
            player=players["Bob"].pk if code == "not_your_player" else None,
            player_a=players[a].pk,
            player_b=players[b].pk,
            score_a="1",
            played_at=DAY,
        )
    assert [e.code for e in caught.value.error_dict[field]] == [code]
    assert Event.objects.filter(league=league).count() == before
    assert not Report.objects.exists()


def test_bad_input_names_the_field_and_writes_nothing(league, people):
    users, players = people
    before = Event.objects.filter(league=league).count()
    cases = [
        ({"score_a": "2"}, "score_a"),
        ({"played_at": "2023-12-31"}, "played_at"),
        ({"played_at": (timezone.now() + dt.timedelta(days=3)).date()}, "played_at"),
        ({"player_b": players["Ann"].pk}, "player_b"),
        ({"player_b": 987654}, "player_b"),
        ({"note": "bad\x00note"}, "note"),
    ]
    for change, field in cases:
        row = {
            "player_a": players["Ann"].pk,
            "player_b": players["Bob"].pk,
            "score_a": "1",
            "played_at": DAY,
            **change,
        }
        with pytest.raises(ValidationError) as caught:
            reports.submit_report(league, user=users["Ann"], **row)
        assert field in caught.value.message_dict, (change, caught.value.message_dict)
    assert Event.objects.filter(league=league).count() == before
    # Someone without a player record in the league.
    stranger = get_user_model().objects.create_user("stranger", password="pw-stranger-1")
    with pytest.raises(ValidationError) as caught:
        reports.submit_report(
            league,
            user=stranger,
            player_a=players["Ann"].pk,
            player_b=players["Bob"].pk,
            score_a="1",
            played_at=DAY,
        )
    assert caught.value.error_dict["player"][0].code == "no_player"


def test_only_the_other_side_confirms_or_disputes(league, people):
    users, players = people
    report = report_ann_beat_bob(league, users, players)
    for user in (users["Ann"], users["Cat"]):
        with pytest.raises(ValidationError) as caught:
            reports.confirm_report(league, report, user=user)
        assert "player" in caught.value.message_dict
        with pytest.raises(ValidationError):
            reports.dispute_report(league, report, user=user, reason="wrong")
    with pytest.raises(ValidationError) as caught:
        reports.withdraw_report(league, report, user=users["Bob"])
    assert caught.value.error_dict["player"][0].code == "not_reporter"
    # A player cannot reject: that is the organisers' decision.
    with pytest.raises(ValidationError):
        reports.reject_report(league, report, user=users["Bob"], reason="no")
    assert Report.objects.get().status == ReportStatus.PENDING
    assert kinds(league)[-1] == "report_submitted"


def test_a_disputed_report_waits_for_the_organiser_who_rejects_it(league, organiser, people):
    users, players = people
    report = report_ann_beat_bob(league, users, players)
    with pytest.raises(ValidationError) as caught:
        reports.dispute_report(league, report, user=users["Bob"], reason="  ")
    assert caught.value.error_dict["reason"][0].code == "required"
    outcome = reports.dispute_report(league, report, user=users["Bob"], reason="I won")
    assert outcome.report.status == ReportStatus.DISPUTED
    # Disputed: the opponent can no longer confirm it by themselves.
    with pytest.raises(ValidationError) as caught:
        reports.confirm_report(league, report, user=users["Bob"])
    assert caught.value.error_dict["report"][0].code == "disputed"
    with pytest.raises(ValidationError) as caught:
        reports.reject_report(league, report, user=organiser, reason="")
    assert "reason" in caught.value.message_dict
    rejected = reports.reject_report(league, report, user=organiser, reason="Bob won, 0-1")
    assert rejected.report.status == ReportStatus.REJECTED
    assert kinds(league)[-2:] == ["report_disputed", "report_rejected"]
    assert Event.objects.filter(league=league).last().reason == "Bob won, 0-1"
    assert not Event.objects.filter(league=league).all_matches().exists()
    # Settled: nothing more can happen to it.
    for action in (
        lambda: reports.confirm_report(league, report, user=organiser, as_organiser=True),
        lambda: reports.withdraw_report(league, report, user=users["Ann"]),
    ):
        with pytest.raises(ValidationError) as caught:
            action()
        assert caught.value.error_dict["report"][0].code == "already_settled"


def test_an_organiser_confirms_a_disputed_report(league, organiser, people):
    users, players = people
    report = report_ann_beat_bob(league, users, players)
    reports.dispute_report(league, report, user=users["Bob"], reason="not so")
    outcome = reports.confirm_report(
        league, report, user=organiser, as_organiser=True, reason="Seen by the arbiter"
    )
    assert outcome.report.status == ReportStatus.CONFIRMED
    assert outcome.report.match.recorded_by == organiser
    # An organiser of another league may not.
    other = get_user_model().objects.create_user("meddler", password="pw-meddler-1")
    second = report_ann_beat_bob(league, users, players)
    with pytest.raises(ValidationError):
        reports.confirm_report(league, second, user=other, as_organiser=True)


def test_the_reporter_withdraws_an_open_report(league, people):
    users, players = people
    report = report_ann_beat_bob(league, users, players)
    outcome = reports.withdraw_report(league, report, user=users["Ann"], reason="typo")
    assert outcome.report.status == ReportStatus.WITHDRAWN
    with pytest.raises(ValidationError):
        reports.confirm_report(league, report, user=users["Bob"])
    assert kinds(league)[-1] == "report_withdrawn"


def test_organiser_only_leagues_refuse_reports(league, people):
    users, players = people
    PlayerRules.objects.create(league=league, report_policy=ReportPolicy.ORGANISERS)
    with pytest.raises(ValidationError) as caught:
        report_ann_beat_bob(league, users, players)
    assert caught.value.error_dict["__all__"][0].code == "reports_closed"
    assert not Report.objects.exists()


def test_nothing_a_player_does_voids_a_recorded_result(league, organiser, people):
    users, players = people
    recorded = record_match(
        league,
        player_a=players["Ann"],
        player_b=players["Bob"],
        score_a="0",
        played_at=DAY,
        recorded_by=organiser,
    )
    # Bob reports the same game the other way round: it is a new report, waiting for Ann;
    # the organiser's result stands untouched whatever happens to it.
    report = reports.submit_report(
        league,
        user=users["Bob"],
        player_a=players["Bob"].pk,
        player_b=players["Ann"].pk,
        score_a="0",
        played_at=DAY,
    )
    reports.withdraw_report(league, report, user=users["Bob"])
    assert not Event.objects.filter(voids=recorded).exists()
    assert Event.objects.filter(league=league).live_all_matches().count() == 1


def test_reports_with_sides(league, organiser, people, make_player):
    users, players = people
    league.match_format = "fixed"
    league.side_size = 2
    league.save()
    report = reports.submit_report(
        league,
        user=users["Cat"],
        sides=[[players["Ann"].pk, players["Cat"].pk], [players["Bob"].pk, players["Dan"].pk]],
        score_a="0.5",
        played_at=DAY,
    )
    assert report.places == [0, 0]
    # Ann is on the reporter's side: she cannot confirm; Bob, on the other, can.
    with pytest.raises(ValidationError):
        reports.confirm_report(league, report, user=users["Ann"])
    outcome = reports.confirm_report(league, report, user=users["Bob"])
    match = outcome.report.match
    assert match.kind == Event.Kind.SIDE_MATCH_RECORDED
    assert match.score_a == Decimal("0.5")


def test_reports_are_accepted_after_the_leagues_days_without_dispute(league, people):
    users, players = people
    PlayerRules.objects.create(league=league, report_policy=ReportPolicy.AUTO, accept_after_days=3)
    old = report_ann_beat_bob(league, users, players)
    fresh = reports.submit_report(
        league,
        user=users["Cat"],
        player_a=players["Cat"].pk,
        player_b=players["Bob"].pk,
        score_a="1",
        played_at=DAY,
    )
    disputed = report_ann_beat_bob(league, users, players)
    reports.dispute_report(league, disputed, user=users["Bob"], reason="wrong")
    now = timezone.now()
    Report.objects.filter(pk__in=[old.pk, disputed.pk]).update(
        created_at=now - dt.timedelta(days=3, minutes=1)
    )
    assert reports.accept_overdue_reports(now) == 1
    old.refresh_from_db()
    fresh.refresh_from_db()
    disputed.refresh_from_db()
    assert old.status == ReportStatus.CONFIRMED
    assert old.match is not None
    assert fresh.status == ReportStatus.PENDING
    assert disputed.status == ReportStatus.DISPUTED
    confirmation = Event.objects.get(report=old, kind=Event.Kind.REPORT_CONFIRMED)
    assert confirmation.recorded_by is None
    assert confirmation.reason == "No dispute within 3 days"
    # A second sweep finds nothing more to do.
    assert reports.accept_overdue_reports(now) == 0


def test_reports_waiting_for_me(league, people):
    users, players = people
    report = report_ann_beat_bob(league, users, players)
    assert reports.open_reports_for(users["Bob"], league)["waiting"] == [report]
    assert reports.open_reports_for(users["Ann"], league) == {"reported": [report], "waiting": []}
    assert reports.open_reports_for(users["Cat"], league) == {"reported": [], "waiting": []}


def test_a_key_shaped_like_a_settling_key_is_refused(league, people):
    users, players = people
    report = report_ann_beat_bob(league, users, players)
    with pytest.raises(ValidationError) as caught:
        report_ann_beat_bob(league, users, players, idempotency_key=f"report:{report.pk}:outcome")
    assert caught.value.error_dict["idempotency_key"][0].code == "reserved_key"
    # The report it aimed at still settles.
    assert reports.confirm_report(league, report, user=users["Bob"]).stored


def test_events_appended_carries_the_ids_a_message_needs(league, people):
    """The facts h-messages' receivers read: report id, reporter and answering players."""
    from league.event_store.signals import events_appended
    from league.event_store.vocabulary import MatchRecorded, ReportConfirmed, ReportSubmitted

    users, players = people
    seen: list = []

    def receiver(sender, league, events, **kwargs):
        seen.extend(events)

    events_appended.connect(receiver)
    try:
        report = report_ann_beat_bob(league, users, players)
        reports.confirm_report(league, report, user=users["Bob"])
    finally:
        events_appended.disconnect(receiver)
    submitted, match, confirmed = seen
    assert isinstance(submitted, ReportSubmitted)
    assert (submitted.report_id, submitted.player_id) == (report.pk, players["Ann"].pk)
    assert submitted.sides == ((players["Ann"].pk,), (players["Bob"].pk,))
    assert isinstance(match, MatchRecorded)
    assert isinstance(confirmed, ReportConfirmed)
    report.refresh_from_db()
    assert (confirmed.report_id, confirmed.player_id, confirmed.match_id) == (
        report.pk,
        players["Bob"].pk,
        report.match_id,
    )
