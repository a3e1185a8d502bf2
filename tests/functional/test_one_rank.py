"""One rank everywhere: for every team of the demo league, the rank the leaderboard shows is
the rank of the player page, its rank history, the head-to-head page, the version comparison,
the embeds (standings and season), the home page, the CSV export, an open season's table
(page, CSV and API) and every API field that carries one (the standings and the win
probability, at the default level and at another).

The demo is loaded as ``load_demo`` loads it (its replay runs in this process), from July
2025 on to keep it quick (about 35 s): over 200 teams, a score of them ranked and the others
listed separately (provisional: RD above the threshold) under the demo's rules.
"""

from __future__ import annotations

import csv
import io
from collections import defaultdict

import pytest
from django.core.management import call_command
from django.urls import reverse

from league import seasons
from league.models import League, Player
from ratings.models import Publication, RankingRules, Standing
from ratings.selectors.standings import leaderboard
from tests.functional.conftest import rank_everyone, rate

pytestmark = pytest.mark.django_db

#: The leaderboard's reference rank of a player it lists separately.
UNRANKED = None


@pytest.fixture
def demo(settings, tmp_path) -> League:
    settings.VAR_DIR = tmp_path
    call_command("load_demo", "--since", "2025-07-01", stdout=io.StringIO())
    league = League.objects.get(slug="international-football")
    # A season still running, so that its table's ranks at the end are today's.
    seasons.create_season(league, name="2026", start_date="2026-01-01", end_date="2026-12-31")
    return league


def _leaderboard_ranks(client, league: League) -> dict[int, int | None]:
    """Every rated player's rank as the leaderboard's pages show it (both lists)."""
    ranks: dict[int, int | None] = {}
    for listed in ("ranked", "separate"):
        page = 1
        while True:
            response = client.get(
                reverse("pages:league", args=[league.slug]), {"listed": listed, "page": page}
            )
            assert response.status_code == 200
            board = response.context["board"]
            shown = response.context["rows"]
            for row, cells in zip(board.rows, shown, strict=True):
                assert row.player_id not in ranks, row
                ranks[row.player_id] = row.rank
                # The cell the template prints is that rank (a dash when not ranked).
                assert cells["rank"] == ("\u2013" if row.rank is None else str(row.rank))
            if page >= board.num_pages:
                break
            page += 1
    return ranks


