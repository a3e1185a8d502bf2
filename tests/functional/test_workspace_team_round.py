"""A round of team matches on the workspace: stored whole or not at all, every bad row shown
in one answer, echoed with its undo, offered only to leagues that take sides."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league import services
from league.calendar import league_day
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
    names = ("Ana", "Ben", "Cai", "Dee", "Eve", "Fay", "Gus", "Hal")
    return league, {name: services.register_player(league, name) for name in names}


def url(league, name: str = "team_round") -> str:
    return reverse(f"workspace:{name}", args=[league.slug])


def round_data(league, rows: list[dict[str, str]], **fields) -> dict[str, str]:
    data = {
        "played_on": league_today(league).isoformat(),
        "idempotency_key": "team-round-1",
        "confirmed": "",
        "results-TOTAL_FORMS": str(max(len(rows), 4)),
        "results-INITIAL_FORMS": "0",
        "results-MIN_NUM_FORMS": "0",
        "results-MAX_NUM_FORMS": "50",
        **fields,
    }
    for index, row in enumerate(rows):
        data.update({f"results-{index}-{name}": value for name, value in row.items()})
    return data


#: Side A's result as typed in the one score box of a league that records points.
RESULT_WORDS = {"1": "w", "0.5": "d", "0": "l", "": ""}


def match(a1: str, a2: str, b1: str, b2: str, score: str = "1", points: str = "") -> dict:
    """A block of the round: the players of both sides, and the score box holding the points
    (the result follows from them) or, without points, side A's result."""
    return {
        "side_0_0": a1,
        "side_0_1": a2,
        "side_1_0": b1,
        "side_1_1": b2,
        "score": points or RESULT_WORDS[score],
    }


def test_a_round_of_doubles_is_recorded_and_echoed_with_its_undo(signed_in, doubles, organiser):
    league, p = doubles
    page = signed_in.get(url(league)).content.decode()
    assert 'name="results-0-side_0_0"' in page
    assert "sides of 2 players each" in page
    rows = [
        match("Ana", "Ben", "Cai", "Dee", "1", "21-15"),
        {},  # an empty block is ignored
        match("Eve", "Fay", "Gus", "Hal", "0.5"),
    ]
    response = signed_in.post(url(league), round_data(league, rows))
    assert response.status_code == 302
    stored = list(Event.objects.side_matches().filter(league=league).order_by("seq"))
    assert [(fact_of(e).sides, fact_of(e).places, e.points) for e in stored] == [
        (((p["Ana"].pk, p["Ben"].pk), (p["Cai"].pk, p["Dee"].pk)), (0, 1), "21–15"),
        (((p["Eve"].pk, p["Fay"].pk), (p["Gus"].pk, p["Hal"].pk)), (0, 0), ""),
    ]
    assert [(league_day(league, e.played_at), e.recorded_by) for e in stored] == [
        (league_today(league), organiser)
    ] * 2
    echo = signed_in.get(response["Location"]).content.decode()
    assert "Recorded: 2 results" in echo
    assert "Ana &amp; Ben 21–15 Cai &amp; Dee: Ana &amp; Ben won" in echo
    assert "Undo all 2" in echo
    assert 'name="page" value="team_round"' in echo

    # The same submission again (a double click) stores nothing new.
    signed_in.post(url(league), round_data(league, rows))
    assert Event.objects.side_matches().filter(league=league).count() == 2

    undone = signed_in.post(
        url(league, "undo"),
        {"recorded": f"{stored[0].seq}-{stored[1].seq}", "page": "team_round"},
    )
    assert undone["Location"].startswith(url(league))
    assert Event.objects.filter(voids__in=stored).count() == 2


