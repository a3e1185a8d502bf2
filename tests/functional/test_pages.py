"""Every page through the Django test client: content, filters, empty states, 404s, permissions.

Expected numbers are computed here from the stored projection rows and the formulas of
docs/glicko2.md (RD growth, 95% interval, win probability), never by the selectors under test.
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import io
import json
import math
import re
from unittest import mock
from zoneinfo import ZoneInfo

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext
from django.urls import reverse

from league import services as league_services
from league.csv_import import import_results
from league.event_log import MAX_PER_PAGE
from league.models import Event, League, Player
from ratings import services as rating_services
from ratings.models import (
    PlayerPeriod,
    Publication,
    RankingRules,
    RatingConfig,
    Replay,
    Standing,
)
from ratings.selectors.common import ReadClock
from ratings.selectors.standings import LeaderboardQuery, leaderboard
from tests.functional.conftest import rate

pytestmark = [pytest.mark.django_db, pytest.mark.usefixtures("everyone_ranked")]

SCALE = 173.7178


def league_url(league: League, **query: object) -> str:
    url = reverse("pages:league", kwargs={"league_slug": league.slug})
    if query:
        url += "?" + "&".join(f"{key}={value}" for key, value in query.items())
    return url


def player_url(player: Player) -> str:
    return reverse(
        "pages:player", kwargs={"league_slug": player.league.slug, "player_slug": player.slug}
    )


def weeks_since_anchor(league: League, anchor: dt.date) -> int:
    """The current weekly period, from today's date in the league's time zone."""
    today = dt.datetime.now(ZoneInfo(league.time_zone)).date()
    return (today - anchor).days // 7


def expected_rd_now(standing: Standing, current: int, max_rd: float = 350.0) -> float:
    """Glicko-2 step 6 applied for every idle period since the last one played."""
    idle = current - standing.last_period
    if idle == 0:
        return standing.rd
    phi = standing.rd / SCALE
    return min(SCALE * math.sqrt(phi**2 + idle * standing.volatility**2), max_rd)


def expected_win_probability(ra: float, rda: float, rb: float, rdb: float) -> float:
    phi = math.sqrt((rda / SCALE) ** 2 + (rdb / SCALE) ** 2)
    g = 1 / math.sqrt(1 + 3 * phi**2 / math.pi**2)
    return 1 / (1 + math.exp(-g * (ra - rb) / SCALE))


def names(board) -> list[str]:
    return [row.name for row in board.rows]


# --- Home ------------------------------------------------------------------------------


def test_home_lists_every_league_with_its_size(client, club, other_league):
    response = client.get(reverse("pages:home"))
    assert response.status_code == 200
    summaries = {item.slug: item for item in response.context["leagues"]}
    assert (summaries["riverside"].players, summaries["riverside"].matches) == (5, 7)
    assert (summaries["hilltop"].players, summaries["hilltop"].matches) == (0, 0)
    assert reverse("pages:league", kwargs={"league_slug": "hilltop"}) in response.text


def test_home_shows_the_top_of_the_busiest_leagues_standings(client, club, other_league):
    response = client.get(reverse("pages:home"))
    featured = response.context["featured"]
    # Only the league with matches is featured; its top rows are the leaderboard's.
    assert [summary.slug for summary, _ in featured] == ["riverside"]
    (_, board) = featured[0]
    standings = Standing.objects.filter(config=club["config"], games__gt=0).order_by("-rating")
    assert [row.name for row in board.rows] == [s.player.display_name for s in standings]
    top = standings[0].player
    assert reverse("pages:player", args=["riverside", top.slug]) in response.text


def test_home_without_leagues_says_so(client, db):
    response = client.get(reverse("pages:home"))
    assert response.status_code == 200
    assert "No leagues yet" in response.text


# --- Leaderboard -----------------------------------------------------------------------


def test_leaderboard_orders_by_rating_with_rd_grown_to_the_current_period(client, club):
    league, config = club["league"], club["config"]
    response = client.get(league_url(league))
    assert response.status_code == 200
    board = response.context["board"]
    standings = Standing.objects.filter(config=config, games__gt=0).order_by("-rating")
    assert names(board) == [s.player.display_name for s in standings]
    assert [row.rank for row in board.rows] == [1, 2, 3, 4]
    current = weeks_since_anchor(league, dt.date(2024, 1, 1))
    assert board.current_period.index == current
    for row, standing in zip(board.rows, standings, strict=True):
        rd = expected_rd_now(standing, current)
        assert row.rd == pytest.approx(rd, rel=1e-12)
        assert row.low == pytest.approx(standing.rating - 1.96 * rd)
        assert row.high == pytest.approx(standing.rating + 1.96 * rd)
        assert (row.games, row.wins, row.draws, row.losses) == (
            standing.games,
            standing.wins,
            standing.draws,
            standing.losses,
        )
    assert board.in_progress
    assert "In progress" in response.text
    assert "Eve Evans" not in response.text  # never played: unrated, not ranked


@pytest.mark.parametrize(("threshold", "marked"), [(110.0, 4), (1000.0, 0)])
def test_provisional_marker_follows_the_configured_threshold(
    client, club, settings, threshold, marked
):
    settings.PROVISIONAL_RD = threshold
    response = client.get(league_url(club["league"]))
    rows = response.context["board"].rows
    assert sum(row.provisional for row in rows) == marked
    assert response.text.count('class="badge badge--prov"') == marked


def test_min_games_filter_reranks_the_remaining_field(client, club):
    board = client.get(league_url(club["league"], min_games=3)).context["board"]
    assert names(board) == ["Ann Archer", "Bob Baker", "Cat Cooper"]
    assert [row.rank for row in board.rows] == [1, 2, 3]
    assert all(row.games >= 3 for row in board.rows)


def test_a_withdrawn_player_is_listed_separately_and_active_only_hides_them(client, club):
    # An activity window wide enough for the club's 2024 results, whatever today is (the
    # "played recently" filter uses the rules' window, else two years).
    RankingRules.objects.filter(league=club["league"]).update(active_periods=1000)
    Player.objects.filter(pk=club["bob"].pk).update(active=False)
    ranked = client.get(league_url(club["league"])).context["board"]
    assert "Bob Baker" not in names(ranked)
    assert [row.rank for row in ranked.rows] == [1, 2, 3]
    separate = client.get(league_url(club["league"], listed="separate")).context["board"]
    assert names(separate) == ["Bob Baker"]
    assert separate.rows[0].rank is None
    assert separate.rows[0].reasons == ("withdrawn by the organisers",)
    everyone = client.get(league_url(club["league"], everyone="on")).context["board"]
    assert "Bob Baker" in names(everyone)
    active = client.get(league_url(club["league"], everyone="on", active="on")).context["board"]
    assert "Bob Baker" not in names(active)
    assert [row.rank for row in active.rows] == [1, 2, 3]


def test_leaderboard_and_player_page_link_the_csv_downloads(client, club):
    slug = {"league_slug": club["league"].slug}
    board = client.get(league_url(club["league"])).text
    assert reverse("pages:export_standings", kwargs=slug) in board
    assert reverse("pages:export_history", kwargs=slug) in board
    assert reverse("pages:export_history", kwargs=slug) in client.get(player_url(club["ann"])).text


def test_search_narrows_rows_but_keeps_the_true_rank(client, club):
    board = client.get(league_url(club["league"], q="BAK")).context["board"]
    assert names(board) == ["Bob Baker"]
    assert board.rows[0].rank == 2
    assert board.total == 1


def test_search_treats_wildcards_literally(client, club):
    board = client.get(league_url(club["league"], q="%")).context["board"]
    assert board.rows == []
    response = client.get(league_url(club["league"], q="%"))
    assert "No players match these filters" in response.text


@pytest.mark.parametrize(
    ("sort", "key", "reverse_order"),
    [
        ("name", lambda row: row.name, False),
        ("-name", lambda row: row.name, True),
        ("-games", lambda row: row.games, True),
        ("rd", lambda row: row.rd, False),
        ("-low", lambda row: row.low, True),
        ("-rank", lambda row: row.rank, True),
    ],
)
def test_sorting_by_column(client, club, sort, key, reverse_order):
    response = client.get(league_url(club["league"], sort=sort))
    rows = response.context["board"].rows
    values = [key(row) for row in rows]
    assert values == sorted(values, reverse=reverse_order)
    assert 'aria-sort="' in response.text


def test_unknown_sort_is_reported_and_ignored(client, club):
    response = client.get(league_url(club["league"], sort="password"))
    assert response.status_code == 200
    assert [row.rank for row in response.context["board"].rows] == [1, 2, 3, 4]
    assert "(ignored)" in response.text


def test_the_leaderboard_query_refuses_an_unknown_sort_or_list():
    with pytest.raises(ValueError, match="Unknown sort 'rating; DROP TABLE'"):
        LeaderboardQuery(sort="rating; DROP TABLE")
    with pytest.raises(ValueError, match="Unknown list 'everyone'"):
        LeaderboardQuery(listed="everyone")


def test_pagination_is_done_in_the_query(club):
    league = club["league"]
    first = leaderboard(league, LeaderboardQuery(per_page=3))
    second = leaderboard(league, LeaderboardQuery(per_page=3, page=2))
    assert [row.rank for row in first.rows] == [1, 2, 3]
    assert [row.rank for row in second.rows] == [4]
    assert (first.total, first.num_pages) == (4, 2)
    beyond = leaderboard(league, LeaderboardQuery(per_page=3, page=9))
    assert beyond.page == 2
    assert [row.rank for row in beyond.rows] == [4]


def test_change_over_the_last_periods(club):
    league, config, ann = club["league"], club["config"], club["ann"]
    board = leaderboard(league, LeaderboardQuery(as_of_period=4, change_periods=2))
    ann_row = next(row for row in board.rows if row.name == "Ann Archer")
    after_2 = PlayerPeriod.objects.get(config=config, player=ann, period_index=2).rating
    after_4 = PlayerPeriod.objects.get(config=config, player=ann, period_index=4).rating
    assert ann_row.change == pytest.approx(after_4 - after_2)
    dan_row = next(row for row in board.rows if row.name == "Dan Dyer")
    assert dan_row.change == pytest.approx(dan_row.rating - config.initial_rating)
    # Nobody has played in the last four (current) periods; the board is not empty, so
    # the all() below is about every player.
    current = leaderboard(league).rows
    assert {row.name for row in current} == {"Ann Archer", "Bob Baker", "Cat Cooper", "Dan Dyer"}
    assert all(row.change is None for row in current)


def test_change_as_of_a_past_period_ignores_games_after_it(club):
    board = leaderboard(club["league"], LeaderboardQuery(as_of_period=3, change_periods=1))
    changes = {row.name: row.change for row in board.rows}
    # Cat played in periods 1 and 4: none in the window (period 3), whatever came later.
    assert changes["Cat Cooper"] is None
    assert changes["Ann Archer"] is not None


def test_standings_as_of_a_past_period_come_from_history_rows(client, club):
    league, config = club["league"], club["config"]
    response = client.get(league_url(league, period=1))
    board = response.context["board"]
    assert board.as_of.index == 1
    assert not board.in_progress
    assert "Standings after Period 1" in response.text
    rows = {row.name: row for row in board.rows}
    assert set(rows) == {"Ann Archer", "Bob Baker", "Cat Cooper"}
    for name, row in rows.items():
        last = (
            PlayerPeriod.objects.filter(
                config=config, player__display_name=name, period_index__lte=1
            )
            .order_by("-period_index")
            .first()
        )
        games = sum(
            PlayerPeriod.objects.filter(
                config=config, player__display_name=name, period_index__lte=1
            ).values_list("games", flat=True)
        )
        assert row.rating == last.rating
        assert row.games == games
        phi = last.rd / SCALE
        idle = 1 - last.period_index
        expected = last.rd if idle == 0 else SCALE * math.sqrt(phi**2 + idle * last.volatility**2)
        assert row.rd == pytest.approx(expected, rel=1e-12)
    ratings = [row.rating for row in board.rows]
    assert ratings == sorted(ratings, reverse=True)


def test_standings_as_of_a_date_use_the_period_containing_it(client, club):
    board = client.get(league_url(club["league"], date="2024-01-10")).context["board"]
    assert board.as_of.index == 1
    assert board.as_of.start == dt.date(2024, 1, 8)


def test_as_of_date_and_period_together_follow_one_stated_rule(client, club):
    # A date and a period that disagree: the period was silently ignored. Now the date wins,
    # the page says the period was not used, and the form keeps only the period shown, so the
    # next choice of a period is not overridden by a date still filled in.
    response = client.get(league_url(club["league"], date="2024-01-10", period="3"))
    assert response.context["board"].as_of.index == 1
    text = html.unescape(response.text)
    assert "As of period 3 was not used: the date 10 Jan 2024 (period 1) comes first" in text
    assert 'name="date" id="id_date" value=""' in response.text
    assert re.search(r'<option value="1" selected>', response.text)
    assert "a date comes first" in text  # the rule stated beside the inputs
    # The same period as the date's: no message.
    agreeing = client.get(league_url(club["league"], date="2024-01-10", period="1"))
    assert "was not used" not in html.unescape(agreeing.text)
    # The period alone is used.
    alone = client.get(league_url(club["league"], period="3"))
    assert alone.context["board"].as_of.index == 3


def test_a_date_before_the_first_period_is_reported(client, club):
    response = client.get(league_url(club["league"], date="2023-06-01"))
    assert response.status_code == 200
    assert "before the first rating period" in response.text
    assert response.context["board"].as_of is None


def test_league_without_configuration_shows_an_empty_state(client, league):
    response = client.get(league_url(league))
    assert response.status_code == 200
    assert "no rating configuration yet" in response.text
    assert response.context["board"].rows == []


def test_league_with_configuration_but_no_matches(client, league, make_player):
    make_player(league, "Solo Player")
    rate(league)
    response = client.get(league_url(league))
    assert response.status_code == 200
    assert "No rated players yet" in response.text


def test_unknown_league_is_404(client, db):
    assert client.get(league_url(League(slug="nowhere"))).status_code == 404
    for name in (
        "pages:matches",
        "pages:events",
        "pages:compare",
        "pages:progress",
        "workspace:config",
    ):
        url = reverse(name, kwargs={"league_slug": "nowhere"})
        assert client.get(url).status_code == 404, name


# --- One clock per request; the standings export ---------------------------------------


def statements_during(call) -> list[str]:
    with CaptureQueriesContext(connection) as captured:
        call()
    return [query["sql"] for query in captured.captured_queries]


def publication_reads(statements: list[str]) -> list[str]:
    return [sql for sql in statements if Publication._meta.db_table in sql]


def latest_match_reads(statements: list[str]) -> list[str]:
    """The query behind the current period: the league's latest live match."""
    prefix = f'SELECT "{Event._meta.db_table}"."played_at" AS "played_at" FROM'
    return [sql for sql in statements if sql.startswith(prefix)]


