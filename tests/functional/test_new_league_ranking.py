"""A new league's ranking rules fit its size, and the hub says who is not ranked and why.

A club created with ``create_league`` (or whose first configuration an organiser makes on
the workspace, the API or ``set_config``) starts with rules of its own: one game within two
years, no RD limit, so its first evening's nine players are all ranked, each provisional
rating marked P. A league from before those rules keeps the older defaults (RD at most
the provisional threshold), and its hub says how many players that rule keeps out.
"""

from __future__ import annotations

import datetime as dt
import io
import re

import pytest
from django.conf import settings
from django.core.management import call_command
from django.urls import reverse

from league import services as league_services
from league.models import League
from ratings import services as rating_services
from ratings.eligibility import default_active_periods
from ratings.models import RankingRules, RatingConfig
from ratings.selectors.standings import leaderboard
from tests.functional.conftest import record_results, run_queued_replays

pytestmark = pytest.mark.django_db

#: A club night a few days ago (well within the two-year activity window).
FIRST_EVENING = dt.date.today() - dt.timedelta(days=3)
#: The Monday starting the weekly periods: on or before the ``league`` fixture's start date.
ANCHOR = dt.date(2024, 1, 1)


def _first_evening(league: League, make_player) -> list:
    """Nine players, fifteen games on one evening (each beats the next two down a ladder):
    every rating still provisional."""
    players = [make_player(league, f"Player {n}") for n in range(1, 10)]
    games = [(players[i], players[j]) for i in range(9) for j in (i + 1, i + 2) if j < 9]
    record_results(league, [(a, b, "1", FIRST_EVENING) for a, b in games])
    rating_services.request_full_replay(league)
    run_queued_replays(league)
    return players


def test_a_club_made_with_create_league_ranks_its_first_evening_marking_the_provisional(
    client, organiser, make_player
):
    call_command(
        "create_league", "new-club", "--name", "New Club",
        "--start-date", (FIRST_EVENING - dt.timedelta(days=30)).isoformat(),
        "--organiser", organiser.username, stdout=io.StringIO(),
    )  # fmt: skip
    league = League.objects.get(slug="new-club")
    config = RatingConfig.objects.get(league=league)
    rules = RankingRules.objects.get(league=league)
    assert (rules.min_games, rules.max_rd, rules.rank_by) == (1, None, "rating")
    assert rules.active_periods == default_active_periods(config) == 105  # two years of weeks
    players = _first_evening(league, make_player)

    board = client.get(reverse("pages:league", args=[league.slug])).context["board"]
    assert (board.ranked_total, board.separate_total) == (9, 0)
    ratings = [row.rating for row in board.rows]
    assert [row.rank for row in board.rows] == [
        1 + sum(other > rating for other in ratings) for rating in ratings
    ]
    # Every one of them is provisional, and the table says so beside each name.
    assert [row.provisional for row in board.rows] == [True] * 9
    page = client.get(reverse("pages:league", args=[league.slug])).text
    assert page.count('class="badge badge--prov"') == 9
    embed = client.get(reverse("pages:embed_standings", args=[league.slug])).text
    assert "No ranked players yet" not in embed
    assert embed.count('class="badge badge--prov"') == 9
    assert {row.player_id for row in board.rows} == {p.pk for p in players}

    client.force_login(organiser)
    hub = client.get(reverse("workspace:hub", args=[league.slug]))
    note = hub.context["ranking_note"]
    assert note[0] == "9 of 9 rated players are ranked."
    assert note[1] == "9 ranked ratings are provisional (RD above 110), marked P."
    assert len(note) == 2
    assert f'href="{reverse("workspace:ranking", args=[league.slug])}"' in hub.text