def test_several_bad_rows_are_all_shown_at_once_and_nothing_is_stored(signed_in, doubles):
    league, _players = doubles
    before = Event.objects.count()
    rows = [
        match("Ana", "Ben", "Cai", "Dee"),  # fine
        match("Ana", "Eve", "Eve", "Dee"),  # a player on both sides (the service's rule)
        match("Fay", "Gus", "Hal", "Zed"),  # an unknown player (the form's rule)
        match("Ben", "Cai", "Fay", "Hal", score=""),  # no result (the service's rule)
        match("Gus", "Hal", "Ana", "", score="0"),  # a side of one in a doubles league
    ]
    response = signed_in.post(url(league), round_data(league, rows))
    assert response.status_code == 200
    forms = response.context["formset"].forms
    errors = [" ".join(str(e) for e in form.errors.values()) for form in forms[:5]]
    assert errors[0] == ""
    assert "on side A and side B" in errors[1]
    assert "has no player named “Zed”" in errors[2]
    assert "Give side A&#x27;s result: Side A&#x27;s points first" in errors[3]
    assert "sides of 2 players each" in errors[4]
    page = response.content.decode()
    assert page.count('class="team-round__match row--error"') == 4
    assert Event.objects.count() == before
    assert not MatchParticipant.objects.exists()


def test_a_round_dated_in_the_future_is_refused_on_its_day(signed_in, doubles):
    league, _players = doubles
    day = (league_today(league) + dt.timedelta(days=3)).isoformat()
    rows = [match("Ana", "Ben", "Cai", "Dee")]
    response = signed_in.post(url(league), round_data(league, rows, played_on=day))
    assert response.status_code == 200
    assert "is in the future" in " ".join(response.context["form"].errors["played_on"])
    assert not Event.objects.side_matches().exists()


def test_a_round_with_no_match_filled_in_asks_for_one(signed_in, doubles):
    league, _players = doubles
    response = signed_in.post(url(league), round_data(league, []))
    assert response.status_code == 200
    assert "Fill in at least one match" in response.content.decode()
    assert not Event.objects.side_matches().exists()


def test_a_board_game_round_takes_positions(signed_in, league):
    league.match_format = MatchFormat.FIXED
    league.side_size = 1
    league.save()
    for name in ("Ann", "Bob", "Cat", "Dan"):
        services.register_player(league, name)
    row = {
        "side_0_0": "Ann", "side_1_0": "Bob", "side_2_0": "Cat", "side_3_0": "Dan",
        "place_0": "2", "place_1": "1", "place_2": "2", "place_3": "4",
        "score": "",
    }  # fmt: skip
    response = signed_in.post(url(league), round_data(league, [row]))
    assert response.status_code == 302, response.content.decode()[:2000]
    event = Event.objects.side_matches().get(league=league)
    assert fact_of(event).places == (1, 0, 1, 2)


def test_the_page_is_offered_only_to_leagues_that_take_sides(signed_in, league, doubles):
    league_, _players = doubles
    hub = signed_in.get(url(league_, "hub")).content.decode()
    assert url(league_) in hub
    assert "Record a round of team matches" in hub
    league_.match_format = MatchFormat.SINGLES
    league_.save()
    assert "team_round" not in [section.key for section in sections_for(league_)]
    assert url(league_) not in signed_in.get(url(league_, "hub")).content.decode()
    # An old link says where singles go, and stores nothing.
    page = signed_in.get(url(league_))
    assert page.status_code == 200
    assert "accepts singles only" in page.content.decode()
    signed_in.post(url(league_), round_data(league_, [match("Ana", "Ben", "Cai", "Dee")]))
    assert not Event.objects.side_matches().exists()


def test_only_the_leagues_organisers_record_a_round(client, doubles, other_organiser):
    league, _players = doubles
    data = round_data(league, [match("Ana", "Ben", "Cai", "Dee")])
    anonymous = client.post(url(league), data)
    assert anonymous.status_code == 302
    assert anonymous["Location"].startswith(reverse("accounts:sign_in"))
    client.force_login(other_organiser)
    assert client.get(url(league)).status_code == 403
    assert client.post(url(league), data).status_code == 403
    assert not Event.objects.side_matches().exists()
