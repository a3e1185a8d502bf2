"""Who is ranked, past standings without surprises, the explanation page and head to head,
through the Django client (the browser tests check the same pages in Chromium)."""

from __future__ import annotations

import datetime as dt
import math

import pytest
from django.urls import reverse

from ratings.models import PlayerPeriod, RankingRules
from ratings.selectors.common import ReadClock
from ratings.selectors.configurations import period_for_date
from ratings.selectors.standings import leaderboard

pytestmark = pytest.mark.django_db


def league_url(league, **query) -> str:
    return reverse("pages:league", args=[league.slug]) + (
        "?" + "&".join(f"{k}={v}" for k, v in query.items()) if query else ""
    )


def test_the_default_rules_list_provisional_players_separately(client, club):
    board = client.get(league_url(club["league"])).context["board"]
    # Five weeks of a few games each: every rated player is still provisional.
    assert board.ranked_total == 0
    assert board.separate_total == 4
    page = client.get(league_url(club["league"])).text
    assert '<strong id="separate-count">4</strong> listed separately' in page


def test_only_organisers_open_the_ranking_rules(client, club, other_organiser):
    url = reverse("workspace:ranking", args=[club["league"].slug])
    assert client.get(url).status_code == 302  # to sign in
    client.force_login(other_organiser)
    assert client.get(url).status_code == 403
    assert not RankingRules.objects.exists()


@pytest.mark.parametrize(
    ("field", "value", "message"),
    [
        ("min_games", "-1", "Minimum games"),
        ("min_games", "abc", "Minimum games must be a whole number"),
        ("active_periods", "0", "activity window"),
        ("max_rd", "0", "largest RD"),
        ("max_rd", "nan", "largest RD"),
        ("rank_by", "best", "Select a valid choice"),
    ],
)
def test_bad_ranking_rules_are_refused_with_the_field_named(
    client, club, organiser, field, value, message
):
    client.force_login(organiser)
    url = reverse("workspace:ranking", args=[club["league"].slug])
    data = {"min_games": "1", "active_periods": "24", "max_rd": "110", "rank_by": "rating"}
    response = client.post(url, {**data, field: value})
    assert response.status_code == 200
    assert message in response.text
    assert f'id="id_{field}-error"' in response.text
    assert not RankingRules.objects.exists()


def test_saved_rules_change_the_cached_standings_at_once(client, club, organiser):
    league = club["league"]
    assert client.get(league_url(league)).context["board"].ranked_total == 0
    organiser_client = type(client)()
    organiser_client.force_login(organiser)
    response = organiser_client.post(
        reverse("workspace:ranking", args=[league.slug]),
        {"min_games": "2", "active_periods": "", "max_rd": "", "rank_by": "lower_bound"},
    )
    assert response.status_code == 302
    rules = RankingRules.objects.get(league=league)
    assert (rules.min_games, rules.active_periods, rules.max_rd) == (2, None, None)
    board = client.get(league_url(league)).context["board"]
    assert [row.name for row in board.rows] == [
        row.name for row in sorted(board.rows, key=lambda row: -(row.rating - 1.96 * row.rd))
    ]
    assert board.ranked_total == 3  # Dan played once
    assert board.rules.by_lower_bound
    hub = organiser_client.get(reverse("workspace:hub", args=[league.slug])).text
    assert reverse("workspace:ranking", args=[league.slug]) in hub


def test_as_of_a_day_says_which_period_and_which_results_it_includes(client, club, everyone):
    league, config = club["league"], club["config"]
    # Tuesday 9 Jan 2024 is in the week of Monday 8 Jan; Bob and Cat also played that day.
    response = client.get(league_url(league, date="2024-01-09"))
    board = response.context["board"]
    assert board.as_of.index == period_for_date(config, dt.date(2024, 1, 9))
    statement = response.context["as_of_day"]
    assert statement.startswith("9 Jan 2024 falls in period 1 (8 Jan 2024 to 14 Jan 2024).")
    assert "no result was played after 9 Jan 2024" in statement
    # Last played: the real day of each player's last match up to that period.
    days = {row.name: row.last_played.isoformat() for row in board.rows}
    assert days == {
        "Ann Archer": "2024-01-09",
        "Bob Baker": "2024-01-09",
        "Cat Cooper": "2024-01-09",
    }
    earlier = client.get(league_url(league, date="2024-01-08")).context["as_of_day"]
    assert "including 2 results played after 8 Jan 2024" in earlier