@pytest.mark.parametrize("page", ["league", "player"])
def test_a_page_reads_the_live_configuration_and_the_current_period_once(client, club, page):
    url = league_url(club["league"]) if page == "league" else player_url(club["ann"])
    statements = statements_during(lambda: client.get(url))
    # Once for the selectors, once for the replay progress banner (``league_progress``).
    assert len(publication_reads(statements)) <= 2, publication_reads(statements)
    assert len(latest_match_reads(statements)) == 1, latest_match_reads(statements)
    # The leaderboard reads the league's ranking rules once more than it used to.
    # The player page reads the players merged into this one once (their matches count
    # too), the league's seasons once (its season filter), every standing once (rank,
    # reasons and percentile under the league's rules: the rules, both lists with their
    # days and changes), the league's fitted draw model (its projection state, then the
    # cache) and the player's matches with sides (team results, partner and opponent
    # records: three more), and the player's upcoming fixtures.
    assert len(statements) <= {"league": 12, "player": 34}[page], statements


def test_a_leaderboard_given_a_clock_grows_rds_to_its_period_without_reading_the_time(club):
    league, config = club["league"], club["config"]
    current = weeks_since_anchor(league, dt.date(2024, 1, 1))
    later = ReadClock(config.pk, current + 10)
    boards = []
    statements = statements_during(
        lambda: boards.append(leaderboard(league, config=config, is_live=True, clock=later))
    )
    assert latest_match_reads(statements) == []
    assert publication_reads(statements) == []
    (board,) = boards
    assert board.current_period.index == current + 10
    assert board.config.is_live
    standings = {s.player.display_name: s for s in Standing.objects.filter(config=config)}
    for row in board.rows:
        expected = expected_rd_now(standings[row.name], current + 10)
        assert row.rd == pytest.approx(expected, rel=1e-12)


