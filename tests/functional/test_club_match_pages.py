"""The club match pages: the organiser makes teams and rosters, schedules a match, submits a
board order and enters the four boards in one form; the public match page and team table
show them; bad inputs come back with a message naming the board and change nothing; only
the league's organisers reach the workspace."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.models import BoardOrder, ClubMatch, Event, RosterEntry, Team

NAMES = {"Riverside": ("Ann", "Bob", "Cem", "Dee"), "Hilltop": ("Eve", "Fay", "Gus", "Hal")}


@pytest.fixture
def signed_in(client, organiser):
    client.force_login(organiser)
    return client


def url(name, league, *args):
    return reverse(f"workspace:{name}", args=[league.slug, *args])


def _messages(response) -> list[str]:
    """The refused form's error summary, each message as it reads."""
    return [text for text, _field_id in response.context["form_errors"]]


@pytest.fixture
def two_teams(signed_in, league, make_player):
    players = {}
    for team_name, names in NAMES.items():
        response = signed_in.post(url("clubs", league), {"action": "team", "name": team_name})
        assert response.status_code == 302
        team = Team.objects.get(league=league, name=team_name)
        for name in names:
            players[name] = make_player(league, name)
            signed_in.post(
                url("clubs", league),
                {"action": "roster", "team": team.pk, "player": players[name].pk},
            )
    return players


def _schedule(signed_in, league) -> ClubMatch:
    home, away = Team.objects.get(name="Riverside"), Team.objects.get(name="Hilltop")
    response = signed_in.post(
        url("clubs", league),
        {"action": "schedule", "home": home.pk, "away": away.pk, "boards": "4",
         "day": "2024-04-02", "time": "19:30", "venue": "Town hall"},
    )  # fmt: skip
    match = ClubMatch.objects.get(league=league)
    assert response["Location"] == url("club_match", league, match.pk)
    return match


def test_organiser_makes_teams_orders_boards_and_records_a_four_board_match(
    signed_in, client, league, two_teams
):
    p = two_teams
    assert RosterEntry.objects.filter(team__name="Riverside").count() == 4
    page = signed_in.get(url("clubs", league)).content.decode()
    assert "Riverside" in page
    assert "Ann, Bob, Cem, Dee" in page
    match = _schedule(signed_in, league)
    home = Team.objects.get(name="Riverside")
    order = {"action": "order", "team": home.pk}
    order.update(
        {f"board_{n}": p[name].pk for n, name in enumerate(("Dee", "Cem", "Bob", "Ann"), 1)}
    )
    assert signed_in.post(url("club_match", league, match.pk), order).status_code == 302
    assert BoardOrder.objects.get(team=home).players == [
        p[n].pk for n in ("Dee", "Cem", "Bob", "Ann")
    ]
    page = signed_in.get(url("club_match", league, match.pk)).content.decode()
    entry = page.split('<table id="result-entry">')[1].split("</table>")[0]
    assert entry.index("Dee") < entry.index("Cem") < entry.index("Bob") < entry.index("Ann")
    response = signed_in.post(
        url("club_match", league, match.pk),
        {"action": "record", "played_on": "2024-04-02", "result_1": "1-0", "result_2": "½-½",
         "result_3": "0-1", "result_4": "1-0", "idempotency_key": "form-1"},
    )  # fmt: skip
    assert response.status_code == 302
    assert len(ClubMatch.objects.get(pk=match.pk).games) == 4
    public = client.get(reverse("pages:club_match", args=[league.slug, match.pk]))
    text = public.content.decode()
    assert '<span id="board-score">2½–1½</span>' in text
    assert "Match points: Riverside 2, Hilltop 0." in text
    assert "(White)" in text
    assert "(Black)" in text
    table = client.get(reverse("pages:teams", args=[league.slug])).content.decode()
    rows = table.split('<table id="team-table">')[1].split("</table>")[0]
    assert rows.index("Riverside") < rows.index("Hilltop")
    assert ">2½<" in rows
    assert ">1½<" in rows


def test_bad_inputs_come_back_naming_the_board_and_change_nothing(signed_in, league, two_teams):
    p = two_teams
    match = _schedule(signed_in, league)
    home = Team.objects.get(name="Riverside")
    before = Event.objects.count()
    order = {"action": "order", "team": home.pk, "board_1": p["Ann"].pk, "board_2": p["Eve"].pk,
             "board_3": p["Ann"].pk, "board_4": ""}  # fmt: skip
    response = signed_in.post(url("club_match", league, match.pk), order)
    assert response.status_code == 200
    assert _messages(response) == [
        "Board 2: Eve plays for Hilltop, not Riverside.",
        "Board 3: Ann is already on board 1.",
        "Board 4: choose a player.",
    ]
    page = response.content.decode()
    # The summary is announced and links to each board; each board's message is tied to it.
    assert 'role="alert"' in page
    assert '<a href="#id_home_board_2">Board 2: Eve plays for Hilltop' in page
    assert 'name="board_4" aria-invalid="true" aria-describedby="id_home_board_4_error"' in page
    assert '<p class="error" id="id_home_board_4_error">Board 4: choose a player.</p>' in page
    assert 'name="board_1" aria-invalid' not in page
    response = signed_in.post(
        url("club_match", league, match.pk),
        {"action": "record", "played_on": "2024-04-02", "result_1": "1-0", "result_2": "",
         "result_3": "0-1", "result_4": "1-0"},
    )  # fmt: skip
    assert _messages(response) == [
        "Board 2: give its result (1-0, ½-½ or 0-1 for the home player)."
    ]
    page = response.content.decode()
    assert 'value="1-0" selected' in page  # the other boards are kept
    assert 'name="result_2" aria-invalid="true" aria-describedby="id_result_2_error"' in page
    assert '<a href="#id_result_2">Board 2: give its result' in page
    assert Event.objects.count() == before
    assert signed_in.get(url("club_match", league, 9999)).status_code == 404


def test_only_the_leagues_organisers_reach_the_workspace_and_anyone_reads(
    client, league, other_organiser, two_teams
):
    client.logout()
    assert client.get(url("clubs", league)).status_code == 302
    assert client.post(url("clubs", league), {"action": "team", "name": "X"}).status_code == 302
    client.force_login(other_organiser)
    assert client.get(url("clubs", league)).status_code == 403
    assert client.post(url("clubs", league), {"action": "team", "name": "X"}).status_code == 403
    assert not Team.objects.filter(name="X").exists()
    client.logout()
    assert client.get(reverse("pages:teams", args=[league.slug])).status_code == 200
