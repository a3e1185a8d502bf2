"""Hostile query strings on every public page, export and organiser page: never a 5xx.

Each page is requested once per hostile value with every query parameter any page reads
set to it (and once with each parameter alone), anonymously and as the league's organiser.
A bad value is clamped, ignored with a message, or answered with a 4xx; never a 500.
"""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from league import seasons

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("everyone_ranked")]

HOSTILE = [
    "99999999999999999999",
    "-99999999999999999999",
    "9" * 5000,
    "\u00b2",
    "\x00",
    "1\x00",
    "-1",
    "0",
    "1.5",
    "1e308",
    "nan",
    "inf",
    "",
    " ",
    "\u0661\u0662",
    "abc",
    "2024-02-30",
    "0001-01-01",
    "9999-12-31",
    "-rank\x00",
]

PARAMS = [
    "page",
    "per_page",
    "version",
    "period",
    "date",
    "sort",
    "q",
    "active",
    "min_games",
    "a",
    "b",
    "outcome",
    "level",
    "season",
    "rows",
]


def page_urls(club) -> list[str]:
    league, ann = club["league"], club["ann"]
    slug = {"league_slug": league.slug}
    player = {**slug, "player_slug": ann.slug}
    season = seasons.create_season(
        league, name="January", start_date="2024-01-01", end_date="2024-01-31"
    )
    in_season = {**slug, "season_slug": season.slug}
    return [
        reverse("pages:seasons", kwargs=slug),
        reverse("pages:season", kwargs=in_season),
        reverse("pages:season_csv", kwargs=in_season),
        reverse("pages:season_divisions_csv", kwargs=in_season),
        reverse("pages:embed_standings", kwargs=slug),
        reverse("pages:results_feed", kwargs=slug),
        reverse("pages:player_results_feed", kwargs=player),
        reverse("pages:home"),
        reverse("pages:league", kwargs=slug),
        reverse("pages:player", kwargs=player),
        reverse("pages:player_ranks", kwargs=player),
        reverse("pages:matches", kwargs=slug),
        reverse("pages:events", kwargs=slug),
        reverse("pages:compare", kwargs=slug),
        reverse("workspace:config", kwargs=slug),
        reverse("pages:progress", kwargs=slug),
        reverse("pages:export_standings", kwargs=slug),
        reverse("pages:export_history", kwargs=slug),
        reverse("workspace:backtest", kwargs=slug),
    ]


#: A text holding a control character: a NUL byte fails any statement it reaches on PostgreSQL.
CONTROL = ["\x00", "-rank\x00", "ann\x1b[0m"]

#: The parameters of the ``CONTROL`` sweep: ``PARAMS`` and those only its pages read.
TEXT_PARAMS = [*PARAMS, "player", "highlight", "recorded", "played_on"]


def text_page_urls(club) -> list[str]:
    """The pages that read a name, a slug or a text from the query string."""
    league, ann = club["league"], club["ann"]
    slug = {"league_slug": league.slug}
    player = {**slug, "player_slug": ann.slug}
    return [
        reverse("pages:versus", kwargs=slug),
        reverse("pages:fixtures", kwargs=slug),
        reverse("pages:fixtures_ics", kwargs=slug),
        reverse("pages:player_fixtures_ics", kwargs=player),
        reverse("pages:embed_fixtures", kwargs=slug),
        reverse("pages:player_period", kwargs={**player, "period": 1}),
        reverse("workspace:hub", kwargs=slug),
        reverse("workspace:record", kwargs=slug),
        reverse("workspace:round", kwargs=slug),
        reverse("workspace:log", kwargs=slug),
        reverse("workspace:players", kwargs=slug),
        reverse("workspace:player", kwargs=player),
        reverse("workspace:seasons", kwargs=slug),
        reverse("workspace:fixtures", kwargs=slug),
        reverse("workspace:pairings", kwargs=slug),
        reverse("workspace:website", kwargs=slug),
        reverse("workspace:export", kwargs=slug),
    ]