def test_a_clock_of_another_configuration_is_refused(club):
    league, v1 = club["league"], club["config"]
    v2 = rate(league, tau=1.2)
    with pytest.raises(ValueError, match="read clock"):
        leaderboard(league, config=v2, clock=ReadClock.of(v1))


def test_a_leaderboard_of_an_older_version_says_it_is_not_live(club):
    league, v1 = club["league"], club["config"]
    rate(league, tau=1.2)
    assert not leaderboard(league, config=v1).config.is_live
    assert leaderboard(league).config.is_live


def test_the_standings_export_ranks_once_and_equals_the_leaderboard_pages(client, league):
    pairs = MAX_PER_PAGE // 2 + 80
    lines = [
        f"2024-01-0{2 + i % 5},P{i:03d}a,P{(7 * i) % pairs:03d}b,{('1', '0.5', '0')[i % 3]}\n"
        for i in range(pairs)
    ] + [
        f"2024-01-1{i % 5},P{i:03d}a,P{(i + 1) % pairs:03d}a,{('0', '1', '0.5')[(i // 3) % 3]}\n"
        for i in range(pairs)
    ]
    data = ("date,player_a,player_b,score_a\n" + "".join(lines)).encode()
    assert import_results(league, io.BytesIO(data), create_players=True).ok
    rate(league, period_anchor=dt.date(2024, 1, 1), period_length=7)
    url = reverse("pages:export_standings", kwargs={"league_slug": league.slug})
    bodies = []
    statements = statements_during(
        lambda: bodies.append(b"".join(client.get(url).streaming_content).decode())
    )
    # Ranked once per list: the ranked players, then those listed separately.
    assert len([sql for sql in statements if "RANK() OVER" in sql]) == 2
    exported = list(csv.DictReader(io.StringIO(bodies[0])))
    first = leaderboard(league, LeaderboardQuery(per_page=MAX_PER_PAGE))
    pages = [first] + [
        leaderboard(league, LeaderboardQuery(per_page=MAX_PER_PAGE, page=number))
        for number in range(2, first.num_pages + 1)
    ]
    shown = [row for board in pages for row in board.rows]
    assert len(exported) == len(shown) == 2 * pairs > MAX_PER_PAGE
    assert 1 < len({row.rank for row in shown}) < len(shown)  # several ranks, with ties
    assert [
        (
            row["rank"], row["player"], row["rating"], row["rd"], row["interval_low"],
            row["interval_high"], row["volatility"], row["games"], row["wins"], row["draws"],
            row["losses"], row["last_played"], row["provisional"],
        )
        for row in exported
    ] == [
        (
            str(row.rank), row.name, repr(row.rating), repr(row.rd), repr(row.low),
            repr(row.high), repr(row.volatility), str(row.games), str(row.wins),
            str(row.draws), str(row.losses), row.last_played.isoformat(),
            "true" if row.provisional else "false",
        )
        for row in shown
    ]  # fmt: skip