def test_every_player_has_the_same_rank_on_every_page_embed_export_and_api_field(client, demo):
    league = demo
    reference = _leaderboard_ranks(client, league)
    players = {p.pk: p for p in Player.objects.filter(league=league)}
    rated = set(
        Standing.objects.filter(config__league=league, games__gt=0).values_list(
            "player_id", flat=True
        )
    )
    # The reference covers every rated team, and the demo has both kinds.
    assert len(reference) > 100
    assert set(reference) == rated
    ranked = sorted(pid for pid, rank in reference.items() if rank is not None)
    unranked = sorted(pid for pid, rank in reference.items() if rank is None)
    assert len(ranked) >= 10
    assert len(unranked) >= 1
    assert sorted(reference[pid] for pid in ranked)[:3] == [1, 2, 3]

    seen: dict[str, dict[int, int | None]] = defaultdict(dict)
    by_slug = {player.slug: pid for pid, player in players.items()}

    # The player page (its card and the summary behind it) and its rank history's today.
    for pid in reference:
        player = players[pid]
        response = client.get(reverse("pages:player", args=[league.slug, player.slug]))
        assert response.status_code == 200
        seen["player card"][pid] = response.context["standing"].rank
        seen["player summary"][pid] = response.context["summary"].rank
        card = response.text.split('id="card-rank">', 1)[1].split("</dd>", 1)[0]
        if reference[pid] is None:
            assert "not ranked" in card
        else:
            assert card == str(reference[pid])
        history = client.get(reverse("pages:player_ranks", args=[league.slug, player.slug]))
        seen["rank history, today"][pid] = history.context["ranks"][-1].rank

    # The embed (the top of the ranked list) and the home page's top ten.
    embed = client.get(reverse("pages:embed_standings", args=[league.slug]), {"rows": 50})
    for cells in embed.context["rows"]:
        slug = cells["url"].rstrip("/").rsplit("/", 1)[1]
        seen["embed"][by_slug[slug]] = int(cells["rank"])
    assert len(seen["embed"]) == min(50, len(ranked))
    home = client.get(reverse("pages:home"))
    featured = dict(home.context["featured"])
    for summary, board in featured.items():
        if summary.slug == league.slug:
            for row in board.rows:
                seen["home page"][row.player_id] = row.rank
    assert len(seen["home page"]) == 10

    # The CSV export: every rated team, a blank rank for those listed separately.
    export = client.get(reverse("pages:export_standings", args=[league.slug]))
    text = b"".join(export.streaming_content).decode()
    by_name = {player.display_name: pid for pid, player in players.items()}
    for line in csv.DictReader(io.StringIO(text)):
        seen["CSV export"][by_name[line["player"]]] = int(line["rank"]) if line["rank"] else None
    assert len(seen["CSV export"]) == len(reference)

    # The season still running: its table's rank at the end is today's rank.
    season = client.get(reverse("pages:season", args=[league.slug, "2026"]))
    assert "the position by points is a place in this table, not a rank" in season.text
    assert "Position<br>by points" in season.text
    assert "Rating at end (rating rank)" in season.text
    for cells in season.context["rows"]:
        rank = cells["rank_end"]
        seen["season page"][by_slug[cells["slug"]]] = None if rank == "\u2013" else int(rank)
    season_csv = client.get(reverse("pages:season_csv", args=[league.slug, "2026"]))
    for line in csv.DictReader(io.StringIO(b"".join(season_csv.streaming_content).decode())):
        pid = by_name[line["player"]]
        seen["season CSV"][pid] = int(line["rank_end"]) if line["rank_end"] else None
    api_season = client.get(f"/api/leagues/{league.slug}/seasons/2026/standings/").json()
    for line in api_season["rows"]:
        seen["season API"][line["player_id"]] = line["rank_end"]
    season_embed = client.get(
        reverse("pages:embed_standings", args=[league.slug]), {"season": "2026", "rows": 500}
    )
    assert "position by points, not a rank" in season_embed.text
    for cells in season_embed.context["rows"]:
        rank = cells["rank_end"]
        seen["season embed"][by_slug[cells["slug"]]] = None if rank == "\u2013" else int(rank)
    assert len(seen["season page"]) > 50
    assert seen["season page"].keys() == seen["season API"].keys() == seen["season CSV"].keys()

    # The API: the standings (both lists) and the win probability's two players.
    standings = f"/api/leagues/{league.slug}/standings/"
    for listed in ("ranked", "separate"):
        body = client.get(standings, {"listed": listed, "per_page": 500}).json()
        assert body["num_pages"] == 1
        for row in body["results"]:
            seen["API standings"][row["player_id"]] = row["rank"]
    assert len(seen["API standings"]) == len(reference)
    probability = f"/api/leagues/{league.slug}/win-probability/"
    opponent = ranked[0]
    for pid in reference:
        other = opponent if pid != opponent else ranked[1]
        body = client.get(probability, {"player_a": pid, "player_b": other}).json()
        seen["API win probability, A"][pid] = body["player_a"]["rank"]
        seen["API win probability, B"][other] = body["player_b"]["rank"]

    # The same at another level (this league ranks by rating, so the level changes nothing).
    for pid in ranked[:5] + unranked[:5]:
        body = client.get(probability, {"player_a": pid, "player_b": opponent, "level": "68"})
        seen["API win probability, A, 68 %"][pid] = body.json()["player_a"]["rank"]

    # The head-to-head page: both players' ranks beside their ratings.
    versus = reverse("pages:versus", args=[league.slug])
    for pid in reference:
        other = opponent if pid != opponent else ranked[1]
        response = client.get(versus, {"a": players[pid].slug, "b": players[other].slug})
        seen["head-to-head, A"][pid] = response.context["summary_a"].rank
        seen["head-to-head, B"][other] = response.context["summary_b"].rank
        shown = response.text.split('id="versus-rank-a">', 1)[1].split("</span>", 1)[0]
        if reference[pid] is None:
            assert shown.startswith("not ranked: "), shown
        else:
            assert shown == f"rank {reference[pid]}"

    # The version comparison: the page never offers a version against itself, so the same
    # parameters are saved again (inherited from the live version: the same standings) and
    # compared with it; version b is the new live one.
    before = Standing.objects.filter(config__league=league).values_list("config__version")[0][0]
    after = rate(league, note="the same parameters again").version
    assert Publication.objects.get(league=league).config.version == after
    compare = reverse("pages:compare", args=[league.slug])
    page = 1
    while True:
        comparison = client.get(compare, {"a": before, "b": after, "page": page}).context[
            "comparison"
        ]
        for row in comparison.items:
            seen["comparison, a"][row.player_id] = row.rank_a
            seen["comparison, b"][row.player_id] = row.rank_b
        if page >= comparison.num_pages:
            break
        page += 1
    assert set(seen["comparison, b"]) == set(reference)

    assert set(seen["player card"]) == set(reference)
    assert set(seen["head-to-head, A"]) == set(reference)
    assert set(seen["API win probability, A"]) == set(reference)
    disagreements = [
        (surface, players[pid].display_name, rank, reference[pid])
        for surface, ranks in seen.items()
        for pid, rank in ranks.items()
        if rank != reference[pid]
    ]
    assert disagreements == []
    # The unranked are unranked everywhere they appear, and never on the embed.
    for pid in unranked:
        assert pid not in seen["embed"]
        assert pid not in seen["home page"]
        assert seen["CSV export"][pid] is None
        assert seen["API standings"][pid] is None


