"""Who is ranked, past standings without surprises, the explanation page and head to head,
through the Django client (the browser tests check the same pages in Chromium)."""

from __future__ import annotations

import datetime as dt
import math
import re

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
    assert f'id="id_{field}_error"' in response.text
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
    # The calibration table: a row per tenth that has games, from the even chance up
    # (50\u201360 %, ..., 90\u2013100 %).
    favourites = response.text.split('id="calibration"', 1)[1].split("</table>", 1)[0]
    bands = re.findall(r"<tr><td>(\d+)\u2013(\d+) %</td>", favourites)
    assert len(bands) == len(response.context["model"].bands) > 0
    for low, high in bands:
        assert low in {"50", "60", "70", "80", "90"}
        assert int(high) == int(low) + 10
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


# --- the explanation with a home advantage and margins ---------------------------------------

_HOME_AWAY = [
    # (home, away, (home goals, away goals), day, neutral)
    (0, 1, (3, 0), 1, False),
    (1, 2, (1, 1), 2, False),
    (2, 0, (2, 1), 3, True),
    (0, 2, (0, 1), 4, False),
    (3, 0, (4, 2), 5, False),
    (1, 3, (0, 2), 6, True),
    (3, 1, (1, 0), 9, False),
    (2, 3, (5, 0), 10, False),
]


@pytest.fixture
def home_away(organiser, make_player, django_capture_on_commit_callbacks):
    """A league whose live configuration has advantage 100 and margin scale 1, with home,
    away and neutral games of various margins (and one draw) over two weekly periods."""
    from league import services as league_services
    from league.models import League
    from ratings import services

    start = dt.date(2024, 1, 1)
    league = League.objects.create(
        name="Home and away", slug="home-away", time_zone="Europe/London", start_date=start
    )
    league.organisers.add(organiser)
    teams = [make_player(league, name) for name in ("Spain", "Italy", "Ghana", "Chile")]
    with django_capture_on_commit_callbacks(execute=True):
        config = services.create_config(
            league,
            tau=0.6,
            period_length=7,
            advantage=100.0,
            margin_scale=1.0,
            # The explanation adds up with the period formula (period updates, stated).
            update_mode="period",
        )
        for home, away, (h, a), day, neutral in _HOME_AWAY:
            league_services.record_match(
                league,
                player_a=teams[home],
                player_b=teams[away],
                score_a="1" if h > a else "0.5" if h == a else "0",
                played_at=start + dt.timedelta(days=day),
                points=f"{h}-{a}",
                neutral=neutral,
            )
    return {"league": league, "config": config, "teams": teams}


def _engine_expected(mu: float, mu_j: float, phi_j: float, shift: float) -> float:
    """Glicko-2's E with the home shift (ADVANTAGE.md), written out here from the formulas."""
    g_j = 1.0 / math.sqrt(1.0 + 3.0 * phi_j * phi_j / math.pi**2)
    return 1.0 / (1.0 + math.exp(-g_j * (mu - mu_j + shift)))


def test_the_explanation_adds_up_with_a_home_advantage_and_margins(client, home_away):
    league, config, teams = home_away["league"], home_away["config"], home_away["teams"]
    names = {team.display_name: team for team in teams}
    scale = 173.7178
    explained_games = advantaged = shaped = 0
    for team in teams:
        rows = PlayerPeriod.objects.filter(config=config, player=team).order_by("period_index")
        assert rows.exists()
        for row in rows:
            url = reverse("pages:player_period", args=[league.slug, team.slug, row.period_index])
            response = client.get(url)
            explanation = response.context["e"]
            # The effects add up to the stored change (no rating floor in this league).
            assert math.isclose(
                explanation.effects_total, row.rating - row.rating_before, abs_tol=1e-9
            )
            for game in explanation.games:
                explained_games += 1
                opponent = names[game.opponent]
                home, _away, (h, a), _, neutral = next(
                    match
                    for match in _HOME_AWAY
                    if {teams[match[0]].pk, teams[match[1]].pk} == {team.pk, opponent.pk}
                    and league.start_date + dt.timedelta(days=match[3]) == game.played_on
                )
                at_home = teams[home].pk == team.pk
                shift = 0.0 if neutral else (100.0 if at_home else -100.0) / scale
                want = _engine_expected(
                    (row.rating_before - 1500.0) / scale,
                    (game.opponent_rating - 1500.0) / scale,
                    game.opponent_rd / scale,
                    shift,
                )
                assert math.isclose(game.expected, want, rel_tol=0, abs_tol=1e-12)
                margin = (h - a) if at_home else (a - h)
                plain = 1.0 if margin > 0 else 0.5 if margin == 0 else 0.0
                won = 0.5 + 0.5 * math.tanh(abs(margin) / 1.0)
                score = won if margin > 0 else 0.5 if margin == 0 else 1.0 - won
                assert math.isclose(game.score, score, rel_tol=0, abs_tol=1e-12)
                page = response.text
                if neutral:
                    assert game.advantage == 0.0
                else:
                    advantaged += 1
                    assert game.advantage == 100.0
                    assert game.home == teams[home].display_name
                    assert (
                        f"Home advantage: +100 points for {teams[home].display_name} in this game"
                        in page
                    )
                if margin != 0:
                    shaped += 1
                    verb = "won" if margin > 0 else "lost"
                    assert f"{verb} {game.points}: counts as {score:.3f} with margins on" in page
                    assert score != plain
    # Every recorded game is explained from both sides; most had a home side and a margin.
    assert explained_games == 2 * len(_HOME_AWAY)
    assert advantaged == 2 * sum(not match[4] for match in _HOME_AWAY)
    assert shaped == 2 * sum(g[0] != g[1] for _, _, g, _, _ in _HOME_AWAY)


