"""The admin's read-only pages for the newer tables (``league.admin_tables``): each list
renders for an organiser with their own league's rows only, another league's row neither
lists nor opens, nothing is added, changed or deleted there (the event log is the one way
to change them), and a filter the list cannot apply is dropped with a message."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league import seasons
from league.competitions import create_competition, enter_player, request_bye
from league.divisions import DivisionInput, set_divisions
from league.models import (
    BoardOrder,
    ClubMatch,
    Competition,
    Division,
    DivisionMember,
    DivisionSetup,
    Entrant,
    Event,
    RosterEntry,
    RoundBye,
    Season,
    Team,
)
from ratings import club_matches as clubs

pytestmark = pytest.mark.django_db

#: Each table's admin name and how its rows reach their league.
TABLES = {
    "season": (Season, "league"),
    "competition": (Competition, "league"),
    "entrant": (Entrant, "competition__league"),
    "roundbye": (RoundBye, "competition__league"),
    "team": (Team, "league"),
    "rosterentry": (RosterEntry, "team__league"),
    "clubmatch": (ClubMatch, "league"),
    "boardorder": (BoardOrder, "club_match__league"),
    "divisionsetup": (DivisionSetup, "season__league"),
    "division": (Division, "season__league"),
    "divisionmember": (DivisionMember, "season__league"),
}


def _club(league, town: str, organiser) -> None:
    """A league's rows in every table, each named after ``town``."""
    players = [league_player(league, f"{first} {town}") for first in ("Ann", "Bob", "Cat", "Dan")]
    season = seasons.create_season(
        league, name=f"{town} Spring", start_date="2024-03-01", end_date="2024-03-31"
    )
    set_divisions(
        season,
        [
            DivisionInput(f"{town} Top", (players[0].pk, players[1].pk)),
            DivisionInput(f"{town} Bottom", (players[2].pk, players[3].pk)),
        ],
        promotion=1,
    )
    home = clubs.create_team(league, name=f"{town} A", recorded_by=organiser)
    away = clubs.create_team(league, name=f"{town} B", recorded_by=organiser)
    for team, members in ((home, players[:2]), (away, players[2:])):
        for player in members:
            clubs.add_to_roster(league, team, player, recorded_by=organiser)
    match = clubs.schedule_club_match(
        league, home=home, away=away, boards=2, scheduled_at="2024-03-05", recorded_by=organiser
    )
    clubs.submit_board_order(
        league, match, home, [players[1].pk, players[0].pk], recorded_by=organiser
    )
    event = create_competition(
        league, name=f"{town} Swiss", planned_rounds=3, recorded_by=organiser
    )
    for player in players:
        enter_player(event, player, recorded_by=organiser)
    request_bye(event, players[0], round_number=2, recorded_by=organiser)


def league_player(league, name):
    from league import services

    return services.register_player(league, name)


@pytest.fixture
def towns(league, other_league, organiser, other_organiser):
    for user in (organiser, other_organiser):
        user.is_staff = True
        user.save()
    _club(league, "Riverside", organiser)
    _club(other_league, "Hilltop", other_organiser)


@pytest.fixture
def organiser_client(client, organiser, towns):
    client.force_login(organiser)
    return client


def url(name: str, *args) -> str:
    return reverse(f"admin:league_{name}", args=args)


def rows_of(model, path: str, league) -> list:
    return list(model.objects.filter(**{path: league}))


def snapshot() -> tuple:
    """Every row of every table and of the event log, to show nothing changed."""
    tables = [tuple(model.objects.order_by("pk").values_list()) for model, _path in TABLES.values()]
    return (*tables, tuple(Event.objects.order_by("pk").values_list("pk", "kind")))


@pytest.mark.parametrize("table", TABLES)
def test_the_list_shows_the_organiser_s_own_league_only(organiser_client, league, table):
    model, path = TABLES[table]
    response = organiser_client.get(url(f"{table}_changelist"))
    assert response.status_code == 200
    content = response.content.decode()
    assert "Riverside" in content
    assert "Hilltop" not in content
    listed = list(response.context["cl"].result_list)
    assert listed
    assert sorted(row.pk for row in listed) == sorted(
        row.pk for row in rows_of(model, path, league)
    )


@pytest.mark.parametrize("table", TABLES)
def test_another_league_s_row_does_not_open(organiser_client, other_league, table):
    model, path = TABLES[table]
    theirs = rows_of(model, path, other_league)[0]
    before = snapshot()
    for view in ("change", "history"):
        response = organiser_client.get(url(f"{table}_{view}", theirs.pk))
        # The admin answers "does not exist" (to the index) for rows outside the queryset.
        assert response.status_code == 302, view
        assert response.url == reverse("admin:index")
    # Deleting is refused before the row is even looked up.
    response = organiser_client.post(url(f"{table}_delete", theirs.pk), {"post": "yes"})
    assert response.status_code == 403
    assert snapshot() == before


@pytest.mark.parametrize("table", TABLES)
def test_the_rows_are_read_only(organiser_client, league, table):
    model, path = TABLES[table]
    mine = rows_of(model, path, league)[0]
    before = snapshot()
    page = organiser_client.get(url(f"{table}_change", mine.pk))
    assert page.status_code == 200
    assert b'name="_save"' not in page.content
    assert url(f"{table}_delete", mine.pk).encode() not in page.content
    assert organiser_client.post(url(f"{table}_change", mine.pk), {"name": "X"}).status_code == 403
    assert (
        organiser_client.post(url(f"{table}_delete", mine.pk), {"post": "yes"}).status_code == 403
    )
    assert organiser_client.get(url(f"{table}_add")).status_code == 403
    listing = organiser_client.get(url(f"{table}_changelist")).content.decode()
    assert 'name="action"' not in listing
    assert url(f"{table}_add") not in listing
    assert snapshot() == before


