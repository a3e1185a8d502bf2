"""Generated rounds before publishing: the generators fed from the league, and adjustments.

A draft is a list of ``DraftPairing`` (round number, the two players, the moment) carried
in the organiser's form between requests, never stored: publishing it schedules fixtures
(``league.fixtures.schedule_fixtures``), which checks it again like any other input.

A *series* names a run of rounds ("Club night Nov"): its fixtures are labelled
"<series> · round <n>", and a Swiss round reads the series' earlier rounds for each
player's score (from the results entered against those fixtures), sides, byes and
opponents. A bye is known by absence: a player of the field with no fixture in an earlier
round of the series is taken to have had one (it scores nothing here; the rules are in
``pairings/PAIRINGS.md``).
"""

from __future__ import annotations

import datetime as dt
import re
from dataclasses import dataclass

from django.utils.translation import gettext_lazy

from league.models import Event, Fixture, League, Player
from pairings import LadderPlayer, SwissPlayer, ladder_round, round_robin, swiss_round
from pairings.swiss import FIRST, SECOND
from ratings.models import RatingConfig
from ratings.selectors.fixtures import strengths

SWISS, ROUND_ROBIN, LADDER = "swiss", "round_robin", "ladder"
METHODS = {
    SWISS: gettext_lazy("Swiss round (club night)"),
    ROUND_ROBIN: gettext_lazy("Round robin (Berger tables)"),
    LADDER: gettext_lazy("Ladder challenges"),
}
SEPARATOR = " · round "


@dataclass(frozen=True)
class DraftPairing:
    """One pairing of a draft: ``first`` takes the first-named side."""

    round: int
    first: int
    second: int
    when: dt.datetime

    def encode(self) -> str:
        return f"{self.round}|{self.first}|{self.second}|{self.when.isoformat()}"

    @classmethod
    def decode(cls, text: str) -> DraftPairing | None:
        """The pairing a form carried, or None when the text is not one."""
        parts = str(text).split("|")
        if len(parts) != 4:
            return None
        try:
            when = dt.datetime.fromisoformat(parts[3])
            pairing = cls(int(parts[0]), int(parts[1]), int(parts[2]), when)
        except (ValueError, OverflowError):
            return None
        if when.tzinfo is None or pairing.round < 1 or pairing.first == pairing.second:
            return None
        return pairing


@dataclass(frozen=True)
class Draft:
    """A generated set of rounds and who sits each round out."""

    pairings: list[DraftPairing]
    byes: dict[int, list[int]]  # round -> player ids
    first_round: int


def round_label(series: str, number: int) -> str:
    """The label of round ``number`` of ``series`` ("Club night · round 3")."""
    return f"{series}{SEPARATOR}{number}" if series else f"Round {number}"


def ranked(config: RatingConfig | None, players: list[Player]) -> list[Player]:
    """``players`` best rated first (unrated ones after, by name)."""
    known = strengths(config, [p.pk for p in players])
    return sorted(
        players,
        key=lambda p: (not known[p.pk].rated, -known[p.pk].rating, p.display_name),
    )


@dataclass(frozen=True)
class SeriesState:
    """What a series' earlier rounds say about the field."""

    rounds: int
    scores: dict[int, float]
    sides: dict[int, tuple[str, ...]]
    had_bye: set[int]
    played: set[frozenset[int]]


def series_state(league: League, series: str, field: list[int]) -> SeriesState:
    """Scores, sides, byes and pairs met in the series' earlier rounds (cancelled ones aside)."""
    pattern = re.compile(re.escape(series) + re.escape(SEPARATOR) + r"(\d+)$")
    fixtures = []
    # Fixtures with sides are not rounds of players one against one: a Swiss series skips them.
    for fixture in (
        Fixture.objects.filter(
            league=league, cancelled=False, label__startswith=f"{series}{SEPARATOR}"
        )
        .filter(side_rows__isnull=True)
        .order_by("scheduled_at", "pk")
    ):
        found = pattern.match(fixture.label)
        if found:
            fixtures.append((int(found.group(1)), fixture))
    results = dict(
        Event.objects.live_matches()
        .filter(league=league, fixture_id__in=[f.pk for _, f in fixtures])
        .values_list("fixture_id", "score_a")
    )
    scores = dict.fromkeys(field, 0.0)
    sides: dict[int, list[str]] = {pid: [] for pid in field}
    seated: dict[int, set[int]] = {}
    played: set[frozenset[int]] = set()
    for number, fixture in sorted(fixtures, key=lambda item: item[0]):
        a, b = fixture.player_a_id, fixture.player_b_id
        seated.setdefault(number, set()).update((a, b))
        played.add(frozenset((a, b)))
        score = results.get(fixture.pk)
        if score is not None:
            scores[a] = scores.get(a, 0.0) + float(score)
            scores[b] = scores.get(b, 0.0) + 1.0 - float(score)
        sides.setdefault(a, []).append(FIRST)
        sides.setdefault(b, []).append(SECOND)
    in_series = set().union(*seated.values()) if seated else set()
    had_bye = {
        pid
        for pid in field
        if pid in in_series and any(pid not in players for players in seated.values())
    }
    return SeriesState(
        rounds=max(seated, default=0),
        scores=scores,
        sides={pid: tuple(values) for pid, values in sides.items()},
        had_bye=had_bye,
        played=played,
    )


