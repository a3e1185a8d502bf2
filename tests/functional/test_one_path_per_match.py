"""One path per match, whatever its sides: the same bad input gets the same message and
stores nothing through every entry path, for singles, doubles and games of four sides.

Entry paths: the workspace's entry page (signed in as an organiser), the API, the CSV import
service the workspace's upload calls (``league.csv_import.import_results``) and the
``import_results`` management command. Bad inputs: a result its points contradict (points
for the other side, whose margin is negative; or a level score with a win, whose margin is
0), a day in the future, an unknown player, a deactivated player, and a key already used
for another match. Where a path cannot express an input the table says so
(``NOT_EXPRESSIBLE``) instead of skipping it quietly.
"""

from __future__ import annotations

import datetime as dt
import html
import io
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.urls import reverse

from league import services
from league.csv_import import import_results
from league.models import Event, League, MatchFormat
from tests.api.support import token_client
from web.workspace.dates import league_today

KEY = "club-night-7"

#: (league kind, bad input) pairs a path cannot express, and why.
NOT_EXPRESSIBLE = {
    **{
        ("workspace", kind, bad): (
            "the workspace takes one score box: the result follows from the points typed"
        )
        for kind in ("singles", "doubles")
        for bad in ("contradiction", "level_score")
    },
    **{
        (path, "four_sides", bad): ("finishing positions carry no score for points to contradict")
        for path in ("workspace", "api", "import", "command")
        for bad in ("contradiction", "level_score")
    },
}


@dataclass(frozen=True)
class Match:
    """A match as an organiser states it: each side's player names and the result."""

    sides: list[list[str]]
    won: bool = True
    positions: list[int] | None = None
    points: str = ""
    day: dt.date | None = None
    key: str = ""
    ids: dict[str, int] = field(default_factory=dict)


KINDS: dict[str, tuple[str, int, Match]] = {
    # kind: (format, side size, a good match)
    "singles": (MatchFormat.SINGLES, 1, Match([["Ann"], ["Bob"]])),
    "doubles": (MatchFormat.FIXED, 2, Match([["Ann", "Bob"], ["Cat", "Eve"]])),
    "four_sides": (
        MatchFormat.FIXED,
        1,
        Match([["Ann"], ["Bob"], ["Cat"], ["Eve"]], positions=[2, 1, 3, 4]),
    ),
}


@pytest.fixture
def kind(request, league) -> str:
    """``league`` in the kind's format (the test's parameter), with Ann, Bob, Cat and Eve,
    and Dee deactivated."""
    match_format, size, _match = KINDS[request.param]
    league.match_format, league.side_size = match_format, size
    league.save()
    for name in ("Ann", "Bob", "Cat", "Dee", "Eve"):
        services.register_player(league, name)
    dee = league.players.get(display_name="Dee")
    services.deactivate_player(league, dee, reason="Left the club", recorded_by=None)
    return request.param


def good_match(league: League, kind: str) -> Match:
    ids = dict(league.players.values_list("display_name", "pk"))
    return replace(KINDS[kind][2], day=league_today(league), ids=ids)


def bad_input(league: League, kind: str, name: str) -> tuple[Match, str]:
    """The bad match and the message every path must answer it with (``{ref}`` stands for
    how the path names the unknown player)."""
    match = good_match(league, kind)
    first = "the first player" if kind == "singles" else "side A"
    if name == "contradiction":
        bad = replace(match, points="15-21")
        return bad, (
            f"The points 15-21 mean loss for {first}, but the result says win: correct one of them."
        )
    if name == "level_score":
        # A win with a level score would count as a draw (a margin of 0) if it were stored.
        bad = replace(match, points="21-21")
        return bad, (
            f"The points 21-21 mean draw for {first}, but the result says win: correct one of them."
        )
    if name == "future_date":
        day = league_today(league) + dt.timedelta(days=30)
        return replace(match, day=day), (
            f"{day.isoformat()} is in the future: record a match once it has been played."
        )
    if name == "unknown_player":
        sides = [list(side) for side in match.sides]
        sides[1][0] = "Nobody"
        return replace(match, sides=sides), ("Riverside Chess Club has no player {ref}.")
    if name == "deactivated_player":
        sides = [list(side) for side in match.sides]
        sides[1][0] = "Dee"
        return replace(match, sides=sides), (
            "Dee is inactive; reactivate them before recording a result."
        )
    assert name == "repeated_key"
    # The key of a match recorded just before, with another result.
    other = replace(match, won=False, key=KEY)
    if match.positions:
        other = replace(other, positions=list(reversed(match.positions)))
    return other, (
        "Idempotency key 'club-night-7' was already used for a different submission "
        "(event #{seq}, {label}); use a new key for a new result."
    )


# --- the entry paths: each submits a match and returns the messages it answered with --------


def by_workspace(client: Any, league: League, kind: str, match: Match) -> str:
    if kind == "singles":
        page = "workspace:record"
        data = {"player_a": match.sides[0][0], "player_b": match.sides[1][0]}
    else:
        page = "workspace:team_match"
        data = {
            f"side_{x}_{j}": name
            for x, side in enumerate(match.sides)
            for j, name in enumerate(side)
        }
    if match.positions:
        data.update({f"place_{x}": str(p) for x, p in enumerate(match.positions)})
        data["score"] = ""
    else:
        data["score"] = "w" if match.won else "l"
    data.update(played_on=match.day.isoformat(), note="", idempotency_key=match.key, confirmed="")
    response = client.post(reverse(page, args=[league.slug]), data)
    if response.status_code == 302:
        return ""
    return html.unescape(response.content.decode())


