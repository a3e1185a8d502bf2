"""Recording on the workspace: one score box, the echo, the date check, undo, a round."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse
from django.utils import timezone

from league import services
from league.models import Event
from web.workspace.dates import day_words, league_today


@pytest.fixture
def players(league, make_player):
    return [make_player(league, name) for name in ("Ann Archer", "Bob Baker", "Cat Cooper")]


@pytest.fixture
def signed_in(client, organiser):
    client.force_login(organiser)
    return client


def url(name, league, *args):
    return reverse(f"workspace:{name}", args=[league.slug, *args])


def entry(**overrides):
    return {
        "player_a": "Ann Archer",
        "score": "3-1",
        "player_b": "Bob Baker",
        "played_on": "",
        "note": "",
        "idempotency_key": "k1",
        "confirmed": "",
        **overrides,
    }


def today(league):
    return league_today(league)


def test_score_implies_the_result_and_the_echo_names_players_result_and_date(
    signed_in, league, players
):
    day = today(league)
    response = signed_in.post(url("record", league), entry(played_on=day.isoformat()))
    match = Event.objects.matches().get(league=league)
    assert (match.score_a, match.points) == (Decimal("1"), "3\u20131")
    assert response.status_code == 302
    assert response["Location"].endswith(f"?recorded={match.seq}")
    page = signed_in.get(response["Location"]).content.decode()
    assert "Ann Archer 3\u20131 Bob Baker: Ann Archer won" in page
    assert f"Played today, {day_words(day)}" in page
    assert reverse("workspace:undo", args=[league.slug]) in page
    assert f"?highlight={match.seq}-{match.seq}" in page


@pytest.mark.parametrize(
    ("typed", "score", "points"),
    [("1-3", "0", "1\u20133"), ("2:2", "0.5", "2\u20132"), ("w", "1", ""), ("d", "0.5", "")],
)
def test_points_league_reads_the_score_box(signed_in, league, players, typed, score, points):
    signed_in.post(url("record", league), entry(score=typed, played_on=today(league).isoformat()))
    match = Event.objects.matches().get(league=league)
    assert (match.score_a, match.points) == (Decimal(score), points)


@pytest.mark.parametrize(
    ("typed", "score"), [("1-0", "1"), ("½-½", "0.5"), ("0-1", "0"), ("1/2", "0.5")]
)
def test_result_only_league_reads_a_result_without_points(signed_in, league, players, typed, score):
    league.records_points = False
    league.save()
    signed_in.post(url("record", league), entry(score=typed, played_on=today(league).isoformat()))
    match = Event.objects.matches().get(league=league)
    assert (match.score_a, match.points) == (Decimal(score), "")


@pytest.mark.parametrize(
    ("records_points", "typed", "message"),
    [
        (True, "3-", "Type the score as the first player&#x27;s points"),
        (True, "1-0-1", "Type the score as the first player&#x27;s points"),
        (False, "3-1", "Type the result from the first player&#x27;s side"),
    ],
)
def test_unreadable_score_is_refused_on_its_field_and_nothing_recorded(
    signed_in, league, players, records_points, typed, message
):
    league.records_points = records_points
    league.save()
    response = signed_in.post(
        url("record", league), entry(score=typed, played_on=today(league).isoformat())
    )
    assert response.status_code == 200
    assert message in response.content.decode()
    assert not Event.objects.matches().filter(league=league).exists()


def test_unknown_player_is_named_and_nothing_recorded(signed_in, league, players):
    response = signed_in.post(
        url("record", league), entry(player_b="Zed", played_on=today(league).isoformat())
    )
    assert "has no player named “Zed”" in response.content.decode()
    assert not Event.objects.matches().filter(league=league).exists()


def test_a_day_far_in_the_past_is_confirmed_before_it_is_saved(signed_in, league, players):
    league.start_date = dt.date(2020, 1, 1)
    league.save()
    day = today(league) - dt.timedelta(days=300)
    first = signed_in.post(url("record", league), entry(played_on=day.isoformat()))
    body = first.content.decode()
    assert first.status_code == 200
    assert "Check the date before saving" in body
    assert day_words(day) in body
    assert "months ago" in body
    assert not Event.objects.matches().filter(league=league).exists()
    confirmed = signed_in.post(
        url("record", league), entry(played_on=day.isoformat(), confirmed=day.isoformat())
    )
    assert confirmed.status_code == 302
    assert Event.objects.matches().filter(league=league).count() == 1


def test_confirming_one_day_does_not_confirm_another(signed_in, league, players):
    league.start_date = dt.date(2020, 1, 1)
    league.save()
    day = today(league) - dt.timedelta(days=300)
    other = day - dt.timedelta(days=31)
    response = signed_in.post(
        url("record", league), entry(played_on=other.isoformat(), confirmed=day.isoformat())
    )
    assert "Check the date before saving" in response.content.decode()
    assert not Event.objects.matches().filter(league=league).exists()


def test_undo_voids_what_was_just_recorded(signed_in, league, players):
    signed_in.post(url("record", league), entry(played_on=today(league).isoformat()))
    match = Event.objects.matches().get(league=league)
    response = signed_in.post(url("undo", league), {"recorded": str(match.seq), "page": "record"})
    assert response.status_code == 302
    assert Event.objects.filter(league=league, voids=match).count() == 1
    page = signed_in.get(response["Location"]).content.decode()
    assert "undone (voided by #" in page
    # A second click (a double submission) voids nothing more.
    signed_in.post(url("undo", league), {"recorded": str(match.seq), "page": "record"})
    assert Event.objects.filter(league=league, kind=Event.Kind.MATCH_VOIDED).count() == 1


def round_data(day, rows, key="round-1", confirmed=""):
    data = {
        "played_on": day.isoformat(),
        "idempotency_key": key,
        "confirmed": confirmed,
        "results-TOTAL_FORMS": str(max(len(rows), 3)),
        "results-INITIAL_FORMS": "0",
        "results-MIN_NUM_FORMS": "0",
        "results-MAX_NUM_FORMS": "100",
    }
    for index, (a, score, b) in enumerate(rows):
        data[f"results-{index}-player_a"] = a
        data[f"results-{index}-score"] = score
        data[f"results-{index}-player_b"] = b
    return data


def test_a_round_is_recorded_in_one_go_and_echoed(signed_in, league, players):
    day = today(league)
    rows = [("Ann Archer", "3-1", "Bob Baker"), ("Cat Cooper", "2-2", "Ann Archer")]
    response = signed_in.post(url("round", league), round_data(day, rows))
    assert response.status_code == 302
    matches = list(Event.objects.matches().filter(league=league).order_by("seq"))
    assert [(m.player_a.display_name, m.score_a, m.points) for m in matches] == [
        ("Ann Archer", Decimal("1"), "3\u20131"),
        ("Cat Cooper", Decimal("0.5"), "2\u20132"),
    ]
    page = signed_in.get(response["Location"]).content.decode()
    assert "Recorded: 2 results" in page
    assert "Undo all 2" in page


def test_a_round_with_one_bad_row_records_nothing_and_marks_the_row(signed_in, league, players):
    rows = [("Ann Archer", "3-1", "Bob Baker"), ("Cat Cooper", "2-", "Ann Archer")]
    response = signed_in.post(url("round", league), round_data(today(league), rows))
    assert response.status_code == 200
    assert "row--error" in response.content.decode()
    assert not Event.objects.matches().filter(league=league).exists()


def test_service_contradiction_is_refused_with_the_points_named(league, players, organiser):
    from django.core.exceptions import ValidationError

    ann, bob = players[:2]
    with pytest.raises(ValidationError) as refused:
        services.record_match(
            league,
            player_a=ann,
            player_b=bob,
            score_a=1,
            points="1-3",
            played_at=timezone.now(),
            recorded_by=organiser,
        )
    assert refused.value.message_dict["points"] == [
        "The points 1-3 mean loss for the first player, but the result says win: "
        "correct one of them."
    ]
    assert not Event.objects.matches().filter(league=league).exists()


@pytest.mark.parametrize("name", ["record", "round", "log", "export", "tokens"])
def test_workspace_pages_are_closed_to_other_organisers(client, league, other_organiser, name):
    client.force_login(other_organiser)
    assert client.get(url(name, league)).status_code == 403


@pytest.mark.parametrize("name", ["record", "round", "log", "export", "tokens"])
def test_workspace_pages_send_anonymous_visitors_to_sign_in(client, league, name):
    response = client.get(url(name, league))
    assert response.status_code == 302
    assert response["Location"].startswith(reverse("accounts:sign_in"))


def test_a_day_in_a_closed_season_is_confirmed_before_it_is_saved(signed_in, league, players):
    from league.seasons import create_season, mark_closed

    day = today(league) - dt.timedelta(days=3)
    season = create_season(
        league,
        name="Autumn",
        start_date=(day - dt.timedelta(days=10)).isoformat(),
        end_date=day.isoformat(),
    )
    open_season = signed_in.post(url("record", league), entry(played_on=day.isoformat()))
    assert open_season.status_code == 302  # an open season asks nothing
    mark_closed(season)
    response = signed_in.post(
        url("record", league), entry(played_on=day.isoformat(), idempotency_key="k2")
    )
    body = response.content.decode()
    assert "Check the date before saving" in body
    assert "is in Autumn, which is closed" in body
    assert Event.objects.matches().filter(league=league).count() == 1
    signed_in.post(
        url("record", league),
        entry(played_on=day.isoformat(), idempotency_key="k2", confirmed=day.isoformat()),
    )
    assert Event.objects.matches().filter(league=league).count() == 2


def test_a_result_on_neutral_ground_is_stored_and_echoed_as_such(signed_in, league, players):
    league.sport = "Football"  # a sport with home grounds (the fixture's league plays chess)
    league.save()
    day = today(league).isoformat()
    form = signed_in.get(url("record", league)).content.decode()
    assert 'type="checkbox" name="neutral"' in form
    assert "Neutral ground" in form
    response = signed_in.post(url("record", league), entry(played_on=day, neutral="on"))
    assert response.status_code == 302
    second = signed_in.post(url("record", league), entry(played_on=day, idempotency_key="k2"))
    assert second.status_code == 302
    stored = list(Event.objects.matches().filter(league=league).order_by("seq"))
    assert [match.neutral for match in stored] == [True, False]
    page = signed_in.get(response["Location"]).content.decode()
    assert "Ann Archer 3\u20131 Bob Baker: Ann Archer won, on neutral ground" in page
    plain = signed_in.get(second["Location"]).content.decode()
    assert "Ann Archer won</li>" in plain.replace("\n", "").replace("    ", "")
    assert "on neutral ground" not in plain


def test_a_round_stores_each_rows_neutral_ground_box(signed_in, league, players):
    league.sport = "Football"  # a sport with home grounds (the fixture's league plays chess)
    league.save()
    day = today(league)
    rows = [("Ann Archer", "3-1", "Bob Baker"), ("Cat Cooper", "2-2", "Ann Archer")]
    form = signed_in.get(url("round", league)).content.decode()
    assert 'name="results-0-neutral"' in form
    data = round_data(day, rows)
    data["results-1-neutral"] = "on"
    response = signed_in.post(url("round", league), data)
    assert response.status_code == 302
    matches = list(Event.objects.matches().filter(league=league).order_by("seq"))
    assert [(m.player_a.display_name, m.neutral) for m in matches] == [
        ("Ann Archer", False),
        ("Cat Cooper", True),
    ]
    page = signed_in.get(response["Location"]).content.decode()
    assert "Cat Cooper 2\u20132 Ann Archer: a draw, on neutral ground" in page
    assert "Ann Archer 3\u20131 Bob Baker: Ann Archer won, on neutral ground" not in page


@pytest.mark.parametrize("sport", ["Chess", "chess (rapid)", "Go"])
def test_a_sport_without_home_grounds_shows_no_neutral_ground_box(
    signed_in, league, players, sport
):
    league.sport = sport
    league.save()
    for page in ("record", "round"):
        body = signed_in.get(url(page, league)).content.decode()
        assert "neutral" not in body.lower(), page
    day = today(league).isoformat()
    assert signed_in.post(url("record", league), entry(played_on=day)).status_code == 302
    rows = [("Ann Archer", "1-0", "Bob Baker")]
    response = signed_in.post(url("round", league), round_data(today(league), rows))
    assert response.status_code == 302
    assert [m.neutral for m in Event.objects.matches().filter(league=league)] == [False, False]


def test_a_ticked_neutral_box_on_an_empty_round_row_names_the_missing_fields(
    signed_in, league, players
):
    league.sport = "Football"
    league.save()
    data = round_data(today(league), [("Ann Archer", "3-1", "Bob Baker")])
    data["results-1-neutral"] = "on"
    response = signed_in.post(url("round", league), data)
    assert response.status_code == 200
    assert "row--error" in response.content.decode()
    assert not Event.objects.matches().filter(league=league).exists()


# Behaviours the admin's entry pages had tested before they went: the workspace owns them.


@pytest.mark.parametrize(
    ("day", "message"),
    [
        ("2023-06-01", "2023-06-01 is before the league started (2024-01-01)."),
        ("0001-01-01", "0001-01-01 is before the league started (2024-01-01)."),
    ],
)
def test_a_day_that_would_be_refused_is_refused_at_once_not_confirmed_first(
    signed_in, league, players, day, message
):
    # Asking "press Save again" for a day the services then refuse anyway wastes a submit:
    # the refusal comes at once, on the day's field, with no confirmation box.
    response = signed_in.post(url("record", league), entry(played_on=day))
    assert response.status_code == 200
    assert response.context["warnings"] == []
    assert "Check the date before saving" not in response.content.decode()
    assert response.context["form"].errors["played_on"] == [message]
    rows = [("Ann Archer", "1-0", "Bob Baker")]
    response = signed_in.post(url("round", league), round_data(dt.date.fromisoformat(day), rows))
    assert response.context["warnings"] == []
    assert response.context["form"].errors["played_on"] == [message]
    assert not Event.objects.matches().filter(league=league).exists()


def test_a_day_before_the_league_started_is_refused_on_the_day_field(signed_in, league, players):
    data = entry(played_on="2023-06-01", confirmed="2023-06-01")
    response = signed_in.post(url("record", league), data)
    assert response.status_code == 200
    assert response.context["form"].errors["played_on"] == [
        "2023-06-01 is before the league started (2024-01-01)."
    ]
    assert not Event.objects.filter(league=league, kind=Event.Kind.MATCH_RECORDED).exists()


def test_a_repeated_submission_records_the_result_once(signed_in, league, players):
    data = entry(played_on=today(league).isoformat())
    for _ in range(2):
        assert signed_in.post(url("record", league), data).status_code == 302
    assert Event.objects.matches().filter(league=league).count() == 1


def test_a_player_of_another_league_is_refused_in_its_round_row(
    signed_in, league, players, other_league, make_player
):
    make_player(other_league, "Olga Hilltop")
    rows = [("Ann Archer", "1-0", "Bob Baker"), ("Olga Hilltop", "0-1", "Ann Archer")]
    response = signed_in.post(url("round", league), round_data(today(league), rows))
    assert response.status_code == 200
    forms = response.context["formset"].forms
    assert forms[0].errors == {}
    assert forms[1].errors["player_a"] == [
        "Riverside Chess Club has no player named “Olga Hilltop”."
    ]
    assert not Event.objects.matches().exists()


def test_a_round_dated_in_the_future_is_refused_once_on_its_day(signed_in, league, players):
    day = today(league) + dt.timedelta(days=2)
    rows = [("Ann Archer", "1-0", "Bob Baker"), ("Bob Baker", "1-0", "Cat Cooper")]
    response = signed_in.post(url("round", league), round_data(day, rows))
    assert response.status_code == 200
    assert response.context["form"].errors["played_on"] == [
        f"{day.isoformat()} is in the future: record a match once it has been played."
    ]
    assert not Event.objects.matches().filter(league=league).exists()


def test_a_round_with_four_bad_rows_shows_every_rows_problem_in_one_answer(
    signed_in, league, players
):
    rows = [
        ("Ann Archer", "1-0", "Bob Baker"),
        ("Zed Unknown", "1-0", "Bob Baker"),  # unknown player
        ("Ann Archer", "banana", "Cat Cooper"),  # unreadable score
        ("Bob Baker", "1-0", "Bob Baker"),  # against himself (a service rule)
        ("Cat Cooper", "1-0", ""),  # second player missing
    ]
    response = signed_in.post(url("round", league), round_data(today(league), rows))
    assert response.status_code == 200
    flagged = [bool(form.errors) for form in response.context["formset"].forms[:5]]
    assert flagged == [False, True, True, True, True]
    assert not Event.objects.matches().filter(league=league).exists()