# --- Replay progress -------------------------------------------------------------------


def test_running_replay_shows_a_polling_banner_over_the_previous_standings(client, club):
    league = club["league"]
    rating_services.request_full_replay(league)  # queued, not run
    response = client.get(league_url(league))
    assert "Standings are being recomputed" in response.text
    assert "these are the previous ones" in response.text
    assert names(response.context["board"]) == ["Ann Archer", "Bob Baker", "Dan Dyer", "Cat Cooper"]
    partial = client.get(reverse("pages:progress", kwargs={"league_slug": league.slug}))
    assert partial.status_code == 200
    assert 'hx-trigger="every 2s"' in partial.text
    assert "<html" not in partial.text


def test_finished_replay_stops_polling(client, club):
    partial = client.get(reverse("pages:progress", kwargs={"league_slug": club["league"].slug}))
    assert "hx-trigger" not in partial.text
    assert "Standings updated" in partial.text


def test_a_failed_replays_error_is_shown_to_the_leagues_organisers_only(
    client, club, organiser, other_organiser
):
    league = club["league"]
    latest = Replay.objects.filter(config__league=league).latest("pk")
    Replay.objects.filter(pk=latest.pk).update(
        status=Replay.Status.FAILED, error="OperationalError: disk full at /srv/db"
    )
    url = reverse("pages:progress", kwargs={"league_slug": league.slug})
    for query in ("?outcome=1", "?outcome=yes"):
        visitor = client.get(url + query)
        assert "The recomputation failed" in visitor.text
        assert "disk full" not in visitor.text
    client.force_login(other_organiser)
    assert "disk full" not in client.get(url + "?outcome=1").text
    client.force_login(organiser)
    assert "disk full" in client.get(url + "?outcome=1").text


# --- Player ----------------------------------------------------------------------------


def chart_data(response) -> dict:
    match = re.search(
        r'<script id="chart-data" type="application/json">(.*?)</script>', response.text, re.S
    )
    assert match, "the chart's json_script element is missing"
    return json.loads(match.group(1))


def test_player_page_charts_one_point_per_played_period_with_the_band(client, club):
    config, ann = club["config"], club["ann"]
    response = client.get(player_url(ann))
    assert response.status_code == 200
    rows = list(PlayerPeriod.objects.filter(config=config, player=ann).order_by("period_index"))
    data = chart_data(response)
    today = dt.date.today().isoformat()
    # One rating point per played period (at its last day), then today's (unchanged) rating.
    played = [point for point in data["rating"] if point[2] is not None]
    assert [point[2] for point in played] == [row.period_index for row in rows] == [0, 1, 2, 3, 4]
    assert [point[0] for point in played] == [row.period_end.isoformat() for row in rows]
    assert [point[1] for point in played] == [round(row.rating, 2) for row in rows]
    assert data["rating"][-1] == [today, round(rows[-1].rating, 2), None]
    # The band: the interval at each played period, then growing while idle, up to today.
    band = {point[0]: point for point in data["band"]}
    for row in rows:
        low, high = band[row.period_end.isoformat()][1:3]
        assert low == round(row.rating - 1.96 * row.rd, 2)
        assert high == round(row.rating + 1.96 * row.rd, 2)
    idle = [point for point in data["band"] if point[0] > rows[-1].period_end.isoformat()]
    assert idle[-1][0] == today
    widths = [point[2] - point[1] for point in idle]
    assert widths == sorted(widths)
    assert widths[-1] > 2 * 1.96 * rows[-1].rd
    summary = response.context["summary"]
    assert math.isclose(idle[-1][3], summary.rd, abs_tol=0.01)
    # Each chart is also a table for screen readers, and no script is inline.
    assert response.text.count("<details>") == 2
    inline_script = r"<script(?![^>]*\bsrc=)(?![^>]*application/json)[^>]*>"
    assert re.search(inline_script, response.text) is None