def test_a_rank_by_the_intervals_lower_end_follows_the_readers_level_everywhere(client, club):
    league = club["league"]
    RankingRules.objects.create(
        league=league, min_games=1, active_periods=None, max_rd=None, rank_by="lower_bound"
    )
    players = [club[name] for name in ("ann", "bob", "cat", "dan")]
    orders = {}
    for level in ("68", "95", "99.9"):
        board = client.get(reverse("pages:league", args=[league.slug]), {"level": level})
        rows = board.context["board"].rows
        expected = {row.player_id: row.rank for row in rows}
        assert sorted(expected.values()) == [1, 2, 3, 4]
        orders[level] = [row.player_id for row in rows]
        seen: dict[str, dict[int, int | None]] = defaultdict(dict)
        for player in players:
            page = client.get(
                reverse("pages:player", args=[league.slug, player.slug]), {"level": level}
            )
            seen["player card"][player.pk] = page.context["standing"].rank
            seen["player summary"][player.pk] = page.context["summary"].rank
            # The rank history the page loads carries the page's level.
            history = client.get(page.context["ranks_url"])
            seen["rank history"][player.pk] = history.context["ranks"][-1].rank
        api = client.get(f"/api/leagues/{league.slug}/standings/", {"level": level}).json()
        seen["API standings"] = {row["player_id"]: row["rank"] for row in api["results"]}
        export = client.get(reverse("pages:export_standings", args=[league.slug]), {"level": level})
        lines = csv.DictReader(io.StringIO(b"".join(export.streaming_content).decode()))
        names = {player.display_name: player.pk for player in players}
        seen["CSV export"] = {names[line["player"]]: int(line["rank"]) for line in lines}
        for surface, ranks in seen.items():
            assert ranks == expected, (level, surface)
    # The level changes the order here (Dan's one game leaves a wide interval).
    assert len({tuple(order) for order in orders.values()}) > 1


def test_a_bad_level_on_the_standings_export_is_refused_naming_it(client, club):
    response = client.get(
        reverse("pages:export_standings", args=[club["league"].slug]), {"level": "150"}
    )
    assert response.status_code == 400
    assert response.text.startswith("Interval level:")


def test_comparing_versions_shows_the_leaderboards_rank_under_each(client, club):
    league = club["league"]
    rate(league, tau=1.1)
    url = reverse("pages:compare", args=[league.slug])
    rows = client.get(url, {"a": 1, "b": 2}).context["comparison"].items
    # The default rules rank none of these provisional players under either version.
    assert len(rows) == 4
    assert [(row.rank_a, row.rank_b) for row in rows] == [(None, None)] * 4
    rank_everyone(league)
    rows = client.get(url, {"a": 1, "b": 2}).context["comparison"].items
    board = leaderboard(league)
    assert {row.player_id: row.rank_b for row in rows} == {
        row.player_id: row.rank for row in board.rows
    }
    assert [row.rank_b for row in rows] == sorted(row.rank_b for row in rows)