def failures(client: Client, urls: list[str], value: str, params: list[str] = PARAMS) -> list[str]:
    found = []
    for url in urls:
        for query in [dict.fromkeys(params, value), *({name: value} for name in params)]:
            response = client.get(url, query)
            if response.status_code >= 500:
                names = ", ".join(query) if len(query) == 1 else "every parameter"
                found.append(f"{url} with {names} = {value[:30]!r}: {response.status_code}")
    return found


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_no_page_answers_a_hostile_query_with_a_server_error(club, value):
    client = Client(raise_request_exception=False)
    found = failures(client, page_urls(club), value)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("value", HOSTILE, ids=repr)
def test_no_organiser_page_answers_a_hostile_query_with_a_server_error(club, organiser, value):
    client = Client(raise_request_exception=False)
    client.force_login(organiser)
    found = failures(client, page_urls(club), value)
    assert not found, "\n".join(found)


@pytest.mark.parametrize("value", CONTROL, ids=repr)
def test_no_page_reading_text_answers_a_control_character_with_a_server_error(
    club, organiser, value
):
    anonymous = Client(raise_request_exception=False)
    signed_in = Client(raise_request_exception=False)
    signed_in.force_login(organiser)
    urls = text_page_urls(club)
    found = failures(anonymous, urls, value, TEXT_PARAMS)
    found += failures(signed_in, urls, value, TEXT_PARAMS)
    assert not found, "\n".join(found)


def test_a_page_past_the_database_integers_shows_the_last_page(client, club):
    league = club["league"]
    response = client.get(
        reverse("pages:league", kwargs={"league_slug": league.slug}),
        {"page": "99999999999999999999"},
    )
    assert response.status_code == 200
    board = response.context["board"]
    assert (board.page, board.num_pages) == (1, 1)
    assert len(board.rows) == 4
    for name in ("matches", "events"):
        listing = client.get(
            reverse(f"pages:{name}", kwargs={"league_slug": league.slug}), {"page": "9" * 5000}
        )
        assert listing.status_code == 200
        assert listing.context["pager"]["page"] == 1


@pytest.mark.parametrize("what", ["standings", "history"])
@pytest.mark.parametrize(
    "version", ["\u00b2", "\u0661", "99999999999999999999", "0", "-1", "1\x00"]
)
def test_an_export_of_a_version_that_is_no_number_is_not_found(client, club, what, version):
    url = reverse(f"pages:export_{what}", kwargs={"league_slug": club["league"].slug})
    response = client.get(url, {"version": version})
    assert response.status_code == 404
    assert client.get(url, {"version": str(club["config"].version)}).status_code == 200


def test_minimum_games_past_any_count_is_ignored_with_a_message(client, club):
    response = client.get(
        reverse("pages:league", kwargs={"league_slug": club["league"].slug}),
        {"min_games": "99999999999999999999"},
    )
    assert response.status_code == 200
    assert [str(m) for m in response.context["messages"]] == [
        "Minimum games cannot be more than 1,000,000. (ignored)"
    ]
    assert len(response.context["board"].rows) == 4


def test_versus_ignores_a_player_with_a_nul_byte_or_control_character(client, club):
    url = reverse("pages:versus", kwargs={"league_slug": club["league"].slug})
    response = client.get(url, {"a": "\x00", "b": f"{club['ann'].slug}\x1b"})
    assert response.status_code == 200
    assert (response.context["a"], response.context["b"]) == (None, None)
    assert [str(m) for m in response.context["messages"]] == [
        "No player '\\x00' in Riverside Chess Club (ignored).",
        f"No player '{club['ann'].slug}\\x1b' in Riverside Chess Club (ignored).",
    ]
    chosen = client.get(url, {"a": f" {club['ann'].slug} ", "b": club["bob"].slug})
    assert (chosen.context["a"], chosen.context["b"]) == (club["ann"], club["bob"])
