"""The demo league with everything its pages can show, for the browser tests on a phone.

``build_demo_league`` loads the demo (international football, matches since ``since``) and
adds what the fixture lacks, all with the demo's longest names: a season covering the last
year, a fixture, the newest match (so it heads the matches page and the event log), an API
token and a backtest sweep. ``pages_to_walk`` lists every public and organiser page of it.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.core.management import call_command
from django.urls import reverse
from django.utils import timezone

# The demo's longest team names still playing (32, 28 and 24 characters).
LONGEST = (
    "Saint Vincent and the Grenadines",
    "United States Virgin Islands",
    "Turks and Caicos Islands",
)
SLUG = "international-football"
LONG_SLUG = "saint-vincent-and-the-grenadines"
# The most capped side of the demo: its head-to-head table is the longest.
BUSIEST_SLUG = "spain"


@dataclass(frozen=True)
class DemoLeague:
    league: Any
    organiser: Any
    season: Any
    sweep: Any
    period: int


def build_demo_league(since: dt.date, *, sweep: bool = True) -> DemoLeague:
    """Load the demo since ``since`` and add a season, a fixture, a match, a token, a sweep."""
    from league import api_tokens, fixtures, seasons, services
    from league.models import League, Player
    from ratings.backtest.services import run_sweep_sync
    from ratings.models import PlayerPeriod

    call_command("load_demo", since=since, force_demo_user=True, verbosity=0)
    league = League.objects.get(slug=SLUG)
    organiser = league.organisers.get()
    players = {name: Player.objects.get(league=league, display_name=name) for name in LONGEST}
    today = timezone.now().date()
    # The newest match: the two longest names head the matches page and the event log.
    services.record_match(
        league,
        player_a=players[LONGEST[0]],
        player_b=players[LONGEST[1]],
        score_a=Decimal("0.5"),
        points="3–3",
        note="Friendly, Kingstown",
        played_at=today,
        recorded_by=organiser,
    )
    season = seasons.create_season(
        league,
        name=f"Season {today.year - 1}–{today.year}",
        start_date=today - dt.timedelta(days=365),
        end_date=today + dt.timedelta(days=30),
        points_win="3",
        points_draw="1",
        points_loss="0",
        created_by=organiser,
    )
    fixtures.schedule_fixture(
        league,
        player_a=players[LONGEST[2]],
        player_b=players[LONGEST[0]],
        scheduled_at=timezone.now() + dt.timedelta(days=7),
        venue="Arnos Vale Stadium, Kingstown, Saint Vincent and the Grenadines",
        label="CONCACAF Nations League",
        recorded_by=organiser,
    )
    api_tokens.create_token(organiser, "Club website results widget (Saint Vincent)")
    made = run_sweep_sync(league, {"tau": [0.3, 0.5]}, requested_by=organiser) if sweep else None
    period = (
        PlayerPeriod.objects.filter(player=players[LONGEST[0]], games__gt=1)
        .order_by("-period_index")
        .values_list("period_index", flat=True)
        .first()
    )
    return DemoLeague(league, organiser, season, made, period)


def public_pages(demo: DemoLeague) -> dict[str, str]:
    """Every public page of the demo league, by a short name, with the longest names on it."""
    slug, season = demo.league.slug, demo.season.slug
    player = reverse("pages:player", args=[slug, LONG_SLUG])
    return {
        "home": reverse("pages:home"),
        "standings": reverse("pages:league", args=[slug]),
        "standings, searched": reverse("pages:league", args=[slug]) + "?q=Saint",
        "standings, listed separately": reverse("pages:league", args=[slug]) + "?listed=separate",
        "player": player,
        "player, busiest": reverse("pages:player", args=[slug, BUSIEST_SLUG]),
        "player, in a season": f"{player}?season={season}",
        "why the rating moved": reverse("pages:player_period", args=[slug, LONG_SLUG, demo.period]),
        "rank history": reverse("pages:player_ranks", args=[slug, LONG_SLUG]),
        "head to head": reverse("pages:versus", args=[slug])
        + f"?a={LONG_SLUG}&b=united-states-virgin-islands",
        "matches": reverse("pages:matches", args=[slug]),
        "fixtures": reverse("pages:fixtures", args=[slug]),
        "event log": reverse("pages:events", args=[slug]),
        "seasons": reverse("pages:seasons", args=[slug]),
        "season": reverse("pages:season", args=[slug, season]),
        "compare versions": reverse("pages:compare", args=[slug]),
        "embedded standings": reverse("pages:embed_standings", args=[slug]) + "?rows=200",
        "embedded season": reverse("pages:embed_standings", args=[slug]) + f"?season={season}",
        "embedded fixtures": reverse("pages:embed_fixtures", args=[slug]),
    }


def organiser_pages(demo: DemoLeague) -> dict[str, str]:
    """Every page of the demo league's workspace, by a short name."""
    slug = demo.league.slug
    pages = {
        name: reverse(f"workspace:{name}", args=[slug])
        for name in (
            "hub", "ranking", "record", "round", "log", "import", "export", "tokens",
            "players", "seasons", "website", "fixtures", "pairings", "config", "backtest",
        )
    }  # fmt: skip
    pages["player"] = reverse("workspace:player", args=[slug, LONG_SLUG])
    pages["season"] = reverse("workspace:season", args=[slug, demo.season.slug])
    pages["log, searched"] = pages["log"] + "?player=" + LONGEST[0].replace(" ", "+")
    if demo.sweep is not None:
        pages["backtest sweep"] = reverse("workspace:backtest_sweep", args=[slug, demo.sweep.pk])
    pages["matches, as organiser"] = reverse("pages:matches", args=[slug])
    pages["player, as organiser"] = reverse("pages:player", args=[slug, LONG_SLUG])
    return {f"organise: {name}": url for name, url in pages.items()}