def test_a_league_from_before_keeps_the_rd_rule_and_its_hub_says_why_nobody_is_ranked(
    client, league, organiser, make_player
):
    rating_services.create_config(league, period_length=7, period_anchor=ANCHOR)
    assert not RankingRules.objects.filter(league=league).exists()
    _first_evening(league, make_player)
    board = leaderboard(league)
    assert (board.ranked_total, board.separate_total) == (0, 9)

    client.force_login(organiser)
    response = client.get(reverse("workspace:hub", args=[league.slug]))
    assert response.context["ranking_note"] == [
        "0 of 9 rated players are ranked.",
        "Not ranked, 9 players: 9 have an RD above 110 (the rule \u201clargest RD\u201d: "
        "provisional ratings).",
    ]
    text = re.sub(r"\s+", " ", response.text)
    assert "0 of 9 rated players are ranked." in text
    assert f'<a href="{reverse("workspace:ranking", args=[league.slug])}">Change who' in text

    # Saving the rules without an RD limit ranks them all, and the hub follows.
    client.post(
        reverse("workspace:ranking", args=[league.slug]),
        {"min_games": "3", "active_periods": "", "max_rd": "", "rank_by": "rating"},
    )
    note = client.get(reverse("workspace:hub", args=[league.slug])).context["ranking_note"]
    # The top and the bottom of the ladder played two games, the others three or four.
    assert note[:2] == [
        "7 of 9 rated players are ranked.",
        "Not ranked, 2 players: 2 have fewer than 3 games (the rule \u201cminimum games\u201d).",
    ]
    assert note[2] == "7 ranked ratings are provisional (RD above 110), marked P."


def test_hub_counts_each_rule_a_player_fails(client, league, organiser, make_player):
    players = _first_evening_without_rules(league, make_player)
    RankingRules.objects.create(league=league, min_games=3, active_periods=None, max_rd=110)
    league_services.deactivate_player(league, players[4], reason="moved away", recorded_by=None)
    client.force_login(organiser)
    note = client.get(reverse("workspace:hub", args=[league.slug])).context["ranking_note"]
    assert note == [
        "0 of 9 rated players are ranked.",
        "Not ranked, 9 players: 9 have an RD above 110 (the rule \u201clargest RD\u201d: "
        "provisional ratings); 2 have fewer than 3 games (the rule \u201cminimum games\u201d); "
        "1 was withdrawn by the organisers.",
    ]


def _first_evening_without_rules(league: League, make_player) -> list:
    rating_services.create_config(league, period_length=7, period_anchor=ANCHOR)
    return _first_evening(league, make_player)


@pytest.mark.parametrize("path", ["workspace", "api", "set_config"])
def test_an_organisers_first_configuration_starts_the_new_league_rules(
    client, league, organiser, path
):
    client.force_login(organiser)
    if path == "workspace":
        page = client.get(reverse("workspace:config", args=[league.slug]))
        form = page.context["form"]
        data = {
            name: value
            for name, value in form.initial.items()
            if value is not None and name in form.fields
        }
        response = client.post(reverse("workspace:config", args=[league.slug]), data)
        assert response.status_code == 302, response.context["form"].errors
    elif path == "api":
        response = client.post(
            f"/api/leagues/{league.slug}/configs/", {}, content_type="application/json"
        )
        assert response.status_code == 201, response.content
    else:
        call_command("set_config", league.slug, "--tau", "0.4", stdout=io.StringIO())
    config = RatingConfig.objects.get(league=league)
    rules = RankingRules.objects.get(league=league)
    assert (rules.min_games, rules.max_rd) == (1, None)
    assert rules.active_periods == default_active_periods(config)


def test_later_versions_leave_the_rules_alone(league, organiser):
    rating_services.create_config(league, period_length=7)
    rating_services.create_config(league, tau=0.4, start_rules=True)
    assert not RankingRules.objects.filter(league=league).exists()
    RankingRules.objects.create(league=league, min_games=4, max_rd=settings.PROVISIONAL_RD)
    other = League.objects.create(name="Other", slug="other", start_date=dt.date(2024, 1, 1))
    RankingRules.objects.create(league=other, min_games=4, max_rd=90)
    rating_services.create_config(other, start_rules=True)
    kept = RankingRules.objects.get(league=other)
    assert (kept.min_games, kept.max_rd) == (4, 90)