def test_a_row_links_to_where_the_workspace_changes_it(organiser_client, league):
    division = Division.objects.get(name="Riverside Top")
    page = organiser_client.get(url("division_change", division.pk)).content.decode()
    assert reverse("workspace:season_divisions", args=[league.slug, "riverside-spring"]) in page
    match = ClubMatch.objects.get(league=league)
    page = organiser_client.get(url("boardorder_changelist")).content.decode()
    assert reverse("workspace:club_match", args=[league.slug, match.pk]) in page
    # The order by name, board 1 first (the row holds ids), on the row's own page only:
    # the names take a query of their own.
    assert "Bob Riverside; Ann Riverside" not in page
    order = BoardOrder.objects.get(club_match=match)
    page = organiser_client.get(url("boardorder_change", order.pk)).content.decode()
    assert "Bob Riverside; Ann Riverside" in page


def test_a_superuser_sees_every_league(client, superuser, towns):
    client.force_login(superuser)
    content = client.get(url("team_changelist")).content.decode()
    assert "Riverside A" in content
    assert "Hilltop A" in content


def test_the_league_filter_offers_and_applies_own_leagues_only(
    organiser_client, league, other_league
):
    response = organiser_client.get(url("divisionmember_changelist"), {"league": league.pk})
    changelist = response.context["cl"]
    offered = [
        str(choice["display"])
        for spec in changelist.filter_specs
        for choice in spec.choices(changelist)
    ]
    assert league.name in offered
    assert other_league.name not in offered
    assert len(changelist.result_list) == 4
    # Another league's id names no row of the organiser's.
    response = organiser_client.get(url("divisionmember_changelist"), {"league": other_league.pk})
    assert response.status_code == 200
    assert len(response.context["cl"].result_list) == 0


@pytest.mark.parametrize("value", ["abc", "1\x00", "9" * 40])
def test_a_filter_it_cannot_apply_is_dropped_with_a_message(organiser_client, value):
    response = organiser_client.get(url("rosterentry_changelist"), {"league": value}, follow=True)
    assert response.status_code == 200
    messages = [str(message) for message in response.context["messages"]]
    assert any("league=" in message and "was ignored" in message for message in messages)


def test_anonymous_users_are_sent_to_the_login_page(client, towns):
    response = client.get(url("team_changelist"))
    assert response.status_code == 302
    assert response.url.startswith(reverse("admin:login"))


#: Models deliberately without an admin page: secrets and per-account settings (tokens,
#: sign-in links, invitations, language and e-mail preferences) are the account's own.
WITHOUT_ADMIN = {"ApiToken", "SignInLink", "Invitation", "AccountPreferences"}


def test_every_league_table_has_an_admin_page_that_renders(organiser_client):
    from django.apps import apps
    from django.contrib import admin

    models = apps.get_app_config("league").get_models()
    missing = {m.__name__ for m in models if m not in admin.site._registry} - WITHOUT_ADMIN
    assert missing == set()
    for model in apps.get_app_config("league").get_models():
        if model.__name__ in WITHOUT_ADMIN:
            continue
        name = model._meta.model_name
        response = organiser_client.get(url(f"{name}_changelist"))
        assert response.status_code == 200, name
        assert "Hilltop" not in response.content.decode(), name


def test_the_admin_s_names_follow_the_language(organiser_client, league):
    from django.utils import translation

    entry = RosterEntry.objects.filter(team__league=league).select_related("team", "player")[0]
    match = ClubMatch.objects.get(league=league)
    with translation.override("de"):
        assert str(entry) == "Ann Riverside für Riverside A"
        assert str(match) == "Riverside A gegen Riverside B"
        assert str(ClubMatch._meta.verbose_name_plural) == "Vereinskämpfe"
    with translation.override("en"):
        assert str(entry) == "Ann Riverside for Riverside A"
        assert str(match) == "Riverside A v Riverside B"
    organiser_client.cookies["django_language"] = "de"
    page = organiser_client.get(url("clubmatch_changelist"), HTTP_ACCEPT_LANGUAGE="de")
    assert page.status_code == 200
    content = page.content.decode()
    assert "Vereinskämpfe" in content
    assert "Riverside A gegen Riverside B" in content


def _list_queries(client, table: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = client.get(url(f"{table}_changelist"))
    assert response.status_code == 200
    assert list(response.context["cl"].result_list)
    return len(queries)


@pytest.mark.parametrize("table", TABLES)
def test_a_list_s_queries_do_not_grow_with_its_rows(organiser_client, organiser, table):
    """A count or a related row per listed row would be a query per row: another league
    of the organiser's (as many rows again) lists in as many queries."""
    from league.models import League

    before = _list_queries(organiser_client, table)
    lakeside = League.objects.create(
        name="Lakeside Chess Club", slug="lakeside", sport="Chess", start_date=dt.date(2024, 1, 1)
    )
    lakeside.organisers.add(organiser)
    _club(lakeside, "Lakeside", organiser)
    model, path = TABLES[table]
    assert rows_of(model, path, lakeside)
    assert _list_queries(organiser_client, table) == before
