"""The fixtures read model: fixtures with their state and win / draw / loss predictions.

A fixture is *upcoming* while it is open (neither cancelled nor played) and its deadline has
not passed in the league's time zone, *overdue* once it has, *played* while a live result
names it and *cancelled* after a cancellation. Predictions come from the published ratings
(RDs grown to the current period) and the league's draw model (``engine/OUTCOMES.md``),
fitted on its own recent results, each predicted from the ratings both players entered its
period with; a league without draws predicts none. The first-named player of a fixture is
the home side: it gets the configuration's advantage, as in a recorded match that is not on
neutral ground (``ratings.selectors.predictions.first_named_advantage``; a fixture has no
neutral flag yet), and the draw model is fitted on predictions with the same advantage.

A fixture with two sides (doubles, teams) is predicted with the team-sum model the ratings
of side matches use (``engine/teams.py``, ``team_sum``): side A against side B as one game
between the sums of their players' ratings (relative to the centre), with their RDs added
in quadrature; side A is the home side. A fixture of three or more sides has no forecast.
"""

from __future__ import annotations

import datetime as dt
import math
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from django.core.cache import caches
from django.db.models import Q
from django.utils import timezone

from engine.errors import MatchBeforeAnchorError
from engine.outcomes import OutcomeProbabilities, fit_draw_model, outcome_probabilities
from engine.prediction import win_probability_array
from league.calendar import league_zone, local_day
from league.models import Event, Fixture, FixtureSide, League, MatchParticipant, Player
from league.scores import score_text
from league.sides import positions_text
from ratings.models import PlayerPeriod, ProjectionState, RatingConfig, Standing
from ratings.selectors.common import ReadClock, rd_now
from ratings.selectors.predictions import first_named_advantage
from ratings.time import period_spec

#: The draw model is fitted on at most this many of the league's latest results: enough for
#: a standard error of the draw rate near 0.005, and a bounded cost on a league of millions.
DRAW_FIT_MATCHES = 20_000

UPCOMING, OVERDUE, PLAYED, CANCELLED = "upcoming", "overdue", "played", "cancelled"
STATUS_LABELS = {
    UPCOMING: "Upcoming",
    OVERDUE: "Not played by its deadline",
    PLAYED: "Played",
    CANCELLED: "Cancelled",
}


@dataclass(frozen=True)
class Strength:
    """A player's published rating and RD now (the initial values while ``rated`` is False).

    No rank: a rank is the leaderboard's (``ratings.selectors.standings.leaderboard_ranks``).
    """

    rating: float
    rd: float
    rated: bool


@dataclass(frozen=True)
class SidePlayer:
    """One player of a fixture's side, as the pages link them."""

    id: int
    name: str
    slug: str


@dataclass(frozen=True)
class FixtureRow:
    """One fixture as the pages, feeds and API show it."""

    id: int
    scheduled_at: dt.datetime  # in the league's time zone
    deadline: dt.date
    player_a_id: int
    player_a: str
    player_a_slug: str
    player_b_id: int
    player_b: str
    player_b_slug: str
    venue: str
    label: str
    status: str
    result: str  # both scores, as the match list writes them, once played
    points: str
    match_seq: int | None
    forecast: OutcomeProbabilities | None  # the first-named player's chances, while open
    #: The sides of a fixture with sides (empty for one player against one).
    sides: tuple[tuple[SidePlayer, ...], ...] = ()
    #: Finishing positions (1 is first) of a played fixture of three or more sides.
    positions: tuple[int, ...] = ()

    @property
    def status_label(self) -> str:
        return STATUS_LABELS[self.status]

    @property
    def has_sides(self) -> bool:
        return bool(self.sides)

    @property
    def names(self) -> list[str]:
        """Each side's name: its players joined ("Ann & Bob"), or the two players."""
        if not self.sides:
            return [self.player_a, self.player_b]
        return [" & ".join(player.name for player in side) for side in self.sides]


def strengths(
    config: RatingConfig | None, player_ids: Iterable[int], clock: ReadClock | None = None
) -> dict[int, Strength]:
    """Each player's published rating and current RD (the initial values while unrated)."""
    ids = set(player_ids)
    if config is None:
        return {pid: Strength(1500.0, 350.0, False) for pid in ids}
    period = ReadClock.period_for(config, clock)
    rows = Standing.objects.filter(config=config, games__gt=0, player_id__in=ids).values_list(
        "player_id", "rating", "rd", "volatility", "last_period"
    )
    found = {
        pid: (rating, rd_now(config, rd, vol, last, period)) for pid, rating, rd, vol, last in rows
    }
    result = {}
    for pid in ids:
        if pid in found:
            rating, rd = found[pid]
            result[pid] = Strength(rating, rd, True)
        else:
            result[pid] = Strength(config.initial_rating, config.initial_rd, False)
    return result