def by_api(client: Any, league: League, kind: str, match: Match) -> str:
    ids = [[match.ids.get(name, 999_999) for name in side] for side in match.sides]
    body: dict[str, Any] = {"played_on": match.day.isoformat(), "points": match.points}
    if kind == "singles":
        route = "api:match-list"
        body.update(player_a=ids[0][0], player_b=ids[1][0])
    else:
        route = "api:side-match-list"
        body["sides"] = ids
    if match.positions:
        body["positions"] = match.positions
    else:
        body["score_a"] = 1 if match.won else 0
    headers = {"HTTP_IDEMPOTENCY_KEY": match.key} if match.key else {}
    response = client.post(reverse(route, args=[league.slug]), body, format="json", **headers)
    if response.status_code == 201:
        return ""
    return " ".join(" ".join(messages) for messages in response.json()["errors"].values())


def csv_file(match: Match) -> bytes:
    """The match as a CSV file of the import format (the side format for sides of more
    than one player or more than two sides)."""
    pair = [len(side) for side in match.sides] == [1, 1]
    columns = ["id", "date"]
    cells = [match.key, match.day.isoformat()]
    if pair:
        columns += ["player_a", "player_b"]
        cells += [match.sides[0][0], match.sides[1][0]]
    else:
        letters = "abcdefghijklmnop"[: len(match.sides)]
        columns += [f"side_{x}" for x in letters]
        cells += ["; ".join(side) for side in match.sides]
    if match.positions:
        columns += [f"place_{x}" for x in "abcdefghijklmnop"[: len(match.sides)]]
        cells += [str(p) for p in match.positions]
    else:
        columns.append("score_a")
        cells.append("1" if match.won else "0")
    columns.append("points")
    cells.append(match.points)
    return (",".join(columns) + "\n" + ",".join(cells) + "\n").encode()


def by_import(client: Any, league: League, kind: str, match: Match) -> str:
    report = import_results(league, io.BytesIO(csv_file(match)))
    return " ".join(error.message for error in report.errors)


def by_command(client: Any, league: League, kind: str, match: Match, tmp_path: Any) -> str:
    path = tmp_path / f"results-{Event.objects.count()}.csv"
    path.write_bytes(csv_file(match))
    err = io.StringIO()
    try:
        call_command("import_results", league.slug, str(path), stdout=io.StringIO(), stderr=err)
    except CommandError as error:
        return f"{err.getvalue()} {error}"
    return ""


PATHS: dict[str, Callable[..., str]] = {
    "workspace": by_workspace,
    "api": by_api,
    "import": by_import,
    "command": by_command,
}
BAD_INPUTS = [
    "contradiction",
    "level_score",
    "future_date",
    "unknown_player",
    "deactivated_player",
    "repeated_key",
]


#: Every (path, kind, bad input) a path can express; those it cannot are listed in
#: ``NOT_EXPRESSIBLE`` with the reason and left out (a skipped case would read as a pass).
CASES = [
    pytest.param(path, kind, bad, id=f"{path}-{kind}-{bad}")
    for path in PATHS
    for kind in KINDS
    for bad in BAD_INPUTS
    if (path, kind, bad) not in NOT_EXPRESSIBLE
]


def test_only_the_listed_combinations_are_left_out():
    """The cases left out are exactly the listed ones, each a real (path, kind, input)."""
    every = {(path, kind, bad) for path in PATHS for kind in KINDS for bad in BAD_INPUTS}
    assert set(NOT_EXPRESSIBLE) <= every
    assert len(CASES) == len(every) - len(NOT_EXPRESSIBLE)
    assert len(NOT_EXPRESSIBLE) == 12


@pytest.mark.parametrize(("path", "kind", "bad"), CASES, indirect=["kind"])
def test_the_same_bad_input_gets_the_same_message_and_stores_nothing_on_every_path(
    client, organiser, league, kind, path, bad, tmp_path
):
    client.force_login(organiser)
    api = token_client(organiser)
    submitter = {"workspace": client, "api": api}.get(path)

    def submit(match: Match) -> str:
        if path == "command":
            return by_command(submitter, league, kind, match, tmp_path)
        return PATHS[path](submitter, league, kind, match)

    match, expected = bad_input(league, kind, bad)
    if bad == "repeated_key":
        assert submit(replace(good_match(league, kind), key=KEY)) == ""
        first = Event.objects.get(league=league, idempotency_key__endswith=KEY)
        expected = expected.format(seq=first.seq, label=first.get_kind_display())
    if bad == "unknown_player":
        expected = expected.format(ref="with id 999999" if path == "api" else "named “Nobody”")
    before = Event.objects.filter(league=league).count()

    answered = submit(match)

    assert expected in answered
    assert Event.objects.filter(league=league).count() == before


@pytest.mark.parametrize("kind", list(KINDS), indirect=True)
@pytest.mark.parametrize("path", list(PATHS))
def test_the_good_match_of_every_kind_is_stored_by_every_path(
    client, organiser, league, kind, path, tmp_path
):
    """The table's good matches are good: each path stores one match of the kind."""
    client.force_login(organiser)
    submitter = {"workspace": client, "api": token_client(organiser)}.get(path)
    match = good_match(league, kind)
    before = Event.objects.filter(league=league).count()
    if path == "command":
        answered = by_command(submitter, league, kind, match, tmp_path)
    else:
        answered = PATHS[path](submitter, league, kind, match)
    assert answered == ""
    assert Event.objects.filter(league=league).count() == before + 1
    stored = Event.objects.filter(league=league).latest("seq")
    expected_kind = "match_recorded" if kind == "singles" else "side_match_recorded"
    assert stored.kind == expected_kind
