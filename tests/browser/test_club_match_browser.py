"""An organiser runs a club match over four boards in a real browser, at 1280 and 390 px:
two teams with their rosters, a match scheduled, both board orders submitted, a result
form with a board missing refused with the board named, the four boards entered from the
keyboard; then the public match page (boards, colours, board and match score) and the team
table, and no page scrolls sideways on a phone."""

from __future__ import annotations

import pytest
from django.urls import reverse

from league.models import ClubMatch, Event
from tests.browser.conftest import screenshot, wait_for_message
from tests.browser.test_fixtures_browser import _no_sideways_scroll, sign_in

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

TEAMS = {"Riverside": ("Ann", "Bob", "Cem", "Dee"), "Hilltop": ("Eve", "Fay", "Gus", "Hal")}
#: Board orders as the captains hand them in (not alphabetical: the order is theirs).
ORDERS = {"home": ("Dee", "Ann", "Cem", "Bob"), "away": ("Hal", "Eve", "Fay", "Gus")}


def _flash(page, text: str) -> None:
    wait_for_message(page, text)


@pytest.mark.parametrize("width", [1280, 390])
def test_organiser_runs_a_four_board_club_match(
    watched_page, live_server, league, make_player, organiser, width
):
    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})
    for names in TEAMS.values():
        for name in names:
            make_player(league, name)
    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:hub", args=[league.slug]))
    page.click('.hub-sections a:has-text("Club matches")')

    for team, names in TEAMS.items():
        page.fill("#id_team_name", team)
        page.press("#id_team_name", "Enter")  # the keyboard sends the form
        _flash(page, f"Created the team {team}.")
        for name in names:
            page.select_option("#id_roster_team", label=team)
            page.select_option("#id_roster_player", label=name)
            page.click("#add-player button[type='submit']")
            _flash(page, f"Added {name} to {team}.")
    assert "Ann, Bob, Cem, Dee" in page.inner_text("#team-list")
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"club-teams-{width}")

    page.select_option("#id_home", label="Riverside")
    page.select_option("#id_away", label="Hilltop")
    page.fill("#id_boards", "4")
    page.fill("#id_day", "2024-04-02")
    page.fill("#id_venue", "Town hall")
    page.click("#schedule-match button[type='submit']")
    _flash(page, "Scheduled Riverside v Hilltop.")

    for side, names in ORDERS.items():
        for board, name in enumerate(names, start=1):
            page.select_option(f"#id_{side}_board_{board}", label=name)
        page.focus(f"#order-{side} button[type='submit']")
        page.keyboard.press("Enter")
        _flash(page, "board order.")
    entry = page.inner_text("#result-entry")
    assert entry.index("Dee") < entry.index("Ann") < entry.index("Cem") < entry.index("Bob")
    assert "(White)" in entry
    assert "(Black)" in entry

    # A board left without a result: refused, naming the board, nothing stored.
    before = Event.objects.filter(league=league).count()
    for board, result in ((1, "1-0"), (3, "0-1"), (4, "1-0")):
        page.select_option(f"#id_result_{board}", result)
    page.press("#id_played_on", "Enter")
    page.wait_for_selector(
        "#results-form .form-errors[role='alert'] >> text=Board 2: give its result"
    )
    assert page.get_attribute("#id_result_2", "aria-describedby") == "id_result_2_error"
    assert Event.objects.filter(league=league).count() == before
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"club-result-refused-{width}")

    page.select_option("#id_result_2", "½-½")
    page.fill("#id_played_on", "2024-04-02")
    page.press("#id_played_on", "Enter")
    _flash(page, "Recorded Riverside v Hilltop.")
    match = ClubMatch.objects.get(league=league)
    assert len(match.games) == 4
    assert Event.objects.filter(pk__in=match.games, kind="match_recorded").count() == 4

    page.click("text=Public page")
    page.wait_for_selector("#club-boards")
    assert page.inner_text("#board-score") == "2½–1½"
    assert "Match points: Riverside 2, Hilltop 0." in page.inner_text("#match-points")
    boards = page.inner_text("#club-boards")
    assert boards.index("Dee") < boards.index("Ann")
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"club-match-public-{width}")

    page.click("text=Team table")
    page.wait_for_selector("#team-table")
    rows = page.locator("#team-table tbody tr")
    assert rows.nth(0).inner_text().split("\t")[:2] == ["1", "Riverside"]
    assert "Hilltop" in rows.nth(1).inner_text()
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"club-team-table-{width}")


@pytest.mark.parametrize("width", [1280, 390])
def test_a_captain_hands_in_the_board_order_from_my_games(
    watched_page, live_server, league, make_player, organiser, width
):
    """The captain, signed in, goes from "My games" to "My team", hands in an order with a
    player twice (refused, naming the board, nothing stored) and then a good one from the
    keyboard; the organiser's match page says the captain handed it in."""
    from django.contrib.auth import get_user_model

    from league.player_accounts import claim_player
    from ratings import club_matches as clubs

    page = watched_page
    page.set_viewport_size({"width": width, "height": 900})
    teams = {}
    players = {}
    for team_name, names in TEAMS.items():
        teams[team_name] = clubs.create_team(league, name=team_name, recorded_by=organiser)
        for name in names:
            players[name] = make_player(league, name)
            clubs.add_to_roster(league, teams[team_name], players[name], recorded_by=organiser)
    clubs.set_captain(league, teams["Riverside"], players["Bob"], recorded_by=organiser)
    match = clubs.schedule_club_match(
        league, home=teams["Riverside"], away=teams["Hilltop"], boards=4,
        scheduled_at="2024-04-02", recorded_by=organiser,
    )  # fmt: skip
    bob = get_user_model().objects.create_user("bob", password="pw-bob-12345")
    claim_player(players["Bob"], bob, by=organiser)

    sign_in(page, live_server, bob)
    page.goto(live_server.url + reverse("workspace:my_games", args=[league.slug]))
    page.click("#my-team-link a")
    page.wait_for_selector(f"#order-m{match.pk}")
    for board, name in enumerate(("Dee", "Ann", "Dee", "Bob"), start=1):
        page.select_option(f"#id_m{match.pk}_board_{board}", label=name)
    before = Event.objects.filter(league=league).count()
    page.click(f"#order-m{match.pk} button[type='submit']")
    page.wait_for_selector(f"#order-m{match.pk} .form-errors[role='alert'] >> text=Board 3")
    assert "Dee is already on board 1" in page.inner_text(f"#order-m{match.pk} .form-errors")
    field = f"#id_m{match.pk}_board_3"
    assert page.get_attribute(field, "aria-invalid") == "true"
    assert Event.objects.filter(league=league).count() == before
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"club-captain-refused-{width}")

    page.select_option(field, label="Cem")
    page.focus(f"#order-m{match.pk} button[type='submit']")
    page.keyboard.press("Enter")
    _flash(page, "Handed in Riverside's board order.")
    assert "The order below was handed in." in page.inner_text(f"#order-m{match.pk}")
    if width == 390:
        _no_sideways_scroll(page)
    screenshot(page, f"club-captain-order-{width}")

    sign_in(page, live_server, organiser)
    page.goto(live_server.url + reverse("workspace:club_match", args=[league.slug, match.pk]))
    assert page.inner_text("#home-by-captain") == "Handed in by the team's captain."
    entry = page.inner_text("#result-entry")
    assert entry.index("Dee") < entry.index("Ann") < entry.index("Cem") < entry.index("Bob")