def draw_parameter(league: League, config: RatingConfig | None) -> float:
    """The league's draw parameter ``nu``, fitted on its latest results (0 without draws).

    Each result is predicted from both players' ratings at the start of its period (the
    projection's ``rating_before`` / ``rd_before``); results the published projection has
    not reached yet are left out. The fit is kept in the default cache per position of the
    projection (reading the results costs about a second on the demo league; the fit
    changes only when the projection moves).
    """
    if config is None:
        return 0.0
    position = (
        ProjectionState.objects.filter(config=config)
        .values_list("through_seq", "computed_at")
        .first()
    )
    if position is None:
        return _fit_draw_parameter(league, config)
    key = f"draw-nu:{config.pk}:{position[0]}:{position[1].timestamp()}"
    return caches["default"].get_or_set(key, lambda: _fit_draw_parameter(league, config), 86400)


def _fit_draw_parameter(league: League, config: RatingConfig) -> float:
    matches = list(
        Event.objects.live_matches()
        .filter(league=league)
        .order_by("-played_at", "-seq")
        .values_list("player_a_id", "player_b_id", "score_a", "played_at", "neutral")[
            :DRAW_FIT_MATCHES
        ]
    )
    if not any(score == 0.5 for _a, _b, score, _when, _neutral in matches):
        return 0.0
    spec = period_spec(config)
    zone = league_zone(league)
    indexed = []
    for a, b, score, when, neutral in matches:
        shift = first_named_advantage(config, neutral=neutral)
        try:
            indexed.append((a, b, float(score), shift, spec.index_of(local_day(when, zone))))
        except MatchBeforeAnchorError:
            continue
    if not indexed:
        return 0.0
    first = min(index for *_rest, index in indexed)
    before = {
        (pid, index): (rating, rd)
        for pid, index, rating, rd in PlayerPeriod.objects.filter(
            config=config, period_index__gte=first
        ).values_list("player_id", "period_index", "rating_before", "rd_before")
    }
    rows = [
        (*before[(a, index)], *before[(b, index)], score, shift)
        for a, b, score, shift, index in indexed
        if (a, index) in before and (b, index) in before
    ]
    if not rows:
        return 0.0
    table = np.array(rows, dtype=np.float64)
    expected = win_probability_array(
        table[:, 0], table[:, 1], table[:, 2], table[:, 3], table[:, 5]
    )
    return fit_draw_model(expected, table[:, 4]).nu


def forecasts(
    league: League,
    config: RatingConfig | None,
    pairs: Iterable[tuple[int, int]],
    clock: ReadClock | None = None,
) -> dict[tuple[int, int], OutcomeProbabilities]:
    """The first-named player's win / draw / loss chances for each pair of player ids,
    the first-named player at home (the configuration's advantage)."""
    pairs = list(pairs)
    if not pairs:
        return {}
    known = strengths(config, {pid for pair in pairs for pid in pair}, clock)
    nu = draw_parameter(league, config)
    advantage = first_named_advantage(config)
    return {
        (a, b): outcome_probabilities(
            known[a].rating, known[a].rd, known[b].rating, known[b].rd, nu, advantage
        )
        for a, b in pairs
    }


def side_forecasts(
    league: League,
    config: RatingConfig | None,
    matches: Iterable[tuple[tuple[int, ...], tuple[int, ...]]],
    clock: ReadClock | None = None,
) -> dict[tuple[tuple[int, ...], tuple[int, ...]], OutcomeProbabilities]:
    """Side A's win / draw / loss chances against side B for each pair of sides (player
    ids), by the team-sum model: the sums of each side's ratings (relative to the centre)
    and their RDs in quadrature, side A at home."""
    matches = list(matches)
    if not matches:
        return {}
    known = strengths(config, {pid for a, b in matches for pid in (*a, *b)}, clock)
    nu = draw_parameter(league, config)
    advantage = first_named_advantage(config)

    def total(side: tuple[int, ...]) -> tuple[float, float]:
        centre = 1500.0 if config is None else config.initial_rating
        rating = centre + sum(known[pid].rating - centre for pid in side)
        return rating, math.sqrt(sum(known[pid].rd ** 2 for pid in side))

    result = {}
    for a, b in matches:
        (rating_a, rd_a), (rating_b, rd_b) = total(a), total(b)
        result[(a, b)] = outcome_probabilities(rating_a, rd_a, rating_b, rd_b, nu, advantage)
    return result


def _sides_of(fixture_ids: list[int]) -> dict[int, tuple[tuple[SidePlayer, ...], ...]]:
    """The sides of the fixtures with sides among ``fixture_ids``."""
    members: dict[int, dict[int, list[SidePlayer]]] = {}
    rows = (
        FixtureSide.objects.filter(fixture_id__in=fixture_ids)
        .order_by("fixture_id", "side", "id")
        .values_list("fixture_id", "side", "player_id", "player__display_name", "player__slug")
    )
    for fixture_id, side, pid, name, slug in rows:
        members.setdefault(fixture_id, {}).setdefault(side, []).append(SidePlayer(pid, name, slug))
    return {
        fixture_id: tuple(tuple(sides[x]) for x in sorted(sides))
        for fixture_id, sides in members.items()
    }