def test_the_interval_level_is_selectable_on_the_player_page(client, club):
    ann = club["ann"]
    summary = client.get(player_url(ann)).context["summary"]
    response = client.get(player_url(ann), {"level": "68"})
    assert response.context["level"].percent == pytest.approx(68.0, abs=1e-9)
    low, high = (
        round(summary.rating - 0.9945 * summary.rd),
        round(summary.rating + 0.9945 * summary.rd),
    )
    assert abs(int(response.context["interval"].split("\u2013")[0]) - low) <= 1
    assert abs(int(response.context["interval"].split("\u2013")[1]) - high) <= 1
    band = chart_data(response)["band"][-1]
    assert math.isclose(band[2] - band[1], 2 * 0.9945 * band[3], rel_tol=1e-3)
    bad = client.get(player_url(ann), {"level": "100"}, follow=True)
    assert bad.status_code == 200
    assert "Interval level" in bad.text
    assert bad.context["level"].percent == pytest.approx(95.0, abs=1e-3)


def test_player_results_show_each_period_rating_change(client, club):
    config, ann = club["config"], club["ann"]
    results = client.get(player_url(ann)).context["results"]
    assert [r.opponent for r in results.items] == [
        "Dan Dyer",
        "Bob Baker",
        "Bob Baker",
        "Cat Cooper",
        "Bob Baker",
    ]
    assert [r.outcome for r in results.items] == ["Win", "Win", "Win", "Draw", "Win"]
    for result in results.items:
        row = PlayerPeriod.objects.get(config=config, player=ann, period_index=result.period)
        assert result.rating_change == pytest.approx(row.rating - row.rating_before)
    # Bob's loss to Ann, recorded with Bob as player A, reads as a win from Ann's side.
    assert results.items[1].score == 1


def test_head_to_head_uses_both_current_ratings_and_rds(client, club):
    league, config, ann = club["league"], club["config"], club["ann"]
    h2h = {row.opponent: row for row in client.get(player_url(ann)).context["head_to_head"]}
    assert (h2h["Bob Baker"].wins, h2h["Bob Baker"].draws, h2h["Bob Baker"].losses) == (3, 0, 0)
    assert (h2h["Cat Cooper"].wins, h2h["Cat Cooper"].draws) == (0, 1)
    current = weeks_since_anchor(league, dt.date(2024, 1, 1))
    mine = Standing.objects.get(config=config, player=ann)
    theirs = Standing.objects.get(config=config, player=club["bob"])
    expected = expected_win_probability(
        mine.rating,
        expected_rd_now(mine, current),
        theirs.rating,
        expected_rd_now(theirs, current),
    )
    assert h2h["Bob Baker"].win_probability == pytest.approx(expected, rel=1e-9)


def ranks_url(player: Player) -> str:
    return reverse(
        "pages:player_ranks",
        kwargs={"league_slug": player.league.slug, "player_slug": player.slug},
    )


def _board_rank(league, player, period):
    board = leaderboard(league, LeaderboardQuery(as_of_period=period, per_page=MAX_PER_PAGE))
    return next((row.rank for row in board.rows if row.player_id == player.pk), None)


def test_rank_history_is_the_leaderboards_rank_at_each_period(client, club):
    league, bob = club["league"], club["bob"]
    page = client.get(player_url(bob))
    assert f'hx-get="{ranks_url(bob)}"' in page.text  # loaded after the page by htmx
    fragment = client.get(ranks_url(bob), headers={"HX-Request": "true"})
    assert fragment.status_code == 200
    assert "<html" not in fragment.text
    ranks = fragment.context["ranks"]
    now = ReadClock.of(club["config"]).period
    assert [point.period for point in ranks] == [0, 1, 2, 3, 4, now]
    for point in ranks:
        assert point.rank == _board_rank(league, bob, point.period), point


def test_rank_history_follows_the_leagues_rules(client, club):
    league, bob = club["league"], club["bob"]
    # At least three games to be ranked: Bob has none in period 0 yet.
    RankingRules.objects.filter(league=league).update(min_games=3)
    ranks = client.get(ranks_url(bob)).context["ranks"]
    games = 0
    for point in ranks:
        games = sum(
            PlayerPeriod.objects.filter(
                config=club["config"], player=bob, period_index__lte=point.period
            ).values_list("games", flat=True)
        )
        assert (point.rank is None) == (games < 3), point
        assert point.rank == _board_rank(league, bob, point.period)
    assert games >= 3


def test_rank_history_without_javascript_is_a_page_of_its_own(client, club):
    response = client.get(ranks_url(club["dan"]))
    assert response.status_code == 200
    assert "<html" in response.text
    # Period 4: Ann (beat Dan) and Bob (beat Cat) finish above Dan, Cat below him.
    assert next((p.period, p.rank, p.players) for p in response.context["ranks"]) == (4, 3, 4)
    never = client.get(ranks_url(club["eve"]))
    assert "No ranked periods yet" in never.text
    missing = reverse(
        "pages:player_ranks", kwargs={"league_slug": club["league"].slug, "player_slug": "x"}
    )
    assert client.get(missing).status_code == 404


