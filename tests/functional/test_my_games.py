"""The players' "My games" page and the organisers' reports queue, through Django's client."""

from __future__ import annotations

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from league.models import Event, PlayerRules, Report, ReportPolicy, ReportStatus
from league.player_accounts import claim_player

pytestmark = pytest.mark.django_db


@pytest.fixture
def pair(league, organiser, make_player):
    """Ann and Bob, each signed in through their own client."""
    clients, players = {}, {}
    for name in ("Ann", "Bob"):
        user = get_user_model().objects.create_user(name.lower(), password="pw-player-1")
        player = make_player(league, f"{name} Player")
        claim_player(player, user, by=organiser)
        client = Client()
        client.force_login(user)
        clients[name], players[name] = client, player
    return clients, players


def page(league) -> str:
    return f"/{league.slug}/my-games/"


def report(client, league, opponent, **extra):
    data = {
        "action": "report",
        "opponents": str(opponent.pk),
        "score": "1",
        "played_at": "2024-03-02",
        "idempotency_key": "form-1",
        # The test league plays chess: the reporter says which colour they had.
        "colour": "white",
        **extra,
    }
    return client.post(page(league), data)


def test_report_and_confirm_from_the_pages(league, pair):
    clients, players = pair
    response = report(clients["Ann"], league, players["Bob"], points="3-1")
    assert response.status_code == 302
    stored = Report.objects.get()
    assert stored.sides == [[players["Ann"].pk], [players["Bob"].pk]]
    assert stored.points == "3-1"
    # The same form sent twice (a double tap) stores one report.
    report(clients["Ann"], league, players["Bob"], points="3-1")
    assert Report.objects.count() == 1

    bob_page = clients["Bob"].get(page(league)).content.decode()
    assert f'id="report-{stored.pk}"' in bob_page
    assert "Ann Player 1–0 Bob Player" in bob_page
    ann_page = clients["Ann"].get(page(league)).content.decode()
    assert f'id="my-report-{stored.pk}"' in ann_page
    assert f'id="report-{stored.pk}"' not in ann_page

    # Ann cannot confirm her own report even by posting to the address.
    clients["Ann"].post(f"{page(league)}reports/{stored.pk}/confirm/")
    assert Report.objects.get().status == ReportStatus.PENDING
    response = clients["Bob"].post(f"{page(league)}reports/{stored.pk}/confirm/", follow=True)
    assert "Confirmed: the result is recorded." in response.content.decode()
    assert Report.objects.get().status == ReportStatus.CONFIRMED
    assert Event.objects.filter(league=league).all_matches().count() == 1


def test_a_chess_report_names_white_first_whoever_reports_it(league, pair):
    clients, players = pair
    # Ann had Black and won 3-1 (as she types it, from her side).
    response = report(clients["Ann"], league, players["Bob"], colour="black", points="3-1")
    assert response.status_code == 302
    stored = Report.objects.get()
    assert stored.sides == [[players["Bob"].pk], [players["Ann"].pk]]  # White first
    assert stored.places == [1, 0]  # Black (Ann) won
    assert stored.points == "1-3"
    assert stored.neutral is False  # White's advantage applies
    # Without a colour the form says so and stores nothing.
    response = report(clients["Ann"], league, players["Bob"], colour="", idempotency_key="k2")
    assert response.status_code == 200
    assert "Your colour" in response.content.decode()
    assert Report.objects.count() == 1


def test_where_a_game_was_played_decides_the_home_side(league, pair):
    clients, players = pair
    league.sport = "Football"
    league.save()
    report(clients["Ann"], league, players["Bob"], ground="away", score="0", idempotency_key="a")
    away = Report.objects.get()
    assert away.sides == [[players["Bob"].pk], [players["Ann"].pk]]  # the home side first
    assert away.places == [0, 1]  # Ann lost away: Bob, at home, won
    assert away.neutral is False
    report(clients["Ann"], league, players["Bob"], ground="neutral", idempotency_key="n")
    neutral = Report.objects.exclude(pk=away.pk).get()
    assert neutral.sides == [[players["Ann"].pk], [players["Bob"].pk]]
    assert neutral.neutral is True