def league_today(league: League) -> dt.date:
    """Today in the league's time zone."""
    return local_day(timezone.now(), league_zone(league))


def fixture_rows(
    league: League,
    config: RatingConfig | None,
    *,
    player: Player | None = None,
    statuses: Iterable[str] = (UPCOMING, OVERDUE),
    since: dt.date | None = None,
    limit: int | None = None,
    clock: ReadClock | None = None,
    ids: Iterable[int] | None = None,
) -> list[FixtureRow]:
    """The league's (or one player's) fixtures in the given states, in scheduled order.

    ``since`` keeps fixtures scheduled on or after that local day, ``ids`` the fixtures
    named. Open fixtures carry their forecast.
    """
    wanted = set(statuses)
    zone = league_zone(league)
    today = league_today(league)
    fixtures = Fixture.objects.filter(league=league).select_related("player_a", "player_b")
    if player is not None:
        fixtures = fixtures.filter(
            Q(player_a=player) | Q(player_b=player) | Q(side_rows__player=player)
        ).distinct()
    if ids is not None:
        fixtures = fixtures.filter(pk__in=list(ids))
    if CANCELLED not in wanted:
        fixtures = fixtures.filter(cancelled=False)
    if wanted <= {UPCOMING}:
        fixtures = fixtures.filter(deadline__gte=today)
    if since is not None:
        fixtures = fixtures.filter(scheduled_at__gte=dt.datetime.combine(since, dt.time(), zone))
    fixtures = list(fixtures.order_by("scheduled_at", "pk"))
    if not fixtures:
        return []
    ids_all = [f.pk for f in fixtures]
    played = {
        fixture_id: (seq, score_a, points)
        for fixture_id, seq, score_a, points in Event.objects.live_all_matches()
        .filter(league=league, fixture_id__in=ids_all)
        .values_list("fixture_id", "seq", "score_a", "points")
    }
    with_sides = _sides_of(ids_all)
    chosen: list[tuple[Fixture, str]] = []
    for fixture in fixtures:
        if fixture.cancelled:
            status = CANCELLED
        elif fixture.pk in played:
            status = PLAYED
        elif fixture.deadline < today:
            status = OVERDUE
        else:
            status = UPCOMING
        if status in wanted:
            chosen.append((fixture, status))
        if limit is not None and len(chosen) >= limit:
            break
    open_fixtures = [f for f, status in chosen if status in (UPCOMING, OVERDUE)]
    predicted = forecasts(
        league,
        config,
        [(f.player_a_id, f.player_b_id) for f in open_fixtures if f.pk not in with_sides],
        clock,
    )
    side_pairs = {
        f.pk: _side_ids(with_sides[f.pk])
        for f in open_fixtures
        if f.pk in with_sides and len(with_sides[f.pk]) == 2
    }
    predicted_sides = side_forecasts(league, config, side_pairs.values(), clock)
    positions = _positions(
        league, [seq for seq, score_a, _points in played.values() if score_a is None]
    )
    rows = []
    for fixture, status in chosen:
        seq, score_a, points = played.get(fixture.pk, (None, None, ""))
        sides = with_sides.get(fixture.pk, ())
        forecast = (
            predicted_sides.get(side_pairs[fixture.pk])  # type: ignore[arg-type]
            if fixture.pk in side_pairs
            else None
            if sides
            else predicted.get((fixture.player_a_id, fixture.player_b_id))
        )
        rows.append(
            FixtureRow(
                id=fixture.pk,
                scheduled_at=fixture.scheduled_at.astimezone(zone),
                deadline=fixture.deadline,
                player_a_id=fixture.player_a_id,
                player_a=fixture.player_a.display_name,
                player_a_slug=fixture.player_a.slug,
                player_b_id=fixture.player_b_id,
                player_b=fixture.player_b.display_name,
                player_b_slug=fixture.player_b.slug,
                venue=fixture.venue,
                label=fixture.label,
                status=status,
                result=_result_text(score_a) if score_a is not None else "",
                points=points,
                match_seq=seq,
                forecast=forecast,
                sides=sides,
                positions=positions.get(seq, ()) if seq is not None else (),
            )
        )
    return rows


def _side_ids(sides: tuple[tuple[SidePlayer, ...], ...]) -> tuple[tuple[int, ...], ...]:
    return tuple(tuple(player.id for player in side) for side in sides)


def _positions(league: League, seqs: list[int]) -> dict[int, tuple[int, ...]]:
    """Finishing positions (1 is first) of the matches of three or more sides ``seqs``."""
    if not seqs:
        return {}
    places: dict[int, dict[int, int]] = {}
    rows = MatchParticipant.objects.filter(event__league=league, event__seq__in=seqs)
    for seq, side, place in rows.values_list("event__seq", "side", "place"):
        places.setdefault(seq, {})[side] = place
    return {
        seq: tuple(positions_text([by_side[x] for x in sorted(by_side)]))
        for seq, by_side in places.items()
    }


def _result_text(score_a) -> str:
    return score_text(score_a)