def test_player_with_one_game(client, club):
    response = client.get(player_url(club["dan"]))
    assert response.status_code == 200
    assert [point[2] for point in chart_data(response)["rating"]] == [4, None]
    assert len(response.context["results"].items) == 1
    assert response.context["summary"].games == 1


def test_player_who_never_played(client, club):
    response = client.get(player_url(club["eve"]))
    assert response.status_code == 200
    assert "No rated games yet" in response.text
    assert "No results recorded yet" in response.text
    assert response.context["summary"].rank is None


def test_player_page_of_a_league_without_configuration(client, league, make_player):
    player = make_player(league, "Early Bird")
    response = client.get(player_url(player))
    assert response.status_code == 200
    assert "no rating configuration yet" in response.text


def test_unknown_player_is_404(client, club, other_league, make_player):
    league = club["league"]
    missing = reverse("pages:player", kwargs={"league_slug": league.slug, "player_slug": "nobody"})
    assert client.get(missing).status_code == 404
    stranger = make_player(other_league, "Stranger")
    wrong_league = reverse(
        "pages:player", kwargs={"league_slug": league.slug, "player_slug": stranger.slug}
    )
    assert client.get(wrong_league).status_code == 404


# --- Matches and events ----------------------------------------------------------------


def test_voided_match_is_marked_in_the_match_list_and_the_event_log(client, club):
    league = club["league"]
    first = league.events.matches().order_by("seq").first()
    void = league_services.void_match(league, first, reason="Wrong players entered")
    rate(league)
    matches = client.get(reverse("pages:matches", kwargs={"league_slug": league.slug}))
    assert matches.status_code == 200
    voided = [m for m in matches.context["matches"].items if m.voided_by]
    assert [(m.seq, m.voided_by) for m in voided] == [(first.seq, void.seq)]
    assert "Voided" in matches.text
    events = client.get(reverse("pages:events", kwargs={"league_slug": league.slug}))
    entries = {e.seq: e for e in events.context["events"].items}
    assert entries[void.seq].kind == "match_voided"
    assert f"Match #{first.seq}" in entries[void.seq].summary
    assert entries[void.seq].reason == "Wrong players entered"
    assert entries[first.seq].voided_by == void.seq
    assert "event--voided" in events.text
    # The voided game no longer counts for Ann.
    ann = client.get(player_url(club["ann"])).context["summary"]
    assert ann.games == 4


def test_matches_and_events_empty_states(client, league):
    for name, text in (("matches", "No matches recorded yet"), ("events", "No events recorded")):
        response = client.get(reverse(f"pages:{name}", kwargs={"league_slug": league.slug}))
        assert response.status_code == 200
        assert text in response.text


# --- Compare versions ------------------------------------------------------------------


def test_compare_two_versions_side_by_side(client, club):
    league, v1 = club["league"], club["config"]
    v2 = rate(league, tau=1.2, initial_rd=200.0, max_rd=350.0)
    url = reverse("pages:compare", kwargs={"league_slug": league.slug})
    response = client.get(url, {"a": v1.version, "b": v2.version})
    assert response.status_code == 200
    rows = {row.name: row for row in response.context["comparison"].items}
    for name, row in rows.items():
        a = Standing.objects.get(config=v1, player__display_name=name)
        b = Standing.objects.get(config=v2, player__display_name=name)
        assert row.rating_a == a.rating
        assert row.rating_b == b.rating
        assert row.rating_change == pytest.approx(b.rating - a.rating)
        assert row.rank_a == 1 + Standing.objects.filter(config=v1, rating__gt=a.rating).count()
        assert row.rank_b == 1 + Standing.objects.filter(config=v2, rating__gt=b.rating).count()
    # Both versions, each cell captioned for the phone's card layout.
    assert response.text.count('data-label="Periods">7 days from 1 Jan 2024</td>') == 2
    # Defaults: B is the live version, A the one before it.
    default = client.get(url)
    assert (default.context["a"], default.context["b"]) == (1, 2)


def test_compare_waits_for_a_version_still_being_computed(client, club):
    league = club["league"]
    with mock.patch.object(rating_services, "send_replay"):  # no worker picks it up
        rating_services.create_config(league, tau=0.9)
    url = reverse("pages:compare", kwargs={"league_slug": league.slug})
    response = client.get(url, {"a": 1, "b": 2})
    assert response.status_code == 200
    assert response.context["comparison"] is None
    assert "v2 are still being computed" in response.text


def test_first_standings_being_computed(client, league, make_player, record):
    player_a, player_b = make_player(league, "First One"), make_player(league, "Second One")
    with mock.patch.object(rating_services, "send_replay"):
        record(league, [(player_a, player_b, "1", dt.date(2024, 1, 3))])
        rating_services.create_config(league)
    response = client.get(league_url(league))
    assert "The first standings are being computed" in response.text
    assert "Standings are being recomputed" in response.text


def test_compare_unknown_version_is_404(client, club):
    url = reverse("pages:compare", kwargs={"league_slug": club["league"].slug})
    assert client.get(url, {"a": 99}).status_code == 404
    assert client.get(url, {"a": "x"}).status_code == 404


def test_compare_without_configuration(client, league):
    response = client.get(reverse("pages:compare", kwargs={"league_slug": league.slug}))
    assert response.status_code == 200
    assert "no rating configuration yet" in response.text


# --- Configuration page ----------------------------------------------------------------


def config_url(league: League) -> str:
    return reverse("workspace:config", kwargs={"league_slug": league.slug})


