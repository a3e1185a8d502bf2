"""Server time of the leaderboard, a long player page, the standings API and CSV, on PostgreSQL.

A league of 10,000 players whose histories cover the last two years of weekly periods, plus
one veteran with 500 played periods (about ten years) and a thousand recorded matches. The
projection rows (``PlayerPeriod``, ``Standing``) are written directly with COPY, as a replay
would leave them, so building the data takes seconds. The league is kept between runs; its
matches are immutable events, so to start over drop the database (``dropdb league_pages``).

Each page is requested through ``django.test.Client`` (the whole Django stack: middleware,
selectors, templates; no network) and timed; the figures are compared with two baselines
measured in the same run: a bare ``SELECT 1`` round trip and the home page (one small query).

    DATABASE_URL=postgres://postgres@127.0.0.1:5432/league_pages \\
        .venv/bin/python -m bench.bench_pages [--requests 60]

Targets: leaderboard p95 <= 150 ms, player page (500 periods) p95 <= 200 ms.
"""

from __future__ import annotations

import argparse
import datetime as dt
import os
import statistics
import sys
import time
from collections.abc import Callable

import numpy as np

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
# Development defaults (plain static storage, no HTTPS redirect); DEBUG itself is switched
# off below before measuring so that queries are not recorded.
os.environ.setdefault("DJANGO_DEBUG", "1")

import django

django.setup()

from django.conf import settings  # noqa: E402
from django.core.management import call_command  # noqa: E402
from django.db import connection, transaction  # noqa: E402
from django.test import Client  # noqa: E402
from django.urls import reverse  # noqa: E402
from django.utils import timezone  # noqa: E402

from league.models import Event, League, Player  # noqa: E402
from ratings.models import (  # noqa: E402
    PlayerPeriod,
    ProjectionState,
    Publication,
    RatingConfig,
    Standing,
)

SLUG = "bench-10k"
PLAYERS = 10_000
RECENT_PERIODS = 104  # two years of weekly periods
VETERAN_PERIODS = 500
TOTAL_PERIODS = 520  # the veteran's ten years
PLAY_RATE = 0.3  # share of the recent periods an ordinary player plays in
TARGETS = {"leaderboard": 0.150, "player page (500 periods)": 0.200}


def build(rng: np.random.Generator) -> League:
    """Create the bench league and its projection rows (about 320,000 history rows)."""
    today = timezone.localdate()
    anchor = today - dt.timedelta(weeks=TOTAL_PERIODS - 1)
    with transaction.atomic():
        league = League.objects.create(
            name="Bench league (10,000 players)", slug=SLUG, start_date=anchor, time_zone="UTC"
        )
        config = RatingConfig.objects.create(
            league=league, version=1, period_anchor=anchor, period_length=7
        )
        Publication.objects.create(league=league, config=config)
        ProjectionState.objects.create(config=config, complete=True, through_period=TOTAL_PERIODS)
        Player.objects.bulk_create(
            Player(league=league, display_name=f"Player {i:05d}", slug=f"player-{i:05d}")
            for i in range(PLAYERS)
        )
    ids = list(Player.objects.filter(league=league).order_by("slug").values_list("pk", flat=True))
    first_recent = TOTAL_PERIODS - RECENT_PERIODS
    history = []
    standings = []
    for number, player_id in enumerate(ids):
        if number == 0:
            periods = np.arange(TOTAL_PERIODS - VETERAN_PERIODS, TOTAL_PERIODS)
        else:
            mask = rng.random(RECENT_PERIODS) < PLAY_RATE
            mask[rng.integers(RECENT_PERIODS)] = True  # everyone played at least once
            periods = first_recent + np.flatnonzero(mask)
        games = rng.integers(1, 5, size=periods.size)
        wins = rng.binomial(games, 0.45)
        draws = rng.binomial(games - wins, 0.2)
        losses = games - wins - draws
        steps = rng.normal(0, 25, size=periods.size)
        rating = 1500 + np.cumsum(steps) + rng.normal(0, 150)
        rd = np.maximum(45, 350 * 0.88 ** np.arange(1, periods.size + 1))
        volatility = 0.06 + rng.normal(0, 0.0005, size=periods.size)
        before = np.concatenate(([1500.0], rating[:-1]))
        rd_before = np.concatenate(([350.0], rd[:-1] + 10))
        for k, period in enumerate(periods.tolist()):
            start = anchor + dt.timedelta(weeks=period)
            history.append(
                (
                    config.pk, player_id, period, start, start + dt.timedelta(days=6),
                    float(rating[k]), float(rd[k]), float(volatility[k]), float(before[k]),
                    float(rd_before[k]), int(games[k]), int(wins[k]), int(draws[k]),
                    int(losses[k]),
                )
            )  # fmt: skip
        last = int(periods[-1])
        last_day = anchor + dt.timedelta(weeks=last, days=3)
        standings.append(
            (
                config.pk, player_id, float(rating[-1]), float(rd[-1]), float(volatility[-1]),
                last, int(games.sum()), int(wins.sum()), int(draws.sum()), int(losses.sum()),
                dt.datetime.combine(last_day, dt.time(12), tzinfo=dt.UTC),
            )
        )  # fmt: skip
    # A replay writes history in (period, player) order; so does the bench, so that the
    # rows of one period sit together on disk as they would in production.
    history.sort(key=lambda row: (row[2], row[1]))
    history_columns = (
        "config_id, player_id, period_index, period_start, period_end, rating, rd, volatility, "
        "rating_before, rd_before, games, wins, draws, losses"
    )
    standing_columns = (
        "config_id, player_id, rating, rd, volatility, last_period, games, wins, draws, "
        "losses, last_played_at"
    )
    with transaction.atomic(), connection.cursor() as cursor:
        with cursor.copy(
            f"COPY {PlayerPeriod._meta.db_table} ({history_columns}) FROM STDIN"
        ) as copy:
            for row in history:
                copy.write_row(row)
        with cursor.copy(f"COPY {Standing._meta.db_table} ({standing_columns}) FROM STDIN") as copy:
            for row in standings:
                copy.write_row(row)
        # The veteran's matches (two a period against a pool of forty regulars), so that
        # the results and head-to-head sections have real rows to read.
        veteran, pool = ids[0], ids[1:41]
        events = []
        seq = 0
        for period in range(TOTAL_PERIODS - VETERAN_PERIODS, TOTAL_PERIODS):
            for game in range(2):
                seq += 1
                day = anchor + dt.timedelta(weeks=period, days=1 + 2 * game)
                opponent = pool[int(rng.integers(len(pool)))]
                a, b = (veteran, opponent) if game == 0 else (opponent, veteran)
                events.append(
                    Event(
                        league=league,
                        seq=seq,
                        kind=Event.Kind.MATCH_RECORDED,
                        played_at=dt.datetime.combine(day, dt.time(12), tzinfo=dt.UTC),
                        player_a_id=a,
                        player_b_id=b,
                        score_a=("1", "0.5", "0")[int(rng.integers(3))],
                        points="",
                    )
                )
        Event.objects.bulk_create(events, batch_size=2000)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {PlayerPeriod._meta.db_table}")
        cursor.execute(f"ANALYZE {Standing._meta.db_table}")
        cursor.execute(f"ANALYZE {Event._meta.db_table}")
    return league