def test_the_period_picker_reaches_every_period_and_shows_the_one_displayed(client, club, everyone):
    league, config = club["league"], club["config"]
    played = sorted(
        set(PlayerPeriod.objects.filter(config=config).values_list("period_index", flat=True))
    )
    periods = client.get(league_url(league, period=2)).context["periods"]
    assert sorted(int(p["value"]) for p in periods) == played
    assert [p["value"] for p in periods if p["selected"]] == ["2"]


def test_the_explanation_adds_up_and_is_linked_from_results_and_periods(client, club):
    league, ann, config = club["league"], club["ann"], club["config"]
    page = client.get(reverse("pages:player", args=[league.slug, ann.slug])).text
    for row in PlayerPeriod.objects.filter(config=config, player=ann):
        url = reverse("pages:player_period", args=[league.slug, ann.slug, row.period_index])
        assert url in page
        explanation = client.get(url).context["e"]
        assert math.isclose(explanation.effects_total, row.rating - row.rating_before, abs_tol=1e-9)
        assert math.isclose(explanation.rd_before, row.rd_before, rel_tol=1e-12)
        assert explanation.games
    missing = reverse("pages:player_period", args=[league.slug, club["eve"].slug, 0])
    assert client.get(missing).status_code == 404


def test_head_to_head_never_says_100_percent(client, club):
    league = club["league"]
    url = reverse("pages:versus", args=[league.slug])
    response = client.get(url, {"a": club["ann"].slug, "b": club["bob"].slug})
    assert response.status_code == 200
    # Ann beat Bob three times (once as the second-named player).
    record = response.context["matches"]
    assert (record.wins, record.draws, record.losses) == (3, 0, 0)
    assert len(record.matches) == 3
    assert "100 %" not in response.text
    assert "Expected score" in response.text
    unknown = client.get(url, {"a": "nobody", "b": club["bob"].slug})
    assert unknown.status_code == 200
    assert "No player &#x27;nobody&#x27; in Riverside Chess Club (ignored)." in unknown.text


@pytest.fixture
def everyone(club):
    RankingRules.objects.create(
        league=club["league"], min_games=0, active_periods=None, max_rd=None
    )


def test_the_leaderboard_rank_matches_the_player_card(client, club, everyone):
    league = club["league"]
    board = leaderboard(league, clock=ReadClock.of(club["config"]))
    for row in board.rows:
        standing = client.get(reverse("pages:player", args=[league.slug, row.slug])).context[
            "standing"
        ]
        assert standing.rank == row.rank


def test_the_percentile_reads_every_other_player_at_the_top_and_a_share_below(
    client, club, everyone
):
    league = club["league"]
    board = leaderboard(league, clock=ReadClock.of(club["config"]))
    ranked = [row for row in board.rows if row.rank is not None]
    assert len(ranked) >= 3
    top, below = ranked[0], ranked[-1]
    top_page = client.get(reverse("pages:player", args=[league.slug, top.slug])).text
    assert "better than every other ranked player" in top_page
    assert "100 %" not in top_page
    last_page = client.get(reverse("pages:player", args=[league.slug, below.slug])).text
    # The bottom ranked player beats nobody else.
    assert "better than 0 % of ranked players" in last_page


def test_a_volatility_trend_over_one_period_is_singular(client, club, everyone):
    league = club["league"]
    # Cat Cooper played in two periods: her trend spans one period.
    page = client.get(reverse("pages:player", args=[league.slug, "cat-cooper"])).text
    assert "over the last period played" in page
    assert "last 1 periods" not in page