def valid_post(**changes: object) -> dict[str, object]:
    data = {
        "tau": "0.7",
        "initial_rating": "1500",
        "initial_rd": "300",
        "initial_volatility": "0.06",
        "period_unit": "days",
        "period_length": "14",
        "period_anchor": "2024-01-01",
        "max_rd": "350",
        "volatility_ceiling": "0.1",
        "rating_floor": "",
        "advantage": "0",
        "margin_scale": "",
        "note": "Fortnightly periods",
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("who", "status"),
    [("anonymous", 302), ("organiser", 200), ("other_organiser", 403), ("superuser", 200)],
)
def test_config_page_permissions(client, club, request, who, status):
    if who != "anonymous":
        client.force_login(request.getfixturevalue(who))
    response = client.get(config_url(club["league"]))
    assert response.status_code == status
    if status == 302:
        assert response["Location"].startswith(reverse("accounts:sign_in"))
    if status == 200:
        assert "Live parameters" in response.text
    before = RatingConfig.objects.count()
    post = client.post(config_url(club["league"]), valid_post())
    assert post.status_code == (302 if status == 200 else status)
    assert RatingConfig.objects.count() == before + (1 if status == 200 else 0)


def test_valid_post_creates_a_new_version_and_starts_a_replay(client, club, organiser):
    league = club["league"]
    client.force_login(organiser)
    response = client.post(config_url(league), valid_post(), follow=True)
    assert response.status_code == 200
    newest = RatingConfig.objects.filter(league=league).latest("version")
    assert newest.version == 2
    assert (newest.tau, newest.period_length, newest.max_rd) == (0.7, 14, 350.0)
    assert newest.created_by == organiser
    assert newest.note == "Fortnightly periods"
    assert Replay.objects.filter(config=newest, kind="full").exists()
    assert "Version 2 saved" in response.text


@pytest.mark.parametrize(
    ("changes", "field", "message"),
    [
        ({"tau": "0"}, "tau", "τ must be greater than 0."),
        ({"tau": "abc"}, "tau", "τ must be a number."),
        ({"initial_rd": "-5"}, "initial_rd", "The initial RD must be greater than 0."),
        ({"initial_volatility": "0"}, "initial_volatility", "must be greater than 0"),
        ({"period_length": "0"}, "period_length", "The period length must be at least 1."),
        ({"period_anchor": "2024-02-01"}, "period_anchor", "on or before the league's first day"),
        ({"max_rd": "100"}, "max_rd", "The RD ceiling must be at least 350."),
        ({"max_rd": "350", "initial_rd": "400"}, "max_rd", "at least the initial RD"),
        ({"volatility_ceiling": ""}, "volatility_ceiling", "The volatility ceiling is required."),
        ({"tau": "10"}, "tau", "τ must be at most 2."),
        ({"advantage": "500"}, "advantage", "The advantage must be at most 200."),
        ({"volatility_ceiling": "0.01"}, "volatility_ceiling", "not be below"),
        ({"rating_floor": "1600"}, "rating_floor", "not be above the initial rating"),
        ({"period_unit": "years"}, "period_unit", "Select a valid choice"),
    ],
)
def test_invalid_post_shows_the_message_and_creates_nothing(
    client, club, organiser, changes, field, message
):
    client.force_login(organiser)
    before = (RatingConfig.objects.count(), Replay.objects.count())
    response = client.post(config_url(club["league"]), valid_post(**changes))
    assert response.status_code == 200  # the form again, with its messages
    assert any(message in error for error in response.context["form"].errors[field])
    assert message.replace("'", "&#x27;") in response.text
    assert (RatingConfig.objects.count(), Replay.objects.count()) == before


def test_config_post_requires_the_csrf_token(club, organiser):
    client = Client(enforce_csrf_checks=True)
    client.force_login(organiser)
    before = RatingConfig.objects.count()
    response = client.post(config_url(club["league"]), valid_post())
    assert response.status_code == 403
    assert RatingConfig.objects.count() == before


def test_config_page_for_a_league_without_configuration(client, league, organiser):
    client.force_login(organiser)
    response = client.get(config_url(league))
    assert response.status_code == 200
    assert "No configuration yet" in response.text
    assert response.context["form"].initial["period_anchor"] == league.start_date
    # A date input only accepts ISO dates, whatever the site's locale.
    assert 'type="date" name="period_anchor" value="2024-01-01"' in response.text
    created = client.post(config_url(league), valid_post())
    assert created.status_code == 302
    assert RatingConfig.objects.get(league=league).version == 1


def test_config_page_flags_a_version_stored_before_the_bounds_and_says_why(
    client, league, organiser
):
    """A version saved when τ could be 10 and the volatility ceiling off stays as stored (it
    is immutable); the page names what a new version must change, and each field says why
    its bounds are where they are."""
    from ratings.services import default_params

    RatingConfig.objects.create(
        league=league,
        version=1,
        **{**default_params(league), "tau": 10.0, "volatility_ceiling": None},
    )
    client.force_login(organiser)
    page = client.get(config_url(league)).text
    assert 'id="outside-bounds"' in page
    assert "System constant τ: τ must be at most 2." in page
    assert "Volatility ceiling: The volatility ceiling is required." in page
    assert 'id="id_volatility_ceiling_why"' in page
    assert "Why these bounds:" in page
    refused = client.post(config_url(league), valid_post(based_on="1", volatility_ceiling=""))
    assert refused.status_code == 200
    assert RatingConfig.objects.filter(league=league).count() == 1
    fixed = client.post(config_url(league), valid_post(based_on="1"))
    assert fixed.status_code == 302
    assert 'id="outside-bounds"' not in client.get(config_url(league)).text


