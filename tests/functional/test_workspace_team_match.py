"""Team matches on the workspace: entry with sides, refusals, the echo and undo, the date
check, and void and correct from the event log."""

from __future__ import annotations

import datetime as dt
from decimal import Decimal

import pytest
from django.urls import reverse

from league import services
from league.event_store import fact_of
from league.models import Event, MatchFormat, MatchParticipant
from web.workspace.dates import league_today
from web.workspace.sections import sections_for


@pytest.fixture
def signed_in(client, organiser):
    client.force_login(organiser)
    return client


@pytest.fixture
def doubles(league):
    league.match_format = MatchFormat.FIXED
    league.side_size = 2
    league.save()
    players = [services.register_player(league, n) for n in ("Ana", "Ben", "Cai", "Dee", "Eve")]
    return league, players


def url(name, league, *args):
    return reverse(f"workspace:{name}", args=[league.slug, *args])


def match_data(league, **fields):
    return {
        "played_on": league_today(league).isoformat(),
        "score": "w",
        "note": "",
        "idempotency_key": "team-1",
        "confirmed": "",
        **fields,
    }


DOUBLES = {"side_0_0": "Ana", "side_0_1": "Ben", "side_1_0": "Cai", "side_1_1": "Dee"}


def test_the_hub_and_the_nav_offer_team_matches_only_to_a_league_with_sides(
    signed_in, league, doubles
):
    league_, _players = doubles
    hub = signed_in.get(url("hub", league_)).content.decode()
    assert "Record a team match" in hub
    assert url("team_match", league_) in hub
    # A doubles league takes no one-against-one result: its hub and tabs do not offer one.
    assert url("record", league_) not in hub
    assert url("round", league_) not in hub
    league_.match_format = MatchFormat.SINGLES
    league_.save()
    singles = signed_in.get(url("hub", league_)).content.decode()
    assert "Record a team match" not in singles
    assert url("team_match", league_) not in singles
    assert url("record", league_) in singles
    assert "team_match" not in [section.key for section in sections_for(league_)]
    league_.match_format = MatchFormat.ANY
    league_.save()
    both = signed_in.get(url("hub", league_)).content.decode()
    assert url("record", league_) in both
    assert url("team_match", league_) in both


def test_a_doubles_match_is_recorded_and_echoed_in_words(signed_in, doubles):
    league, (ana, ben, cai, dee, _eve) = doubles
    page = signed_in.get(url("team_match", league)).content.decode()
    assert "sides of 2 players each" in page
    assert page.count('list="league-players"') == 4
    response = signed_in.post(
        url("team_match", league), match_data(league, **DOUBLES, score="21-15")
    )
    assert response.status_code == 302
    event = Event.objects.side_matches().get(league=league)
    assert fact_of(event).sides == ((ana.pk, ben.pk), (cai.pk, dee.pk))
    assert event.score_a == Decimal("1")
    assert response["Location"].endswith(f"?recorded={event.seq}")
    echo = signed_in.get(response["Location"]).content.decode()
    assert f"#{event.seq} Ana &amp; Ben 21\u201315 Cai &amp; Dee: Ana &amp; Ben won" in echo
    assert "Undo" in echo


def test_a_draw_and_a_win_for_side_b_are_said_in_words(signed_in, doubles):
    league, _players = doubles
    signed_in.post(url("team_match", league), match_data(league, **DOUBLES, score="d"))
    second = signed_in.post(
        url("team_match", league), match_data(league, **DOUBLES, score="l", idempotency_key="t2")
    )
    draw, loss = Event.objects.side_matches().filter(league=league).order_by("seq")
    echo = signed_in.get(f"{url('team_match', league)}?recorded={draw.seq}-{loss.seq}")
    text = echo.content.decode()
    assert second.status_code == 302
    assert "Ana &amp; Ben ½–½ Cai &amp; Dee: a draw" in text
    assert "Ana &amp; Ben 0–1 Cai &amp; Dee: Cai &amp; Dee won" in text


def test_a_game_of_four_sides_takes_positions_and_echoes_the_order(signed_in, league):
    league.match_format = MatchFormat.FIXED
    league.side_size = 1
    league.save()
    for name in ("Ann", "Bob", "Cat", "Dan"):
        services.register_player(league, name)
    response = signed_in.post(
        url("team_match", league),
        match_data(
            league, score="",
            side_0_0="Ann", side_1_0="Bob", side_2_0="Cat", side_3_0="Dan",
            place_0="2", place_1="1", place_2="2", place_3="4",
        ),
    )  # fmt: skip
    assert response.status_code == 302, response.content.decode()[:2000]
    event = Event.objects.side_matches().get(league=league)
    assert fact_of(event).places == (1, 0, 1, 2)
    echo = signed_in.get(response["Location"]).content.decode()
    assert "1st Bob, =2nd Ann, =2nd Cat, 4th Dan" in echo


@pytest.mark.parametrize(
    ("fields", "field", "message"),
    [
        ({**DOUBLES, "side_1_0": "Ana"}, None, "on side A and side B"),
        ({**DOUBLES, "side_1_1": ""}, None, "sides of 2 players each"),
        ({**DOUBLES, "side_1_1": "Zed"}, "side_1_1", "has no player named “Zed”"),
        ({"side_0_0": "Ana", "side_0_1": "Ben"}, None, "2 to 16 sides"),
        ({**DOUBLES, "score": ""}, "score", "points first: 3-1 (w, d or l"),
        ({**DOUBLES, "played_on": ""}, "played_on", "This field is required."),
        ({**DOUBLES, "played_on": "2024-02-30"}, "played_on", "Enter a valid date."),
        ({**DOUBLES, "score": "2"}, "score", "Type the score as"),
    ],
)
def test_refusals_name_the_field_and_nothing_is_recorded(
    signed_in, doubles, fields, field, message
):
    league, _players = doubles
    before = Event.objects.count()
    response = signed_in.post(url("team_match", league), match_data(league, **fields))
    assert response.status_code == 200
    page = response.content.decode()
    assert message in page
    form = response.context["form"]
    errors = form.errors.get(field or "__all__", [])
    assert any(message in error for error in errors), form.errors
    assert Event.objects.count() == before
    assert not MatchParticipant.objects.exists()