def timed(call: Callable[[], object], requests: int, warmup: int = 5) -> list[float]:
    for _ in range(warmup):
        call()
    samples = []
    for _ in range(requests):
        started = time.perf_counter()
        call()
        samples.append(time.perf_counter() - started)
    return samples


def get(client: Client, url: str) -> Callable[[], object]:
    def call() -> object:
        response = client.get(url)
        if response.status_code != 200:
            raise SystemExit(f"GET {url} answered {response.status_code}")
        if response.streaming:
            # A download is produced while it is read: time the whole body.
            return b"".join(response.streaming_content)
        return response

    return call


def select_one() -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT 1")
        cursor.fetchone()


def percentile(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples), q))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--requests", type=int, default=60, help="timed requests per page")
    args = parser.parse_args()
    if connection.vendor != "postgresql":
        sys.exit(
            "bench_pages measures PostgreSQL: set DATABASE_URL=postgres://… (got "
            f"{connection.vendor})."
        )
    call_command("migrate", verbosity=0)
    rng = np.random.default_rng(2024)
    league = League.objects.filter(slug=SLUG).first()
    if league is None:
        started = time.perf_counter()
        league = build(rng)
        print(f"built the bench league in {time.perf_counter() - started:.1f} s")
    config = Publication.objects.get(league=league).config
    rows = PlayerPeriod.objects.filter(config=config).count()
    veteran = Player.objects.get(league=league, slug="player-00000")
    veteran_periods = PlayerPeriod.objects.filter(config=config, player=veteran).count()
    print(
        f"{Player.objects.filter(league=league).count()} players, {rows} history rows, "
        f"veteran with {veteran_periods} periods and "
        f"{Event.objects.filter(league=league).count()} matches"
    )

    settings.DEBUG = False  # no query log while timing
    client = Client(HTTP_HOST="localhost")
    board_url = reverse("pages:league", kwargs={"league_slug": SLUG})
    player_url = reverse("pages:player", kwargs={"league_slug": SLUG, "player_slug": veteran.slug})
    as_of_url = board_url + f"?period={TOTAL_PERIODS - 27}"
    api_url = reverse("api:standings", kwargs={"league_slug": SLUG})
    export_url = reverse("pages:export_standings", kwargs={"league_slug": SLUG})
    cases = [
        ("baseline: SELECT 1", select_one),
        ("baseline: home page", get(client, reverse("pages:home"))),
        ("leaderboard", get(client, board_url)),
        ("leaderboard sorted by RD, page 100", get(client, board_url + "?sort=rd&page=100")),
        ("leaderboard search + min games", get(client, board_url + "?q=99&min_games=10")),
        ("leaderboard as of 26 periods ago", get(client, as_of_url)),
        ("player page (500 periods)", get(client, player_url)),
        ("  + its rank history (htmx fragment)", get(client, player_url + "ranks/")),
        ("standings API, first page", get(client, api_url)),
        ("standings CSV (10,000 rows)", get(client, export_url)),
    ]  # fmt: skip
    results = {name: timed(call, args.requests) for name, call in cases}
    base_sql = statistics.median(results["baseline: SELECT 1"])
    base_view = statistics.median(results["baseline: home page"])
    print(f"\n{args.requests} timed requests each (after 5 warm-up), server time in ms")
    header = f"{'case':38} {'p50':>8} {'p95':>8} {'p95/SELECT 1':>13} {'p95/home':>9} {'target':>8}"
    print(header)
    print("-" * len(header))
    failed = False
    for name, samples in results.items():
        p50, p95 = percentile(samples, 50), percentile(samples, 95)
        target = TARGETS.get(name)
        verdict = ""
        if target is not None:
            verdict = f"{'ok' if p95 <= target else 'MISSED'} {target * 1000:.0f}"
            failed |= p95 > target
        print(
            f"{name:38} {p50 * 1000:8.2f} {p95 * 1000:8.2f} {p95 / base_sql:13.0f} "
            f"{p95 / base_view:9.1f} {verdict:>8}"
        )
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