def test_a_bad_report_is_shown_on_its_field(league, pair):
    clients, players = pair
    response = report(clients["Ann"], league, players["Bob"], played_at="2023-05-05")
    assert response.status_code == 200
    body = response.content.decode()
    assert "field--error" in body
    assert "2023-05-05 is before the league started (2024-01-01)." in body
    response = report(clients["Ann"], league, players["Bob"], opponents="")
    assert response.status_code == 200
    assert "field--error" in response.content.decode()
    assert not Report.objects.exists()


def test_the_page_needs_a_player_of_the_league(league, organiser):
    anonymous = Client().get(f"/{league.slug}/my-games/")
    assert anonymous.status_code == 302
    stranger = get_user_model().objects.create_user("nobody", password="pw-nobody-1")
    client = Client()
    client.force_login(stranger)
    assert client.get(f"/{league.slug}/my-games/").status_code == 403
    assert client.post(f"/{league.slug}/my-games/reports/1/confirm/").status_code == 403


def test_a_disputed_report_reaches_the_organisers_queue(league, organiser, pair):
    clients, players = pair
    report(clients["Ann"], league, players["Bob"])
    stored = Report.objects.get()
    clients["Bob"].post(f"{page(league)}reports/{stored.pk}/dispute/", {"reason": "I won"})
    assert Report.objects.get().status == ReportStatus.DISPUTED
    boss = Client()
    boss.force_login(organiser)
    queue = boss.get(f"/{league.slug}/organise/reports/").content.decode()
    assert f'id="report-{stored.pk}"' in queue
    assert "Disputed: I won" in queue
    # Rejecting needs a reason.
    boss.post(f"/{league.slug}/organise/reports/{stored.pk}/reject/", {"reason": ""})
    assert Report.objects.get().status == ReportStatus.DISPUTED
    boss.post(f"/{league.slug}/organise/reports/{stored.pk}/reject/", {"reason": "Bob won"})
    assert Report.objects.get().status == ReportStatus.REJECTED
    # Players cannot open the queue.
    assert clients["Bob"].get(f"/{league.slug}/organise/reports/").status_code == 403


def test_the_rules_form(league, organiser, pair):
    clients, players = pair
    boss = Client()
    boss.force_login(organiser)
    url = f"/{league.slug}/organise/reports/"
    bad = boss.post(
        url,
        {
            "report_policy": "auto",
            "accept_after_days": "0",
            "challenge_places": "3",
            "challenge_days": "7",
            "ignored_challenge": "expired",
        },
    )
    assert bad.status_code == 200
    assert "Give a whole number from 1 to 60." in bad.content.decode()
    assert not PlayerRules.objects.exists()
    boss.post(
        url,
        {
            "report_policy": "organisers",
            "accept_after_days": "3",
            "challenges": "on",
            "challenge_places": "2",
            "challenge_days": "5",
            "ignored_challenge": "forfeit",
        },
    )
    rules = PlayerRules.objects.get()
    assert rules.report_policy == ReportPolicy.ORGANISERS
    assert (rules.challenges, rules.challenge_places, rules.challenge_days) == (True, 2, 5)
    # Players can no longer report; the page says so.
    body = clients["Ann"].get(page(league)).content.decode()
    assert "the organisers record every result" in body
    report(clients["Ann"], league, players["Bob"])
    assert not Report.objects.exists()


def test_a_doubles_result_reported_from_the_page(league, pair, make_player):
    clients, players = pair
    league.match_format = "fixed"
    league.side_size = 2
    league.save()
    cat, dan = make_player(league, "Cat Player"), make_player(league, "Dan Player")
    response = clients["Ann"].post(
        page(league),
        {
            "action": "report",
            "partners": [str(cat.pk)],
            "opponents": [str(players["Bob"].pk), str(dan.pk)],
            "score": "0",
            "played_at": "2024-03-02",
        },
    )
    assert response.status_code == 302
    stored = Report.objects.get()
    assert stored.sides == [[players["Ann"].pk, cat.pk], [players["Bob"].pk, dan.pk]]
    assert stored.places == [1, 0]
    # A side of the wrong size is refused on the page, naming the opponents' field.
    response = clients["Ann"].post(
        page(league),
        {
            "action": "report",
            "opponents": [str(players["Bob"].pk)],
            "partners": [str(cat.pk)],
            "score": "1",
            "played_at": "2024-03-02",
        },
    )
    assert response.status_code == 200
    assert 'id="id_opponents_error"' in response.content.decode()
    assert Report.objects.count() == 1