@pytest.mark.parametrize(
    ("value", "places", "html"),
    [
        (1.44, 1, '<span class="up">+1.4</span>'),
        (-0.04, 1, "0.0"),  # rounds to zero: no sign, no colour
        (0.04, 1, "0.0"),
        (-12.0, 0, '<span class="down">-12</span>'),
        (None, 1, '<span class="muted">\u2013</span>'),
    ],
)
def test_signed_change_filter_colours_only_visible_changes(value, places, html):
    from web.templatetags.league_format import signed_change

    assert str(signed_change(value, places)) == html


def test_the_event_log_names_the_recorder_only_to_the_leagues_organisers(
    client, club, organiser, other_organiser
):
    league = club["league"]
    first = league.events.matches().order_by("seq").first()
    league_services.void_match(league, first, reason="Typo", recorded_by=organiser)
    url = reverse("pages:events", kwargs={"league_slug": league.slug})
    assert f"by {organiser.username}" not in client.get(url).text
    client.force_login(other_organiser)
    assert f"by {organiser.username}" not in client.get(url).text
    client.force_login(organiser)
    assert f"by {organiser.username}" in client.get(url).text


def test_the_config_form_starts_from_the_newest_version_and_refuses_a_stale_save(
    client, club, organiser
):
    """Issue 28: after saving τ 0.7 the form kept the live τ (its replay still running), and
    the next save from it silently undid the change."""
    league = club["league"]
    client.force_login(organiser)
    first = client.get(config_url(league)).context["form"]
    assert first.initial["based_on"] == 1
    assert client.post(config_url(league), valid_post(based_on="1")).status_code == 302
    saved = RatingConfig.objects.get(league=league, version=2)
    assert saved.tau == 0.7
    # The version-2 replay has not run (no commit in this test): v1 is still live.
    form = client.get(config_url(league)).context["form"]
    assert (form.initial["tau"], form.initial["period_length"]) == (0.7, 14)
    assert form.initial["based_on"] == 2
    # A form still showing version 1 (another tab) changes only the period length...
    stale = client.post(config_url(league), valid_post(tau="0.5", period_length="7", based_on="1"))
    # ...and is refused: nothing stored, the newest values shown with the reason.
    assert stale.status_code == 200
    assert RatingConfig.objects.filter(league=league).count() == 2
    assert "Version 2 was saved after this form was opened" in stale.text
    shown = stale.context["form"]
    assert shown.data["tau"] == 0.7
    assert shown.data["based_on"] == 2
    assert client.post(config_url(league), valid_post(based_on="2")).status_code == 302
    assert RatingConfig.objects.filter(league=league).count() == 3


def _options(html: str, name: str) -> list[str]:
    """The option values of the select called ``name``."""
    start = html.index(f'<select name="{name}"')
    block = html[start : html.index("</select>", start)]
    return re.findall(r'<option value="(\d+)"', block)


def test_compare_never_offers_a_version_against_itself(client, club):
    league = club["league"]
    url = reverse("pages:compare", kwargs={"league_slug": league.slug})
    # One version (the live one): nothing to compare it with, and no form offering it twice.
    alone = client.get(url)
    assert alone.context["a"] is None
    assert '<select name="a"' not in alone.text
    assert "only one configuration version" in alone.text
    assert 'id="params"' in alone.text  # its parameters are still shown
    rate(league, tau=1.2)
    # Asked for the same version twice: refused with a message, and A's list leaves out B's.
    same = client.get(url, {"a": 2, "b": 2})
    assert same.status_code == 200
    assert same.context["comparison"] is None
    assert "Version A and Version B are the same" in same.text
    assert "2" not in _options(same.text, "a")
    pair = client.get(url)
    assert (pair.context["a"], pair.context["b"]) == (1, 2)
    assert _options(pair.text, "a") == ["1"]


def test_the_played_recently_filter_is_offered_only_where_it_changes_something(
    client, club, settings
):
    settings.PAGE_CACHE = False  # the rules change below without a page's state changing
    league = club["league"]
    # The club's results are of early 2024, more than two years before today (the tests
    # run from 2026 on). Rules without an activity window: "Played in the last 2 years"
    # filtered nobody out, whatever its label said; it now uses the default two years.
    page = client.get(league_url(league))
    assert "Played in the last 105 weeks only" in page.text
    assert page.context["board"].total == 4
    assert client.get(league_url(league, active="on")).context["board"].total == 0
    # Rules with a window: every ranked player played within it, so the filter is offered
    # on the separately listed players (where it removes some) and not on the ranked list.
    RankingRules.objects.filter(league=league).update(active_periods=5)
    ranked = client.get(league_url(league))
    assert 'id="id_active"' not in ranked.text
    separate = client.get(league_url(league, listed="separate"))
    assert "Played in the last 5 weeks only" in separate.text
    assert separate.context["board"].total == 4
    assert (
        client.get(league_url(league, listed="separate", active="on")).context["board"].total == 0
    )


def test_player_results_pages_never_split_a_rating_period(client, club, record, monkeypatch):
    # Page 1 showed a period's rating change over part of its games, the rest on page 2.
    from web.public import pages

    league, ann = club["league"], club["ann"]
    third_week = dt.date(2024, 1, 23)
    record(league, [(ann, club["cat"], "1", third_week), (club["dan"], ann, "1", third_week)])
    rate(league)
    monkeypatch.setattr(pages, "PLAYER_RESULTS_PER_PAGE", 3)
    seen: dict[int, set[int]] = {}
    shown = []
    first = client.get(player_url(ann))
    num_pages = first.context["results"].num_pages
    for number in range(1, num_pages + 1):
        results = client.get(player_url(ann), {"page": number}).context["results"]
        assert results.page == number
        for item in results.items:
            seen.setdefault(item.period, set()).add(number)
            shown.append(item.seq)
    assert all(len(on) == 1 for on in seen.values()), seen
    # Every result once, newest first, over as many pages as the pager offers.
    assert len(shown) == len(set(shown)) == 7
    assert num_pages == 3