def test_the_spain_home_win_reads_in_plain_words(client, home_away):
    league, teams = home_away["league"], home_away["teams"]
    url = reverse("pages:player_period", args=[league.slug, teams[0].slug, 0])
    page = client.get(url).text
    assert "Home advantage: +100 points for Spain in this game" in page
    assert "won 3-0: counts as 0.998 with margins on" in page
    assert "counts as 100 points stronger" in page
    assert "Margins on:" in page


def test_without_advantage_or_margins_the_page_has_no_such_notes(client, club):
    league, ann, config = club["league"], club["ann"], club["config"]
    assert config.advantage == 0.0
    assert config.margin_scale is None
    row = PlayerPeriod.objects.filter(config=config, player=ann).first()
    url = reverse("pages:player_period", args=[league.slug, ann.slug, row.period_index])
    page = client.get(url).text
    assert "Home advantage" not in page
    assert "margins on" not in page.lower()


@pytest.fixture
def mixed(league, make_player, django_capture_on_commit_callbacks):
    """A league of any sides whose weeks mix one-vs-one games, doubles and a game of three
    sides, rated with weekly periods."""
    from league import services as league_services
    from league.models import MatchFormat
    from tests.functional.conftest import rate

    league.match_format = MatchFormat.ANY
    league.save()
    ann, bob, cat, dan, eve = (make_player(league, n) for n in ("Ann", "Bob", "Cat", "Dan", "Eve"))
    first = dt.date(2024, 1, 2)
    week = dt.timedelta(days=7)
    for sides, score, places, day in [
        ([[ann], [bob]], "1", None, first),
        ([[ann, bob], [cat, dan]], "0", None, first),
        ([[ann, cat], [bob, eve]], "0.5", None, first + week),
        ([[ann], [cat, dan], [eve]], None, [2, 1, 3], first + week),
        ([[bob], [ann]], "1", None, first + 2 * week),
    ]:
        league_services.record_match(
            league, sides=sides, score_a=score, places=places, played_at=day, points=""
        )
    with django_capture_on_commit_callbacks(execute=True):
        config = rate(
            league, period_anchor=dt.date(2024, 1, 1), period_length=7, update_mode="period"
        )
    return {"league": league, "config": config, "ann": ann}


def test_the_explanation_of_a_period_with_team_games_adds_up_and_names_the_sides(client, mixed):
    league, config, ann = mixed["league"], mixed["config"], mixed["ann"]
    rows = list(PlayerPeriod.objects.filter(config=config, player=ann).order_by("period_index"))
    assert len(rows) == 3
    opponents: list[str] = []
    for row in rows:
        url = reverse("pages:player_period", args=[league.slug, ann.slug, row.period_index])
        response = client.get(url)
        explanation = response.context["e"]
        # Every game of the period counts, whatever its sides: the effects add up.
        assert math.isclose(explanation.effects_total, row.rating - row.rating_before, abs_tol=1e-9)
        opponents += [f"{game.opponent} (with {game.partners})" for game in explanation.games]
    # Week 1: Bob alone, then Cat & Dan as one opponent with Bob; week 2: Bob & Eve with
    # Cat, then each opposing side of the three-side game; week 3: Bob.
    assert opponents == [
        "Bob (with )",
        "Cat & Dan (with Bob)",
        "Bob & Eve (with Cat)",
        "Cat & Dan (with )",
        "Eve (with )",
        "Bob (with )",
    ]
    page = client.get(reverse("pages:player", args=[league.slug, ann.slug])).text
    team_period = reverse("pages:player_period", args=[league.slug, ann.slug, rows[1].period_index])
    assert team_period in page.split('id="team-results"', 1)[1]
