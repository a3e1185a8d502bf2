"""A player's matches with sides: team results, partners and opponents.

Read from the event store (live matches with sides) and, for the rating change, from the
published projection. Every player keeps an individual rating: the change shown is the
player's own over the match's rating period.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from decimal import Decimal

from league.calendar import league_zone, local_day
from league.event_log import SidePlayer, SideText, side_match_texts
from league.models import Event, League, Player
from league.scores import outcome_word
from ratings.models import RatingConfig
from ratings.selectors.common import period_changes

#: Team results shown on a player's page (newest first).
TEAM_RESULTS_SHOWN = 50


@dataclass(frozen=True)
class TeamResultRow:
    """One match with sides from one player's seat."""

    seq: int
    played_on: dt.date
    partners: list[SidePlayer]
    opponents: list[SideText]
    outcome: str
    points: str
    period: int | None
    rating_change: float | None


@dataclass(frozen=True)
class SideRecordRow:
    """Side results with another player: as partners (same side) or as opponents."""

    player: SidePlayer
    games: int
    wins: int
    draws: int
    losses: int


def _score(mine: SideText, theirs: SideText) -> Decimal:
    if mine.position < theirs.position:
        return Decimal("1")
    return Decimal("0.5") if mine.position == theirs.position else Decimal("0")


def _live_side_matches(league: League, player: Player):
    return (
        Event.objects.side_matches()
        .filter(league=league, voided_by__isnull=True, participants__player=player)
        .order_by("-played_at", "-seq")
    )


def team_results(
    league: League, player: Player, *, config: RatingConfig | None, limit: int = TEAM_RESULTS_SHOWN
) -> tuple[list[TeamResultRow], int]:
    """The player's latest counted matches with sides (at most ``limit``) and their number."""
    matches = _live_side_matches(league, player)
    total = matches.count()
    fetched = list(matches.values_list("pk", "seq", "played_at", "points")[:limit])
    texts = side_match_texts([pk for pk, *_ in fetched])
    tz = league_zone(league)
    days = {pk: local_day(played_at, tz) for pk, _seq, played_at, _points in fetched}
    periods, changes = period_changes(config, player.pk, days)
    rows = []
    for pk, seq, _played_at, points in fetched:
        text = texts[pk]
        mine = text.side_of(player.pk)
        assert mine is not None
        others = [side for side in text.sides if side is not mine]
        if len(text.sides) == 2:
            outcome = outcome_word(_score(mine, others[0]))
        else:
            outcome = f"{mine.position_text} of {len(text.sides)}"
        period = periods[pk]
        rows.append(
            TeamResultRow(
                seq=seq,
                played_on=days[pk],
                partners=[p for p in mine.players if p.id != player.pk],
                opponents=others,
                outcome=outcome,
                points=points,
                period=period,
                rating_change=changes.get(period) if period is not None else None,
            )
        )
    return rows, total


def side_records(league: League, player: Player) -> tuple[list[SideRecordRow], list[SideRecordRow]]:
    """(partners, opponents) of the player in matches with sides, most games first.

    Counted in side results, as the standings count them: a game of k sides is k - 1 side
    results for each player (against each other side), so a partner's record in a board
    game of four counts three results.
    """
    ids = list(_live_side_matches(league, player).values_list("pk", flat=True))
    partners: dict[int, tuple[SidePlayer, list[int]]] = {}
    opponents: dict[int, tuple[SidePlayer, list[int]]] = {}
    for text in side_match_texts(ids).values():
        mine = text.side_of(player.pk)
        assert mine is not None
        for other in text.sides:
            if other is mine:
                continue
            # wins, draws, losses
            column = {Decimal("1"): 0, Decimal("0.5"): 1, Decimal("0"): 2}[_score(mine, other)]
            for mate in mine.players:
                if mate.id != player.pk:
                    partners.setdefault(mate.id, (mate, [0, 0, 0]))[1][column] += 1
            for rival in other.players:
                opponents.setdefault(rival.id, (rival, [0, 0, 0]))[1][column] += 1

    def rows(tallies: dict[int, tuple[SidePlayer, list[int]]]) -> list[SideRecordRow]:
        made = [SideRecordRow(who, sum(counts), *counts) for who, counts in tallies.values()]
        return sorted(made, key=lambda row: (-row.games, row.player.name))

    return rows(partners), rows(opponents)