def generate(
    league: League,
    config: RatingConfig | None,
    method: str,
    players: list[Player],
    *,
    series: str,
    start: dt.datetime,
    days_between: int = 7,
    double: bool = False,
    use_sides: bool = True,
    max_distance: int = 2,
) -> Draft:
    """A draft from generator ``method`` over ``players`` (at least two, active)."""
    order = ranked(config, players)
    ids = [p.pk for p in order]
    if method == ROUND_ROBIN:
        rounds = round_robin(ids, double=double)
        pairings = [
            DraftPairing(r.number, p.first, p.second, start + dt.timedelta(days=days_between * i))
            for i, r in enumerate(rounds)
            for p in r.pairings
        ]
        return Draft(pairings, {r.number: list(r.byes) for r in rounds if r.byes}, 1)
    if method == SWISS:
        state = series_state(league, series, ids)
        number = state.rounds + 1
        field = [
            SwissPlayer(
                pid,
                state.scores.get(pid, 0.0),
                rank,
                state.sides.get(pid, ()),
                had_bye=pid in state.had_bye,
            )
            for rank, pid in enumerate(ids, start=1)
        ]
        result = swiss_round(field, state.played, use_sides=use_sides)
        pairings = [DraftPairing(number, p.first, p.second, start) for p in result.pairings]
        return Draft(pairings, {number: [result.bye]} if result.bye is not None else {}, number)
    if method == LADDER:
        ladder = [LadderPlayer(pid, rank) for rank, pid in enumerate(ids, start=1)]
        recent = {
            frozenset(pair)
            for pair in Fixture.objects.filter(
                league=league,
                player_a_id__in=ids,
                player_b_id__in=ids,
                scheduled_at__gte=start - dt.timedelta(days=90),
            ).values_list("player_a_id", "player_b_id")
        }
        result = ladder_round(ladder, max_distance=max_distance, recent=recent)
        pairings = [DraftPairing(1, p.first, p.second, start) for p in result.pairings]
        return Draft(pairings, {1: list(result.unpaired)} if result.unpaired else {}, 1)
    raise ValueError(f"Unknown pairing method {method!r}.")


def swap_sides(pairings: list[DraftPairing], index: int) -> list[DraftPairing]:
    """The draft with pairing ``index``'s sides swapped."""
    p = pairings[index]
    changed = DraftPairing(p.round, p.second, p.first, p.when)
    return [changed if i == index else q for i, q in enumerate(pairings)]


def exchange(pairings: list[DraftPairing], round_number: int, x: int, y: int) -> list[DraftPairing]:
    """The draft with players ``x`` and ``y`` trading places in round ``round_number``.

    A player sitting the round out (in no pairing) simply takes the other's place.
    """

    def swapped(pid: int) -> int:
        return y if pid == x else x if pid == y else pid

    return [
        DraftPairing(p.round, swapped(p.first), swapped(p.second), p.when)
        if p.round == round_number
        else p
        for p in pairings
    ]


def draft_byes(pairings: list[DraftPairing], field: list[int]) -> dict[int, list[int]]:
    """For each round of the draft, the players of ``field`` in none of its pairings."""
    rounds: dict[int, set[int]] = {}
    for p in pairings:
        rounds.setdefault(p.round, set()).update((p.first, p.second))
    return {
        number: [pid for pid in field if pid not in seated]
        for number, seated in sorted(rounds.items())
        if any(pid not in seated for pid in field)
    }
