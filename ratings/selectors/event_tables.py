"""An event's table: standings with FIDE tie-breaks, its crosstable, and who wins it.

Read from ``league.competitions.competition_state`` (the one read of a competition), turned
into the plain values of ``league.tiebreaks`` and ``league.crosstables``. The table stands
after the last complete round (every game of it has a result): the tie-breaks are defined
round by round, and a round half played would count its missing games as unplayed.

* Order: the event's tie-breaks as its organisers listed them; common spellings of the FIDE
  codes are read as those (``BH-1`` is ``BH-C1``). A code this site does not compute is
  listed as ignored, not guessed. With none listed: a round robin by direct encounter,
  Sonneborn-Berger and wins; a Swiss event by Buchholz Cut-1, Buchholz, Sonneborn-Berger,
  direct encounter and wins (C.07's recommended families for each).
* Colours: the first-named player is White where the sport is played on a board (no home
  ground, ``league.sports``); elsewhere there are no colours and BPG/BWG are not given.
* Ratings (average rating of opponents): each entrant's seed rating, the event's list.
* Forecast: a round robin plays out every game still to come (each pair meets once a
  cycle); a Swiss event once its last round is paired (its later pairings are not known
  before). Probabilities as on the fixtures page; an unscheduled game's colours unknown,
  its chances are the mean of both orders.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from league import tiebreaks
from league.competition_tiebreaks import event_tournament, tiebreak_order
from league.competitions import CompetitionState, Outcome, competition_state
from league.crosstables import GridRow, SwissRow, round_robin_grid, swiss_table
from league.models import Competition, CompetitionFormat
from ratings.forecasts import DEFAULT_SIMULATIONS, Forecast, Remaining, simulate_places
from ratings.selectors.configurations import live_config
from ratings.selectors.fixtures import forecasts


@dataclass(frozen=True)
class EventLine:
    """One entrant's line: position (shared while level), number, score and tie-breaks."""

    player_id: int
    name: str
    slug: str
    position: int
    number: int
    points: Fraction
    withdrawn_from_round: int | None
    values: dict[str, Fraction | int | float | None]


@dataclass(frozen=True)
class EventTable:
    """An event's standings after ``after_round`` complete rounds, and what goes with them."""

    competition: Competition
    after_round: int
    rounds_paired: int
    order: tuple[str, ...]
    ignored: tuple[str, ...]
    coloured: bool
    lines: list[EventLine]
    grid: list[GridRow] | None
    rounds: list[SwissRow] | None
    forecast: Forecast | None


def _remaining(
    competition: Competition, state: CompetitionState
) -> list[tuple[int, int, bool]] | None:
    """(first, second, scheduled?) for every game still to play, None when not known."""
    pending = [
        (entrant.player_id, entry.opponent_id, True)
        for entrant in state.entrants
        for entry in entrant.rounds
        if entry.outcome == Outcome.PENDING and entry.side == "first" and entry.opponent_id
    ]
    if competition.format == CompetitionFormat.SWISS:
        return pending if state.rounds_paired >= state.planned_rounds else None
    if competition.format != CompetitionFormat.ROUND_ROBIN:
        return None
    active = [e for e in state.entrants if e.plays_in(state.planned_rounds)]
    n = len(active)
    if n < 2:
        return pending
    cycles = max(1, state.planned_rounds // (n - 1 if n % 2 == 0 else n))
    met: Counter[frozenset[int]] = Counter()
    for entrant in state.entrants:
        for entry in entrant.rounds:
            if entry.side == "first" and entry.opponent_id is not None:
                met[frozenset((entrant.player_id, entry.opponent_id))] += 1
    unscheduled = []
    for i, a in enumerate(active):
        for b in active[i + 1 :]:
            left = cycles - met[frozenset((a.player_id, b.player_id))]
            unscheduled.extend([(a.player_id, b.player_id, False)] * max(left, 0))
    return pending + unscheduled


def event_forecast(
    competition: Competition, state: CompetitionState, *, simulations: int = DEFAULT_SIMULATIONS
) -> Forecast | None:
    """Each entrant's chance of winning the event (None when its games are not all known,
    or none is left)."""
    games = _remaining(competition, state)
    if not games:
        return None
    league = competition.league
    pairs = {(a, b) for a, b, _ in games} | {(b, a) for a, b, scheduled in games if not scheduled}
    chances = forecasts(league, live_config(league), sorted(pairs))
    remaining = []
    for a, b, scheduled in games:
        ab = chances[(a, b)]
        if scheduled:
            remaining.append(Remaining(a, b, ab.win, ab.draw, ab.loss))
        else:
            ba = chances[(b, a)]
            remaining.append(
                Remaining(
                    a, b, (ab.win + ba.loss) / 2, (ab.draw + ba.draw) / 2, (ab.loss + ba.win) / 2
                )
            )
    points: dict[object, Decimal] = {e.player_id: e.points for e in state.entrants}
    return simulate_places(points, remaining, simulations=simulations)  # type: ignore[arg-type]


def event_table(competition: Competition, *, with_forecast: bool = True) -> EventTable:
    """The event's standings, crosstable and forecast, as numbers."""
    state = competition_state(competition)
    coloured = not competition.league.has_home_ground
    after = state.complete_rounds
    tournament = event_tournament(state, after, coloured)
    order, ignored = tiebreak_order(competition)
    usable = tuple(code for code in order if coloured or code not in tiebreaks.NEED_COLOURS)
    placings = tiebreaks.rank(tournament, usable)
    by_id = {e.player_id: e for e in state.entrants}
    lines = []
    for number, placing in enumerate(placings, start=1):
        entrant = by_id[placing.player]  # type: ignore[index]
        lines.append(
            EventLine(
                entrant.player_id,
                entrant.name,
                entrant.slug,
                placing.position,
                number,
                placing.score,
                entrant.withdrawn_from_round,
                placing.values,
            )
        )
    ranked = [placing.player for placing in placings]
    grid = rounds = None
    if competition.format == CompetitionFormat.ROUND_ROBIN:
        grid = round_robin_grid(tournament, ranked)
    elif after:
        rounds = swiss_table(tournament, ranked)
    forecast = event_forecast(competition, state) if with_forecast else None
    return EventTable(
        competition,
        after,
        state.rounds_paired,
        usable,
        ignored + tuple(code for code in order if code not in usable),
        coloured,
        lines,
        grid,
        rounds,
        forecast,
    )