# Eight of the demo's longest names, as the players of a doubles league.
DOUBLES_NAMES = (
    *LONGEST,
    "Central African Republic",
    "Northern Mariana Islands",
    "Bosnia and Herzegovina",
    "British Virgin Islands",
    "São Tomé and Príncipe",
)


def build_doubles_league(organiser: Any, folder: Any) -> Any:
    """A doubles league of the demo's longest names: six weeks of rotating pairs."""
    import csv
    import io

    from league.models import League

    out = io.StringIO()
    call_command(
        "create_league", "long-doubles", "--name", "Long Names Doubles", "--format", "doubles",
        "--start-date", "2024-01-01", "--period-days", "7", "--period-anchor", "2024-01-01",
        stdout=out,
    )  # fmt: skip
    text = io.StringIO()
    writer = csv.writer(text)
    writer.writerow(["date", "side_a", "side_b", "score_a", "points", "id"])
    names = list(DOUBLES_NAMES)
    for week in range(6):
        day = dt.date(2024, 1, 6) + dt.timedelta(days=7 * week)
        order = names[week:] + names[:week]
        for i in (0, 4):
            a1, b1, a2, b2 = order[i : i + 4]
            score = ("1", "0", "0.5")[(week + i) % 3]
            writer.writerow([day, f"{a1}; {a2}", f"{b1}; {b2}", score, "", f"d{week}-{i}"])
    path = folder / "doubles.csv"
    path.write_text(text.getvalue(), encoding="utf-8")
    call_command("import_results", "long-doubles", str(path), "--create-players", stdout=out)
    call_command("replay", "long-doubles", "--sync", stdout=out)
    league = League.objects.get(slug="long-doubles")
    league.organisers.add(organiser)
    _schedule_side_fixture(league, organiser)
    return league


def _schedule_side_fixture(league: Any, organiser: Any) -> None:
    """A doubles fixture of its longest names, tomorrow: the fixture pages list its sides."""
    from django.utils import timezone

    from league.fixtures import schedule_fixture

    players = list(league.players.order_by("pk")[:4])
    schedule_fixture(
        league,
        sides=[players[:2], players[2:]],
        scheduled_at=timezone.now() + dt.timedelta(days=1),
        venue="Court 3",
        label="Doubles night",
        recorded_by=organiser,
    )


def doubles_pages(league: Any) -> dict[str, str]:
    """The pages of a doubles league that a singles league has not: sides, partners, teams."""
    slug = league.slug
    player = league.players.get(display_name=LONGEST[0]).slug
    return {
        "doubles: standings": reverse("pages:league", args=[slug]) + "?everyone=on",
        "doubles: matches": reverse("pages:matches", args=[slug]),
        "doubles: player": reverse("pages:player", args=[slug, player]),
        "organise: doubles: team match": reverse("workspace:team_match", args=[slug]),
        "organise: doubles: team round": reverse("workspace:team_round", args=[slug]),
        "doubles: fixtures": reverse("pages:fixtures", args=[slug]),
        "organise: doubles: fixtures": reverse("workspace:fixtures", args=[slug]),
        "organise: doubles: fixtures with sides": reverse("workspace:side_fixtures", args=[slug]),
        "organise: doubles: fixture result": reverse("workspace:team_match", args=[slug])
        + f"?fixture={league.fixtures.get().pk}",
    }
