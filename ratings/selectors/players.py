"""The player read model: a player's summary, rating history, results and head-to-head.

The player page issues a fixed number of small queries whatever the length of the history.
Current RDs are grown to the period of a ``ReadClock``, which the caller builds once for
the page (or each selector reads the current period itself without one).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal

from django.conf import settings
from django.db.models import Count, Q

from engine.intervals import ConfidenceLevel
from engine.prediction import win_probability
from league.calendar import league_zone, local_day
from league.event_log import DEFAULT_PER_PAGE, Page, Span, clamp_page
from league.models import Event, League, Player
from league.scores import outcome_word, points_for
from ratings.models import PlayerPeriod, RatingConfig, Standing
from ratings.selectors.common import (
    Interval,
    ReadClock,
    local_date,
    period_changes,
    rd_now,
)
from ratings.selectors.configurations import live_config
from ratings.selectors.standings import DEFAULT_LEVEL, leaderboard_ranks
from ratings.time import period_spec


@dataclass(frozen=True)
class PlayerSummary(Interval):
    """A player's current standing under one configuration: ``rank`` is the leaderboard's
    (None when unrated or listed separately, ``reasons`` saying why)."""

    player_id: int
    name: str
    slug: str
    active: bool
    rank: int | None
    rating: float
    rd: float
    volatility: float
    games: int
    wins: int
    draws: int
    losses: int
    last_played: dt.date | None
    provisional: bool
    reasons: tuple[str, ...] = ()


@dataclass(frozen=True)
class HistoryPoint(Interval):
    period: int
    start: dt.date
    end: dt.date
    rating: float
    rd: float
    volatility: float
    games: int
    wins: int
    draws: int
    losses: int
    change: float


@dataclass(frozen=True)
class ResultRow:
    seq: int
    played_on: dt.date
    opponent: str
    opponent_slug: str
    score: Decimal
    outcome: str
    points: str
    period: int | None
    rating_change: float | None
    note: str
    #: Whether the player was named first in the match (White, in chess).
    first_named: bool = True


@dataclass(frozen=True)
class HeadToHeadRow:
    opponent_id: int
    opponent: str
    opponent_slug: str
    games: int
    wins: int
    draws: int
    losses: int
    win_probability: float


def player_summary(
    league: League,
    config: RatingConfig | None,
    player: Player,
    *,
    clock: ReadClock | None = None,
    level: ConfidenceLevel = DEFAULT_LEVEL,
) -> PlayerSummary:
    """The player's current rank and rating (the initial values while unrated).

    The rank is the leaderboard's (``leaderboard_ranks``: the league's rules, at ``level``).
    """
    standing = None
    if config is not None:
        standing = (
            Standing.objects.filter(config=config, player=player, games__gt=0)
            .values_list(
                "rating",
                "rd",
                "volatility",
                "last_period",
                "games",
                "wins",
                "draws",
                "losses",
                "last_played_at",
            )
            .first()
        )
    if standing is None:
        rating = config.initial_rating if config else 1500.0
        rd = config.initial_rd if config else 350.0
        vol = config.initial_volatility if config else 0.06
        return PlayerSummary(
            player.pk, player.display_name, player.slug, player.active, None, rating, rd,
            vol, 0, 0, 0, 0, None, True,
        )  # fmt: skip
    rating, rd, vol, last, games, wins, draws, losses, last_played_at = standing
    entry = leaderboard_ranks(league, config, [player.pk], level=level, clock=clock).get(player.pk)
    rd_shown = rd_now(config, rd, vol, last, ReadClock.period_for(config, clock))
    return PlayerSummary(
        player_id=player.pk,
        name=player.display_name,
        slug=player.slug,
        active=player.active,
        rank=None if entry is None else entry.rank,
        rating=rating,
        rd=rd_shown,
        volatility=vol,
        games=games,
        wins=wins,
        draws=draws,
        losses=losses,
        last_played=local_date(last_played_at, league_zone(league)),
        provisional=rd_shown > settings.PROVISIONAL_RD,
        reasons=() if entry is None else entry.reasons,
    )


def player_history(config: RatingConfig, player: Player) -> list[HistoryPoint]:
    """One point per period the player played, oldest first."""
    rows = (
        PlayerPeriod.objects.filter(config=config, player=player)
        .order_by("period_index")
        .values_list(
            "period_index",
            "period_start",
            "period_end",
            "rating",
            "rd",
            "volatility",
            "games",
            "wins",
            "draws",
            "losses",
            "rating_before",
        )
    )
    return [
        HistoryPoint(
            period=index,
            start=start,
            end=end,
            rating=rating,
            rd=rd,
            volatility=vol,
            games=games,
            wins=wins,
            draws=draws,
            losses=losses,
            change=rating - before,
        )
        for index, start, end, rating, rd, vol, games, wins, draws, losses, before in rows
    ]


def player_results(
    league: League,
    player: Player,
    *,
    config: RatingConfig | None = None,
    page: int = 1,
    per_page: int = DEFAULT_PER_PAGE,
    counted: list[int] | None = None,
    between: Span | None = None,
) -> Page:
    """The player's counted matches, newest first, with the rating change of each period.

    A player's matches include those of the players merged into them (they count as theirs);
    ``counted`` is ``counted_ids(player)`` when the caller has read it already. ``between``
    keeps the matches played from its first moment to before its second.

    A page holds whole rating periods (``period_pages``): about ``per_page`` results, more
    when one period alone has more, so that a period's rating change is shown with every
    game that made it.
    """
    page, per_page = clamp_page(page, per_page)
    config = config or live_config(league)
    counted = counted_ids(player) if counted is None else counted
    matches = (
        Event.objects.live_matches()
        .filter(league=league)
        .filter(Q(player_a_id__in=counted) | Q(player_b_id__in=counted))
        .order_by("-played_at", "-seq")
    )
    if between is not None:
        matches = matches.filter(played_at__gte=between[0], played_at__lt=between[1])
    tz = league_zone(league)
    spec = period_spec(config) if config else None
    days = [local_day(moment, tz) for _seq, moment in matches.values_list("seq", "played_at")]
    keys = [spec.index_of(day) if spec and day >= spec.anchor else None for day in days]
    starts = period_pages(keys, per_page)
    total = len(keys)
    page = min(page, len(starts))
    offset = starts[page - 1]
    end = starts[page] if page < len(starts) else total
    fetched = list(
        matches.values_list(
            "seq",
            "played_at",
            "player_a_id",
            "player_a__display_name",
            "player_a__slug",
            "player_b__display_name",
            "player_b__slug",
            "score_a",
            "points",
            "note",
        )[offset:end]
    )
    days = {seq: local_day(played_at, tz) for seq, played_at, *_ in fetched}
    periods, changes = period_changes(config, player.pk, days)
    items = []
    for seq, played_at, a_id, a_name, a_slug, b_name, b_slug, score_a, points, note in fetched:
        as_a = a_id in counted
        score = score_a if as_a else Decimal(1) - score_a
        period = periods[seq]
        items.append(
            ResultRow(
                seq=seq,
                played_on=local_day(played_at, tz),
                opponent=b_name if as_a else a_name,
                opponent_slug=b_slug if as_a else a_slug,
                score=score,
                outcome=outcome_word(score),
                points=points_for(points, as_a),
                period=period,
                rating_change=changes.get(period) if period is not None else None,
                note=note,
                first_named=as_a,
            )
        )
    return PeriodPage(items, total, page, per_page, pages=len(starts))


@dataclass(frozen=True)
class PeriodPage(Page):
    """A page of results cut at rating periods: its own count of pages."""

    pages: int = 1

    @property
    def num_pages(self) -> int:
        return self.pages


def period_pages[K](keys: Sequence[K], per_page: int) -> list[int]:
    """The first index of each page of ``keys`` (each a row's period, rows grouped by
    period): a page takes whole runs of equal keys while it holds at most ``per_page``
    rows; a run longer than that is a page of its own. Always at least one page."""
    starts = [0]
    size = 0
    index = 0
    while index < len(keys):
        run_end = index + 1
        while run_end < len(keys) and keys[run_end] == keys[index]:
            run_end += 1
        run = run_end - index
        if size > 0 and size + run > per_page:
            starts.append(index)
            size = 0
        size += run
        index = run_end
    return starts


def absorbed_players(player: Player) -> list[Player]:
    """The players merged into ``player``, by name."""
    return list(Player.objects.filter(merged_into=player).order_by("display_name"))


def counted_ids(player: Player, absorbed: list[Player] | None = None) -> list[int]:
    """The stored player ids whose matches count as ``player``'s now: the player and those
    merged into them (``absorbed``, read when not given); none for a player merged into
    another (theirs count as that player's)."""
    if player.merged_into_id is not None:
        return []
    absorbed = absorbed_players(player) if absorbed is None else absorbed
    return [player.pk, *(other.pk for other in absorbed)]


def _current_states(
    config: RatingConfig | None, player_ids: Sequence[int], clock: ReadClock | None
) -> dict[int, tuple[float, float]]:
    """(rating, RD grown to now) of each player; unrated players get the initial values."""
    if config is None:
        return dict.fromkeys(player_ids, (1500.0, 350.0))
    now = ReadClock.period_for(config, clock)
    states = dict.fromkeys(player_ids, (config.initial_rating, config.initial_rd))
    for pid, rating, rd, vol, last in Standing.objects.filter(
        config=config, player_id__in=list(player_ids), games__gt=0
    ).values_list("player_id", "rating", "rd", "volatility", "last_period"):
        states[pid] = (rating, rd_now(config, rd, vol, last, now))
    return states


def head_to_head(
    league: League,
    config: RatingConfig | None,
    player: Player,
    *,
    clock: ReadClock | None = None,
    counted: list[int] | None = None,
) -> list[HeadToHeadRow]:
    """Per opponent: the player's W-D-L and the probability they win a next game (with the
    matches of the players merged into them; ``counted`` as for ``player_results``)."""
    live = Event.objects.live_matches().filter(league=league)
    counted = counted_ids(player) if counted is None else counted
    tallies: dict[int, list[int]] = {}
    for mine, theirs in (("player_a", "player_b"), ("player_b", "player_a")):
        won = Decimal("1") if mine == "player_a" else Decimal("0")
        lost = Decimal("0") if mine == "player_a" else Decimal("1")
        grouped = (
            live.filter(**{f"{mine}_id__in": counted})
            .values_list(f"{theirs}_id")
            .annotate(
                wins=Count("pk", filter=Q(score_a=won)),
                draws=Count("pk", filter=Q(score_a=Decimal("0.5"))),
                losses=Count("pk", filter=Q(score_a=lost)),
            )
            .order_by()
        )
        for opponent_id, wins, draws, losses in grouped:
            tally = tallies.setdefault(opponent_id, [0, 0, 0])
            tally[0] += wins
            tally[1] += draws
            tally[2] += losses
    if not tallies:
        return []
    names = {
        pid: (name, slug)
        for pid, name, slug in Player.objects.filter(pk__in=list(tallies)).values_list(
            "pk", "display_name", "slug"
        )
    }
    states = _current_states(config, [player.pk, *tallies], clock)
    mine_rating, mine_rd = states[player.pk]
    rows = []
    for opponent_id, (wins, draws, losses) in tallies.items():
        rating, rd = states[opponent_id]
        name, slug = names[opponent_id]
        rows.append(
            HeadToHeadRow(
                opponent_id=opponent_id,
                opponent=name,
                opponent_slug=slug,
                games=wins + draws + losses,
                wins=wins,
                draws=draws,
                losses=losses,
                win_probability=float(win_probability(mine_rating, mine_rd, rating, rd)),
            )
        )
    rows.sort(key=lambda row: (-row.games, row.opponent))
    return rows


@dataclass(frozen=True)
class SharedMatch:
    """A counted match between two players, from the first one's side."""

    played_on: dt.date
    outcome: str
    points: str
    note: str


@dataclass(frozen=True)
class SharedRecord:
    wins: int
    draws: int
    losses: int
    matches: list[SharedMatch]


def shared_matches(league: League, player_a: Player, player_b: Player) -> SharedRecord:
    """Every counted match between ``player_a`` and ``player_b``, newest first, from A's side."""
    rows = (
        Event.objects.live_matches()
        .filter(league=league)
        .filter(Q(player_a=player_a, player_b=player_b) | Q(player_a=player_b, player_b=player_a))
        .order_by("-played_at", "-seq")
        .values_list("played_at", "player_a_id", "score_a", "points", "note")
    )
    tz = league_zone(league)
    matches = []
    tally = {"Win": 0, "Draw": 0, "Loss": 0}
    for played_at, a_id, score_a, points, note in rows:
        as_a = a_id == player_a.pk
        score = score_a if as_a else Decimal(1) - score_a
        word = outcome_word(score)
        tally[word] = tally.get(word, 0) + 1
        matches.append(SharedMatch(local_day(played_at, tz), word, points_for(points, as_a), note))
    return SharedRecord(tally["Win"], tally["Draw"], tally["Loss"], matches)
