"""The admin's read-only pages for the read side's derived tables (``ratings.admin``): the
live configuration, standings, the ranking rules, archived season tables and their rows;
each lists the organiser's own league only, another league's row does not open, and
nothing is added, changed or deleted there."""

from __future__ import annotations

import datetime as dt

import pytest
from django.urls import reverse

from league import seasons
from ratings.models import Publication, RankingRules, SeasonRow, SeasonTable, Standing
from ratings.new_league import start_ratings
from ratings.seasons.archive import close_season
from tests.functional.conftest import rate, record_results

pytestmark = pytest.mark.django_db

TABLES = {
    "publication": (Publication, "league"),
    "rankingrules": (RankingRules, "league"),
    "standing": (Standing, "config__league"),
    "seasontable": (SeasonTable, "season__league"),
    "seasonrow": (SeasonRow, "table__season__league"),
}


def _club(league, town: str, make_player) -> None:
    start_ratings(league)
    ann, bob = make_player(league, f"Ann {town}"), make_player(league, f"Bob {town}")
    season = seasons.create_season(
        league, name=f"{town} Winter", start_date="2024-01-01", end_date="2024-01-31"
    )
    record_results(league, [(ann, bob, "1", dt.date(2024, 1, 5))])
    rate(league)
    close_season(season)


@pytest.fixture
def organiser_client(client, league, other_league, organiser, other_organiser, make_player):
    for user in (organiser, other_organiser):
        user.is_staff = True
        user.save()
    _club(league, "Riverside", make_player)
    _club(other_league, "Hilltop", make_player)
    client.force_login(organiser)
    return client


def url(name: str, *args) -> str:
    return reverse(f"admin:ratings_{name}", args=args)


def snapshot() -> tuple:
    return tuple(
        tuple(model.objects.order_by("pk").values_list()) for model, _path in TABLES.values()
    )


def test_the_derived_tables_are_listed_scoped_and_read_only(organiser_client, league, other_league):
    before = snapshot()
    for name, (model, path) in TABLES.items():
        response = organiser_client.get(url(f"{name}_changelist"))
        assert response.status_code == 200, name
        content = response.content.decode()
        assert "Hilltop" not in content, name
        listed = sorted(row.pk for row in response.context["cl"].result_list)
        mine = sorted(model.objects.filter(**{path: league}).values_list("pk", flat=True))
        assert listed == mine, name
        assert listed, name
        assert 'name="action"' not in content
        assert url(f"{name}_add") not in content
        page = organiser_client.get(url(f"{name}_change", mine[0]))
        assert page.status_code == 200, name
        assert b'name="_save"' not in page.content
        assert organiser_client.post(url(f"{name}_change", mine[0]), {}).status_code == 403
        assert (
            organiser_client.post(url(f"{name}_delete", mine[0]), {"post": "yes"}).status_code
            == 403
        )
        assert organiser_client.get(url(f"{name}_add")).status_code == 403
        theirs = model.objects.filter(**{path: other_league}).values_list("pk", flat=True)[0]
        response = organiser_client.get(url(f"{name}_change", theirs))
        assert response.status_code == 302, name
        assert response.url == reverse("admin:index")
    assert snapshot() == before


def test_a_season_row_list_drops_a_filter_it_cannot_apply(organiser_client):
    response = organiser_client.get(url("seasonrow_changelist"), {"league": "1\x00"}, follow=True)
    assert response.status_code == 200
    assert any("was ignored" in str(m) for m in response.context["messages"])


def _list_queries(client, name: str) -> int:
    from django.db import connection
    from django.test.utils import CaptureQueriesContext

    with CaptureQueriesContext(connection) as queries:
        response = client.get(url(f"{name}_changelist"))
    assert response.status_code == 200
    assert list(response.context["cl"].result_list)
    return len(queries)


def test_a_list_s_queries_do_not_grow_with_its_rows(organiser_client, organiser, make_player):
    """A count or a related row per listed row would be a query per row: another league
    of the organiser's (as many rows again) lists in as many queries."""
    from league.models import League

    before = {name: _list_queries(organiser_client, name) for name in TABLES}
    lakeside = League.objects.create(
        name="Lakeside Chess Club", slug="lakeside", sport="Chess", start_date=dt.date(2024, 1, 1)
    )
    lakeside.organisers.add(organiser)
    _club(lakeside, "Lakeside", make_player)
    for name, (model, path) in TABLES.items():
        assert model.objects.filter(**{path: lakeside}).exists(), name
    assert {name: _list_queries(organiser_client, name) for name in TABLES} == before
