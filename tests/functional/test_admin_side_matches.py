"""The admin's team match entry: a name input per slot, refusals on the page, void, correct."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league import services
from league.event_store import fact_of
from league.models import Event, MatchFormat, MatchParticipant

PLAYED = "2024-03-02"


@pytest.fixture
def doubles(league, organiser):
    organiser.is_staff = True
    organiser.save()
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    players = [services.register_player(league, n) for n in ("Ana", "Ben", "Cai", "Dee", "Eve")]
    return league, players


def _post(client, league, **fields):
    data = {"played_on": PLAYED, "score_a": "1", "points": "", "note": "", **fields}
    return client.post(reverse("admin:league_event_record_side_match", args=[league.pk]), data)


def test_the_form_has_a_completed_name_input_per_slot(client, organiser, doubles):
    league, _ = doubles
    client.force_login(organiser)
    page = client.get(reverse("admin:league_event_record_side_match", args=[league.pk]))
    html = page.content.decode()
    for name in ("side_0_0", "side_0_1", "side_1_0", "side_1_1"):
        assert f'name="{name}"' in html
    assert html.count('list="league-players"') == 4
    assert '<option value="Ana">' in html
    assert "sides of 2 players each" in html
    links = client.get(reverse("admin:league_event_record_match", args=[league.pk])).content
    assert b"Record a team match" in links


def test_a_doubles_match_is_recorded(client, organiser, doubles):
    league, (ana, ben, cai, dee, _eve) = doubles
    client.force_login(organiser)
    response = _post(client, league, side_0_0="Ana", side_0_1="Ben", side_1_0="Cai", side_1_1="Dee")
    assert response.status_code == 302
    event = Event.objects.side_matches().get(league=league)
    assert fact_of(event).sides == ((ana.pk, ben.pk), (cai.pk, dee.pk))
    assert event.recorded_by == organiser
    page = client.get(response["Location"])
    assert "Ana &amp; Ben 1–0 Cai &amp; Dee" in page.content.decode()


@pytest.mark.parametrize(
    ("fields", "message"),
    [
        (
            {"side_0_0": "Ana", "side_0_1": "Ben", "side_1_0": "Ana", "side_1_1": "Dee"},
            "on side A and side B",
        ),
        ({"side_0_0": "Ana", "side_0_1": "Ben", "side_1_0": "Cai"}, "sides of 2 players each"),
        (
            {"side_0_0": "Ana", "side_0_1": "Ben", "side_1_0": "Cai", "side_1_1": "Zed"},
            "no player named",
        ),
        ({"side_0_0": "Ana", "side_0_1": "Ben"}, "2 to 16 sides"),
        (
            {
                "side_0_0": "Ana",
                "side_0_1": "Ben",
                "side_1_0": "Cai",
                "side_1_1": "Dee",
                "score_a": "",
            },
            "Give side A",
        ),
    ],
)
def test_refusals_are_shown_and_nothing_is_recorded(client, organiser, doubles, fields, message):
    league, _ = doubles
    client.force_login(organiser)
    before = Event.objects.count()
    data = {"score_a": "1", **fields}
    response = _post(client, league, **data)
    assert response.status_code == 200
    assert message in response.content.decode()
    assert Event.objects.count() == before
    assert not MatchParticipant.objects.exists()


def test_a_team_match_is_voided_and_corrected_in_the_admin(client, organiser, doubles):
    league, (ana, ben, cai, dee, eve) = doubles
    client.force_login(organiser)
    match = services.record_side_match(
        league, sides=[[ana, ben], [cai, dee]], score_a="1", played_at=dt.date(2024, 3, 2)
    )
    page = client.get(reverse("admin:league_event_correct", args=[match.pk])).content.decode()
    assert 'value="Ana"' in page
    assert 'value="Dee"' in page
    response = client.post(
        reverse("admin:league_event_correct", args=[match.pk]),
        {
            "side_0_0": "Ana", "side_0_1": "Eve", "side_1_0": "Cai", "side_1_1": "Dee",
            "score_a": "1", "played_on": PLAYED, "points": "", "note": "",
            "reason": "Eve played, not Ben",
        },
    )  # fmt: skip
    assert response.status_code == 302
    corrected = Event.objects.get(replaces=match)
    assert fact_of(corrected).sides == ((ana.pk, eve.pk), (cai.pk, dee.pk))
    assert Event.objects.get(voids=match).reason == "Eve played, not Ben"
    response = client.post(
        reverse("admin:league_event_void", args=[corrected.pk]), {"reason": "never played"}
    )
    assert response.status_code == 302
    assert Event.objects.filter(voids=corrected).exists()


def test_a_board_game_league_takes_positions(client, organiser, league):
    organiser.is_staff = True
    organiser.save()
    league.match_format = MatchFormat.FIXED
    league.side_size = 1
    league.save()
    for name in ("Ann", "Bob", "Cat", "Dan"):
        services.register_player(league, name)
    client.force_login(organiser)
    response = _post(
        client, league, score_a="",
        side_0_0="Ann", side_1_0="Bob", side_2_0="Cat", side_3_0="Dan",
        place_0="2", place_1="1", place_2="2", place_3="4",
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:3000]
    event = Event.objects.side_matches().get(league=league)
    assert fact_of(event).places == (1, 0, 1, 2)


def _round_data(rows: list[dict[str, str]]) -> dict[str, str]:
    data = {
        "played_on": PLAYED,
        "idempotency_key": "round-key-1",
        "results-TOTAL_FORMS": "6",
        "results-INITIAL_FORMS": "0",
        "results-MIN_NUM_FORMS": "1",
        "results-MAX_NUM_FORMS": "50",
    }
    for index, row in enumerate(rows):
        data.update({f"results-{index}-{name}": value for name, value in row.items()})
    return data


def test_a_round_of_team_matches_is_recorded_whole_or_not_at_all(client, organiser, doubles):
    league, _players = doubles
    client.force_login(organiser)
    url = reverse("admin:league_event_record_side_round", args=[league.pk])
    good = {
        "side_0_0": "Ana",
        "side_0_1": "Ben",
        "side_1_0": "Cai",
        "side_1_1": "Dee",
        "score_a": "1",
    }
    bad = {
        "side_0_0": "Ana",
        "side_0_1": "Eve",
        "side_1_0": "Eve",
        "side_1_1": "Dee",
        "score_a": "0",
    }
    response = client.post(url, _round_data([good, bad]))
    assert response.status_code == 200
    assert "on side A and side B" in response.content.decode()
    assert not Event.objects.side_matches().exists()
    other = {
        "side_0_0": "Ana",
        "side_0_1": "Cai",
        "side_1_0": "Ben",
        "side_1_1": "Eve",
        "score_a": "0.5",
    }
    response = client.post(url, _round_data([good, other]))
    assert response.status_code == 302
    assert Event.objects.side_matches().filter(league=league).count() == 2
    # The same submission again (a double click) stores nothing new.
    client.post(url, _round_data([good, other]))
    assert Event.objects.side_matches().filter(league=league).count() == 2