def test_a_day_far_in_the_past_is_confirmed_before_it_is_saved(signed_in, doubles):
    league, _players = doubles
    league.start_date = dt.date(2020, 1, 1)
    league.save()
    day = (league_today(league) - dt.timedelta(days=300)).isoformat()
    first = signed_in.post(url("team_match", league), match_data(league, **DOUBLES, played_on=day))
    assert first.status_code == 200
    assert "Check the date before saving" in first.content.decode()
    assert not Event.objects.side_matches().exists()
    confirmed = signed_in.post(
        url("team_match", league), match_data(league, **DOUBLES, played_on=day, confirmed=day)
    )
    assert confirmed.status_code == 302
    assert Event.objects.side_matches().filter(league=league).count() == 1


def test_a_repeated_submission_records_the_match_once(signed_in, doubles):
    league, _players = doubles
    for _ in range(2):
        response = signed_in.post(url("team_match", league), match_data(league, **DOUBLES))
        assert response.status_code == 302
    assert Event.objects.side_matches().filter(league=league).count() == 1


def test_undo_voids_the_team_match_just_recorded_and_returns_to_its_page(signed_in, doubles):
    league, _players = doubles
    signed_in.post(url("team_match", league), match_data(league, **DOUBLES))
    event = Event.objects.side_matches().get(league=league)
    response = signed_in.post(
        url("undo", league), {"recorded": str(event.seq), "page": "team_match"}
    )
    assert response.status_code == 302
    assert response["Location"] == f"{url('team_match', league)}?recorded={event.seq}"
    void = Event.objects.get(voids=event)
    assert void.kind == Event.Kind.MATCH_VOIDED
    page = signed_in.get(response["Location"]).content.decode()
    assert "undone (voided by" in page


def test_the_log_voids_and_corrects_a_team_match(signed_in, doubles):
    league, (ana, ben, cai, dee, eve) = doubles
    match = services.record_match(
        league, sides=[[ana, ben], [cai, dee]], score_a="1", played_at=dt.date(2024, 3, 2)
    )
    log = signed_in.get(url("log", league)).content.decode()
    assert url("correct", league, match.seq) in log
    assert url("void", league, match.seq) in log

    form = signed_in.get(url("correct", league, match.seq)).content.decode()
    assert "Ana &amp; Ben 1–0 Cai &amp; Dee: Ana &amp; Ben won" in form
    assert 'value="Ben"' in form

    def correction(second: str) -> dict[str, str]:
        return {
            **DOUBLES, "side_0_1": second, "score": "w", "played_on": "2024-03-02",
            "note": "", "reason": "Eve played, not Ben",
        }  # fmt: skip

    refused = signed_in.post(url("correct", league, match.seq), correction("Ana"))
    assert refused.status_code == 200
    assert not Event.objects.filter(replaces=match).exists()
    response = signed_in.post(url("correct", league, match.seq), correction("Eve"))
    assert response.status_code == 302
    corrected = Event.objects.get(replaces=match)
    assert fact_of(corrected).sides == ((ana.pk, eve.pk), (cai.pk, dee.pk))
    assert Event.objects.get(voids=match).reason == "Eve played, not Ben"

    voided = signed_in.post(url("void", league, corrected.seq), {"reason": "never played"})
    assert voided.status_code == 302
    assert Event.objects.get(voids=corrected).reason == "never played"
    log = signed_in.get(url("log", league)).content.decode()
    assert url("void", league, corrected.seq) not in log


def test_a_singles_league_is_told_where_to_record_and_stores_nothing(
    signed_in, league, make_player
):
    make_player(league, "Ann")
    make_player(league, "Bob")
    page = signed_in.get(url("team_match", league)).content.decode()
    assert "accepts singles only" in page
    assert url("record", league) in page
    response = signed_in.post(
        url("team_match", league), match_data(league, side_0_0="Ann", side_1_0="Bob")
    )
    assert response.status_code == 200
    assert not Event.objects.side_matches().exists()


def test_only_the_leagues_organisers_record_team_matches(client, doubles, other_organiser):
    league, _players = doubles
    anonymous = client.post(url("team_match", league), match_data(league, **DOUBLES))
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("accounts:sign_in"))
    client.force_login(other_organiser)
    refused = client.post(url("team_match", league), match_data(league, **DOUBLES))
    assert refused.status_code == 403
    assert not Event.objects.side_matches().exists()


def test_a_league_of_two_sides_is_asked_for_side_a_s_score_without_positions(
    signed_in, doubles, league
):
    league_, _players = doubles
    page = signed_in.get(url("team_match", league_)).content.decode()
    assert "three or more sides" not in page
    assert 'name="score"' in page
    assert 'name="place_0"' not in page
    league_.match_format = MatchFormat.ANY
    league_.save()
    any_sides = signed_in.get(url("team_match", league_)).content.decode()
    assert "three or more sides" in any_sides
    assert 'name="place_3"' in any_sides
